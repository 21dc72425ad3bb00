"""The matching languages of the hosts' rules, each made a regular expression over the
decoded URL path: splats and placeholders (Netlify, Cloudflare), path-to-regexp (Vercel,
serve) or globs (Firebase, serve)."""

from __future__ import annotations

import re


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
