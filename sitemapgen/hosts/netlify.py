"""Netlify: what it answers for a URL path, from the docroot's ``_redirects`` and
``_headers`` (read by `lines`) and netlify.toml's tables (read here)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from sitemapgen.config.checks import ordinal, toml_words
from sitemapgen.config.words import HostName
from sitemapgen.errors import ConfigError
from sitemapgen.hosts.base import Answer, Host, dir_index, page_forms
from sitemapgen.hosts.files import HeaderRule, HostFiles, Origin, Redirect, as_list, as_table, get_text, load_file
from sitemapgen.hosts.patterns import netlify_header_pattern, netlify_redirect_pattern
from sitemapgen.urls import INDEX_NAMES, UrlStyle


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
            index = dir_index(self, path if path.endswith("/") else path + "/")
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


def read_netlify_toml(path: Path, shown: str) -> tuple[list[Redirect], list[HeaderRule], list[str]]:
    """netlify.toml's ``[[redirects]]`` and ``[[headers]]`` (after the docroot's own files); an
    error names the block as a reader counts them (``status in the 2nd [[redirects]] block``)."""
    try:
        return _read_netlify_toml(path, shown)
    except ConfigError as e:
        raise ConfigError(e.key, e.problem, source=e.source, shown=toml_words(e.key)) from None


def _read_netlify_toml(path: Path, shown: str) -> tuple[list[Redirect], list[HeaderRule], list[str]]:
    data = as_table(load_file(path, shown), "", shown)
    redirects: list[Redirect] = []
    headers: list[HeaderRule] = []
    rejected: list[str] = []
    for i, item in enumerate(as_list(data.get("redirects"), "redirects", shown)):
        key = f"redirects[{i}]"
        item = as_table(item, key, shown)
        source, to = get_text(item, "from", key, shown), get_text(item, "to", key, shown)
        status = item.get("status", 301)
        if not isinstance(status, int) or isinstance(status, bool):
            raise ConfigError(f"{key}.status", f"must be a number, got {status!r}", source=shown)
        origin = Origin(shown, _block("redirects", i), f"from = {source!r}, to = {to!r}, status = {status}")
        if "://" in source:
            rejected.append(f"{origin.file} {origin.where}: a rule for a domain, not a path: not applied here")
            continue
        pattern = netlify_redirect_pattern(source)
        conditional = bool(item.get("query") or item.get("conditions"))
        redirects.append(Redirect(pattern, to, status, origin, item.get("force") is True, conditional))
    for i, item in enumerate(as_list(data.get("headers"), "headers", shown)):
        key = f"headers[{i}]"
        item = as_table(item, key, shown)
        source = get_text(item, "for", key, shown)
        values = as_table(item.get("values", {}), f"{key}.values", shown)
        pairs: list[tuple[str, str]] = []
        for name, value in values.items():
            for one in value if isinstance(value, list) else [value]:
                pairs.append((name.lower(), str(one)))
        origin = Origin(shown, _block("headers", i), f"for = {source!r}")
        headers.append(HeaderRule(netlify_header_pattern(source), tuple(pairs), origin))
    return redirects, headers, rejected


def _block(name: str, index: int) -> str:
    """Where a rule is in netlify.toml, as a reader counts its blocks: ``2nd [[redirects]] block``."""
    return f"{ordinal(index + 1)} [[{name}]] block"
