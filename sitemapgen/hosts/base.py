"""What a static host answers for each URL of the site, so only what it serves is listed.

Netlify, Cloudflare Pages, Vercel, Firebase Hosting and ``serve`` each decide
which URL forms of a page answer 200 (``/a/b.html``, ``/a/b``, ``/a/b/``),
which redirect, and which carry an ``X-Robots-Tag: noindex``, from their own
files (read by `files`, `lines` and each host's module). Each host is a small
model of its server: `Host.respond` gives the answer to one URL path, as that
host's own local server gives it (measured: see tests/hosts/test_hosts.py, which runs
those servers where they install). `Host.place` then asks it about every form
of a page, preferred form first, and lists the page under the first form that
answers 200 with the page itself and no noindex; a page no form serves that way
is left out, with the rule, file and line that decided.

Here is what the hosts share: `Host`, the model each host's module subclasses, and
`CleanUrlHost`, for the hosts with ``cleanUrls`` and ``trailingSlash`` settings (Firebase,
Vercel, serve). `HOSTS` in `load` is the registry: one class per host, named as ``--host``
names it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from sitemapgen.config.words import HostName
from sitemapgen.hosts.files import HeaderRule, HostFiles, Origin, Redirect
from sitemapgen.skips import Skip, SkipReason, display
from sitemapgen.urls import INDEX_NAMES, Served, UrlStyle, decoded_path, encoded_path, path_past_base


@dataclass(frozen=True, slots=True)
class Answer:
    """What the host answers for one URL path (decoded, starting with ``/``)."""

    status: int
    file: str | None = None  # the docroot relpath served, for a 200
    location: str | None = None  # for a redirect
    rule: Origin | None = None  # the redirect or rewrite rule that decided, if one did
    fallback: bool = False  # the host's answer for a path it has nothing at (Cloudflare's home page)
    header_path: str | None = None  # the path header rules match, where not the one asked (Netlify)


#: The crawlers whose noindex keeps a page out of a sitemap: the engines that read sitemaps
#: and report on them. ``otherbot: noindex`` leaves the page to everyone else.
_NOINDEX_AGENTS = frozenset({"googlebot", "bingbot"})
#: Directives written ``name: value``, which a user-agent prefix must not be taken for.
_VALUED = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
_AGENT = re.compile(r"\s*([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)")


def says_noindex(value: str, agents: frozenset[str] = _NOINDEX_AGENTS) -> bool:
    """Whether an ``X-Robots-Tag`` value keeps the page out of the index of `agents` (lower-case
    user-agent tokens; Google's and Bing's by default): ``noindex`` or ``none``, in any case,
    for every crawler or with a user-agent prefix naming one of them (``googlebot: noindex``)."""
    agent: str | None = None
    for part in value.split(","):
        m = _AGENT.fullmatch(part)
        if m is not None and m.group(1).lower() not in _VALUED:
            agent, part = m.group(1).lower(), m.group(2)
        if part.strip().lower() in ("noindex", "none") and (agent is None or agent in agents):
            return True
    return False


def page_forms(relpath: str) -> tuple[str, ...]:
    """Every URL path (decoded, without the leading ``/``) a host may answer a page under:
    its file's path, without the suffix, with a slash; an index page as its directory,
    with and without the slash, and its file's path."""
    head, _, name = relpath.rpartition("/")
    prefix = head + "/" if head else ""
    if name in INDEX_NAMES:
        stem = prefix + name.rpartition(".")[0]
        if not head:
            return ("", name, stem)
        return (prefix, head, prefix + name, stem)
    stem = prefix + name.rpartition(".")[0]
    return (prefix + name, stem, stem + "/")


def _substitute(to: str, match: re.Match[str]) -> str:
    """A redirect's destination with ``:splat``, ``:name`` and ``$1`` filled in from the
    source's match; a name the source does not have stays as it is."""
    named = match.groupdict()
    numbered = [g for i, g in enumerate(match.groups(), 1) if i not in match.re.groupindex.values()]

    def fill(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            value = named.get(m.group(1))
        else:
            number = int(m.group(2))
            value = numbered[number - 1] if number <= len(numbered) else None
        return m.group(0) if value is None and m.group(1) not in named else value or ""

    # An optional or repeated :name left empty takes its slash with it (/docs/:rest* -> /docs).
    to = re.sub(
        r"/:([A-Za-z_][A-Za-z0-9_]*)[*?](?=/|$)",
        lambda m: m.group(0) if named.get(m.group(1)) or m.group(1) not in named else "",
        to,
    )
    return re.sub(r":([A-Za-z_][A-Za-z0-9_]*)(?:[*+?](?=/|$))?|\$(\d+)", fill, to)


class Host:
    """One host's model: how it answers a URL path, which headers it adds, which form it
    prefers. Subclasses say how (`respond`, `_headers_for`); `place` is shared."""

    name: ClassVar[HostName]
    #: The URL style of the form this host prefers, for what is not asked of `respond`
    #: (robots.txt matching, the URLs of skipped pages in a report).
    style: UrlStyle = UrlStyle.DIRECTORY

    def __init__(
        self, files: HostFiles, docroot: Path, production_host: str, url_style: UrlStyle = UrlStyle.DIRECTORY
    ) -> None:
        """`url_style` is the configured one: the form listed where the host serves several."""
        self.files = files
        self.root = os.path.join(os.fspath(docroot), "")
        self.production_host = production_host
        self._file_cache: dict[str, bool] = {}
        self._writing: set[str] = set()  # files the build writes into the docroot, not there yet (`writes`)
        # Most paths match no rule: one regex says so, instead of a match per rule (a site
        # may have thousands). Only the rules that touch X-Robots-Tag matter for noindex.
        self._any_rule = _any_of([rule.source for rule in files.redirects if not rule.conditional])
        self.robots_rules = tuple(
            rule
            for rule in files.headers
            if "x-robots-tag" in rule.detach or any(name == "x-robots-tag" for name, _ in rule.headers)
        )

    def rules_for(self, path: str) -> tuple[Redirect, ...]:
        """The redirect and rewrite rules to try on `path`: none when none can match it."""
        any_rule = self._any_rule
        return self.files.redirects if any_rule is None or any_rule.fullmatch(path) else ()

    # --- the model ------------------------------------------------------------------

    def is_file(self, relpath: str) -> bool:
        """Whether the docroot has a regular file (a symlink to one counts) at `relpath`."""
        known = self._file_cache.get(relpath)
        if known is None:
            if len(self._file_cache) > 4096:
                self._file_cache.clear()
            known = self._file_cache[relpath] = bool(relpath) and (
                relpath in self._writing or os.path.isfile(self.root + relpath)
            )
        return known

    def writes(self, relpath: str) -> None:
        """The build is writing a file at `relpath` (the HTML sitemap's page): the host will serve it."""
        self._writing.add(relpath)
        self._file_cache.pop(relpath, None)

    def respond(self, path: str) -> Answer:
        """What the host answers for `path` (decoded, from ``/``), as its own server does."""
        raise NotImplementedError

    def noindex(self, path: str, answer: Answer) -> tuple[str, Origin] | None:
        """The ``X-Robots-Tag`` value that puts noindex on `answer`, the 200 the host gives
        for `path`, and its rule; None if none does."""
        tags = self._robots_tags(path, answer)
        return next(((value, origin) for value, origin in tags if says_noindex(value)), None)

    def _robots_tags(self, path: str, answer: Answer) -> Iterator[tuple[str, Origin]]:
        """The ``X-Robots-Tag`` value the host sends with `answer`, with its rule: every
        matching rule applies, and of those that set the header the last one wins."""
        last: tuple[str, Origin] | None = None
        for rule in self._headers_for(path, answer):
            values = [value for name, value in rule.headers if name == "x-robots-tag"]
            if values:
                last = ", ".join(values), rule.origin
        if last is not None:
            yield last

    def _headers_for(self, path: str, answer: Answer) -> Iterator[HeaderRule]:
        """The header rules that apply to `answer`, the host's for `path`: those for `path`."""
        for rule in self.robots_rules:
            if rule.source.fullmatch(path):
                yield rule

    def _redirect(self, path: str, rules: tuple[Redirect, ...] | None = None) -> tuple[Redirect, str] | None:
        """The first rule (of `rules`, else all) whose source matches `path`, with its
        destination filled in. Rules for some requests only (a query, a country) are not
        what a crawler's plain request meets."""
        for rule in self.rules_for(path) if rules is None else rules:
            if rule.conditional:
                continue
            match = rule.source.fullmatch(path)
            if match is not None:
                return rule, _substitute(rule.to, match)
        return None

    def preferred(self, relpath: str) -> tuple[str, ...]:
        """The page's forms, the one this host links to first."""
        return page_forms(relpath)

    def served(self, url: str, base_url: str) -> Served | None:
        """The file that answers `url` (see `urls.served_files`): directly, or after the
        host's redirects within the site (five at most); None if `url` is not under `base_url`."""
        rest = path_past_base(url, base_url)
        if rest is None:
            return None
        path = "/" + decoded_path(rest)
        answer = self.respond(path)
        if answer.fallback:  # nothing there: a canonical naming it names no page
            return Served(())
        if answer.status == 200:
            return Served((answer.file,) if answer.file is not None else ())
        for _ in range(5):
            if not (300 <= answer.status < 400 and answer.location and answer.location.startswith("/")):
                break
            answer = self.respond(answer.location.partition("?")[0])
        found = answer.status == 200 and answer.file is not None and not answer.fallback
        return Served((), (answer.file,) if found and answer.file is not None else ())

    # --- the decision ---------------------------------------------------------------

    def place(self, relpath: str) -> tuple[Skip | None, str]:
        """The page's URL path (encoded, relative to the base URL) if the host serves it,
        else a `Skip` that names what decided: the form it prefers, and the rule."""
        refusal: Skip | None = None
        for form in self.preferred(relpath):
            path = "/" + form
            answer = self.respond(path)
            if answer.status == 200 and answer.file == relpath:
                noindex = self.noindex(path, answer)
                if noindex is None:
                    return None, encoded_path(form)
                if refusal is None or refusal.reason is not SkipReason.HOST_NOINDEX:
                    value, origin = noindex
                    detail = f"{path} answers with X-Robots-Tag: {value}; {origin}"
                    refusal = Skip(relpath, SkipReason.HOST_NOINDEX, detail)
            elif refusal is None and answer.rule is not None and 300 <= answer.status < 400:
                detail = f"{path} answers {answer.status} to {answer.location}; {answer.rule}"
                refusal = Skip(relpath, SkipReason.HOST_REDIRECT, detail)
        if refusal is not None:
            return refusal, ""
        path = "/" + self.preferred(relpath)[0]
        answer = self.respond(path)
        if answer.status == 200 and answer.file is not None:
            detail = f"{path} answers with {display(answer.file)}"
        else:
            detail = f"no URL of it answers 200 ({path}: {answer.status})"
        return Skip(relpath, SkipReason.HOST_NOT_SERVED, detail), ""


def dir_index(host: Host, path: str) -> str | None:
    """The index file of the directory `path` (ending in ``/``) names, if it has one."""
    for name in INDEX_NAMES:
        if host.is_file(path[1:] + name):
            return path[1:] + name
    return None


def _any_of(patterns: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One pattern that matches what any of `patterns` matches (their groups unnamed, their
    flags kept); None if there are none, or they do not combine (a backreference)."""
    if not patterns:
        return None
    parts = []
    for pattern in patterns:
        body = re.sub(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>", "(?:", pattern.pattern)
        flags = ("i" if pattern.flags & re.IGNORECASE else "") + ("s" if pattern.flags & re.DOTALL else "")
        parts.append(f"(?{flags}:{body})" if flags else f"(?:{body})")
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None


class CleanUrlHost(Host):
    """A host with ``cleanUrls`` and ``trailingSlash`` settings (Firebase, Vercel, serve)."""

    def __init__(
        self, files: HostFiles, docroot: Path, production_host: str, url_style: UrlStyle = UrlStyle.DIRECTORY
    ) -> None:
        super().__init__(files, docroot, production_host, url_style)
        clean = files.clean_urls is not False
        self.style = (
            UrlStyle.DIRECTORY if not clean else UrlStyle.EXTENSIONLESS if files.trailing_slash else UrlStyle.CLEAN
        )

    def preferred(self, relpath: str) -> tuple[str, ...]:
        """The form its settings make: ``a.html`` and ``d/`` without ``cleanUrls``; ``a`` and
        ``d`` with it; ``a/`` and ``d/`` with ``trailingSlash`` too. The home page is ``/``."""
        forms = page_forms(relpath)
        if not forms[0]:
            return forms
        index = relpath.rpartition("/")[2] in INDEX_NAMES
        at = 0 if self.files.clean_urls is False else (0 if index else 2) if self.files.trailing_slash else 1
        return (forms[at], *forms[:at], *forms[at + 1 :])
