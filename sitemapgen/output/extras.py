"""The outputs beside the index that list the index's pages again, for other readers: the text
sitemap (`text`) and llms.txt (`llms`), each owned through a record of its own (`owned`). Both
are written from the chunks once they are in place, and renamed into place just before the
index; their records are settled after it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sitemapgen._types import Warn
from sitemapgen.output.llms import Labelled, LlmsTxt
from sitemapgen.output.outdir import Journal
from sitemapgen.output.text import TextSitemaps
from sitemapgen.util.faults import Faults


@dataclass(frozen=True, slots=True)
class Extras:
    """sitemap.txt and llms.txt in one build."""

    text: TextSitemaps
    llms: LlmsTxt

    @classmethod
    def prepare(
        cls, out: Path, *, text_sitemap: bool, max_urls: int, labelled: Labelled | None, site_name: str | None
    ) -> Extras:
        """What `out` is to get; an error, before anything is written, where a file there that
        one of them would replace is not ours."""
        return cls(
            TextSitemaps.prepare(out, on=text_sitemap, max_urls=max_urls),
            LlmsTxt.prepare(out, labelled, site_name=site_name, text_sitemap=text_sitemap),
        )

    def publish(self, chunks: Sequence[Path], journal: Journal, faults: Faults) -> None:
        """Write each from `chunks` (every sitemap file of ours, in the index's order) and rename
        it into place."""
        self.text.publish(chunks, journal, faults)
        self.llms.publish(chunks, journal, faults)

    def settle(self, journal: Journal, faults: Faults, warn: Warn) -> None:
        """After the index: their records settled."""
        self.text.settle(journal, faults, warn)
        self.llms.settle(journal, faults, warn)
