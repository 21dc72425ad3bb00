"""llms.txt (``llms_txt = true``): the listed pages for a language model to read, as llmstxt.org
specifies: an H1 naming the site (`site_name`, else the home page's title), a blockquote summing
it up (the home page's description), then one H2 section a folder (``## /docs/``; the pages at
the root first, under ``## /``), each page a line ``- [title](url): description`` (``: ...``
only where the page has a description; its URL where it has no title).

It lists exactly the pages of the XML sitemaps, in their order, grouped by folder: written, as
``sitemap.txt`` is, from the chunks read back once they are in place, each URL given the title
and description that head reading found for it in the workers, carried by its row (`Labelled`
keeps each page's line as the rows pass, `Labelled.heard`). It stays under `MAX_LLMS_BYTES`
(10 MiB): a site too large for that gets the pages that fit, and a line saying how many were
left out and where every page is listed (``sitemap.txt`` with ``text_sitemap = true``, else the
index). The lines wait in a private temporary database on disk, and the file is written from it
in pieces (`write_llms`): memory holds a batch of lines, never the file.

What proves it ours, how it is published, kept one build when turned off and then removed, and
refused over a file someone else wrote, is `output.owned`'s, with a record of its own (`KIND`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from sitemapgen._types import Warn
from sitemapgen.entry import Labels, Row
from sitemapgen.output.outdir import Journal
from sitemapgen.output.owned import Kind, OwnedFiles, TextFile, Writing
from sitemapgen.output.text import TEXT_NAME, locs
from sitemapgen.protocol import LLMS_NAME
from sitemapgen.urls import INDEX_NAMES
from sitemapgen.util.faults import Faults
from sitemapgen.util.scratch import kept_aside

#: The most bytes llms.txt may have: past them, pages are left out (and it says so).
MAX_LLMS_BYTES = 10 * 1_048_576
#: Lines put in the table at once.
_BATCH = 1_000
#: What the line saying pages were left out may take, kept free under the bound.
_NOTE_ROOM = 512
KIND = Kind(
    ".sitemapgen-llms",
    "sitemapgen llms 1: the llms.txt a build wrote here, with the digest of its bytes"
    " ('kept': no longer written, removed by the next build); one that no longer has them is not sitemapgen's\n",
    re.compile(r"^llms\.txt$"),
    "llms_txt",
    "an llms.txt",
)
_NONE: Labels = (None, None, None)
_KEPT = "llms.txt's lines"  # what the temporary database keeps (`util.scratch`)


@dataclass(slots=True)
class Labelled:
    """Each listed page's line, by URL, as the rows stream by (`add`), at most about
    `MAX_LLMS_BYTES` of them (then `full`: the rest are left out of llms.txt): in a private
    temporary database on disk, not in memory, until the chunks say their order (`line`)."""

    home: str  # the base URL
    #: Opened with the first line: a build refused before its rows flow opens none (and has none to close).
    opened: sqlite3.Connection | None = None
    pending: list[tuple[str, str]] = field(default_factory=list)  # lines not yet in the table
    size: int = 0
    full: bool = False
    #: The home page's (listed at the base URL, or at its index file's: Sphinx's canonical
    #: ``/index.html``), whose title and description head the file.
    home_labels: Labels = _NONE

    def heard(self, rows: Iterable[Row]) -> Iterator[Row]:
        """`rows`, each page's labels kept on its way (`add`)."""
        for row in rows:
            self.add(row.loc, row.labels)
            yield row

    def add(self, loc: str, labels: Labels | None) -> None:
        labels = labels or _NONE
        if loc == self.home or (loc.startswith(self.home) and loc[len(self.home) :] in INDEX_NAMES):
            self.home_labels = labels
        if self.full:
            return
        line = page_line(loc, labels)
        self.pending.append((loc, line))
        if len(self.pending) >= _BATCH:
            self._flush()
        self.size += len(line)
        self.full = self.size > MAX_LLMS_BYTES

    @property
    def db(self) -> sqlite3.Connection:
        if self.opened is None:
            self.opened = sqlite3.connect("")
            self.opened.execute("CREATE TABLE lines (url TEXT PRIMARY KEY, line TEXT NOT NULL)")
        return self.opened

    def _flush(self) -> None:
        with kept_aside(_KEPT, database_only=True):
            self.db.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?)", self.pending)
        self.pending.clear()

    def line(self, loc: str) -> str | None:
        """The page's line, None where it came past the bound."""
        if self.pending:
            self._flush()
        found = self.db.execute("SELECT line FROM lines WHERE url = ?", (loc,)).fetchone()
        return None if found is None else str(found[0])

    def close(self) -> None:
        if self.opened is not None:
            self.opened.close()
            self.opened = None


def _link_text(text: str) -> str:
    """Markdown link text: its backslashes, ``[`` and ``]`` escaped."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _target(url: str) -> str:
    """A link's URL, with the parentheses that would end it percent-encoded (as they may be)."""
    return url.replace("(", "%28").replace(")", "%29")


def page_line(url: str, labels: Labels) -> str:
    """One page's line: ``- [title](url): description``."""
    title, description, _ = labels
    line = f"- [{_link_text(title or url)}]({_target(url)})"
    return f"{line}: {description}\n" if description else line + "\n"


def _section(url: str, home: str) -> str:
    """The folder a page's URL is in, as its section's heading names it (``/`` at the root)."""
    path = url[len(home) :] if url.startswith(home) else url
    folder, slash, _ = path.partition("/")
    return f"/{unquote(folder)}/" if slash else "/"


def write_llms(
    urls: Iterable[str], labelled: Labelled, writing: Writing, *, site_name: str | None, list_url: str
) -> tuple[int, int]:
    """Write llms.txt for the listed `urls` (in the XML sitemaps' order) to `writing`, and say how
    many pages it lists and left out. `list_url` is where every page is listed, for the line
    saying some were left out. The lines wait in `labelled`'s table, by section, not in memory."""
    home_title, summary, _ = labelled.home_labels
    head = f"# {site_name or home_title or labelled.home}\n\n" + (f"> {summary}\n\n" if summary else "")
    db = labelled.db
    db.execute("CREATE TABLE placed (section INTEGER NOT NULL, line TEXT NOT NULL)")
    sections: dict[str, int] = {"/": 0}  # name -> its place among them; few (the root's folders)
    seen: set[int] = set()
    size = len(head.encode("utf-8")) + _NOTE_ROOM
    listed = left_out = 0
    placed: list[tuple[int, str]] = []
    for url in urls:
        line = labelled.line(url)
        if line is None:  # past the bound when it was collected
            left_out += 1
            continue
        name = _section(url, labelled.home)
        rank = sections.setdefault(name, len(sections))
        grows = len(line.encode("utf-8")) + (0 if rank in seen else len(name.encode("utf-8")) + 6)
        if size + grows > MAX_LLMS_BYTES:
            left_out += 1
            continue
        size += grows
        seen.add(rank)
        placed.append((rank, line))
        if len(placed) >= _BATCH:
            db.executemany("INSERT INTO placed VALUES (?, ?)", placed)
            placed.clear()
        listed += 1
    db.executemany("INSERT INTO placed VALUES (?, ?)", placed)
    db.execute("CREATE INDEX placed_in ON placed (section)")
    if left_out:
        head += (
            f"{left_out:,} of the site's {listed + left_out:,} pages are left out of this file, to keep it under"
            f" {MAX_LLMS_BYTES // 1_048_576} MiB: [{_link_text(list_url)}]({_target(list_url)}) lists every one.\n\n"
        )
    writing.urls = listed
    if not seen:
        writing.add(head.rstrip("\n").encode("utf-8") + b"\n", 0)
        return listed, left_out
    parts, between = [head], ""  # a blank line between sections, none before the first
    for name, rank in sections.items():
        if rank not in seen:
            continue
        parts.append(f"{between}## {name}\n\n")
        between = "\n"
        for (line,) in db.execute("SELECT line FROM placed WHERE section = ? ORDER BY rowid", (rank,)):
            parts.append(line)
            if len(parts) >= _BATCH:
                writing.add("".join(parts).encode("utf-8"), 0)
                parts.clear()
    writing.add("".join(parts).encode("utf-8"), 0)
    return listed, left_out


@dataclass(slots=True)
class LlmsTxt:
    """llms.txt in one build (see `owned.OwnedFiles`): written from the chunks and `labelled`, and
    renamed into place before the index (`publish`), the record settled after it (`settle`)."""

    owned: OwnedFiles
    labelled: Labelled | None
    site_name: str | None
    list_url: str
    left_out: int = 0

    @classmethod
    def prepare(
        cls, out: Path, labelled: Labelled | None, *, site_name: str | None = None, text_sitemap: bool = False
    ) -> LlmsTxt:
        """llms.txt for `out`, where `labelled` is given (the pages' labels, filled before
        `publish`); an error, before anything is written, where an llms.txt there is not ours."""
        owned = OwnedFiles.prepare(KIND, out, on=labelled is not None, first=LLMS_NAME)
        home = labelled.home if labelled is not None else ""
        return cls(owned, labelled, site_name, home + (TEXT_NAME if text_sitemap else "sitemap.xml"))

    @property
    def files(self) -> list[TextFile]:
        return self.owned.files

    def publish(self, chunks: Iterable[Path], journal: Journal, faults: Faults) -> None:
        """Write llms.txt from `chunks` (every sitemap file of ours, in the index's order) and
        rename it into place."""
        if self.labelled is None:
            return
        urls = (url for chunk in chunks for url in locs(chunk))
        writing = self.owned.start(LLMS_NAME, journal, faults)
        try:
            with kept_aside(_KEPT, database_only=True):  # the file's own writes say their own failures
                _, self.left_out = write_llms(
                    urls, self.labelled, writing, site_name=self.site_name, list_url=self.list_url
                )
            writing.finish(faults)
        except BaseException:
            writing.discard()
            raise
        finally:
            self.labelled.close()
        self.owned.place([writing], journal, faults)

    def settle(self, journal: Journal, faults: Faults, warn: Warn) -> None:
        """After the index (see `owned.OwnedFiles.settle`)."""
        self.owned.settle(journal, faults, warn)
