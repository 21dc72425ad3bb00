"""A static host's own files, as the host reads them: redirect rules and header rules,
each with the file, line and text it came from (so `explain` can name them), and the
helpers that read the TOML and JSON files.

TOML and JSON go through the standard library's parsers. Each host's module reads its
own file (netlify.toml, vercel.json, firebase.json, serve.json) with these helpers;
`lines` reads the line formats Netlify and Cloudflare share (``_headers``, ``_redirects``).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sitemapgen.errors import ConfigError
from sitemapgen.util.safeio import read_regular


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a rule was written: ``_redirects line 3: /old.html /about.html 301``."""

    file: str
    where: str  # "line 3", "redirects[2]"
    text: str

    def __str__(self) -> str:
        return f"{self.file} {self.where}: {self.text}"


@dataclass(frozen=True, slots=True)
class Redirect:
    """A redirect (3xx) or a rewrite (200) of the paths `source` matches."""

    source: re.Pattern[str]
    to: str
    status: int
    origin: Origin
    force: bool = False  # Netlify's ``301!``: applies even where a file exists
    conditional: bool = False  # only for some requests (a query, a country, a role, a cookie)


@dataclass(frozen=True, slots=True)
class HeaderRule:
    """Headers the host adds to the answers for the paths `source` matches."""

    source: re.Pattern[str]
    headers: tuple[tuple[str, str], ...]  # (name in lower case, value)
    origin: Origin
    detach: tuple[str, ...] = ()  # Cloudflare's ``! Name``: removes a header an earlier rule set
    host: re.Pattern[str] | None = None  # Cloudflare's host-scoped rule: only for the hosts it matches


@dataclass(frozen=True, slots=True)
class HostFiles:
    """Everything a host's files say that decides which URLs answer, and how."""

    redirects: tuple[Redirect, ...] = ()
    headers: tuple[HeaderRule, ...] = ()
    clean_urls: bool | re.Pattern[str] = False  # True, or the paths it covers (serve's list of globs)
    trailing_slash: bool | None = None  # None: the host's default
    rejected: tuple[str, ...] = ()  # lines the host refuses, in words for the user


# --- TOML and JSON --------------------------------------------------------------------------


def load_file(path: Path, shown: str) -> object:
    """The TOML or JSON file at `path` (by its suffix), parsed; `shown` names it in errors."""
    try:
        data = read_regular(path, follow_symlinks=True)
    except OSError as e:
        raise ConfigError("", f"cannot read it: {e.strerror or e}", source=shown) from None
    try:
        if path.suffix == ".toml":
            return tomllib.loads(data.decode("utf-8"))
        return json.loads(data)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise ConfigError("", f"not valid {path.suffix[1:].upper()}: {e}", source=shown) from None


def as_table(value: object, key: str, shown: str) -> Mapping[str, object]:
    """`value`, which `key` must make a table."""
    if not isinstance(value, Mapping):
        raise ConfigError(key, f"must be a table, got {value!r}", source=shown)
    return value


def as_list(value: object, key: str, shown: str) -> Sequence[object]:
    """`value`, which `key` must make a list; none if it is missing."""
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigError(key, f"must be a list, got {value!r}", source=shown)
    return value


def get_text(item: Mapping[str, object], name: str, key: str, shown: str) -> str:
    """`item`'s `name`, which must be a string, not empty."""
    value = item.get(name)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{key}.{name}", f"must be a string, got {value!r}", source=shown)
    return value


#: A JSON host's pattern keys ("source", "regex") and how each compiles.
Sources = Mapping[str, Callable[[str], re.Pattern[str]]]


def json_headers(items: Sequence[object], shown: str, compile_source: Sources) -> list[HeaderRule]:
    """Header rules, their sources compiled as `compile_source` says."""
    rules: list[HeaderRule] = []
    for i, item in enumerate(items):
        key = f"headers[{i}]"
        item = as_table(item, key, shown)
        kind, source = _source_of(item, key, shown, compile_source)
        pairs = []
        for j, header in enumerate(as_list(item.get("headers"), f"{key}.headers", shown)):
            header = as_table(header, f"{key}.headers[{j}]", shown)
            pairs.append((get_text(header, "key", f"{key}.headers[{j}]", shown).lower(), str(header.get("value", ""))))
        if not item.get("has"):  # only for requests carrying a header, cookie or query: not a crawler's
            rules.append(HeaderRule(source, tuple(pairs), Origin(shown, key, f"{kind} {item[kind]!r}")))
    return rules


def _source_of(
    item: Mapping[str, object], key: str, shown: str, compile_source: Sources
) -> tuple[str, re.Pattern[str]]:
    """The rule's path pattern, from whichever of `compile_source`'s keys it has."""
    for kind, make in compile_source.items():
        value = item.get(kind)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ConfigError(f"{key}.{kind}", f"must be a string, got {value!r}", source=shown)
        try:
            return kind, make(value)
        except re.error as e:
            raise ConfigError(f"{key}.{kind}", f"not a pattern: {value!r}: {e}", source=shown) from None
    raise ConfigError(key, f"needs one of {', '.join(compile_source)}", source=shown)


def _status(item: Mapping[str, object], key: str, shown: str, default: int) -> int:
    for name in ("statusCode", "type"):
        value = item.get(name)
        if isinstance(value, str) and value.isdigit():  # Firebase takes "302" as 302
            value = int(value)
        if value is not None:
            if not isinstance(value, int) or isinstance(value, bool) or not 300 <= value <= 399:
                raise ConfigError(f"{key}.{name}", f"must be a redirect status (3xx), got {value!r}", source=shown)
            return value
    permanent = item.get("permanent")
    if permanent is not None:
        return 308 if permanent else 307
    return default


def json_redirects(
    items: Sequence[object],
    shown: str,
    compile_source: Sources,
    default: int,
    *,
    status: int | None = None,
    with_params: Sources | None = None,
) -> list[Redirect]:
    """Redirect (or, with `status` 200, rewrite) rules; `with_params` compiles the sources of
    rules whose destination names a ``:param`` (Firebase matches those by path-to-regexp)."""
    rules: list[Redirect] = []
    for i, item in enumerate(items):
        key = f"{'rewrites' if status == 200 else 'redirects'}[{i}]"
        item = as_table(item, key, shown)
        to = str(item.get("destination", item.get("function", item.get("run", ""))))
        compilers = with_params if with_params is not None and ":" in to and "source" in item else compile_source
        kind, source = _source_of(item, key, shown, compilers)
        code = status if status is not None else _status(item, key, shown, default)
        conditional = bool(item.get("has"))  # a crawler's plain request meets every "missing"
        rules.append(Redirect(source, to, code, Origin(shown, key, f"{kind} {item[kind]!r}"), True, conditional))
    return rules


def get_flag(data: Mapping[str, object], name: str, shown: str) -> bool | None:
    """`data`'s `name`: true, false, or None if it is missing."""
    value = data.get(name)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(name, f"must be true or false, got {value!r}", source=shown)
    return value
