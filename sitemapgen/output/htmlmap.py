"""The HTML sitemap (``html_sitemap = true``): ``sitemap.html`` beside the index, then
``sitemap-2.html``, ... (`htmlpages.MAX_LINKS` links a page), for people and crawlers: every
page the XML sitemaps list, by its title, grouped by section (`output.htmlpages` says what a
page shows).

It lists the rows the writer writes, in their order: each row passes through `HtmlSitemap.around`
on its way to the chunks, and its link (URL, title, language, date, the other languages of its
cluster) goes to a spool, an unnamed temporary file, so memory holds one page of links, never
the site. The titles come from the head reading that decided the page, in the workers, carried
by each row (`Row.labels`). Once the last row has passed, the pages are
written under temporary names the journal knows, each dated by the newest lastmod among the
pages it lists (its mtime, so a rebuild of the same site gives the same dates and bytes), and then
decided as any page of the site is (`Decide`: exclude, robots.txt, the host's URL form, the rules
of priority and sections): the rows of those listed end the stream, so the XML sitemaps, and
so ``sitemap.txt`` and ``llms.txt``, list them. A map does not list itself.

Proved ours, published (renamed into place before the index), kept one build when turned off
and then removed, and refused over a file someone else wrote as `output.owned` does it, with a
record of its own (`KIND`). The walk passes over the files the record proves ours (`ours`): the
build lists the map it writes, not the one an earlier build left.
"""

from __future__ import annotations

import contextlib
import html
import os
import pickle
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from sitemapgen.entry import Labels, Row
from sitemapgen.output.htmlpages import HTML_NAME, MAX_LINKS, Link, Site, html_name, page, section
from sitemapgen.output.outdir import Journal
from sitemapgen.output.owned import Kind, OwnedFiles, TextFile, Writing
from sitemapgen.output.published import file_digest
from sitemapgen.urls import INDEX_NAMES
from sitemapgen.util.faults import Faults

__all__ = ["HTML_NAME", "KIND", "Decide", "HtmlSitemap", "TextFile", "html_name"]

KIND = Kind(
    ".sitemapgen-html",
    "sitemapgen html 1: the HTML sitemap pages a build wrote here, each with the digest of its bytes"
    " ('kept': no longer written, removed by the next build); one that no longer has them is not sitemapgen's\n",
    re.compile(r"^sitemap(?:-(?:[2-9]|[1-9][0-9]+))?\.html$"),
    "html_sitemap",
    "an HTML sitemap page",
)
#: A page of the map decided as a page of the site: its name and where it is written now, to its
#: row (None: left out, the caller said why).
Decide = Callable[[str, Path], Row | None]
_NONE: Labels = (None, None, None)
_ALTERNATE = re.compile(rb'<xhtml:link rel="alternate" hreflang="([^"]*)" href="([^"]*)"/>')


def _others(row: Row) -> tuple[tuple[str, str], ...]:
    """The other pages of a row's hreflang cluster (not x-default), as (hreflang, href)."""
    if b"<xhtml:link" not in row.xml:
        return ()
    found = ((html.unescape(h.decode()), html.unescape(u.decode())) for h, u in _ALTERNATE.findall(row.xml))
    return tuple((hreflang, href) for hreflang, href in found if href != row.loc and hreflang.lower() != "x-default")


@dataclass(slots=True)
class HtmlSitemap:
    """The HTML sitemap of one build: its links collected as rows pass (`around`), its pages
    placed before the index (`publish`), the record settled after it (`settle`)."""

    owned: OwnedFiles
    decide: Decide
    site_name: str | None
    home: str
    home_labels: Labels = (None, None, None)
    written: list[Writing] = field(default_factory=list)

    @classmethod
    def prepare(cls, out: Path, *, on: bool, home: str, decide: Decide, site_name: str | None = None) -> HtmlSitemap:
        """The map `out` is to get (none where `on` is false); an error, before anything is
        written, where a ``sitemap.html`` there is not ours to replace."""
        return cls(OwnedFiles.prepare(KIND, out, on=on, first=HTML_NAME), decide, site_name, home)

    @property
    def on(self) -> bool:
        return self.owned.on

    @property
    def files(self) -> list[TextFile]:
        return self.owned.files

    def ours(self) -> list[str]:
        """The names of the map's pages in the output directory that its record proves ours."""
        record = self.owned.record
        return [
            name
            for name in sorted({*record.live, *record.kept})
            if file_digest(self.owned.out / name) in record.digests(name)
        ]

    def around(self, rows: Iterable[Row], journal: Journal, faults: Faults, *, room: int) -> Iterator[Row]:
        """`rows`, each seen on its way (but one larger than `room`, which the writer leaves out);
        then the rows of the map's own pages, written now (only where `on`: a build without the map
        does not pass its rows through here)."""
        newest: list[float | None] = []  # each page's newest lastmod (POSIX time)
        count = 0
        with tempfile.TemporaryFile() as spool:
            home = self.home
            for row in rows:
                if len(row.xml) > room:
                    yield row
                    continue
                labels = row.labels or _NONE
                loc = row.loc
                if loc == home or (loc.startswith(home) and loc[len(home) :] in INDEX_NAMES):
                    self.home_labels = labels
                text = row.lastmod_text
                pickle.dump(Link(loc, labels[0], labels[2], text[:10] if text else None, _others(row)), spool)
                if count % MAX_LINKS == 0:
                    newest.append(None)
                key = row.lastmod_key
                if key is not None and (newest[-1] is None or key > newest[-1]):
                    newest[-1] = key
                count += 1
                yield row
            if count:
                self._write(spool, count, journal, faults)
        yield from self._own_rows(newest)

    def _write(self, spool: IO[bytes], count: int, journal: Journal, faults: Faults) -> None:
        """Write the map's pages from the spool of `count` links."""
        spool.seek(0)
        title, _, lang = self.home_labels
        site = Site(self.home, self.site_name or title or self.home, lang, -(-count // MAX_LINKS), count)
        continued: str | None = None
        for number in range(1, site.pages + 1):
            links = [pickle.load(spool) for _ in range(min(MAX_LINKS, count - (number - 1) * MAX_LINKS))]
            writing = self.owned.start(html_name(number), journal, faults)
            self.written.append(writing)
            for text in page(number, links, site, continued=continued):
                writing.add(text.encode("utf-8"), 0)
            writing.urls = len(links)
            writing.finish(faults)
            continued = section(links[-1].url, self.home)

    def _own_rows(self, newest: list[float | None]) -> Iterator[Row]:
        """The rows of the map's pages, each dated by the newest lastmod it lists."""
        for writing, dated in zip(self.written, newest, strict=True):
            if dated is not None:
                ns = round(dated * 1e9)
                os.utime(writing.tmp, ns=(ns, ns))
            row = self.decide(writing.name, writing.tmp)
            if row is not None:
                yield row

    def abort(self) -> None:
        """The build failed: the pages written go."""
        for writing in self.written:
            with contextlib.suppress(OSError):
                writing.discard()
        self.written.clear()

    def publish(self, journal: Journal, faults: Faults) -> None:
        """Rename the pages written into place."""
        if self.written:
            self.owned.place(self.written, journal, faults)
            self.written = []

    def settle(self, journal: Journal, faults: Faults, warn: Callable[..., None]) -> None:
        """After the index (see `owned.OwnedFiles.settle`)."""
        self.owned.settle(journal, faults, warn)
