"""Cloudflare Pages: what it answers for a URL path, from the docroot's ``_redirects`` and
``_headers`` (read by `lines`)."""

from __future__ import annotations

from collections.abc import Iterator

from sitemapgen.config.words import HostName
from sitemapgen.hosts.base import Answer, Host, page_forms
from sitemapgen.hosts.files import HeaderRule, Origin
from sitemapgen.urls import INDEX_NAMES, UrlStyle


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
