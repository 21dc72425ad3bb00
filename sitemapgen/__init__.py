"""sitemapgen: a built static-site directory in, XML sitemaps every search engine accepts out.

The library API is what the CLI uses::

    import sitemapgen
    config = sitemapgen.load_config("public", base_url="https://example.com/", exclude=["drafts/"])
    result = sitemapgen.build(config)
    print(result.summary())

`load_config` reads ``sitemapgen.toml`` (or ``[tool.sitemapgen]`` in pyproject.toml) where there
is one, and needs none: `base_url` and any other setting are keywords, which win over the file.
`Config(docroot=..., base_url=..., ...)` builds the same settings from keywords alone. A bad
value is a `ConfigError` naming the parameter (``base_url: must start with http:// or https://``).

The other commands are library functions too, in `sitemapgen.commands`: `check`, `diff`,
`indexnow`, `validate` (`sitemapgen.commands.validate.validate`, imported from its module,
so lxml loads only when it is used) and `verify` (`sitemapgen.commands.verify.verify`: the
live site read as a crawler reads it). The package's folders follow the data: see the README's
development section.
"""

from __future__ import annotations

import importlib

from sitemapgen._version import __version__

#: As typing.TYPE_CHECKING (type checkers take it as true), without loading typing: the less
#: this face loads, the less memory the command needs before it can say it has too little.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from sitemapgen.commands.build import build
    from sitemapgen.commands.explain import Explanation, explain
    from sitemapgen.commands.listing import Listing, iter_entries, iter_listing
    from sitemapgen.commands.report import BuildResult
    from sitemapgen.config.loader import load_config
    from sitemapgen.config.settings import Config, Rule, Section
    from sitemapgen.config.words import Chunking, GitDate, GitPages, GitSource, HostName, LastmodSource, RobotsTxt
    from sitemapgen.entry import Entry
    from sitemapgen.errors import ConfigError, DocrootError, SitemapgenError
    from sitemapgen.output.writer import SitemapFile, WriteResult, write_sitemaps
    from sitemapgen.pages.walk import Page, iter_pages
    from sitemapgen.pipeline.decide import Outcome
    from sitemapgen.protocol import ChangeFreq, LastmodFormat
    from sitemapgen.skips import Skip, SkipReason
    from sitemapgen.urls import UrlStyle, page_url

#: Where each name of the face lives. They load on first use (PEP 562), so that ``import
#: sitemapgen.cli`` costs nothing before the command line can answer: a process that runs out
#: of memory while loading (an address space of a few tens of MiB) still gets one line.
_WHERE = {
    "BuildResult": "commands.report",
    "ChangeFreq": "protocol",
    "Chunking": "config.words",
    "Config": "config.settings",
    "ConfigError": "errors",
    "DocrootError": "errors",
    "Entry": "entry",
    "Explanation": "commands.explain",
    "GitDate": "config.words",
    "GitPages": "config.words",
    "GitSource": "config.words",
    "HostName": "config.words",
    "LastmodFormat": "protocol",
    "LastmodSource": "config.words",
    "Listing": "commands.listing",
    "Outcome": "pipeline.decide",
    "Page": "pages.walk",
    "RobotsTxt": "config.words",
    "Rule": "config.settings",
    "Section": "config.settings",
    "SitemapFile": "output.writer",
    "SitemapgenError": "errors",
    "Skip": "skips",
    "SkipReason": "skips",
    "UrlStyle": "urls",
    "WriteResult": "output.writer",
    "build": "commands.build",
    "explain": "commands.explain",
    "iter_entries": "commands.listing",
    "iter_listing": "commands.listing",
    "iter_pages": "pages.walk",
    "load_config": "config.loader",
    "page_url": "urls",
    "write_sitemaps": "output.writer",
}


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
    "GitPages",
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
