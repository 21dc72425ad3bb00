"""What a static host answers for each URL of the site, so only what it serves is listed.

Netlify, Cloudflare Pages, Vercel, Firebase Hosting and ``serve`` each decide
which URL forms of a page answer 200 (``/a/b.html``, ``/a/b``, ``/a/b/``),
which redirect, and which carry an ``X-Robots-Tag: noindex``, from their own
files (read by `hostfiles`). Each host here is a small model of its server:
`Host.respond` gives the answer to one URL path, as that host's own local
server gives it (measured: see tests/test_hosts.py, which runs those servers
where they install). `Host.place` then asks it about every form of a page,
preferred form first, and lists the page under the first form that answers
200 with the page itself and no noindex; a page no form serves that way is
left out, with the rule, file and line that decided.

`HOSTS` is the registry: one class per host, named as ``--host`` names it.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import unquote_to_bytes, urlsplit

from sitemapgen._types import Warn
from sitemapgen.config.words import HostName
from sitemapgen.errors import ConfigError
from sitemapgen.hosts.files import (
    HeaderRule,
    HostFiles,
    Origin,
    Redirect,
    read_firebase_json,
    read_headers_file,
    read_netlify_toml,
    read_redirects_file,
    read_serve_json,
    read_vercel_json,
)
from sitemapgen.skips import Skip, SkipReason, display
from sitemapgen.urls import INDEX_NAMES, Served, UrlStyle, encoded_path
from sitemapgen.util.safeio import read_regular

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config


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


def says_noindex(value: str) -> bool:
    """Whether an ``X-Robots-Tag`` value keeps the page out of Google's or Bing's index:
    ``noindex`` or ``none``, in any case, for every crawler or with a user-agent prefix
    naming one of theirs (``googlebot: noindex``)."""
    agent: str | None = None
    for part in value.split(","):
        m = _AGENT.fullmatch(part)
        if m is not None and m.group(1).lower() not in _VALUED:
            agent, part = m.group(1).lower(), m.group(2)
        if part.strip().lower() in ("noindex", "none") and (agent is None or agent in _NOINDEX_AGENTS):
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
            known = self._file_cache[relpath] = bool(relpath) and os.path.isfile(self.root + relpath)
        return known

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
        if not url.startswith(base_url):
            return None
        path = "/" + os.fsdecode(unquote_to_bytes(urlsplit(url).path[len(urlsplit(base_url).path) :]))
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


# --- the hosts ---------------------------------------------------------------------------


def _dir_index(host: Host, path: str) -> str | None:
    """The index file of the directory `path` (ending in ``/``) names, if it has one."""
    for name in INDEX_NAMES:
        if host.is_file(path[1:] + name):
            return path[1:] + name
    return None


def _one_segment(value: str | None) -> bool:
    return bool(value) and "/" not in (value or "")


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


HOSTS: dict[HostName, type[Host]] = {}


def _register(cls: type[Host]) -> type[Host]:
    HOSTS[cls.name] = cls
    return cls


@_register
class Cloudflare(Host):
    """Cloudflare Pages (``wrangler pages dev``): ``_redirects`` first, for the literal path,
    whether or not a file is there; then its asset server, which serves ``/a/b`` for
    ``a/b.html`` and ``/a/`` for ``a/index.html`` and 308-redirects every other form.
    ``_headers`` match the path asked for (``/terms.html`` does not cover ``/terms``), a
    URL-scoped rule only on its host, and ``! Name`` removes a header for the paths it names."""

    name = HostName.CLOUDFLARE
    style = UrlStyle.EXTENSIONLESS

    def preferred(self, relpath: str) -> tuple[str, ...]:
        """``/a/b`` and ``/a/`` first: the forms its asset server answers (one question a page)."""
        forms = page_forms(relpath)
        if relpath.rpartition("/")[2] in INDEX_NAMES:
            return forms
        return (forms[1], forms[0], *forms[2:])

    def respond(self, path: str) -> Answer:
        found = self._redirect(path)
        if found is None:
            return self._asset(path)
        rule, to = found
        if rule.status != 200:
            return Answer(rule.status, location=to, rule=rule.origin)
        served = self._asset(to.partition("?")[0])  # a 200 rule replaces the path, then as usual
        return Answer(served.status, served.file, served.location, rule.origin, served.fallback)

    def _asset(self, path: str) -> Answer:
        """The asset server (pages-shared's ``generateHandler``), after the redirects."""
        name = path[1:]
        if path.endswith("/"):
            if self.is_file(name + "index.html"):
                return Answer(200, name + "index.html")
            if path.endswith("/index/"):
                return Answer(308, location=path[:-6])
            if path != "/" and self.is_file(name[:-1] + ".html"):
                return Answer(308, location=path[:-1])
        elif self.is_file(name):
            if not name.endswith(".html"):
                return Answer(200, name)
            if path.endswith("/index.html"):
                return Answer(308, location=path[:-10])
            if self.is_file(name[:-5]):
                return Answer(200, name)
            return Answer(308, location=path[:-5])
        elif path.endswith("/index"):
            return Answer(308, location=path[:-5])
        elif self.is_file(name + ".html"):
            return Answer(200, name + ".html")
        elif self.is_file(name + "/index.html"):
            return Answer(308, location=path + "/")
        return self._not_found()

    def _not_found(self) -> Answer:
        """Without a 404.html, Pages takes the site for a single-page app: the home page, 200."""
        if not self.is_file("404.html") and self.is_file("index.html"):
            return Answer(200, "index.html", fallback=True)
        return Answer(404)

    def _robots_tags(self, path: str, answer: Answer) -> Iterator[tuple[str, Origin]]:
        """Every rule that matches, in file order: its ``! Name`` first, then its values,
        appended to what rules above set. A preview host (``x.y.pages.dev``) gets noindex
        from Pages itself, which rules can replace."""
        labels = self.production_host.split(".")
        current: list[tuple[str, Origin]] = []
        if self.production_host.endswith(".pages.dev") and len(labels) > 3:
            current = [("noindex", Origin("Cloudflare Pages", "preview host", self.production_host))]
        set_by_rule = False
        for rule in self._headers_for(path, answer):
            if "x-robots-tag" in rule.detach:
                current, set_by_rule = [], False
            values = [(value, rule.origin) for name, value in rule.headers if name == "x-robots-tag"]
            if values:
                current = [*current, *values] if set_by_rule else values
                set_by_rule = True
        yield from current

    def _headers_for(self, path: str, answer: Answer) -> Iterator[HeaderRule]:
        for rule in self.robots_rules:
            if rule.host is not None and not rule.host.fullmatch(self.production_host):
                continue
            if rule.source.fullmatch(path):
                yield rule


@_register
class Netlify(Host):
    """Netlify (``netlify dev``): every form of a page answers (``/a/b.html``, ``/a/b``,
    ``/a/b/``; a folder's index before a file of its name), so the URL style decides
    which is listed. Redirects come first, for the exact path (case and all, a trailing
    slash aside), but a rule a file answers for is shadowed unless forced (``301!``,
    ``force = true``); rules with query or condition parts apply to some requests only.
    Header rules match the path served: ``/terms`` is served as ``/terms.html``, so a
    rule for ``/terms.html`` covers it; the last rule to set a header wins."""

    name = HostName.NETLIFY

    def __init__(
        self, files: HostFiles, docroot: Path, production_host: str, url_style: UrlStyle = UrlStyle.DIRECTORY
    ) -> None:
        super().__init__(files, docroot, production_host, url_style)
        self.style = url_style  # every form answers: the configured one is listed

    #: The configured style's form, as its place in `page_forms`: (an index page's, another's).
    _FORM_AT = {
        UrlStyle.DIRECTORY: (0, 0),  # d/, a.html
        UrlStyle.INDEX: (2, 0),  # d/index.html, a.html
        UrlStyle.EXTENSIONLESS: (0, 1),  # d/, a
        UrlStyle.CLEAN: (1, 1),  # d, a
    }

    def preferred(self, relpath: str) -> tuple[str, ...]:
        forms = page_forms(relpath)
        index = relpath.rpartition("/")[2] in INDEX_NAMES
        at = self._FORM_AT[self.style][0 if index else 1]
        if index and not forms[0]:  # the home page: ("", "index.html", "index")
            at = {2: 1, 1: 0}.get(at, at)
        return (forms[at], *forms[:at], *forms[at + 1 :])

    @staticmethod
    def _alternatives(path: str) -> tuple[str, ...]:
        """The files netlify dev tries when nothing is at `path` itself."""
        stem = path[1:-1] if path.endswith("/") else path[1:]
        if not path.endswith("/") and "." in path.rpartition("/")[2]:
            return ()
        return (stem + ".html", stem + ".htm", stem + "/index.html", stem + "/index.htm")

    def _static(self, path: str) -> tuple[str, str] | None:
        """The file served for `path` without a rule, and the path its headers match."""
        name = path[1:]
        if self.is_file(name) and not name.endswith("/"):
            return name, path
        if not name or os.path.isdir(self.root + name):
            index = _dir_index(self, path if path.endswith("/") else path + "/")
            if index is not None:
                return index, path
        for alternative in self._alternatives(path):
            if self.is_file(alternative):
                return alternative, "/" + alternative
        return None

    def _shadow(self, path: str) -> str | None:
        """The file that shadows a rule matching `path`: at the path, else an alternative."""
        if self.is_file(path[1:]):
            return path[1:]
        return next((a for a in self._alternatives(path) if self.is_file(a)), None)

    def respond(self, path: str) -> Answer:
        found = self._redirect(path)
        if found is not None:
            rule, to = found
            shadow = self._shadow(path)
            if shadow is not None and not rule.force:
                return Answer(200, shadow, header_path="/" + shadow)
            if rule.status == 200:
                served = self._static(to.partition("?")[0])
                if served is None:
                    return Answer(404, rule=rule.origin)
                return Answer(200, served[0], rule=rule.origin, header_path="/" + served[0])
            return Answer(rule.status, location=to, rule=rule.origin)
        served = self._static(path)
        return Answer(200, served[0], header_path=served[1]) if served is not None else Answer(404)

    def _headers_for(self, path: str, answer: Answer) -> Iterator[HeaderRule]:
        yield from super()._headers_for(answer.header_path or path, answer)


class _CleanUrlHost(Host):
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


@_register
class Firebase(_CleanUrlHost):
    """Firebase Hosting (its emulator, superstatic): redirects first, whatever files exist
    (a trailing slash does not matter to them); then ``cleanUrls`` (``/a.html`` and
    ``/a/index.html`` 301 to ``/a``) and ``trailingSlash``; then files, a folder's index
    before a file of its name; then rewrites. Headers match the path asked for only
    (``/private/**`` does not cover ``/private``), on redirects too."""

    name = HostName.FIREBASE

    def _redirect(self, path: str, rules: tuple[Redirect, ...] | None = None) -> tuple[Redirect, str] | None:
        """As `Host._redirect`, but a rule whose destination cannot be filled (a ``:name``
        left empty, or given several segments) is passed over, as superstatic does."""
        for rule in self.rules_for(path) if rules is None else rules:
            found = super()._redirect(path, (rule,))
            if found is None:
                continue
            match = rule.source.fullmatch(path)
            assert match is not None
            named = match.groupdict()
            # A plain :name takes one segment: superstatic fails to fill it with "" or "a/b".
            params = re.findall(r":([A-Za-z_][A-Za-z0-9_]*)([*+?]?)", rule.to)
            if all(modifier or _one_segment(named.get(name)) for name, modifier in params if name in named):
                return found
        return None

    def respond(self, path: str) -> Answer:
        found = self._redirect(path)
        if found is not None and found[0].status != 200:
            rule, to = found
            return Answer(rule.status, location=to, rule=rule.origin)
        clean, slash = self.files.clean_urls is not False, self.files.trailing_slash
        name = path[1:]
        if clean and name.endswith(".html") and self.is_file(name):
            stem = path[:-5]
            target = stem[:-6] if stem.endswith("/index") else stem
            if target and slash:
                target += "/"
            return Answer(301, location=target or "/")
        if clean and path.endswith("/index") and self.is_file(name + ".html"):
            folder = path[:-5]
            return Answer(301, location=folder if slash or folder == "/" else folder[:-1])
        served = self._file(path, clean, slash)
        if served is not None:
            return served
        for rule in self.rules_for(path):
            if rule.status == 200 and rule.source.fullmatch(path):
                rewritten = self._file(rule.to, clean, None)
                if rewritten is not None and rewritten.status == 200:
                    return Answer(200, rewritten.file, rule=rule.origin)
        return Answer(404)

    def _file(self, path: str, clean: bool, slash: bool | None) -> Answer | None:
        name = path[1:]
        if name == "" or name.endswith("/"):
            index = _dir_index(self, path)
            page = name[:-1] + ".html" if clean and name and self.is_file(name[:-1] + ".html") else None
            if index is None and page is None:
                return None
            if slash is False and name:
                return Answer(301, location=path[:-1])
            if slash is None and index is None:
                return None  # /a/ of a.html, without trailingSlash: 404
            return Answer(200, index or page)
        if self.is_file(name) and not os.path.isdir(self.root + name):
            return Answer(200, name)
        index = _dir_index(self, path + "/")
        page = name + ".html" if clean and self.is_file(name + ".html") else None
        if index is None and page is None:
            return None
        if slash or (index is not None and not clean and slash is None):
            return Answer(301, location=path + "/")
        return Answer(200, index or page)


# --- reading a host's files ----------------------------------------------------------------

#: The file a host keeps at the project's top (or in the docroot), which --host-config names.
TOP_FILES = {
    HostName.NETLIFY: "netlify.toml",
    HostName.VERCEL: "vercel.json",
    HostName.FIREBASE: "firebase.json",
    HostName.SERVE: "serve.json",
}


#: The most of a ``_headers`` or ``_redirects`` file read (Cloudflare's limits make 4 MB).
LINE_FILE_LIMIT = 16 * 1_048_576


def _line_file(docroot: Path, name: str) -> str | None:
    """A docroot file of a line format (``_headers``, ``_redirects``), or None if there is none.

    A symlink to outside the docroot is not read (its lines would be said back in warnings),
    nor a FIFO or a device (it would never end)."""
    path = docroot / name
    if path.is_symlink() and not os.path.realpath(path).startswith(os.path.join(os.path.realpath(docroot), "")):
        raise ConfigError("", "a symlink to outside the docroot: not read", source=str(path))
    try:
        data = read_regular(path, follow_symlinks=True, limit=LINE_FILE_LIMIT + 1)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError("", f"cannot read it: {e.strerror or e}", source=str(path)) from None
    if len(data) > LINE_FILE_LIMIT:
        raise ConfigError("", f"larger than {LINE_FILE_LIMIT:,} bytes: not a host's rules file", source=str(path))
    return data.decode("utf-8", "replace")


def _top_file(config: Config, name: str) -> Path | None:
    """--host-config, else the file in the docroot, else beside it (the project's top), but
    for serve.json, which serve reads from the directory it serves only."""
    if config.host_config is not None:
        if not config.host_config.is_file():
            raise ConfigError("host_config", f"no such file: {config.host_config}")
        return config.host_config
    places = [config.docroot] if config.host is HostName.SERVE else [config.docroot, config.docroot.resolve().parent]
    for place in places:
        if (place / name).is_file():
            return place / name
    return None


def _line_files(config: Config, host: HostName) -> HostFiles:
    """Netlify's and Cloudflare's files: ``_redirects`` (first) and ``_headers`` in the
    docroot, then for Netlify netlify.toml's tables."""
    docroot = Path(config.docroot)
    redirects: list[Redirect] = []
    headers: list[HeaderRule] = []
    rejected: list[str] = []
    text = _line_file(docroot, "_redirects")
    if text is not None:
        redirects, rejected = read_redirects_file(text, "_redirects", host.value)
    text = _line_file(docroot, "_headers")
    if text is not None:
        headers, refused = read_headers_file(text, "_headers", host.value)
        rejected += refused
    top = _top_file(config, TOP_FILES[host]) if host in TOP_FILES else None
    if top is not None:
        more_redirects, more_headers, refused = read_netlify_toml(top, str(top))
        redirects, headers, rejected = redirects + more_redirects, headers + more_headers, rejected + refused
    return HostFiles(tuple(redirects), tuple(headers), rejected=tuple(rejected))


def _read_files(config: Config) -> HostFiles:
    """What `config.host` reads, from where it keeps it."""
    host = config.host
    if host is HostName.CLOUDFLARE and config.host_config is not None:
        raise ConfigError("host_config", "Cloudflare Pages reads only _headers and _redirects, in the docroot")
    if host in (HostName.NETLIFY, HostName.CLOUDFLARE):
        return _line_files(config, host)
    top = _top_file(config, TOP_FILES[host])
    if top is None:  # each host's defaults: serve's cleanUrls is on unless its file says otherwise
        return HostFiles(clean_urls=host is HostName.SERVE)
    shown = str(top)
    if host is HostName.VERCEL:
        return read_vercel_json(top, shown)
    if host is HostName.SERVE:
        return read_serve_json(top, shown)
    files, public = read_firebase_json(top, shown)
    if public is not None and (top.parent / public).resolve() != Path(config.docroot).resolve():
        raise ConfigError("hosting.public", f"is {public!r}, which is not the docroot {config.docroot}", source=shown)
    return files


def effective_config(config: Config, warn: Warn) -> tuple[Config, Host | None]:
    """`config` as its host serves it, and the host model (None for ``plain``): the host's
    preferred URL form becomes `url_style`, the style of what is not asked of the host
    (robots.txt, reports). Lines of the host's files that it would reject are said through `warn`.
    Every command resolves this once, before any stage sees the config."""
    host = load_host(config)
    if host is None:
        return config, None
    for line in host.files.rejected:
        warn(line)
    return dataclasses.replace(config, url_style=host.style), host


def load_host(config: Config) -> Host | None:
    """The host model for `config.host` (see `HOSTS`), from its files; None for ``plain``.
    A file the host would not accept is a `ConfigError`; lines it would reject are in its
    files' `rejected`."""
    if config.host is HostName.PLAIN:
        return None
    production = urlsplit(config.base_url).hostname or ""  # without a port: hosts match the name
    return HOSTS[config.host](_read_files(config), Path(config.docroot), production, config.url_style)


@_register
class Vercel(_CleanUrlHost):
    """Vercel (``vercel dev``; its routes from @vercel/routing-utils): ``cleanUrls``
    308-redirects ``/a.html`` to ``/a`` and ``/a/index`` to ``/a``, whether or not the
    file exists; then ``trailingSlash``; then redirects (path-to-regexp, a trailing slash
    counts); then files (``/a`` is ``a/index.html`` before ``a.html``; ``/a/`` only a
    folder's index); then rewrites. Headers match the path asked for (``/terms.html``
    does not cover ``/terms``), on 200 answers."""

    name = HostName.VERCEL

    def respond(self, path: str) -> Answer:
        clean, slash = self.files.clean_urls is not False, self.files.trailing_slash
        if clean:
            m = re.fullmatch(r"/(?:(.+)/)?index(?:\.html)?/?", path) or re.fullmatch(r"/(.*)\.html/?", path)
            if m is not None:
                target = "/" + (m.group(1) or "")
                return Answer(308, location=target + "/" if slash else target)  # "//" for /index.html, as it does
        last = path.rstrip("/").rpartition("/")[2]
        if slash is False and path != "/" and path.endswith("/"):
            return Answer(308, location=path.rstrip("/"))
        if slash and not path.endswith("/") and "." not in last:
            return Answer(308, location=path + "/")
        for rule in self.rules_for(path):
            if rule.status != 200 and not rule.conditional:
                found = self._redirect(path, (rule,))
                if found is not None:
                    return Answer(rule.status, location=found[1], rule=rule.origin)
        served = self._file(path, clean)
        if served is not None:
            return Answer(200, served)
        for rule in self.rules_for(path):
            if rule.status == 200 and not rule.conditional:
                found = self._redirect(path, (rule,))
                if found is not None:
                    rewritten = self._file(found[1].partition("?")[0], clean)
                    return Answer(200, rewritten, rule=rule.origin) if rewritten is not None else Answer(404)
        return Answer(404)

    def _file(self, path: str, clean: bool) -> str | None:
        name = path[1:]
        if name.endswith("/") or not name:
            index = _dir_index(self, path)
            if index is None and clean and self.files.trailing_slash and self.is_file(name[:-1] + ".html"):
                return name[:-1] + ".html"
            return index
        if self.is_file(name):
            return name
        index = _dir_index(self, path + "/")
        if index is not None:
            return index
        return name + ".html" if clean and self.is_file(name + ".html") else None


@_register
class Serve(_CleanUrlHost):
    """Vercel's ``serve`` (serve-handler): ``cleanUrls`` first (on unless serve.json says
    otherwise: ``/a.html`` 301s to ``/a`` and ``/a/index`` to ``/a``, whether or not the
    file exists), then ``trailingSlash``, then redirects, matched with a trailing slash
    or not; then the file (a folder's index before a file of its name, and ``/a/`` serves
    ``a.html`` too), after rewrites. Headers match the path of the file served, so a rule
    for ``/terms.html`` covers ``/terms``; the last rule to set a header wins."""

    name = HostName.SERVE

    def _clean(self, path: str) -> bool:
        clean = self.files.clean_urls
        return clean if isinstance(clean, bool) else clean.fullmatch(path.rstrip("/") or "/") is not None

    def respond(self, path: str) -> Answer:
        clean, slash = self._clean(path), self.files.trailing_slash
        if clean and re.search(r"(\.html|/index)$", path):
            target = re.sub(r"/+", "/", re.sub(r"(\.html|/index)$", "", path, count=1))
            return Answer(301, location=target if target.startswith("/") else "/" + target)
        if slash is not None:
            last = path.rpartition("/")[2]
            if not slash and path.endswith("/") and path != "/":
                return Answer(301, location=path[:-1])
            if slash and not path.endswith("/") and "." not in last.lstrip(".") and not last.startswith("."):
                return Answer(301, location=path + "/")
        resolved = path.rstrip("/") or "/"
        for rule in self.rules_for(resolved):
            if rule.status != 200 and not rule.conditional and rule.source.fullmatch(resolved):
                found = self._redirect(resolved, (rule,))
                assert found is not None
                return Answer(rule.status, location=found[1], rule=rule.origin)
        served = self._file(path, clean)
        if served is not None:
            return Answer(200, served)
        if os.path.isdir(self.root + path[1:]):
            return Answer(200)  # a directory listing, not a page
        return Answer(404)

    def _file(self, path: str, clean: bool) -> str | None:
        """The file serve-handler answers `path` with, rewrites applied, or None."""
        name = path[1:]
        last = name.rstrip("/").rpartition("/")[2]
        if "." in last.lstrip(".") and not path.endswith("/") and self.is_file(name):
            return name
        rewritten = next(
            (
                found[1].lstrip("/")
                for rule in self.rules_for(path.rstrip("/") or "/")
                if rule.status == 200 and (found := self._redirect(path.rstrip("/") or "/", (rule,))) is not None
            ),
            None,
        )
        if rewritten is not None:
            return rewritten if self.is_file(rewritten) else None
        if clean:
            index = (name if name.endswith("/") or not name else name + "/") + "index.html"
            page = (name[:-1] if name.endswith("/") else name) + ".html"
            for candidate in (index, page):
                if candidate.rpartition("/")[2] != ".html" and self.is_file(candidate):
                    return candidate
        if self.is_file(name):
            return name
        return None

    def _headers_for(self, path: str, answer: Answer) -> Iterator[HeaderRule]:
        if answer.file is not None:  # matched on the file served, not the path asked
            yield from super()._headers_for("/" + answer.file, answer)
