"""sitemapgen: a built static-site directory in, XML sitemaps every search engine accepts out.

The library API is what the CLI uses::

    import sitemapgen
    result = sitemapgen.build(sitemapgen.Config(docroot="public", base_url="https://example.com/"))
    print(result.summary())
"""

from __future__ import annotations

__version__ = "0.1.0"

from .build import BuildResult, build, iter_entries
from .config import ChangeFreq, Config, LastmodFormat, Rule, load_config
from .errors import ConfigError, DocrootError, SitemapgenError
from .urls import UrlStyle, page_url
from .walk import Page, Skip, SkipReason, iter_pages
from .writer import Entry, SitemapFile, WriteResult, write_sitemaps

__all__ = [
    "BuildResult",
    "ChangeFreq",
    "Config",
    "ConfigError",
    "DocrootError",
    "Entry",
    "LastmodFormat",
    "Page",
    "Rule",
    "SitemapFile",
    "SitemapgenError",
    "Skip",
    "SkipReason",
    "UrlStyle",
    "WriteResult",
    "__version__",
    "build",
    "iter_entries",
    "iter_pages",
    "load_config",
    "page_url",
    "write_sitemaps",
]
