"""The text sitemap (``text_sitemap = true``): ``sitemap.txt`` beside the index, one URL a line.

Its lines are exactly the URLs of the XML sitemaps in the index's order (the sections, then
each one's chunks): it is written from the chunks themselves, read back one at a time once they
are all in place, so memory holds one line, never the site. UTF-8, a URL and a newline per line;
past `max_urls` URLs or 50 MiB (`MAX_TEXT_BYTES`, the protocol's bound of a text sitemap) the
next file is ``sitemap-2.txt``, then ``sitemap-3.txt``, ... robots.txt names the XML index only.

A text file is nothing but its URLs (a search engine reads every line as one), so it cannot carry
a mark of ours as ``sitemap.xsl`` does. What proves a text sitemap ours is a record the build
keeps beside ``.sitemapgen-retired``: `RECORD_NAME`, naming each text file it wrote and the
digest of its bytes; how it is written, published, kept and removed is `output.owned`'s, which
``llms.txt`` shares.
"""

from __future__ import annotations

import gzip
import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sitemapgen._types import Warn
from sitemapgen.output.outdir import Journal
from sitemapgen.output.owned import Kind, OwnedFiles, TextFile, Writing
from sitemapgen.protocol import LOC, MAX_BYTES_PER_SITEMAP
from sitemapgen.util.faults import Faults

__all__ = ["MAX_TEXT_BYTES", "RECORD_NAME", "TEXT_NAME", "TextFile", "TextSitemaps", "locs", "text_name"]

TEXT_NAME = "sitemap.txt"
#: A text sitemap's name: ``sitemap.txt``, then ``sitemap-2.txt``, ...
TEXT_FILE = re.compile(r"^sitemap(?:-(?:[2-9]|[1-9][0-9]+))?\.txt$")
#: The protocol's bound of a text sitemap, in bytes (its URLs' bound is `max_urls`, 50,000 at most).
MAX_TEXT_BYTES = MAX_BYTES_PER_SITEMAP
RECORD_NAME = ".sitemapgen-text"
KIND = Kind(
    RECORD_NAME,
    "sitemapgen text 1: the text sitemaps a build wrote here, each with the digest of its bytes"
    " ('kept': no longer written, removed by the next build); one that no longer has them is not sitemapgen's\n",
    TEXT_FILE,
    "text_sitemap",
    "a text sitemap",
)


def text_name(number: int) -> str:
    """``sitemap.txt`` for the first text sitemap, ``sitemap-N.txt`` after it."""
    return TEXT_NAME if number == 1 else f"sitemap-{number}.txt"


def locs(chunk: Path) -> Iterator[str]:
    """The URLs of one of our sitemap files, in order: its ``<url>``s' ``<loc>``s (an image's
    ``<image:loc>`` is not one), unescaped, one entry a line as the writer writes them."""
    with gzip.open(chunk, "rb") as f:
        for line in f:
            match = LOC.search(line)
            if match is not None:
                loc = match[1].decode("utf-8")
                yield html.unescape(loc) if "&" in loc else loc


@dataclass(slots=True)
class TextSitemaps:
    """The text sitemaps of one build (see `owned.OwnedFiles`): written from the chunks and
    renamed into place before the index (`publish`), the record settled after it (`settle`)."""

    owned: OwnedFiles
    max_urls: int

    @classmethod
    def prepare(cls, out: Path, *, on: bool, max_urls: int) -> TextSitemaps:
        """The text sitemaps `out` is to get (none where `on` is false); an error, before anything
        is written, where a ``sitemap.txt`` there is not ours to replace."""
        return cls(OwnedFiles.prepare(KIND, out, on=on, first=TEXT_NAME), max_urls)

    @property
    def files(self) -> list[TextFile]:
        return self.owned.files

    def publish(self, chunks: Iterable[Path], journal: Journal, faults: Faults) -> None:
        """Write the text sitemaps from `chunks` (every sitemap file of ours, in the index's order)
        and rename them into place."""
        if self.owned.on:
            self.owned.place(self._write(chunks, journal, faults), journal, faults)

    def _write(self, chunks: Iterable[Path], journal: Journal, faults: Faults) -> list[Writing]:
        written: list[Writing] = []
        current: Writing | None = None
        try:
            for chunk in chunks:
                for loc in locs(chunk):
                    line = loc.encode("utf-8") + b"\n"
                    if current is None or current.urls >= self.max_urls or current.size + len(line) > MAX_TEXT_BYTES:
                        if current is not None:
                            current.finish(faults)
                        current = self.owned.start(text_name(len(written) + 1), journal, faults)
                        written.append(current)
                    current.add(line)
            if current is not None:
                current.finish(faults)
        except BaseException:
            for w in written:
                w.discard()
            raise
        return written

    def settle(self, journal: Journal, faults: Faults, warn: Warn) -> None:
        """After the index (see `owned.OwnedFiles.settle`)."""
        self.owned.settle(journal, faults, warn)
