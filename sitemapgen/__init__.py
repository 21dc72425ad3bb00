"""sitemapgen: a built static-site directory in, XML sitemaps every search engine accepts out.

The library API is what the CLI uses::

    import sitemapgen
    result = sitemapgen.build(sitemapgen.Config(docroot="public", base_url="https://example.com/"))
    print(result.summary())

`sitemapgen.check.check` and `sitemapgen.validate.validate` are the `check` and
`validate` commands (imported from their modules, so lxml loads only when used).
"""

from __future__ import annotations

__version__ = "0.1.0"

from .build import Listing, build, iter_entries, iter_listing
from .config import ChangeFreq, Chunking, Config, LastmodFormat, RobotsTxt, Rule, Section
from .configfile import load_config
from .decide import Outcome
from .entry import Entry
from .errors import ConfigError, DocrootError, SitemapgenError
from .explain import Explanation, explain
from .gitdates import GitDate, GitSource
from .hosts import HostName
from .lastmod import LastmodSource
from .report import BuildResult
from .skips import Skip, SkipReason
from .urls import UrlStyle, page_url
from .walk import Page, iter_pages
from .writer import SitemapFile, WriteResult, write_sitemaps

__all__ = [
    "BuildResult",
    "ChangeFreq",
    "Chunking",
    "Config",
    "ConfigError",
    "DocrootError",
    "Entry",
    "Explanation",
    "GitDate",
    "GitSource",
    "HostName",
    "LastmodFormat",
    "LastmodSource",
    "Listing",
    "Outcome",
    "Page",
    "RobotsTxt",
    "Rule",
    "Section",
    "SitemapFile",
    "SitemapgenError",
    "Skip",
    "SkipReason",
    "UrlStyle",
    "WriteResult",
    "__version__",
    "build",
    "explain",
    "iter_entries",
    "iter_listing",
    "iter_pages",
    "load_config",
    "page_url",
    "write_sitemaps",
]
