"""Another form of a listed page: the URL an hreflang link to it is published as.

A generator may link a page of its own site in a form the sitemap does not list:
Docusaurus' default build links ``/fr/a`` to the page ``fr/a/index.html``, which
a static server answers with a redirect to ``/fr/a/``, the URL listed; a head
may name ``/a/index.html``, which the same file answers as ``/a/``; a host that
serves pretty URLs redirects ``/a.html`` to ``/a``. Such a link names the page,
so the build publishes it as the URL listed, and a page's link to itself in
another form is its link to itself. The page is found as a canonical is
(`decide.Decider._canonical`): the file the host (`Host.served`), or a plain
static server in the URL style (`urls.served_files`), answers the URL with,
directly as one of the page's own forms or after a redirect within the site; its
URL is the one `Host.place` (or the URL style) lists it under. A URL no file
answers (a 404) names no page, nor does a URL with a query.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import unquote_to_bytes

from sitemapgen.config.settings import Config
from sitemapgen.entry import Alternate
from sitemapgen.hosts.base import Host, page_forms
from sitemapgen.urls import encoded_path, is_page_name, normalize_url, page_url, path_past_base, served_files


class Form(NamedTuple):
    """The URL a page is listed under, for an href that names it in another form."""

    listed: str
    redirected: bool  # the href redirects to it (else the page's file answers the href itself)


class Forms:
    """Which page an href of this site names, and the URL that page is listed under."""

    def __init__(self, config: Config, host: Host | None) -> None:
        """`config` is the effective one, and `host` its host model (None for a plain server)."""
        self.config = config
        self.host = host
        self.root = os.path.join(config.docroot, "")
        self.own_base = normalize_url(config.base_url)

    def page_of(self, href: str) -> tuple[str, bool] | None:
        """The docroot relpath of the page `href` (absolute, normalized) names, and whether
        through a redirect; None if it names none of this site's pages."""
        if not href.startswith(self.own_base) or "?" in href:
            return None
        own_base, host = self.own_base, self.host
        served = served_files(href, own_base, self.config.url_style) if host is None else host.served(href, own_base)
        if served is None:
            return None
        direct = self._first_page(served.direct)
        if direct is not None:
            # A host's rewrite may answer any path with a page: only the page's own forms are it.
            named = path_past_base(href, own_base)
            return (
                (direct, False)
                if named is not None and os.fsdecode(unquote_to_bytes(named)) in page_forms(direct)
                else None
            )
        redirected = self._first_page(served.redirected)
        return None if redirected is None else (redirected, True)

    def listed(self, href: str) -> Form | None:
        """The URL the page `href` names is listed under, if the host lists it at all (the
        page's own fate, noindex or a canonical, is not asked: see `hreflang.Reciprocity`)."""
        found = self.page_of(href)
        if found is None:
            return None
        relpath, redirected = found
        if self.host is None:
            return Form(page_url(self.config.base_url, relpath, self.config.url_style), redirected)
        skip, path = self.host.place(relpath)
        return None if skip is not None else Form(self.config.base_url + path, redirected)

    def names_page(self, alternates: Iterable[Alternate], relpath: str) -> bool:
        """Whether one of `alternates` names the page at `relpath` in another form. Asked of
        every page whose links do not name its own URL (a site whose links leave the page out
        is common): only a link to one of its forms is asked of the server's model."""
        forms = {self.own_base + encoded_path(form) for form in page_forms(relpath)}
        return any(
            a.href in forms and (found := self.page_of(a.href)) is not None and found[0] == relpath for a in alternates
        )

    def _first_page(self, relpaths: tuple[str, ...]) -> str | None:
        """The first of `relpaths` that is a page file in the docroot: the one a server answers with."""
        root = self.root
        for relpath in relpaths:  # a loop: a generator's frame costs more than most of these lookups
            if is_page_name(relpath) and os.path.isfile(root + relpath):
                return relpath
        return None


def given_clusters(config: Config, base_url: str) -> dict[str, tuple[Alternate, ...]]:
    """The hreflang clusters a site generator's plugin gives (`SiteFacts.clusters`: the Pelican
    plugin, from Pelican's translations), which take the place of what the pages' heads link (a
    theme's links between i18n_subsites' subsites name ``/fr/../a.html``, a URL no page is listed
    under): each page's links to the URLs its versions are listed under, from `base_url`
    (normalized). None given: empty."""
    return {
        page: tuple(Alternate(lang, page_url(base_url, other, config.url_style)) for lang, other in cluster)
        for page, cluster in (config.site_facts.clusters if config.site_facts else {}).items()
    }
