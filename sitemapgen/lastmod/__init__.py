"""Where a page's ``<lastmod>`` comes from: a chain of sources, first answer wins."""

from sitemapgen.lastmod.chain import SOURCES, LastmodChain, Source, parse_datetime

__all__ = ["SOURCES", "LastmodChain", "Source", "parse_datetime"]
