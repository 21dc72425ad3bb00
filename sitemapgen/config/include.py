"""The other sitemaps a build lists in its index (``[[include]]``): each a URL, read from there
or from a local file served at it, and whether the build may go on without it.

Only the settings are checked here (an absolute http(s) URL on the base URL's scheme and
host, a file path, named once); what the sitemap holds is read and checked when a build
runs (`deploy.include`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sitemapgen.config.checks import check_bool, check_file_path, check_table, ordinal
from sitemapgen.errors import ConfigError
from sitemapgen.hrefs import resolve_href

_KEYS = ("url", "file", "optional")
#: The short form a flag takes: ``URL``, or ``FILE=URL`` (the file a local build wrote, served at URL).
_FILE_AT_URL = re.compile(r"^(.+?)=(https?://.+)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Include:
    """Another sitemap or sitemap index to list in ours: `url` is where it is served; it is
    read from `file` when given, else from `url`. An `optional` one that cannot be read is
    a warning, and the entries the last build gave it are kept."""

    url: str
    file: Path | None = None
    optional: bool = False


def origin(url: str) -> tuple[str, str, int | None]:
    """A URL's scheme, host and port (the default port counted as none)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port
    if (scheme, port) in (("http", 80), ("https", 443)):
        port = None
    return scheme, (parts.hostname or "").lower(), port


def _include_from(value: object, index: int, base_url: str) -> Include:
    where = f"include[{index}]"
    if isinstance(value, Include):
        table: Mapping[str, object] = {"url": value.url, "file": value.file, "optional": value.optional}
    elif isinstance(value, str):
        found = _FILE_AT_URL.match(value)
        table = {"url": found[2], "file": found[1]} if found else {"url": value}
    else:
        table = check_table(value, where, _KEYS, ("url",))
    raw = table.get("url")
    url = resolve_href(raw, raw) if isinstance(raw, str) and raw.lower().startswith(("http://", "https://")) else None
    if url is None:
        raise ConfigError(f"{where}.url", f"must be the absolute http(s) URL the sitemap is served at, got {raw!r}")
    if url.endswith("/"):
        raise ConfigError(f"{where}.url", f"must name the sitemap's file, not a folder, got {raw!r}")
    if urlsplit(url).query:
        raise ConfigError(
            f"{where}.url",
            f"{url} has a query: a static host serves the file at the path alone ({url.partition('?')[0]}),"
            " so name the sitemap by its path",
        )
    if origin(url) != origin(base_url):
        raise ConfigError(
            f"{where}.url",
            f"{url} is not on {base_url[: base_url.index('/', base_url.index('//') + 2)]} (the base URL's scheme and"
            " host): an index lists only its own site's sitemaps",
        )
    file = table.get("file")
    optional = table.get("optional", False)
    check_bool(optional, f"{where}.optional")
    return Include(url, None if file is None else check_file_path(file, f"{where}.file"), bool(optional))


def check_includes(value: object, base_url: str) -> tuple[Include, ...]:
    """The ``include`` setting: a list of tables (url, file, optional), `Include`s, or strings
    (``URL`` or ``FILE=URL``), each checked; a URL named twice is an error."""
    if isinstance(value, str | Mapping) or not isinstance(value, Sequence):
        raise ConfigError("include", f"must be a list of [[include]] tables (url, file, optional), got {value!r}")
    includes = tuple(_include_from(item, i, base_url) for i, item in enumerate(value))
    seen: dict[str, int] = {}
    for i, include in enumerate(includes):
        if include.url in seen:
            which = f"{ordinal(seen[include.url] + 1)} and {ordinal(i + 1)}"
            raise ConfigError(f"include[{i}].url", f"{include.url} is included twice (the {which})")
        seen[include.url] = i
    return includes
