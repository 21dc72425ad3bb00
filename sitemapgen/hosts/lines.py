"""The line formats Netlify and Cloudflare Pages read from the docroot: ``_headers`` and
``_redirects``, each rule with the file, line and text it came from.

The line formats are small and documented. Each host has its own dialect of the
same files (Cloudflare rejects Netlify's forced ``301!`` and query conditions;
Netlify has no detach line), so every reader takes the host's name and says, in
a line of `HostFiles.rejected`, what that host would refuse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sitemapgen.hosts.files import HeaderRule, Origin, Redirect
from sitemapgen.hosts.patterns import netlify_header_pattern, netlify_redirect_pattern, splat_pattern


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
    source: str, number: int, *, file: str, host: str, headers: list[tuple[str, str]], detach: list[str]
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
        rules.append(_header_rule(source, number, file=file, host=host, headers=headers, detach=detach))
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


def _parse_redirect(line: str, host: str) -> tuple[str, _RedirectLine | str]:
    """The line as written (up to an inline comment), and its parts, or why `host` rejects it."""
    tokens = line.split()
    # An inline comment ends the line: Cloudflare after white space, Netlify at a token.
    tokens = tokens[: next((i for i, token in enumerate(tokens) if token.startswith("#")), len(tokens))]
    shown = " ".join(tokens)
    parts = _split_redirect(tokens, 302 if host == "cloudflare" else 301)
    if isinstance(parts, str):
        return shown, parts
    problem = (_cloudflare_problem if host == "cloudflare" else _netlify_problem)(parts)
    if problem is None and "://" in parts.source:
        problem = "a rule for a domain, not a path: not applied here"
    return shown, parts if problem is None else problem


def _cloudflare_count(source: str, dynamic: int, static: int) -> tuple[int, int, str | None]:
    """The counts of dynamic and static rules, `source`'s rule counted, and the limit of
    Cloudflare's it is past (None if none): once one rule is dynamic, every later one is."""
    is_dynamic = dynamic > 0 or "*" in source or re.search(r":[A-Za-z_]", source) is not None
    dynamic, static = dynamic + is_dynamic, static + (not is_dynamic)
    if (is_dynamic and dynamic > 100) or (not is_dynamic and static > 2000):
        return dynamic, static, "100 dynamic" if is_dynamic else "2,000 static"
    return dynamic, static, None


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
        shown, parts = _parse_redirect(line, host)
        if isinstance(parts, str):
            rejected.append(f"{file} line {number}: {host.title()} rejects {shown!r}: {parts}")
            continue
        source = parts.source
        if host == "cloudflare":
            dynamic, static, limit = _cloudflare_count(source, dynamic, static)
            if limit is not None:
                rejected.append(f"{file} line {number}: past Cloudflare's limit of {limit} redirects: ignored")
                continue
            source = source.partition("?")[0]
        pattern = netlify_redirect_pattern(source) if host == "netlify" else splat_pattern(source)
        origin = Origin(file, f"line {number}", shown)
        rules.append(
            Redirect(pattern, parts.to, parts.status, origin, parts.force, bool(parts.query or parts.conditions))
        )
    return rules, rejected
