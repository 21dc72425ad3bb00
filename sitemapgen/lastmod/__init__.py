"""Where a page's ``<lastmod>`` comes from: a chain of sources, first answer wins (`chain`).

One module per source (`mtime`, `meta`, `git`, `content`), each a `Source` (`base`); the content
source remembers what it saw in the `store`; `git`, given no page -> source map, reads the one a
generator's plugin left in the docroot (`pagesources`). To add a source: a `LastmodSource` member
in `sitemapgen.config.words`, its `Source` subclass in a module of its own here, and its entry in
`chain.SOURCES`; the config, the CLI help and the chain take it from there.
"""

from sitemapgen.lastmod.base import Source, mtime_lastmod, parse_datetime
from sitemapgen.lastmod.chain import SOURCES, LastmodChain
from sitemapgen.lastmod.content import ContentLastmod
from sitemapgen.lastmod.git import GitDates, GitLastmod, read_git_dates
from sitemapgen.lastmod.meta import MetaLastmod
from sitemapgen.lastmod.mtime import MtimeLastmod
from sitemapgen.lastmod.store import ContentStore

__all__ = [
    "SOURCES",
    "ContentLastmod",
    "ContentStore",
    "GitDates",
    "GitLastmod",
    "LastmodChain",
    "MetaLastmod",
    "MtimeLastmod",
    "Source",
    "mtime_lastmod",
    "parse_datetime",
    "read_git_dates",
]
