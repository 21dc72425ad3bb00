"""Settings: the frozen `Config` and its parts, every value checked once.

Each setting is declared once, on its field (`config.declare`). Every value is validated in the
dataclasses themselves, so a library user who
builds a `Config` by hand gets the same checks as the CLI. The loader's only
extra job is to say *where* a bad value came from: the file and key path
(``sitemapgen.toml: rules[2].priority``) or the flag (``--base-url``).
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

from sitemapgen.config.checks import (
    check_bool,
    check_file_path,
    check_indexnow_key,
    check_int,
    check_pattern,
    check_percent,
    check_regexes,
    check_table,
    check_tables,
    enum_value,
    list_hint,
)
from sitemapgen.config.declare import BUILD, WRITERS, Check, Panel, declare, settings_of
from sitemapgen.config.include import Include, check_includes
from sitemapgen.config.limits import Limits
from sitemapgen.config.words import (
    DEFAULT_MAX_BYTES,
    Chunking,
    GitDate,
    GitPages,
    GitSource,
    HostName,
    LastmodSource,
    RobotsTxt,
)
from sitemapgen.errors import ConfigError, NeedsSetting
from sitemapgen.protocol import (
    DEFAULT_BYTES_PER_SITEMAP,
    DEFAULT_SITEMAPS_PER_INDEX,
    LANGUAGE,
    MAX_BYTES_PER_SITEMAP,
    MAX_SITEMAPS_PER_INDEX,
    MAX_URLS_PER_SITEMAP,
    MIN_BYTES_PER_SITEMAP,
    ChangeFreq,
    LastmodFormat,
)
from sitemapgen.urls import UrlStyle, normalize_base_url, resolve_href


@dataclass(frozen=True, slots=True)
class Rule:
    """Sets priority and/or changefreq for the pages a pattern matches.

    Later rules win, field by field, so a broad rule can come first and
    narrower exceptions after it, as in a ``.gitignore``.
    """

    pattern: str
    priority: float | None = None
    changefreq: ChangeFreq | None = None

    def __post_init__(self) -> None:
        check_pattern(self.pattern, "pattern")
        if self.priority is not None:
            p = self.priority
            if isinstance(p, bool) or not isinstance(p, int | float) or not math.isfinite(p):
                raise ConfigError("priority", f"must be a number between 0.0 and 1.0, got {p!r}")
            if not 0.0 <= p <= 1.0:
                raise ConfigError("priority", f"must be between 0.0 and 1.0, got {p!r}")
            object.__setattr__(self, "priority", float(p))
        if self.changefreq is not None:
            object.__setattr__(self, "changefreq", enum_value(ChangeFreq, self.changefreq, "changefreq"))
        if self.priority is None and self.changefreq is None:
            raise ConfigError("pattern", f"rule for {self.pattern!r} sets neither priority nor changefreq")


_RULE_KEYS = ("pattern", "priority", "changefreq")


def _rule_from(value: object, index: int) -> Rule:
    if isinstance(value, Rule):
        return value
    where = f"rules[{index}]"
    table = check_table(value, where, _RULE_KEYS, ("pattern",))
    try:
        return Rule(**table)
    except ConfigError as e:
        raise ConfigError(f"{where}.{e.key}", e.problem) from e


_SECTION_KEYS = ("name", "pattern")
_SECTION_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


@dataclass(frozen=True, slots=True)
class Section:
    """A series of its own for the pages `pattern` matches: ``sitemap-NAME-N.xml.gz``."""

    name: str
    pattern: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _SECTION_NAME.match(self.name) or self.name == "index":
            raise ConfigError(
                "name",
                "must be lower-case letters, digits, '-' or '_', starting with a letter"
                f" (and not 'index'), got {self.name!r}",
            )
        check_pattern(self.pattern, "pattern")


def _section_from(value: object, index: int) -> Section:
    if isinstance(value, Section):
        return value
    where = f"sitemaps[{index}]"
    table = check_table(value, where, _SECTION_KEYS, _SECTION_KEYS)
    try:
        return Section(**table)
    except ConfigError as e:
        raise ConfigError(f"{where}.{e.key}", e.problem) from e


_GIT_SOURCE_KEYS = ("match", "source")


def _x_default(value: object) -> str:
    """A language code (the cluster's link in that language becomes x-default) or an absolute
    http(s) URL (the x-default itself), checked as the head's own links are."""
    if isinstance(value, str) and LANGUAGE.match(value) and value.lower() != "x-default":
        return value
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        url = resolve_href(value, value)
        if url is not None:
            return url
    raise ConfigError(
        "hreflang_x_default", f"must be a language code such as 'en' or an absolute http(s) URL, got {value!r}"
    )


def _git_source_from(value: object, index: int) -> GitSource:
    if isinstance(value, GitSource):
        return value
    where = f"git_sources[{index}]"
    value = check_table(value, where, _GIT_SOURCE_KEYS, _GIT_SOURCE_KEYS)
    match, source = value.get("match"), value.get("source")
    if not isinstance(match, str) or not match:
        raise ConfigError(f"{where}.match", f"must be a non-empty string, got {match!r}")
    sources = [source] if isinstance(source, str) else source
    if not isinstance(sources, list) or not sources or not all(isinstance(s, str) and s for s in sources):
        raise ConfigError(
            f"{where}.source", f"must be a non-empty string or a list of them (tried in order), got {source!r}"
        )
    try:
        compiled = re.compile(match)
    except re.error as e:
        raise ConfigError(f"{where}.match", f"invalid regular expression {match!r}: {e}") from e
    for candidate in sources:
        try:
            compiled.sub(candidate, "")  # checks the template's group references, even with no match
        except (re.error, IndexError) as e:
            raise ConfigError(f"{where}.source", f"invalid replacement {candidate!r}: {e}") from e
    return GitSource(match, source if isinstance(source, str) else tuple(sources))


def _check_git_pages(value: object) -> GitPages | None:
    if value is not None and not isinstance(value, GitPages):
        raise ConfigError("git_pages", f"must be a GitPages (a directory and page -> source file), got {value!r}")
    return value


def _lastmod_chain(value: object, *, read_heads: bool) -> tuple[LastmodSource, ...]:
    written = _one_string_list(value)
    if written is not None:
        hint = list_hint("lastmod", written, r"\s*,\s*")
        raise ConfigError("lastmod", f"must be a list of sources, got {value!r} ({hint})")
    items = [value] if isinstance(value, str | LastmodSource) else value
    if not isinstance(items, Sequence) or not items:
        raise ConfigError("lastmod", f"must be a source or a list of sources, got {value!r}")
    chain = tuple(enum_value(LastmodSource, item, "lastmod") for item in items)
    if len(set(chain)) != len(chain):
        raise ConfigError("lastmod", f"names a source twice: {[c.value for c in chain]}")
    for source in chain:
        if source.reads_heads and not read_heads:
            raise ConfigError("lastmod", f"source {source.value!r} reads page heads, but read_heads is false")
    return chain


def _one_string_list(value: object) -> str | None:
    """A list of sources written in one string ("git,mtime", or ["git,mtime"]): that string; else None."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list | tuple) else []
    if any(isinstance(item, str) and "," in item for item in items):
        return ",".join(item.value if isinstance(item, LastmodSource) else str(item) for item in items)
    return None


def _check_previous(value: object) -> str:
    if not isinstance(value, str | Path) or not str(value) or "\x00" in str(value):
        raise ConfigError("previous", f"must be a URL or a path, got {value!r}")
    text = str(value)
    if "://" in text and not text.startswith(("http://", "https://")):
        raise ConfigError("previous", f"must be an http(s) URL or a path, got {text!r}")
    return text


def _check_selectors(value: object) -> tuple[str, ...]:
    """CSS selectors, each compiled once here so a typo is a config error, not a build's surprise."""
    if isinstance(value, str):  # "main, article" is one selector (a selector list): shown as one item
        hint = list_hint("content_select", value)
        raise ConfigError("content_select", f"must be a list of CSS selectors, got {value!r} ({hint})")
    if not isinstance(value, Sequence):
        raise ConfigError("content_select", f"must be a list of CSS selectors, got {value!r}")
    if not value:
        return ()
    import soupsieve  # beautifulsoup4's own selector engine (it imports bs4: only when there are selectors)

    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"content_select[{i}]", f"must be a CSS selector, got {item!r}")
        try:
            soupsieve.compile(item)
        except soupsieve.SelectorSyntaxError as e:
            raise ConfigError(f"content_select[{i}]", f"not a CSS selector: {item!r}: {e.args[0]}") from None
    return tuple(value)


def _check_host_config(value: object, host: HostName, style: UrlStyle) -> Path | None:
    if style is UrlStyle.CLEAN and host is HostName.PLAIN:
        # A plain static server answers /a for a/index.html with a redirect to /a/ (and the
        # walk could not tell a.html's URL from a/index.html's): only a host model can say.
        raise NeedsSetting("url_style", "'clean' needs a host that serves a/index.html at /a", "host")
    if value is None:
        return None
    if host is HostName.PLAIN:
        raise NeedsSetting("host_config", "needs a host to read it as", "host")
    return check_file_path(value, "host_config")


def _patterns(value: object, key: str, _: object) -> tuple[str, ...]:
    """gitignore-style patterns (`exclude`, `documents`)."""
    if isinstance(value, str):
        hint = list_hint(key, value, r"\s*,\s*")
        raise ConfigError(key, f"must be a list of patterns, got {value!r} ({hint})")
    if not isinstance(value, Sequence):
        raise ConfigError(key, f"must be a list of patterns, got {value!r}")
    return tuple(check_pattern(p, f"{key}[{i}]") for i, p in enumerate(value))


def _sections(value: object, key: str, _: object) -> tuple[Section, ...]:
    sections = check_tables(value, key, _section_from)
    names = [section.name for section in sections]
    if len(set(names)) != len(names):
        raise ConfigError(key, f"names a section twice: {names}")
    return sections


def _enum(kind: type[enum.Enum]) -> Check:
    return lambda value, key, _: enum_value(kind, value, key)


def _int(low: int, high: int) -> Check:
    return lambda value, key, _: check_int(value, key, low, high)


def _bool(value: object, key: str, _: object) -> bool:
    check_bool(value, key)
    return bool(value)


def _optional(check: Check) -> Check:
    """`check`, for a setting whose None means "not set"."""
    return lambda value, key, config: None if value is None else check(value, key, config)


def _tables(convert: Callable[[object, int], object]) -> Check:
    return lambda value, key, _: check_tables(value, key, convert)


def _path(value: object, key: str, _: object) -> Path:
    return Path(value)  # type: ignore[arg-type]  # a str or a Path, as the command line gives it


@dataclass(frozen=True, slots=True)
class Config:
    """Everything one build needs; checked and normalized on construction.

    Each field is a setting declared once (`declare`): its help, its check, and whether a config
    file and the plugins set it and on which commands it is a flag. Past the docroot and the base
    URL, settings are given by keyword.
    """

    docroot: Path = field(
        metadata=declare("The built site: the directory served at the base URL.", check=_path, file=False)
    )
    base_url: str = field(
        metadata=declare(
            "Absolute URL the docroot is served at, e.g. https://example.com/docs/ (required).",
            check=lambda value, key, _: normalize_base_url(value),
            flag="--base-url",
            metavar="URL",
        )
    )
    _: KW_ONLY
    out_dir: Path | None = field(
        default=None,
        metadata=declare(
            "Where the files are (served at the base URL). Default: the docroot.",
            check=_optional(_path),
            flag="--out",
            kind=Path,
            metavar="DIR",
            file=False,
        ),
    )
    exclude: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "gitignore-style patterns of files never to list (404.html and dot-paths are left out always).",
            check=_patterns,
        ),
    )
    rules: tuple[Rule, ...] = field(
        default=(),
        metadata=declare(
            "[[rules]]: the priority and changefreq of the pages a pattern matches.", check=_tables(_rule_from)
        ),
    )
    url_style: UrlStyle = field(
        default=UrlStyle.DIRECTORY,
        metadata=declare(
            "directory: a/index.html -> a/ (default); index: keep index.html; extensionless: a/b.html -> a/b;"
            " clean (with --host): a/index.html -> a, a/b.html -> a/b.",
            check=_enum(UrlStyle),
            flag="--url-style",
            kind=UrlStyle,
            metavar="STYLE",
        ),
    )
    lastmod_format: LastmodFormat = field(
        default=LastmodFormat.DATETIME,
        metadata=declare(
            "datetime: 2004-10-26T08:56:39+00:00 (default); date: 2004-10-26.",
            check=_enum(LastmodFormat),
            flag="--lastmod-format",
            kind=LastmodFormat,
            metavar="FORMAT",
            panel=Panel.LASTMOD,
        ),
    )
    max_urls_per_sitemap: int = field(
        default=MAX_URLS_PER_SITEMAP,
        metadata=declare(
            "URLs per sitemap file: at most 50,000, the default.",
            check=_int(1, MAX_URLS_PER_SITEMAP),
            flag="--max-urls-per-sitemap",
            kind=int,
            metavar="N",
            commands=WRITERS,
            panel=Panel.LIMITS,
        ),
    )
    max_bytes_per_sitemap: int = field(
        default=DEFAULT_BYTES_PER_SITEMAP,
        metadata=declare(
            "Bytes (uncompressed) per sitemap file: default 10,485,760, at most 52,428,800.",
            check=_int(MIN_BYTES_PER_SITEMAP, MAX_BYTES_PER_SITEMAP),
            flag="--max-bytes-per-sitemap",
            kind=int,
            metavar="N",
            panel=Panel.LIMITS,
        ),
    )
    max_sitemaps_per_index: int = field(
        default=DEFAULT_SITEMAPS_PER_INDEX,
        metadata=declare(
            "Sitemaps per index file: default 1,000, at most 50,000.",
            check=_int(1, MAX_SITEMAPS_PER_INDEX),
            flag="--max-sitemaps-per-index",
            kind=int,
            metavar="N",
            commands=WRITERS,
            panel=Panel.LIMITS,
        ),
    )
    sitemapignore: bool = field(
        default=True, metadata=declare("Read DOCROOT/.sitemapignore (gitignore syntax) as well.", check=_bool)
    )
    read_heads: bool = field(
        default=True,
        metadata=declare(
            "Read each page's <head> for noindex, canonical, redirects, hreflang (default: on).",
            check=_bool,
            flag="--read-heads",
            kind=bool,
            panel=Panel.PAGES,
        ),
    )
    check_noindex: bool = field(
        default=True, metadata=declare("Leave out pages whose robots or googlebot meta says noindex.", check=_bool)
    )
    check_canonical: bool = field(
        default=True,
        metadata=declare("Leave out pages whose canonical link names another URL of this host.", check=_bool),
    )
    check_redirects: bool = field(
        default=True, metadata=declare("Leave out meta-refresh redirect stubs (Hugo aliases, ...).", check=_bool)
    )
    hreflang: bool = field(
        default=True,
        metadata=declare('Copy <link rel="alternate" hreflang> into <xhtml:link> entries.', check=_bool),
    )
    hreflang_x_default: str | None = field(
        default=None,
        metadata=declare(
            "Where a page's cluster has no x-default: the cluster's link in this language, or this URL.",
            check=_optional(lambda value, key, _: _x_default(value)),
        ),
    )
    head_max_bytes: int = field(
        default=DEFAULT_MAX_BYTES,
        metadata=declare("How many bytes of a page are read to find its </head>.", check=_int(1_024, 16 * 1_048_576)),
    )
    lastmod: tuple[LastmodSource, ...] = field(
        default=(LastmodSource.MTIME,),
        metadata=declare(
            "Where lastmod comes from, first answer wins: a comma list of"
            f" {', '.join(source.value for source in LastmodSource)}. Default: mtime.",
            check=lambda value, key, config: _lastmod_chain(value, read_heads=config.read_heads),
            flag="--lastmod",
            kind=",",
            metavar="SOURCE[,SOURCE...]",
        ),
    )
    git_sources: tuple[GitSource, ...] = field(
        default=(),
        metadata=declare(
            "[[git_sources]]: for lastmod git, the source file (a regex replacement) that dates a page.",
            check=_tables(_git_source_from),
        ),
    )
    git_date: GitDate = field(
        default=GitDate.COMMIT,
        metadata=declare("For lastmod git: which time of a commit dates it, commit or author.", check=_enum(GitDate)),
    )
    git_pages: GitPages | None = field(
        default=None,
        metadata=declare(
            "The plugins' page -> source file map (not a config file's key).",
            check=lambda value, key, _: _check_git_pages(value),
            file=False,
        ),
    )
    state_file: Path | None = field(
        default=None,
        metadata=declare(
            "The content store for --lastmod content.",
            check=_optional(lambda value, key, _: check_file_path(value, key)),
            flag="--state-file",
            kind=Path,
            metavar="FILE",
            panel=Panel.LASTMOD,
        ),
    )
    content_ignore: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "For lastmod content: regexes of volatile parts removed before hashing.",
            check=lambda value, key, _: check_regexes(value, key),
        ),
    )
    chunking: Chunking = field(
        default=Chunking.STABLE,
        metadata=declare(
            "stable: one page's change rewrites one sitemap file (default); fill: fill each file to the limits.",
            check=_enum(Chunking),
            flag="--chunking",
            kind=Chunking,
            metavar="MODE",
            commands=WRITERS,
            panel=Panel.LIMITS,
        ),
    )
    sitemaps: tuple[Section, ...] = field(
        default=(),
        metadata=declare("[[sitemaps]]: sections with a sitemap series of their own (name, pattern).", check=_sections),
    )
    robots_txt: RobotsTxt = field(
        default=RobotsTxt.OFF,
        metadata=declare(
            "update: add or update the Sitemap: line in DOCROOT/robots.txt; create: also create it; off (default).",
            check=_enum(RobotsTxt),
            flag="--robots-txt",
            kind=RobotsTxt,
            metavar="MODE",
            commands=BUILD,
        ),
    )
    jobs: int | None = field(
        default=None,
        metadata=declare(
            "Processes reading pages (default: one per CPU this process may use; 1: no workers).",
            check=_optional(_int(1, 256)),
            flag="--jobs",
            short="-j",
            kind=int,
            metavar="N",
            panel=Panel.PAGES,
        ),
    )
    previous: str | None = field(
        default=None,
        metadata=declare(
            "The previous deploy: its index URL (https://example.com/sitemap.xml) or an earlier output's"
            " directory or index. Lastmods of unchanged pages carry over (lastmod 'content'); build says what changed.",
            check=_optional(lambda value, key, _: _check_previous(value)),
            flag="--previous",
            metavar="URL|PATH",
            panel=Panel.DEPLOY,
        ),
    )
    content_select: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "For lastmod content: CSS selectors; only the first element one matches is fingerprinted.",
            check=lambda value, key, _: _check_selectors(value),
        ),
    )
    max_removed: float | None = field(
        default=None,
        metadata=declare(
            "Refuse to publish (exit 1) if more than this percent of the previous deploy's URLs would go.",
            check=_optional(lambda value, key, _: check_percent(value, key)),
            flag="--max-removed",
            kind=float,
            metavar="PERCENT",
            commands=BUILD,
            panel=Panel.DEPLOY,
        ),
    )
    indexnow_key: str | None = field(
        default=None,
        metadata=declare(
            "Write DOCROOT/KEY.txt for IndexNow, to deploy with the site (then: sitemapgen indexnow).",
            check=_optional(lambda value, key, _: check_indexnow_key(value, key)),
            flag="--indexnow-key",
            metavar="KEY",
            commands=BUILD,
            panel=Panel.DEPLOY,
        ),
    )
    host: HostName = field(
        default=HostName.PLAIN,
        metadata=declare(
            f"The static host the site is published on ({', '.join(host.value for host in HostName)}): list each"
            " page in the URL form it serves, and leave out what its own files redirect or mark noindex."
            " plain (default): any static server, --url-style decides.",
            check=_enum(HostName),
            flag="--host",
            kind=HostName,
            metavar="HOST",
            panel=Panel.HOSTS,
        ),
    )
    host_config: Path | None = field(
        default=None,
        metadata=declare(
            "The host's file at the project's top: netlify.toml, vercel.json, firebase.json, serve.json."
            " Default: in the docroot, else beside it.",
            check=lambda value, key, config: _check_host_config(value, config.host, config.url_style),
            flag="--host-config",
            kind=Path,
            metavar="FILE",
            panel=Panel.HOSTS,
        ),
    )
    documents: tuple[str, ...] = field(
        default=(),
        metadata=declare(
            "gitignore-style patterns of files other than pages (PDFs) listed under their own path.", check=_patterns
        ),
    )
    stylesheet: bool = field(
        default=False,
        metadata=declare(
            "Write sitemap.xsl beside the index and name it in every file (a view for people).", check=_bool
        ),
    )
    include: tuple[Include, ...] = field(
        default=(),
        metadata=declare(
            "Another build's sitemap or sitemap index to list in the index, served at URL on the base URL's host;"
            " FILE=URL reads it from FILE (a local build's output). Repeat for more; replaces include in the config.",
            check=lambda value, key, config: check_includes(value, config.base_url),
            flag="--include",
            kind=list,
            metavar="URL",
            commands=WRITERS,
            panel=Panel.HOSTS,
        ),
    )
    images: bool = field(
        default=False,
        metadata=declare(
            "List the images each page shows, for Google Images (reads whole pages; default: off).",
            check=_bool,
            flag="--images",
            kind=bool,
            panel=Panel.PAGES,
        ),
    )

    def __post_init__(self) -> None:
        """Each setting's check, in field order (a check reads the settings before it, checked)."""
        for name, check in _CHECKS:
            object.__setattr__(self, name, check(getattr(self, name), name, self))

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
