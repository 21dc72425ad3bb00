"""Settings: the frozen `Config` and its parts, every value checked once.

Every value is validated in the dataclasses themselves, so a library user who
builds a `Config` by hand gets the same checks as the CLI. The loader's only
extra job is to say *where* a bad value came from: the file and key path
(``sitemapgen.toml: rules[2].priority``) or the flag (``--base-url``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
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


def _check_git_pages(value: object) -> None:
    if value is not None and not isinstance(value, GitPages):
        raise ConfigError("git_pages", f"must be a GitPages (a directory and page -> source file), got {value!r}")


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


def _check_documents(value: object) -> tuple[str, ...]:
    """The `documents` patterns, checked as `exclude`'s are."""
    if isinstance(value, str):
        hint = list_hint("documents", value, r"\s*,\s*")
        raise ConfigError("documents", f"must be a list of patterns, got {value!r} ({hint})")
    if not isinstance(value, Sequence):
        raise ConfigError("documents", f"must be a list of patterns, got {value!r}")
    return tuple(check_pattern(p, f"documents[{i}]") for i, p in enumerate(value))


@dataclass(frozen=True, slots=True)
class Config:
    """Everything one build needs; checked and normalized on construction."""

    docroot: Path
    base_url: str
    out_dir: Path | None = None
    exclude: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    url_style: UrlStyle = UrlStyle.DIRECTORY
    lastmod_format: LastmodFormat = LastmodFormat.DATETIME
    max_urls_per_sitemap: int = MAX_URLS_PER_SITEMAP
    max_bytes_per_sitemap: int = DEFAULT_BYTES_PER_SITEMAP
    max_sitemaps_per_index: int = DEFAULT_SITEMAPS_PER_INDEX
    sitemapignore: bool = True
    read_heads: bool = True
    check_noindex: bool = True
    check_canonical: bool = True
    check_redirects: bool = True
    hreflang: bool = True
    hreflang_x_default: str | None = None  # a language of the cluster, or a URL: x-default where a head has none
    head_max_bytes: int = DEFAULT_MAX_BYTES
    lastmod: tuple[LastmodSource, ...] = (LastmodSource.MTIME,)
    git_sources: tuple[GitSource, ...] = ()
    git_date: GitDate = GitDate.COMMIT
    git_pages: GitPages | None = None  # the plugins' page -> source map (not a config file's key)
    state_file: Path | None = None
    content_ignore: tuple[str, ...] = ()
    chunking: Chunking = Chunking.STABLE
    sitemaps: tuple[Section, ...] = ()
    robots_txt: RobotsTxt = RobotsTxt.OFF
    jobs: int | None = None  # worker processes for reading heads; None: one per CPU
    previous: str | None = None  # the previous deploy: its index URL, or an earlier output's directory or index
    content_select: tuple[str, ...] = ()  # CSS selectors: a 'content' fingerprint covers the first match only
    max_removed: float | None = None  # percent of the previous deploy's URLs a build may drop
    indexnow_key: str | None = None  # written to DOCROOT/KEY.txt for IndexNow
    host: HostName = HostName.PLAIN  # the static host whose files decide what is served (`hosts`)
    host_config: Path | None = None  # its netlify.toml, vercel.json, firebase.json or serve.json
    documents: tuple[str, ...] = ()  # gitignore patterns: files other than pages listed under their own path
    stylesheet: bool = False  # write sitemap.xsl beside the index and name it in every file (a view for people)
    include: tuple[Include, ...] = ()  # other sitemaps or indexes the index lists beside ours
    images: bool = False  # list each page's images in <image:image> (reads whole pages)

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "docroot", Path(self.docroot))
        if self.out_dir is not None:
            put(self, "out_dir", Path(self.out_dir))
        put(self, "base_url", normalize_base_url(self.base_url))
        if isinstance(self.exclude, str):
            hint = list_hint("exclude", self.exclude, r"\s*,\s*")
            raise ConfigError("exclude", f"must be a list of patterns, got {self.exclude!r} ({hint})")
        if not isinstance(self.exclude, Sequence):
            raise ConfigError("exclude", f"must be a list of patterns, got {self.exclude!r}")
        put(self, "exclude", tuple(check_pattern(p, f"exclude[{i}]") for i, p in enumerate(self.exclude)))
        put(self, "rules", check_tables(self.rules, "rules", _rule_from))
        put(self, "url_style", enum_value(UrlStyle, self.url_style, "url_style"))
        put(self, "lastmod_format", enum_value(LastmodFormat, self.lastmod_format, "lastmod_format"))
        check_int(self.max_urls_per_sitemap, "max_urls_per_sitemap", 1, MAX_URLS_PER_SITEMAP)
        check_int(self.max_bytes_per_sitemap, "max_bytes_per_sitemap", MIN_BYTES_PER_SITEMAP, MAX_BYTES_PER_SITEMAP)
        check_int(self.max_sitemaps_per_index, "max_sitemaps_per_index", 1, MAX_SITEMAPS_PER_INDEX)
        for flag in ("sitemapignore", "read_heads", "check_noindex", "check_canonical", "check_redirects", "hreflang"):
            check_bool(getattr(self, flag), flag)
        check_int(self.head_max_bytes, "head_max_bytes", 1_024, 16 * 1_048_576)
        if self.hreflang_x_default is not None:
            put(self, "hreflang_x_default", _x_default(self.hreflang_x_default))
        put(self, "lastmod", _lastmod_chain(self.lastmod, read_heads=self.read_heads))
        put(self, "git_sources", check_tables(self.git_sources, "git_sources", _git_source_from))
        put(self, "git_date", enum_value(GitDate, self.git_date, "git_date"))
        _check_git_pages(self.git_pages)
        if self.state_file is not None:
            put(self, "state_file", check_file_path(self.state_file, "state_file"))
        put(self, "content_ignore", check_regexes(self.content_ignore, "content_ignore"))
        if self.jobs is not None:
            check_int(self.jobs, "jobs", 1, 256)
        put(self, "chunking", enum_value(Chunking, self.chunking, "chunking"))
        put(self, "robots_txt", enum_value(RobotsTxt, self.robots_txt, "robots_txt"))
        put(self, "sitemaps", check_tables(self.sitemaps, "sitemaps", _section_from))
        if self.previous is not None:
            put(self, "previous", _check_previous(self.previous))
        put(self, "content_select", _check_selectors(self.content_select))
        if self.max_removed is not None:
            put(self, "max_removed", check_percent(self.max_removed, "max_removed"))
        if self.indexnow_key is not None:
            check_indexnow_key(self.indexnow_key, "indexnow_key")
        put(self, "host", enum_value(HostName, self.host, "host"))
        put(self, "host_config", _check_host_config(self.host_config, self.host, self.url_style))
        put(self, "documents", _check_documents(self.documents))
        check_bool(self.stylesheet, "stylesheet")
        put(self, "include", check_includes(self.include, self.base_url))
        names = [section.name for section in self.sitemaps]
        if len(set(names)) != len(names):
            raise ConfigError("sitemaps", f"names a section twice: {names}")
        check_bool(self.images, "images")

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
