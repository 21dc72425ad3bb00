"""A batch's outcomes as they leave the decision: each run of pages that need nothing but writing
as one `Block`, the few others as they are.

Most listed pages of a build carry no warning, note, labels or content key, are dated within the
plausible years and fit in any sitemap: once decided, all that is left of them is their
``<url>`` bytes (with their hreflang links, which the hreflang stage reads from them). A worker
sends a run of them as one `Block` (columns, not an `Outcome` and a `Row` each), and the main
process, which is one CPU for the whole build, counts it and passes it on whole
(`pipeline.flow`), through the hreflang stage and the deploy memory to the writer. The pages
that need words (a skip, a warning, a note, a date to settle) go as before, in their place; but
a compiled run (`quick.HeadRead`) lists pages whose only words are notes of their heads (a
theme's hreflang cluster, Sphinx 7's canonical: the same on every page of a site) in its block,
the notes with it. The
same happens to the outcomes of the batches decided in the main process, so the output is the
same bytes whatever the number of workers.
"""

from __future__ import annotations

from collections.abc import Sequence

from sitemapgen.entry import Block
from sitemapgen.pipeline.decide import Outcome, pack, unpack
from sitemapgen.util.parallel import Wire

#: What a batch's results are once gathered: outcomes, and blocks of rows.
Gathered = list[Outcome | Block]


class Blocking:
    """Gathers a batch's plain outcomes into blocks (see the module's docstring): listed, nothing
    said, no key, no labels, in the main section, dated by one source within `low`..`high` (POSIX
    times: `lastmod.chain.OddDates`), at most `room` bytes."""

    def __init__(self, *, room: int, low: float, high: float) -> None:
        self.room = room
        self.low = low
        self.high = high
        #: How a batch crosses from a worker: gathered there, the outcomes left packed as plain tuples.
        self.wire: Wire[Outcome | Block] = Wire(self._packed, unpack)

    def __call__(self, outcomes: Sequence[Outcome | Block]) -> Gathered:
        """`outcomes`, each run of plain ones (of one lastmod source) as one `Block`; a block
        among them (gathered in a worker) as it is."""
        gathered: Gathered = []
        block: Block | None = None
        for outcome in outcomes:
            if isinstance(outcome, Block):
                block = None
                gathered.append(outcome)
                continue
            row = outcome.row
            if (
                row is None
                or outcome.entry is not None
                or outcome.warnings
                or outcome.notes
                or outcome.key is not None
                or outcome.labels is not None
                or (source := outcome.lastmod_source) is None
                or row.section
                or (key := row.lastmod_key) is None
                or not self.admits(key, xml := row.xml)
            ):
                block = None
                gathered.append(outcome)
                continue
            if block is None or block.source != source:
                block = Block([], [], [], [], source)
                gathered.append(block)
            block.locs.append(row.loc)
            block.xmls.append(xml)
            block.keys.append(key)
            block.texts.append(row.lastmod_text)  # type: ignore[arg-type]  # dated: it has its text
        return gathered

    def admits(self, key: float, xml: bytes) -> bool:
        """Whether a plain row, dated `key` (POSIX time) and written `xml`, goes in a block."""
        return self.low <= key <= self.high and len(xml) <= self.room

    def _packed(self, outcomes: list[Outcome | Block]) -> Sequence[object]:
        """A worker's outcomes gathered, the rest packed (`decide.pack`)."""
        return pack(self(outcomes))
