"""Firebase Hosting: what it answers for a URL path, from firebase.json (read here)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from sitemapgen.config.words import HostName
from sitemapgen.errors import ConfigError
from sitemapgen.hosts.base import Answer, CleanUrlHost, dir_index
from sitemapgen.hosts.files import (
    HostFiles,
    Redirect,
    Sources,
    as_list,
    as_table,
    get_flag,
    json_headers,
    json_redirects,
    load_file,
)
from sitemapgen.hosts.patterns import glob_pattern, path_to_regexp


def _one_segment(value: str | None) -> bool:
    return bool(value) and "/" not in (value or "")


class Firebase(CleanUrlHost):
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
        if clean:
            moved = self._clean_redirect(path, slash)
            if moved is not None:
                return moved
        served = self._file(path, clean, slash)
        if served is not None:
            return served
        return self._rewrite(path, clean)

    def _clean_redirect(self, path: str, slash: bool | None) -> Answer | None:
        """``cleanUrls``' 301 from ``/a.html``, ``/a/index.html`` and ``/a/index`` (where the
        file is) to ``/a``, or ``/a/`` with `slash`; None for any other path."""
        name = path[1:]
        if name.endswith(".html") and self.is_file(name):
            stem = path[:-5]
            target = stem[:-6] if stem.endswith("/index") else stem
            if target and slash:
                target += "/"
            return Answer(301, location=target or "/")
        if path.endswith("/index") and self.is_file(name + ".html"):
            folder = path[:-5]
            return Answer(301, location=folder if slash or folder == "/" else folder[:-1])
        return None

    def _rewrite(self, path: str, clean: bool) -> Answer:
        """The first rewrite of `path` to a file that answers 200, with its rule; else 404."""
        for rule in self.rules_for(path):
            if rule.status == 200 and rule.source.fullmatch(path):
                rewritten = self._file(rule.to, clean, None)
                if rewritten is not None and rewritten.status == 200:
                    return Answer(200, rewritten.file, rule=rule.origin)
        return Answer(404)

    def _file(self, path: str, clean: bool, slash: bool | None) -> Answer | None:
        """What the files answer for `path` (a folder's index before a file of its name), or
        None if none is there."""
        name = path[1:]
        if name == "" or name.endswith("/"):
            return self._folder(path, clean, slash)
        if self.is_file(name) and not os.path.isdir(self.root + name):
            return Answer(200, name)
        index = dir_index(self, path + "/")
        page = name + ".html" if clean and self.is_file(name + ".html") else None
        if index is None and page is None:
            return None
        if slash or (index is not None and not clean and slash is None):
            return Answer(301, location=path + "/")
        return Answer(200, index or page)

    def _folder(self, path: str, clean: bool, slash: bool | None) -> Answer | None:
        """`_file` for a path ending in ``/``: the folder's index, or with ``cleanUrls`` the
        page of its name."""
        name = path[1:]
        index = dir_index(self, path)
        page = name[:-1] + ".html" if clean and name and self.is_file(name[:-1] + ".html") else None
        if index is None and page is None:
            return None
        if slash is False and name:
            return Answer(301, location=path[:-1])
        if slash is None and index is None:
            return None  # /a/ of a.html, without trailingSlash: 404
        return Answer(200, index or page)


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
    data = as_table(load_file(path, shown), "", shown)
    hosting = data.get("hosting")
    if isinstance(hosting, list):
        if len(hosting) != 1:
            raise ConfigError("hosting", "lists several sites: give the one to read as a file of its own", source=shown)
        hosting = hosting[0]
    hosting = as_table(hosting, "hosting", shown)
    sources: Sources = {"source": _firebase_glob, "regex": _firebase_regex}
    public = hosting.get("public")
    redirects = as_list(hosting.get("redirects"), "hosting.redirects", shown)
    files = HostFiles(
        redirects=(
            # A redirect whose destination has a ":name" is matched by path-to-regexp instead.
            *json_redirects(redirects, shown, sources, 301, with_params={"source": path_to_regexp}),
            *json_redirects(
                as_list(hosting.get("rewrites"), "hosting.rewrites", shown), shown, sources, 200, status=200
            ),
        ),
        headers=tuple(json_headers(as_list(hosting.get("headers"), "hosting.headers", shown), shown, sources)),
        clean_urls=bool(get_flag(hosting, "cleanUrls", shown)),
        trailing_slash=get_flag(hosting, "trailingSlash", shown),
        rejected=(f"{shown}: hosting.i18n is not read",) if "i18n" in hosting else (),
    )
    return files, public if isinstance(public, str) else None
