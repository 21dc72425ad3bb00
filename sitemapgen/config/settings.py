"""Settings: the frozen `Config`, every value checked once.

Each setting is declared once, on its field (`config.declare`): its help, its check (`values`),
whether a config file and the plugins set it, and on which commands it is a flag. The values are
checked by `Config` itself, so a library user who builds one by hand gets the same checks as the
CLI; the loader's only extra job is to say *where* a bad value came from: the file and key path
(``sitemapgen.toml: rules[2].priority``) or the flag (``--base-url``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

from sitemapgen import protocol
from sitemapgen.config import values
from sitemapgen.config.declare import BUILD, WRITERS, Flag, Panel, declare, settings_of
from sitemapgen.config.include import Include
from sitemapgen.config.limits import Limits
from sitemapgen.config.tables import Rule, Section
from sitemapgen.config.words import (
    DEFAULT_MAX_BYTES,
    Chunking,
    GitDate,
    GitPages,
    GitSource,
    HostName,
    LastmodSource,
    RobotsTxt,
    SiteFacts,
)
from sitemapgen.protocol import LastmodFormat
from sitemapgen.skips import Skip
from sitemapgen.urls import UrlStyle

__all__ = ["Config", "Rule", "Section"]


@dataclass(frozen=True, slots=True)
class Config:
    """Everything one build needs; checked and normalized on construction.

    Each field is a setting declared once (`declare`): its help, its check, and whether a config
    file and the plugins set it and on which commands it is a flag. Past the docroot and the base
    URL, settings are given by keyword.
    """

    docroot: Path = field(
        metadata=declare("The built site: the directory served at the base URL.", check=values.path, file=False)
    )
    base_url: str = field(
        metadata=declare(
            "Absolute URL the docroot is served at, e.g. https://example.com/docs/ (required).",
            check=values.base_url,
            flag=Flag("--base-url", str, "URL"),
        )
    )
    _: KW_ONLY
    out_dir: Path | None = field(
        default=None,
        metadata=declare(
            "Where the files are (served at the base URL). Default: the docroot.",
            check=values.optional(values.path),
            file=False,
            flag=Flag("--out", Path, "DIR"),
        ),
    )
    exclude: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "gitignore-style patterns of files never to list (404.html and dot-paths are left out always).",
            check=values.patterns,
        ),
    )
    rules: tuple[Rule, ...] = field(
        default=(),
        metadata=declare("[[rules]]: the priority and changefreq of the pages a pattern matches.", check=values.rules),
    )
    url_style: UrlStyle = field(
        default=UrlStyle.DIRECTORY,
        metadata=declare(
            "directory: a/index.html -> a/ (default); index: keep index.html; extensionless: a/b.html -> a/b;"
            " clean (with --host): a/index.html -> a, a/b.html -> a/b.",
            check=values.one_of(UrlStyle),
            flag=Flag("--url-style", UrlStyle, "STYLE"),
        ),
    )
    lastmod_format: LastmodFormat = field(
        default=LastmodFormat.DATETIME,
        metadata=declare(
            "datetime: 2004-10-26T08:56:39+00:00 (default); date: 2004-10-26.",
            check=values.one_of(LastmodFormat),
            flag=Flag("--lastmod-format", LastmodFormat, "FORMAT", panel=Panel.LASTMOD),
        ),
    )
    max_urls_per_sitemap: int = field(
        default=protocol.MAX_URLS_PER_SITEMAP,
        metadata=declare(
            "URLs per sitemap file: at most 50,000, the default.",
            check=values.between(1, protocol.MAX_URLS_PER_SITEMAP),
            flag=Flag("--max-urls-per-sitemap", int, "N", commands=WRITERS, panel=Panel.LIMITS),
        ),
    )
    max_bytes_per_sitemap: int = field(
        default=protocol.DEFAULT_BYTES_PER_SITEMAP,
        metadata=declare(
            "Bytes (uncompressed) per sitemap file: default 10,485,760, at most 52,428,800.",
            check=values.between(protocol.MIN_BYTES_PER_SITEMAP, protocol.MAX_BYTES_PER_SITEMAP),
            flag=Flag("--max-bytes-per-sitemap", int, "N", panel=Panel.LIMITS),
        ),
    )
    max_sitemaps_per_index: int = field(
        default=protocol.DEFAULT_SITEMAPS_PER_INDEX,
        metadata=declare(
            "Sitemaps per index file: default 1,000, at most 50,000.",
            check=values.between(1, protocol.MAX_SITEMAPS_PER_INDEX),
            flag=Flag("--max-sitemaps-per-index", int, "N", commands=WRITERS, panel=Panel.LIMITS),
        ),
    )
    sitemapignore: bool = field(
        default=True, metadata=declare("Read DOCROOT/.sitemapignore (gitignore syntax) as well.", check=values.boolean)
    )
    read_heads: bool = field(
        default=True,
        metadata=declare(
            "Read each page's <head> for noindex, canonical, redirects, hreflang (default: on).",
            check=values.boolean,
            flag=Flag("--read-heads", bool, panel=Panel.PAGES),
        ),
    )
    check_noindex: bool = field(
        default=True,
        metadata=declare("Leave out pages whose robots or googlebot meta says noindex.", check=values.boolean),
    )
    check_canonical: bool = field(
        default=True,
        metadata=declare("Leave out pages whose canonical link names another URL of this host.", check=values.boolean),
    )
    check_redirects: bool = field(
        default=True,
        metadata=declare("Leave out meta-refresh redirect stubs (Hugo aliases, ...).", check=values.boolean),
    )
    hreflang: bool = field(
        default=True,
        metadata=declare('Copy <link rel="alternate" hreflang> into <xhtml:link> entries.', check=values.boolean),
    )
    hreflang_x_default: str | None = field(
        default=None,
        metadata=declare(
            "Where a page's cluster has no x-default: the cluster's link in this language, or this URL.",
            check=values.optional(values.x_default),
        ),
    )
    head_max_bytes: int = field(
        default=DEFAULT_MAX_BYTES,
        metadata=declare(
            "How many bytes of a page are read to find its </head>.", check=values.between(1_024, 16 * 1_048_576)
        ),
    )
    lastmod: tuple[LastmodSource, ...] = field(
        default=(LastmodSource.MTIME,),
        metadata=declare(
            "Where lastmod comes from, first answer wins: a comma list of"
            f" {', '.join(source.value for source in LastmodSource)}. Default: mtime.",
            check=values.lastmod,
            flag=Flag("--lastmod", ",", "SOURCE[,SOURCE...]"),
        ),
    )
    git_sources: tuple[GitSource, ...] = field(
        default=(),
        metadata=declare(
            "[[git_sources]]: for lastmod git, the source file (a regex replacement) that dates a page.",
            check=values.git_sources,
        ),
    )
    git_date: GitDate = field(
        default=GitDate.COMMIT,
        metadata=declare(
            "For lastmod git: which time of a commit dates it, commit or author.", check=values.one_of(GitDate)
        ),
    )
    git_pages: GitPages | None = field(
        default=None,
        metadata=declare(
            "The plugins' page -> source file map (not a config file's key).", check=values.git_pages, file=False
        ),
    )
    not_documents: Mapping[str, Skip] | None = field(
        default=None,
        metadata=declare(
            "The plugins' pages that are no document (not-found, search, theme pages): page -> its skip"
            " (not a config file's key).",
            check=values.not_documents,
            file=False,
        ),
    )
    site_facts: SiteFacts | None = field(
        default=None, metadata=declare("The plugins' hreflang clusters and dates.", values.site_facts, file=False)
    )
    state_file: Path | None = field(
        default=None,
        metadata=declare(
            "The content store for --lastmod content.",
            check=values.optional(values.file_path),
            flag=Flag("--state-file", Path, "FILE", panel=Panel.LASTMOD),
        ),
    )
    content_ignore: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "For lastmod content: regexes of volatile parts removed before hashing.", check=values.regexes
        ),
    )
    chunking: Chunking = field(
        default=Chunking.STABLE,
        metadata=declare(
            "stable: one page's change rewrites one sitemap file (default); fill: fill each file to the limits.",
            check=values.one_of(Chunking),
            flag=Flag("--chunking", Chunking, "MODE", commands=WRITERS, panel=Panel.LIMITS),
        ),
    )
    sitemaps: tuple[Section, ...] = field(
        default=(),
        metadata=declare(
            "[[sitemaps]]: sections with a sitemap series of their own (name, pattern).", check=values.sections
        ),
    )
    robots_txt: RobotsTxt = field(
        default=RobotsTxt.OFF,
        metadata=declare(
            "update: add or update the Sitemap: line in DOCROOT/robots.txt; create: also create it; off (default).",
            check=values.one_of(RobotsTxt),
            flag=Flag("--robots-txt", RobotsTxt, "MODE", commands=BUILD),
        ),
    )
    jobs: int | None = field(
        default=None,
        metadata=declare(
            "Processes reading pages (default: one per CPU this process may use; 1: no workers).",
            check=values.optional(values.between(1, 256)),
            flag=Flag("--jobs", int, "N", short="-j", panel=Panel.PAGES),
        ),
    )
    previous: str | None = field(
        default=None,
        metadata=declare(
            "The previous deploy: its index URL (https://example.com/sitemap.xml) or an earlier output's"
            " directory or index. Lastmods of unchanged pages carry over (lastmod 'content'); build says what changed.",
            check=values.optional(values.previous),
            flag=Flag("--previous", str, "URL|PATH", panel=Panel.DEPLOY),
        ),
    )
    content_select: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "For lastmod content: CSS selectors; only the first element one matches is fingerprinted.",
            check=values.selectors,
        ),
    )
    max_removed: float | None = field(
        default=None,
        metadata=declare(
            "Refuse to publish (exit 1) if more than this percent of the previous deploy's URLs would go.",
            check=values.optional(values.percent),
            flag=Flag("--max-removed", float, "PERCENT", commands=BUILD, panel=Panel.DEPLOY),
        ),
    )
    indexnow_key: str | None = field(
        default=None,
        metadata=declare(
            "Write DOCROOT/KEY.txt for IndexNow, to deploy with the site (then: sitemapgen indexnow).",
            check=values.optional(values.indexnow_key),
            flag=Flag("--indexnow-key", str, "KEY", commands=BUILD, panel=Panel.DEPLOY),
        ),
    )
    host: HostName = field(
        default=HostName.PLAIN,
        metadata=declare(
            f"The static host the site is published on ({', '.join(host.value for host in HostName)}): list each"
            " page in the URL form it serves, and leave out what its own files redirect or mark noindex."
            " plain (default): any static server, --url-style decides.",
            check=values.one_of(HostName),
            flag=Flag("--host", HostName, "HOST", panel=Panel.HOSTS),
        ),
    )
    host_config: Path | None = field(
        default=None,
        metadata=declare(
            "The host's file at the project's top: netlify.toml, vercel.json, firebase.json, serve.json."
            " Default: in the docroot, else beside it.",
            check=values.host_config,
            flag=Flag("--host-config", Path, "FILE", panel=Panel.HOSTS),
        ),
    )
    documents: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "gitignore-style patterns of files other than pages (PDFs) listed under their own path.",
            check=values.patterns,
        ),
    )
    stylesheet: bool = field(
        default=False,
        metadata=declare(
            "Write sitemap.xsl beside the index and name it in every file (a view for people).", check=values.boolean
        ),
    )
    html_sitemap: bool = field(
        default=False,
        metadata=declare(
            "Write sitemap.html beside the index: every listed page by its title, grouped by section, for people"
            " (then sitemap-2.html, ... past 1,000 links); a page of the site, listed with the rest.",
            check=values.boolean,
            flag=Flag("--html-sitemap", bool, commands=WRITERS, panel=Panel.OUTPUT),
        ),
    )
    text_sitemap: bool = field(
        default=False,
        metadata=declare(
            "Write sitemap.txt beside the index: the XML sitemaps' URLs, one a line"
            " (then sitemap-2.txt, ... past max_urls_per_sitemap or 50 MiB).",
            check=values.boolean,
            flag=Flag("--text-sitemap", bool, commands=WRITERS, panel=Panel.OUTPUT),
        ),
    )
    llms_txt: bool = field(
        default=False,
        metadata=declare(
            "Write llms.txt at the site's root (llmstxt.org): the listed pages by section, each by its title"
            " and description.",
            check=values.boolean,
            flag=Flag("--llms-txt", bool, commands=WRITERS, panel=Panel.OUTPUT),
        ),
    )
    site_name: str | None = field(
        default=None,
        metadata=declare(
            "The site's name, the heading of llms.txt and sitemap.html (default: the home page's title).",
            check=values.optional(values.one_line),
        ),
    )
    include: tuple[Include, ...] = field(
        default=(),
        metadata=declare(
            "Another build's sitemap or sitemap index to list in the index, served at URL on the base URL's host;"
            " FILE=URL reads it from FILE (a local build's output). Repeat for more; replaces include in the config.",
            check=values.includes,
            flag=Flag("--include", list, "URL", commands=WRITERS, panel=Panel.HOSTS),
        ),
    )
    images: bool = field(
        default=False,
        metadata=declare(
            "List the images each page shows, for Google Images (reads whole pages; default: off).",
            check=values.boolean,
            flag=Flag("--images", bool, panel=Panel.PAGES),
        ),
    )

    def __post_init__(self) -> None:
        """Each setting's check, in field order (a check reads the settings before it, checked)."""
        for name, check in _CHECKS:
            object.__setattr__(self, name, check(getattr(self, name), name, self))

    @property
    def wants_labels(self) -> bool:
        """Whether an output shows each page's title and description (`llms_txt`, `html_sitemap`):
        then head reading reads them, in the same pass (see `pages.signals.LABELS`)."""
        return (self.llms_txt or self.html_sitemap) and self.read_heads

    @property
    def output_dir(self) -> Path:
        """Where the files go: `out_dir`, or the docroot itself."""
        return self.docroot if self.out_dir is None else self.out_dir

    @property
    def limits(self) -> Limits:
        """The writer's limits: the sitemap and index sizes, the chunking and the sections."""
        return Limits(
            self.max_urls_per_sitemap,
            self.max_bytes_per_sitemap,
            self.max_sitemaps_per_index,
            self.chunking,
            tuple(section.name for section in self.sitemaps),
        )

    @property
    def state_path(self) -> Path:
        """The content store: `state_file`, or beside (never inside) the served output."""
        if self.state_file is not None:
            return self.state_file
        out = self.output_dir.resolve()
        return out.parent / f".sitemapgen-state-{out.name}.sqlite"


#: Each setting's check, by its name, in field order.
_CHECKS = tuple((s.name, s.declared.check) for s in settings_of(Config) if s.declared.check is not None)
