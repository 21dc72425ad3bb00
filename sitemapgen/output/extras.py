"""The outputs beside the index that list the index's pages again, for other readers: the HTML
sitemap (`htmlmap`), the text sitemap (`text`) and llms.txt (`llms`), each owned through a
record of its own (`owned`). The HTML sitemap is written as the rows pass (its pages are pages
the sitemaps list), the other two from the chunks once they are in place; all are renamed into
place just before the index, and their records settled after it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sitemapgen._types import Warn
from sitemapgen.entry import Block, Row, each_row
from sitemapgen.output.htmlmap import HtmlSitemap
from sitemapgen.output.llms import Labelled, LlmsTxt
from sitemapgen.output.outdir import Journal
from sitemapgen.output.text import TextSitemaps
from sitemapgen.util.faults import Faults


@dataclass(frozen=True, slots=True)
class Extras:
    """sitemap.html, sitemap.txt and llms.txt in one build."""

    text: TextSitemaps
    llms: LlmsTxt
    html: HtmlSitemap | None  # prepared by the caller, who decides its pages

    @classmethod
    def prepare(
        cls,
        out: Path,
        *,
        text_sitemap: bool,
        max_urls: int,
        labelled: Labelled | None,
        site_name: str | None,
        html: HtmlSitemap | None = None,
    ) -> Extras:
        """What `out` is to get; an error, before anything is written, where a file there that
        one of them would replace is not ours."""
        return cls(
            TextSitemaps.prepare(out, on=text_sitemap, max_urls=max_urls),
            LlmsTxt.prepare(out, labelled, site_name=site_name, text_sitemap=text_sitemap),
            html,
        )

    def around(
        self, rows: Iterable[Row | Block], journal: Journal, faults: Faults, *, room: int
    ) -> Iterable[Row | Block]:
        """The rows to write: `rows`, and where the HTML sitemap is on, its own after them; their
        labels heard on the way for llms.txt, where it is on (both see each row: blocks are read
        row by row for them). A row larger than `room` the writer leaves out: the map does not
        list it either."""
        html = self.html if self.html is not None and self.html.on else None
        labelled = self.llms.labelled
        if html is None and labelled is None:
            return rows
        each: Iterable[Row] = each_row(rows)
        if html is not None:
            each = html.around(each, journal, faults, room=room)
        if labelled is not None:
            each = labelled.heard(each)
        return each

    def abort(self) -> None:
        """The build failed: what was written for it goes."""
        if self.html is not None:
            self.html.abort()
        if self.llms.labelled is not None:
            self.llms.labelled.close()

    def publish(self, chunks: Sequence[Path], journal: Journal, faults: Faults) -> None:
        """Write each from `chunks` (every sitemap file of ours, in the index's order) and rename
        it into place; the HTML sitemap's pages, written already, too."""
        if self.html is not None:
            self.html.publish(journal, faults)
        self.text.publish(chunks, journal, faults)
        self.llms.publish(chunks, journal, faults)

    def settle(self, journal: Journal, faults: Faults, warn: Warn) -> None:
        """After the index: their records settled."""
        if self.html is not None:
            self.html.settle(journal, faults, warn)
        self.text.settle(journal, faults, warn)
        self.llms.settle(journal, faults, warn)
