"""A static host's own files, read as that host reads them: redirect rules and header rules,
each with the file, line and text it came from (so `explain` can name them).

The line formats (``_headers``, ``_redirects``) are small and documented; TOML
and JSON go through the standard library's parsers. Each host has its own
dialect of the same files (Cloudflare rejects Netlify's forced ``301!`` and
query conditions; Netlify has no detach line), so every reader takes the
host's name and says, as a `Rejected` line, what that host would refuse.
Patterns become regular expressions over the decoded URL path, in the
matching language each host uses: splats and placeholders (Netlify,
Cloudflare), path-to-regexp (Vercel, serve) or globs (Firebase, serve).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
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


# --- patterns ---------------------------------------------------------------------------


def splat_pattern(source: str, *, case: bool = True) -> re.Pattern[str]:
    """Netlify's and Cloudflare's patterns: ``*`` (the splat) matches the rest, across
    slashes; ``:name`` one segment; anything else itself. Groups are named for the
    destination's ``:splat`` and ``:name``."""
    out = []
    names: set[str] = set()
    for token in re.split(r"(\*|:[A-Za-z_][A-Za-z0-9_]*)", source):
        name = "splat" if token == "*" else token[1:] if token.startswith(":") and len(token) > 1 else None
        if name is None:
            out.append(re.escape(token))
            continue
        body = ".*" if token == "*" else "[^/]+"
        out.append(f"(?P<{name}>{body})" if name not in names else f"(?:{body})")
        names.add(name)
    return re.compile("".join(out), 0 if case else re.IGNORECASE)


def netlify_header_pattern(source: str) -> re.Pattern[str]:
    """A Netlify header path, as @netlify/headers-parser compiles it: case-insensitive,
    an optional trailing slash; a ``*`` segment matches the rest with or without its
    slash (``/private/*`` covers ``/private`` and ``/privateer``), ``*`` within a segment
    anything, ``:name`` one segment."""
    parts = []
    for part in source.lstrip("/").split("/"):
        if part == "*":
            parts.append("?(.*)")
        elif part.startswith(":") and len(part) > 1:
            parts.append("([^/]+)")
        else:
            parts.append("(.*)".join(re.escape(piece) for piece in part.split("*")))
    return re.compile("/" + "/".join(parts) + "/?", re.IGNORECASE)


def netlify_redirect_pattern(source: str) -> re.Pattern[str]:
    """A Netlify redirect source, as its redirector matches one: the exact path, case
    and all, a trailing slash optional on both sides; a final ``/*`` (the splat) also
    matches the directory itself; a ``*`` within a segment matches nothing."""
    path = source.rstrip("/") or "/"
    if path.endswith("/*"):
        head = splat_pattern(path[:-2]).pattern
        return re.compile(head + "(?:/(?P<splat>.*))?")
    if "*" in path:
        return re.compile("(?!)")
    return re.compile(splat_pattern(path).pattern + "/?")


_PTR_PARAM = re.compile(r"(/?)(?::([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?|\(([^)]*)\))([*+?])?")


def path_to_regexp(source: str, *, strict: bool = False, sensitive: bool = False) -> re.Pattern[str]:
    """path-to-regexp's language (Vercel, serve, Firebase's ``:name`` sources): ``:name``
    one segment, ``:name*`` any number of segments, ``:name+`` one or more,
    ``:name?`` an optional one (its ``/`` with it), ``:name(re)`` and ``(re)`` a regular
    expression. Case-insensitive and, unless `strict`, with an optional trailing
    slash, as path-to-regexp compiles them by default. Groups are named for ``:name``
    in a destination; the unnamed ones are ``$1``, ``$2``..."""
    out: list[str] = []
    names: set[str] = set()
    at = 0
    for m in _PTR_PARAM.finditer(source):
        out.append(re.escape(source[at : m.start()]))
        at = m.end()
        slash, name, constraint, group, modifier = m.groups()
        inner = constraint[1:-1] if constraint else group if group is not None else "[^/]+?"
        body = f"(?:{inner})(?:/(?:{inner}))*" if modifier in ("*", "+") else f"(?:{inner})"
        if name is not None and name not in names:
            body = f"(?P<{name}>{body})"
            names.add(name)
        elif name is None:
            body = f"({body})"
        out.append(f"(?:{re.escape(slash)}{body})?" if modifier in ("?", "*") else re.escape(slash) + body)
    out.append(re.escape(source[at:]))
    return re.compile("".join(out) + ("" if strict else "/?"), 0 if sensitive else re.IGNORECASE)


def glob_pattern(source: str) -> re.Pattern[str]:
    """A glob as minimatch reads one: ``**`` any number of segments, ``*`` and ``?``
    within one, ``{a,b}`` either, ``[...]`` a class."""
    out: list[str] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if source.startswith("/**/", i):
            out.append("(?:/.*)?/")
            i += 4
            continue
        if source.startswith("/**", i) and i + 3 == len(source):  # not the directory itself
            out.append("/.*")
            i += 3
            continue
        if source.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "{" and "}" in source[i:]:
            end = source.index("}", i)
            out.append("(?:" + "|".join(re.escape(p) for p in source[i + 1 : end].split(",")) + ")")
            i = end
        elif ch == "[" and "]" in source[i + 1 :]:
            end = source.index("]", i + 1)
            body = source[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out))


# --- the line formats: _headers and _redirects --------------------------------------------


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, line


def _cloudflare_header_problem(source: str, headers: list[tuple[str, str]], detach: list[str]) -> str | None:
    """Why Cloudflare drops a ``_headers`` rule, or None."""
    if not headers and not detach:
        return "no headers under it"
    if source.count("*") > 1:
        return "only one * is allowed per rule"
    if "://" in source and not source.startswith("https://"):
        return "a URL must use https://"
    if re.match(r"https://[^/]*:\d", source):
        return "ports are not supported"
    return None


def _header_rule(
    source: str, number: int, file: str, host: str, headers: list[tuple[str, str]], detach: list[str]
) -> HeaderRule:
    scope: re.Pattern[str] | None = None
    path = source
    if "://" in source:
        host_part, slash, tail = source.partition("://")[2].partition("/")
        scope, path = splat_pattern(host_part, case=False), slash + tail
    pattern = netlify_header_pattern(path) if host == "netlify" else splat_pattern(path)
    return HeaderRule(pattern, tuple(headers), Origin(file, f"line {number}", source), tuple(detach), scope)


def _header_line(block: tuple[str, int, list[tuple[str, str]], list[str]] | None, line: str, host: str) -> str | None:
    """Add a header line (``Name: value``, or Cloudflare's ``! Name``) to `block`; or why not."""
    if block is None:
        return "a header before any path"
    if line.startswith("!"):
        if host != "cloudflare":
            return f"{host.title()} has no detach lines"
        block[3].append(line[1:].strip().lower())
        return None
    name, colon, value = line.partition(":")
    if not colon or not name.strip():
        return "not 'Name: value'"
    block[2].append((name.strip().lower(), value.strip()))
    return None


def _netlify_stray(line: str, where: str, rule_line: int | None) -> str:
    """What Netlify makes of a line at the start that is not a path."""
    if ":" not in line:
        return f"{where}: Netlify drops {line!r}: neither a path nor a header"
    return (
        f"{where}: Netlify takes {line!r} for a header of the rule at line {rule_line}, not a path:"
        " the headers under it go to that rule"
    )


def read_headers_file(text: str, file: str, host: str) -> tuple[list[HeaderRule], list[str]]:
    """``_headers``: a path (or, on Cloudflare, a URL) at the start of a line, then its
    headers indented below it, ``Name: value``; on Cloudflare ``! Name`` detaches one.

    Netlify takes only a line starting with ``/`` for a path: any other line at the
    start with a colon is a header of the rule above (and so are the lines under it).
    """
    blocks: list[tuple[str, int, list[tuple[str, str]], list[str]]] = []
    rejected: list[str] = []
    for number, line in _lines(text):
        stripped = line.strip()
        at_start = not line[0].isspace()
        if at_start and (host != "netlify" or stripped.startswith("/")):
            blocks.append((stripped, number, [], []))
            continue
        if host == "netlify" and at_start:
            rejected.append(_netlify_stray(stripped, f"{file} line {number}", blocks[-1][1] if blocks else None))
            if ":" not in stripped:
                continue
        problem = _header_line(blocks[-1] if blocks else None, stripped, host)
        if problem is not None:
            rejected.append(f"{file} line {number}: {problem}: {stripped!r}")
    rules: list[HeaderRule] = []
    for source, number, headers, detach in blocks:
        if host == "cloudflare":
            problem = _cloudflare_header_problem(source, headers, detach)
            if problem is None and len(rules) >= 101:
                problem = "past the limit of 100 header rules: ignored"
            if problem is not None:
                rejected.append(f"{file} line {number}: Cloudflare rejects {source!r}: {problem}")
                continue
            rules = [rule for rule in rules if rule.origin.text != source]  # a path twice: the later wins
        rules.append(_header_rule(source, number, file, host, headers, detach))
    return rules, rejected


_CLOUDFLARE_STATUSES = frozenset({200, 301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class _RedirectLine:
    """One ``_redirects`` line, split as Netlify splits it."""

    source: str
    to: str
    status: int
    force: bool
    query: tuple[str, ...]
    conditions: tuple[str, ...]


def _split_redirect(tokens: list[str], default_status: int) -> _RedirectLine | str:
    """The line's parts, or why it has none."""
    source, rest = tokens[0], tokens[1:]
    query = []
    while rest and "=" in rest[0] and not rest[0].startswith(("/", "http://", "https://")):
        query.append(rest.pop(0))
    if not rest:
        return "no destination"
    to, rest = rest[0], rest[1:]
    status, force = default_status, False
    if rest and re.fullmatch(r"\d{3}!?", rest[0]):
        status, force = int(rest[0].rstrip("!")), rest[0].endswith("!")
        rest = rest[1:]
    return _RedirectLine(source, to, status, force, tuple(query), tuple(rest))


def _netlify_problem(line: _RedirectLine) -> str | None:
    if not line.to.startswith(("/", "http:", "https:")):
        return 'the destination must start with "/", "http:" or "https:"'
    if any("=" not in condition for condition in line.conditions):
        return f"invalid status code {line.conditions[0]!r}"
    return None


def _cloudflare_problem(line: _RedirectLine) -> str | None:
    if line.query or line.conditions:
        return "Cloudflare has no query or condition matching"
    if line.force:
        return "Cloudflare has no forced rules ('!')"
    if line.status not in _CLOUDFLARE_STATUSES:
        return f"Cloudflare allows the statuses {', '.join(map(str, sorted(_CLOUDFLARE_STATUSES)))}"
    if line.status == 200 and "://" in line.to:
        return "Cloudflare proxies (200) to relative paths only"
    if "://" in line.source:
        return "only relative URLs are allowed"
    if "://" not in line.to and (
        (line.source.endswith("/*") and line.to.endswith(("/index", "/index.html")))
        or (line.source.endswith("/") and line.source == line.to)
    ):
        return "an infinite loop (the asset server strips .html and /index, and this rule fires again)"
    return None


def read_redirects_file(text: str, file: str, host: str) -> tuple[list[Redirect], list[str]]:
    """``_redirects``: ``from [query=:value ...] to [status[!]] [Condition=value ...]``.

    Netlify reads query parameters, conditions and a forced ``!``; Cloudflare
    only ``from to [status]`` (302 by default), within its limits, and refuses the
    other lines.
    """
    rules: list[Redirect] = []
    rejected: list[str] = []
    dynamic = static = 0
    for number, line in _lines(text):
        if host == "cloudflare" and len(line) > 2000:
            rejected.append(f"{file} line {number}: Cloudflare ignores lines over 2,000 characters")
            continue
        tokens = line.split()
        # An inline comment ends the line: Cloudflare after white space, Netlify at a token.
        tokens = tokens[: next((i for i, token in enumerate(tokens) if token.startswith("#")), len(tokens))]
        shown = " ".join(tokens)
        parts = _split_redirect(tokens, 302 if host == "cloudflare" else 301)
        problem = (
            parts
            if isinstance(parts, str)
            else (_cloudflare_problem if host == "cloudflare" else _netlify_problem)(parts)
        )
        if problem is None and isinstance(parts, _RedirectLine) and "://" in parts.source:
            problem = "a rule for a domain, not a path: not applied here"
        if problem is not None or not isinstance(parts, _RedirectLine):
            rejected.append(f"{file} line {number}: {host.title()} rejects {shown!r}: {problem}")
            continue
        source = parts.source
        if host == "cloudflare":
            is_dynamic = dynamic > 0 or "*" in source or re.search(r":[A-Za-z_]", source) is not None
            dynamic, static = dynamic + is_dynamic, static + (not is_dynamic)
            if (is_dynamic and dynamic > 100) or (not is_dynamic and static > 2000):
                limit = "100 dynamic" if is_dynamic else "2,000 static"
                rejected.append(f"{file} line {number}: past Cloudflare's limit of {limit} redirects: ignored")
                continue
            source = source.partition("?")[0]
        pattern = netlify_redirect_pattern(source) if host == "netlify" else splat_pattern(source)
        origin = Origin(file, f"line {number}", shown)
        rules.append(
            Redirect(pattern, parts.to, parts.status, origin, parts.force, bool(parts.query or parts.conditions))
        )
    return rules, rejected


# --- TOML and JSON --------------------------------------------------------------------------


def _load(path: Path, shown: str) -> object:
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


def _table(value: object, key: str, shown: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise ConfigError(key, f"must be a table, got {value!r}", source=shown)
    return value


def _list(value: object, key: str, shown: str) -> Sequence[object]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigError(key, f"must be a list, got {value!r}", source=shown)
    return value


def _text(item: Mapping[str, object], name: str, key: str, shown: str) -> str:
    value = item.get(name)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{key}.{name}", f"must be a string, got {value!r}", source=shown)
    return value


def read_netlify_toml(path: Path, shown: str) -> tuple[list[Redirect], list[HeaderRule], list[str]]:
    """netlify.toml's ``[[redirects]]`` and ``[[headers]]`` (after the docroot's own files)."""
    data = _table(_load(path, shown), "", shown)
    redirects: list[Redirect] = []
    headers: list[HeaderRule] = []
    rejected: list[str] = []
    for i, item in enumerate(_list(data.get("redirects"), "redirects", shown)):
        key = f"redirects[{i}]"
        item = _table(item, key, shown)
        source, to = _text(item, "from", key, shown), _text(item, "to", key, shown)
        status = item.get("status", 301)
        if not isinstance(status, int) or isinstance(status, bool):
            raise ConfigError(f"{key}.status", f"must be a number, got {status!r}", source=shown)
        origin = Origin(shown, key, f"from = {source!r}, to = {to!r}, status = {status}")
        if "://" in source:
            rejected.append(f"{shown} {key}: a rule for a domain, not a path: not applied here")
            continue
        pattern = netlify_redirect_pattern(source)
        conditional = bool(item.get("query") or item.get("conditions"))
        redirects.append(Redirect(pattern, to, status, origin, item.get("force") is True, conditional))
    for i, item in enumerate(_list(data.get("headers"), "headers", shown)):
        key = f"headers[{i}]"
        item = _table(item, key, shown)
        source = _text(item, "for", key, shown)
        values = _table(item.get("values", {}), f"{key}.values", shown)
        pairs: list[tuple[str, str]] = []
        for name, value in values.items():
            for one in value if isinstance(value, list) else [value]:
                pairs.append((name.lower(), str(one)))
        origin = Origin(shown, key, f"for = {source!r}")
        headers.append(HeaderRule(netlify_header_pattern(source), tuple(pairs), origin))
    return redirects, headers, rejected


#: A JSON host's pattern keys ("source", "regex") and how each compiles.
Sources = Mapping[str, Callable[[str], re.Pattern[str]]]


def _json_headers(items: Sequence[object], shown: str, compile_source: Sources) -> list[HeaderRule]:
    rules: list[HeaderRule] = []
    for i, item in enumerate(items):
        key = f"headers[{i}]"
        item = _table(item, key, shown)
        kind, source = _source_of(item, key, shown, compile_source)
        pairs = []
        for j, header in enumerate(_list(item.get("headers"), f"{key}.headers", shown)):
            header = _table(header, f"{key}.headers[{j}]", shown)
            pairs.append((_text(header, "key", f"{key}.headers[{j}]", shown).lower(), str(header.get("value", ""))))
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


def _json_redirects(
    items: Sequence[object],
    shown: str,
    compile_source: Sources,
    default: int,
    status: int | None = None,
    with_params: Sources | None = None,
) -> list[Redirect]:
    """Redirect (or, with `status` 200, rewrite) rules; `with_params` compiles the sources of
    rules whose destination names a ``:param`` (Firebase matches those by path-to-regexp)."""
    rules: list[Redirect] = []
    for i, item in enumerate(items):
        key = f"{'rewrites' if status == 200 else 'redirects'}[{i}]"
        item = _table(item, key, shown)
        to = str(item.get("destination", item.get("function", item.get("run", ""))))
        compilers = with_params if with_params is not None and ":" in to and "source" in item else compile_source
        kind, source = _source_of(item, key, shown, compilers)
        code = status if status is not None else _status(item, key, shown, default)
        conditional = bool(item.get("has"))  # a crawler's plain request meets every "missing"
        rules.append(Redirect(source, to, code, Origin(shown, key, f"{kind} {item[kind]!r}"), True, conditional))
    return rules


def _flag(data: Mapping[str, object], name: str, shown: str) -> bool | None:
    value = data.get(name)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(name, f"must be true or false, got {value!r}", source=shown)
    return value


def _vercel_source(source: str) -> re.Pattern[str]:
    """A vercel.json source: path-to-regexp 6, strict and case-sensitive (a trailing slash
    counts); a bare ``*`` or a query, which ``vercel dev`` refuses to start with, is an error."""
    if "?" in source.replace(")?", "").replace("*?", "") and re.search(r"\?[^/)]*=", source):
        raise re.error("a query is not part of a source")
    if re.search(r"(?:^|/)\*", source):
        raise re.error("a bare * is not path-to-regexp (write /:path* or /(.*))")
    return path_to_regexp(source, strict=True, sensitive=True)


def read_vercel_json(path: Path, shown: str) -> HostFiles:
    """vercel.json: ``cleanUrls``, ``trailingSlash``, ``redirects``, ``rewrites``, ``headers``
    (sources in path-to-regexp; rules with ``has``/``missing`` apply to some requests only)."""
    data = _table(_load(path, shown), "", shown)
    rejected = [f"{shown}: 'routes' (the legacy format) is not read"] if "routes" in data else []
    sources: Sources = {"source": _vercel_source}
    return HostFiles(
        redirects=(
            *_json_redirects(_list(data.get("redirects"), "redirects", shown), shown, sources, 308),
            *_json_redirects(_list(data.get("rewrites"), "rewrites", shown), shown, sources, 200, status=200),
        ),
        headers=tuple(_json_headers(_list(data.get("headers"), "headers", shown), shown, sources)),
        clean_urls=bool(_flag(data, "cleanUrls", shown)),
        trailing_slash=_flag(data, "trailingSlash", shown),
        rejected=tuple(rejected),
    )


def _firebase_glob(source: str) -> re.Pattern[str]:
    """Firebase's ``source`` (superstatic): a minimatch glob, case-sensitive, that also
    matches the path with a trailing slash."""
    pattern = glob_pattern(source)
    return pattern if source.endswith("/") else re.compile(pattern.pattern + "/?")


def _firebase_regex(source: str) -> re.Pattern[str]:
    """Firebase's ``regex``: RE2, not anchored (found anywhere in the path)."""
    re.compile(source)
    return re.compile(f".*(?:{source}).*", re.DOTALL)


def read_firebase_json(path: Path, shown: str) -> tuple[HostFiles, str | None]:
    """firebase.json's ``hosting``: ``public``, ``cleanUrls``, ``trailingSlash``, ``redirects``,
    ``rewrites`` and ``headers`` (``source`` a glob, ``regex`` a regular expression). One
    site only: a list of several is refused. Also gives ``public``, to check the docroot."""
    data = _table(_load(path, shown), "", shown)
    hosting = data.get("hosting")
    if isinstance(hosting, list):
        if len(hosting) != 1:
            raise ConfigError("hosting", "lists several sites: give the one to read as a file of its own", source=shown)
        hosting = hosting[0]
    hosting = _table(hosting, "hosting", shown)
    sources: Sources = {"source": _firebase_glob, "regex": _firebase_regex}
    public = hosting.get("public")
    redirects = _list(hosting.get("redirects"), "hosting.redirects", shown)
    files = HostFiles(
        redirects=(
            # A redirect whose destination has a ":name" is matched by path-to-regexp instead.
            *_json_redirects(redirects, shown, sources, 301, with_params={"source": path_to_regexp}),
            *_json_redirects(
                _list(hosting.get("rewrites"), "hosting.rewrites", shown), shown, sources, 200, status=200
            ),
        ),
        headers=tuple(_json_headers(_list(hosting.get("headers"), "hosting.headers", shown), shown, sources)),
        clean_urls=bool(_flag(hosting, "cleanUrls", shown)),
        trailing_slash=_flag(hosting, "trailingSlash", shown),
        rejected=(f"{shown}: hosting.i18n is not read",) if "i18n" in hosting else (),
    )
    return files, public if isinstance(public, str) else None


def _serve_source(source: str) -> re.Pattern[str]:
    """serve-handler matches a redirect's or rewrite's source as path-to-regexp (``*`` as
    ``(.*)``, any case, a trailing slash optional) or as a glob."""
    ptr = path_to_regexp(source.replace("*", "(.*)", 1))
    glob = glob_pattern(source)
    return re.compile(f"(?:{ptr.pattern})|(?:{glob.pattern})", re.IGNORECASE)


def _serve_glob(source: str) -> re.Pattern[str]:
    return glob_pattern(source if source.startswith("/") else "/" + source)


def read_serve_json(path: Path, shown: str) -> HostFiles:
    """serve.json (serve-handler's options): ``cleanUrls`` (true or globs), ``trailingSlash``,
    ``redirects``, ``rewrites``, ``headers`` (``unlisted`` hides files from its directory
    listings only: they are still served)."""
    data = _table(_load(path, shown), "", shown)
    sources: Sources = {"source": _serve_source}
    clean = data.get("cleanUrls", True)
    clean_urls: bool | re.Pattern[str]
    if isinstance(clean, bool):
        clean_urls = clean
    else:
        globs = [str(g) for g in _list(clean, "cleanUrls", shown)]
        clean_urls = re.compile("|".join(f"(?:{glob_pattern(g).pattern})" for g in globs) or "(?!)")
    return HostFiles(
        redirects=(
            *_json_redirects(_list(data.get("redirects"), "redirects", shown), shown, sources, 301),
            *_json_redirects(_list(data.get("rewrites"), "rewrites", shown), shown, sources, 200, status=200),
        ),
        # A header's source is a glob alone (minimatch, case and all), on the path of the file served.
        headers=tuple(_json_headers(_list(data.get("headers"), "headers", shown), shown, {"source": _serve_glob})),
        clean_urls=clean_urls,
        trailing_slash=_flag(data, "trailingSlash", shown),
    )
