"""Each setting's check, as its declaration names it (``check=values.lastmod``): a function of the
value, the key it is given under and the `Config` so far (the settings before it, checked), that
returns the value as kept or raises `ConfigError` naming the key. The kinds of value many settings
share (`one_of`, `between`, `boolean`, `optional`) make such functions; `checks` has the rules
under them."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sitemapgen.config import checks, include, tables
from sitemapgen.config.declare import Check
from sitemapgen.config.words import GitPages, HostName, LastmodSource, SiteFacts
from sitemapgen.errors import ConfigError, NeedsSetting
from sitemapgen.hrefs import resolve_href
from sitemapgen.protocol import LANGUAGE
from sitemapgen.skips import Skip
from sitemapgen.urls import UrlStyle, normalize_base_url


def one_of(kind: type[enum.Enum]) -> Check:
    """One of `kind`'s words (or members)."""
    return lambda value, key, _: checks.enum_value(kind, value, key)


def between(low: int, high: int) -> Check:
    """A whole number from `low` to `high`."""
    return lambda value, key, _: checks.check_int(value, key, low, high)


def optional(check: Check) -> Check:
    """`check`, for a setting whose None means "not set"."""
    return lambda value, key, config: None if value is None else check(value, key, config)


def boolean(value: object, key: str, _: object) -> bool:
    checks.check_bool(value, key)
    return bool(value)


def one_line(value: object, key: str, _: object) -> str:
    """A line of text (`site_name`): a non-empty string, its white space collapsed."""
    if not isinstance(value, str) or not value.split():
        raise ConfigError(key, f"must be a non-empty string, got {value!r}")
    return " ".join(value.split())


def path(value: Any, key: str, _: object) -> Path:
    return Path(value)  # a str or a Path, as the command line gives it


def base_url(value: object, key: str, _: object) -> str:
    return normalize_base_url(value)  # type: ignore[arg-type]  # it says what else it got


def file_path(value: object, key: str, _: object) -> Path:
    return checks.check_file_path(value, key)


def patterns(value: object, key: str, _: object) -> tuple[str, ...]:
    """gitignore-style patterns (`exclude`, `documents`)."""
    if isinstance(value, str):
        hint = checks.list_hint(key, value, r"\s*,\s*")
        raise ConfigError(key, f"must be a list of patterns, got {value!r} ({hint})")
    if not isinstance(value, Sequence):
        raise ConfigError(key, f"must be a list of patterns, got {value!r}")
    return tuple(checks.check_pattern(p, f"{key}[{i}]") for i, p in enumerate(value))


def regexes(value: object, key: str, _: object) -> tuple[str, ...]:
    return checks.check_regexes(value, key)


def percent(value: object, key: str, _: object) -> float:
    return checks.check_percent(value, key)


def indexnow_key(value: object, key: str, _: object) -> str:
    return checks.check_indexnow_key(value, key)


def rules(value: object, key: str, _: object) -> tuple[tables.Rule, ...]:
    return checks.check_tables(value, key, tables.rule_from)


def sections(value: object, key: str, _: object) -> tuple[tables.Section, ...]:
    return tables.sections(value, key)


def git_sources(value: object, key: str, _: object) -> tuple[object, ...]:
    return checks.check_tables(value, key, tables.git_source_from)


def includes(value: object, key: str, config: Any) -> tuple[include.Include, ...]:
    return include.check_includes(value, config.base_url)


def x_default(value: object, key: str, _: object) -> str:
    """A language code (the cluster's link in that language becomes x-default) or an absolute
    http(s) URL (the x-default itself), checked as the head's own links are."""
    if isinstance(value, str) and LANGUAGE.match(value) and value.lower() != "x-default":
        return value
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        url = resolve_href(value, value)
        if url is not None:
            return url
    raise ConfigError(key, f"must be a language code such as 'en' or an absolute http(s) URL, got {value!r}")


def git_pages(value: object, key: str, _: object) -> GitPages | None:
    if value is not None and not isinstance(value, GitPages):
        raise ConfigError(key, f"must be a GitPages (a directory and page -> source file), got {value!r}")
    return value


def not_documents(value: object, key: str, _: object) -> Mapping[str, Skip] | None:
    if value is not None and not (
        isinstance(value, Mapping)
        and all(isinstance(skip, Skip) and skip.relpath == page for page, skip in value.items())
    ):
        raise ConfigError(key, f"must be a mapping of page -> its Skip, got {value!r}")
    return value


def site_facts(value: object, key: str, _: object) -> SiteFacts | None:
    if value is not None and not isinstance(value, SiteFacts):
        raise ConfigError(key, f"must be a SiteFacts (hreflang clusters and dates by page), got {value!r}")
    return value


def lastmod(value: object, key: str, config: Any) -> tuple[LastmodSource, ...]:
    """A chain of sources, none twice, none that reads heads when `read_heads` is off."""
    written = _one_string_list(value)
    if written is not None:
        hint = checks.list_hint(key, written, r"\s*,\s*")
        raise ConfigError(key, f"must be a list of sources, got {value!r} ({hint})")
    items = [value] if isinstance(value, str | LastmodSource) else value
    if not isinstance(items, Sequence) or not items:
        raise ConfigError(key, f"must be a source or a list of sources, got {value!r}")
    chain = tuple(checks.enum_value(LastmodSource, item, key) for item in items)
    if len(set(chain)) != len(chain):
        raise ConfigError(key, f"names a source twice: {[c.value for c in chain]}")
    for source in chain:
        if source.reads_heads and not config.read_heads:
            raise ConfigError(key, f"source {source.value!r} reads page heads, but read_heads is false")
    return chain


def _one_string_list(value: object) -> str | None:
    """A list of sources written in one string ("git,mtime", or ["git,mtime"]): that string; else None."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list | tuple) else []
    if any(isinstance(item, str) and "," in item for item in items):
        return ",".join(item.value if isinstance(item, LastmodSource) else str(item) for item in items)
    return None


def previous(value: object, key: str, _: object) -> str:
    if not isinstance(value, str | Path) or not str(value) or "\x00" in str(value):
        raise ConfigError(key, f"must be a URL or a path, got {value!r}")
    text = str(value)
    if "://" in text and not text.startswith(("http://", "https://")):
        raise ConfigError(key, f"must be an http(s) URL or a path, got {text!r}")
    return text


def selectors(value: object, key: str, _: object) -> tuple[str, ...]:
    """CSS selectors, each compiled once here so a typo is a config error, not a build's surprise."""
    if isinstance(value, str):  # "main, article" is one selector (a selector list): shown as one item
        raise ConfigError(key, f"must be a list of CSS selectors, got {value!r} ({checks.list_hint(key, value)})")
    if not isinstance(value, Sequence):
        raise ConfigError(key, f"must be a list of CSS selectors, got {value!r}")
    if not value:
        return ()
    import soupsieve  # beautifulsoup4's own selector engine (it imports bs4: only when there are selectors)

    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"{key}[{i}]", f"must be a CSS selector, got {item!r}")
        try:
            soupsieve.compile(item)
        except soupsieve.SelectorSyntaxError as e:
            raise ConfigError(f"{key}[{i}]", f"not a CSS selector: {item!r}: {e.args[0]}") from None
    return tuple(value)


def host_config(value: object, key: str, config: Any) -> Path | None:
    """The host's file, which needs a host; and `url_style` clean, which needs one too."""
    if config.url_style is UrlStyle.CLEAN and config.host is HostName.PLAIN:
        # A plain static server answers /a for a/index.html with a redirect to /a/ (and the
        # walk could not tell a.html's URL from a/index.html's): only a host model can say.
        raise NeedsSetting("url_style", "'clean' needs a host that serves a/index.html at /a", "host")
    if value is None:
        return None
    if config.host is HostName.PLAIN:
        raise NeedsSetting(key, "needs a host to read it as", "host")
    return checks.check_file_path(value, key)
