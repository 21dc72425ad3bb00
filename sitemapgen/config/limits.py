"""Where the writer cuts: the `Limits` of a sitemap and an index, one value built once.

The same limits go to the writer (`output.writer`) and to the per-page decision
(`pipeline.decide`, which leaves out an entry too large for a sitemap), so they
travel as this one value, not as separate parameters through every signature.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitemapgen.config.words import Chunking
from sitemapgen.protocol import DEFAULT_BYTES_PER_SITEMAP, DEFAULT_SITEMAPS_PER_INDEX, MAX_URLS_PER_SITEMAP


@dataclass(frozen=True, slots=True)
class Limits:
    """How many URLs and bytes a sitemap holds, how many sitemaps an index lists, where
    chunks are cut (`Chunking`), and the sections that are chunk series of their own
    (their names, in the order their files are listed, after the main series)."""

    max_urls: int = MAX_URLS_PER_SITEMAP
    max_bytes: int = DEFAULT_BYTES_PER_SITEMAP
    max_sitemaps_per_index: int = DEFAULT_SITEMAPS_PER_INDEX
    chunking: Chunking = Chunking.STABLE
    sections: tuple[str, ...] = ()
