"""The chunks being filled, one open chunk a section: where the writer adds each row, and cuts.

A chunk is closed before a row that would pass a limit (`Limits.max_urls`, `max_bytes`) and
after a row whose URL is a cut point (content-defined chunking: about one URL in a fifth of
`max_urls`, decided by the URL's hash alone, see `writer`). A `Block` of rows is added as
whole runs, from one cut point to the next, where a run fits in the open chunk (nearly always:
a chunk holds 10,000 rows and more): one call for hundreds of rows, and the same chunks, byte
for byte, as adding them one by one, which is what a run that does not fit gets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate, islice
from zlib import crc32

from sitemapgen.config.limits import Limits
from sitemapgen.config.words import Chunking
from sitemapgen.entry import URLSET_CLOSE, Block, Row
from sitemapgen.output.chunks import Chunk, Closing, Publisher, temp_name
from sitemapgen.skips import Skip, SkipReason


class Filling:
    """The open chunks (see the module's docstring). `opening` begins each chunk, and a row
    larger than `room` fits in none: it is left out, and `skip` hears of it. `aside` says
    whether a chunk begun now is compressed in a thread (see `chunks.Chunk`)."""

    def __init__(
        self,
        publisher: Publisher,
        closing: Closing,
        *,
        limits: Limits,
        opening: bytes,
        room: int,
        skip: Callable[[Skip], None],
        aside: Callable[[], bool],
    ) -> None:
        self.publisher = publisher
        self.closing = closing
        self.max_urls = limits.max_urls
        self.max_bytes = limits.max_bytes - len(URLSET_CLOSE)  # what a chunk holds before its end
        self.every = max(1, limits.max_urls // 5) if limits.chunking is Chunking.STABLE else 0
        self.opening = opening
        self.room = room
        self.skip = skip
        self.aside = aside
        self.open: dict[str, Chunk] = {}

    def add(self, row: Row) -> None:
        """One row, in its section's chunk."""
        xml, section = row.xml, row.section
        size = len(xml)
        if size > self.room:
            self.skip(Skip(row.loc, SkipReason.ENTRY_TOO_LARGE, f"{size:,} bytes"))
            return
        chunk = self.open.get(section)
        if chunk is not None and (chunk.urls >= self.max_urls or chunk.size + size > self.max_bytes):
            self.close(section)
            chunk = None
        if chunk is None:
            chunk = self._begin(section)
        chunk.add(xml, size, row.lastmod_key, row.lastmod_text)
        if _cut_points((row.loc,), self.every):
            self.close(section)

    def add_block(self, block: Block) -> None:
        """A block's rows, in the main section's chunks: each run up to a cut point at once
        where it fits, else row by row."""
        xmls, locs, keys = block.xmls, block.locs, block.keys
        sizes = list(map(len, xmls))
        if max(sizes) > self.room:  # a row no chunk holds (beside a stylesheet's line): said row by row
            for row in block.rows():
                self.add(row)
            return
        runs = [(i + 1, True) for i in _cut_points(locs, self.every)]
        if not runs or runs[-1][0] != len(xmls):
            runs.append((len(xmls), False))
        offsets = [0, *accumulate(sizes)]
        start = 0
        for end, cuts in runs:
            chunk = self.open.get("")
            if chunk is None:
                chunk = self._begin("")
            size = offsets[end] - offsets[start]
            if chunk.urls + end - start > self.max_urls or chunk.size + size > self.max_bytes:
                for row in islice(block.rows(), start, end):
                    self.add(row)  # a limit is passed inside the run: the chunk closes there, as for any row
            else:
                newest = max(range(start, end), key=keys.__getitem__)  # the first of the newest, as `Chunk.add`
                chunk.add_many(xmls[start:end], size, keys[newest], block.texts[newest])
                if cuts:
                    self.close("")
            start = end

    def _begin(self, section: str) -> Chunk:
        publisher = self.publisher
        tmp = temp_name(publisher.out_dir, "sitemap-new.xml.gz", publisher.journal)
        chunk = self.open[section] = Chunk(tmp, publisher.faults, self.opening, aside=self.aside())
        return chunk

    def close(self, section: str) -> None:
        """Close `section`'s open chunk."""
        self.closing.close(section, self.open.pop(section))

    def close_all(self, order: list[str]) -> None:
        """Close every open chunk, sections in `order`."""
        for section in order:
            if section in self.open:
                self.close(section)

    def abort(self) -> None:
        """Remove every open chunk's temporary file."""
        for chunk in self.open.values():
            chunk.abort()


def _cut_points(locs: Sequence[str], every: int) -> list[int]:
    """The places in `locs` of the URLs a chunk ends after (content-defined cut points: a URL
    whose hash falls in a 1-in-`every` bucket; none where `every` is 0)."""
    if every <= 1:
        return list(range(len(locs))) if every else []
    return [i for i, loc in enumerate(locs) if crc32(loc.encode("utf-8")) % every == 0]
