"""Vercel: what it answers for a URL path, from vercel.json (read here)."""

from __future__ import annotations

import re
from pathlib import Path

from sitemapgen.config.words import HostName
from sitemapgen.hosts.base import Answer, CleanUrlHost, dir_index
from sitemapgen.hosts.files import (
    HostFiles,
    Sources,
    as_list,
    as_table,
    get_flag,
    json_headers,
    json_redirects,
    load_file,
)
from sitemapgen.hosts.patterns import path_to_regexp


class Vercel(CleanUrlHost):
    """Vercel (``vercel dev``; its routes from @vercel/routing-utils): ``cleanUrls``
    308-redirects ``/a.html`` to ``/a`` and ``/a/index`` to ``/a``, whether or not the
    file exists; then ``trailingSlash``; then redirects (path-to-regexp, a trailing slash
    counts); then files (``/a`` is ``a/index.html`` before ``a.html``; ``/a/`` only a
    folder's index); then rewrites. Headers match the path asked for (``/terms.html``
    does not cover ``/terms``), on 200 answers."""

    name = HostName.VERCEL

    def respond(self, path: str) -> Answer:
        clean = self.files.clean_urls is not False
        moved = self._settings_redirect(path, clean)
        if moved is not None:
            return moved
        for rule in self.rules_for(path):
            if rule.status != 200 and not rule.conditional:
                found = self._redirect(path, (rule,))
                if found is not None:
                    return Answer(rule.status, location=found[1], rule=rule.origin)
        served = self._file(path, clean)
        if served is not None:
            return Answer(200, served)
        return self._rewrite(path, clean)

    def _settings_redirect(self, path: str, clean: bool) -> Answer | None:
        """The 308 that ``cleanUrls``, then ``trailingSlash``, make of `path`, whether or not
        a file is there; None if neither does."""
        slash = self.files.trailing_slash
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
        return None

    def _rewrite(self, path: str, clean: bool) -> Answer:
        """The first rewrite that matches `path`: 200 with the file it names, or 404."""
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
            index = dir_index(self, path)
            if index is None and clean and self.files.trailing_slash and self.is_file(name[:-1] + ".html"):
                return name[:-1] + ".html"
            return index
        if self.is_file(name):
            return name
        index = dir_index(self, path + "/")
        if index is not None:
            return index
        return name + ".html" if clean and self.is_file(name + ".html") else None


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
    data = as_table(load_file(path, shown), "", shown)
    rejected = [f"{shown}: 'routes' (the legacy format) is not read"] if "routes" in data else []
    sources: Sources = {"source": _vercel_source}
    return HostFiles(
        redirects=(
            *json_redirects(as_list(data.get("redirects"), "redirects", shown), shown, sources, 308),
            *json_redirects(as_list(data.get("rewrites"), "rewrites", shown), shown, sources, 200, status=200),
        ),
        headers=tuple(json_headers(as_list(data.get("headers"), "headers", shown), shown, sources)),
        clean_urls=bool(get_flag(data, "cleanUrls", shown)),
        trailing_slash=get_flag(data, "trailingSlash", shown),
        rejected=tuple(rejected),
    )
