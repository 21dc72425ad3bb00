"""Vercel's ``serve``: what it answers for a URL path, from serve.json (read here)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from sitemapgen.config.words import HostName
from sitemapgen.hosts.base import Answer, CleanUrlHost
from sitemapgen.hosts.files import (
    HeaderRule,
    HostFiles,
    Sources,
    as_list,
    as_table,
    get_flag,
    json_headers,
    json_redirects,
    load_file,
)
from sitemapgen.hosts.patterns import glob_pattern, path_to_regexp


class Serve(CleanUrlHost):
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
    data = as_table(load_file(path, shown), "", shown)
    sources: Sources = {"source": _serve_source}
    clean = data.get("cleanUrls", True)
    clean_urls: bool | re.Pattern[str]
    if isinstance(clean, bool):
        clean_urls = clean
    else:
        globs = [str(g) for g in as_list(clean, "cleanUrls", shown)]
        clean_urls = re.compile("|".join(f"(?:{glob_pattern(g).pattern})" for g in globs) or "(?!)")
    return HostFiles(
        redirects=(
            *json_redirects(as_list(data.get("redirects"), "redirects", shown), shown, sources, 301),
            *json_redirects(as_list(data.get("rewrites"), "rewrites", shown), shown, sources, 200, status=200),
        ),
        # A header's source is a glob alone (minimatch, case and all), on the path of the file served.
        headers=tuple(json_headers(as_list(data.get("headers"), "headers", shown), shown, {"source": _serve_glob})),
        clean_urls=clean_urls,
        trailing_slash=get_flag(data, "trailingSlash", shown),
    )
