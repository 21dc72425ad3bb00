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

A theme may link the home of each language a site is set up for from every page,
whether that language was built or not: each home not built is a folder no file
answers, asked about from many pages. Once a folder's index files are found
missing, its parent is listed (`_Listings`), and a folder that listing lacks is
known to hold no file without a `stat` for each of its index names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import NamedTuple

from sitemapgen.config.settings import Config
from sitemapgen.entry import Alternate
from sitemapgen.hosts.base import Host, page_forms
from sitemapgen.hrefs import normalize_url
from sitemapgen.urls import (
    INDEX_NAMES,
    decoded_path,
    encoded_path,
    is_page_name,
    page_url,
    path_past_base,
    served_name,
)

_LISTINGS = 64  # folders whose listings are kept, the oldest let go first
_LISTED_MOST = 1_024  # names a listing keeps: a bigger folder is not kept (each name asked by `stat`)


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
        self.listings = _Listings()

    def page_of(self, href: str) -> tuple[str, bool] | None:
        """The docroot relpath of the page `href` (absolute, normalized) names, and whether
        through a redirect; None if it names none of this site's pages."""
        if "?" in href or (rest := path_past_base(href, self.own_base)) is None:
            return None
        name, host = decoded_path(rest), self.host
        if host is None and name.endswith("/") and self.listings.lack(name):
            return None  # a folder its parent's listing lacks: no index file answers it
        served = served_name(name, self.config.url_style) if host is None else host.served(href, self.own_base)
        if served is None:
            return None
        direct = self._first_page(served.direct)
        if direct is not None:
            # A host's rewrite may answer any path with a page: only the page's own forms are it.
            return (direct, False) if name in page_forms(direct) else None
        redirected = self._first_page(served.redirected) if served.redirected else None
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
        root, listings = self.root, self.listings
        for relpath in relpaths:  # a loop: a generator's frame costs more than most of these lookups
            if is_page_name(relpath) and not listings.lack(relpath) and os.path.isfile(root + relpath):
                return relpath
        if relpaths and all(relpath.endswith(INDEX_NAMES) for relpath in relpaths):
            listings.list_parent(root, relpaths[0])  # a folder with no index: likely no folder
        return None


class _Listings:
    """The names in a few folders of the docroot, each listed once a subfolder of it was asked
    for and had no index file (see the module's docstring), kept as a case-insensitive file
    system may find them: a listing that lacks a name lacks it there too."""

    def __init__(self) -> None:
        self.names: dict[str, frozenset[str] | None] = {}  # folder (relpath, no '/'): its names; None: not kept

    def lack(self, relpath: str) -> bool:
        """Whether the folder of `relpath`'s folder is listed and lacks that folder (so `relpath`)."""
        if not self.names or (place := _folder_of(relpath)) is None:
            return False
        parent, name = place
        names = self.names.get(parent)
        return names is not None and _trusted(name) and _caseless(name) not in names

    def list_parent(self, root: str, relpath: str) -> None:
        """List the folder of `relpath`'s folder, unless it is listed already (or not kept)."""
        place = _folder_of(relpath)
        if place is None or (parent := place[0]) in self.names:
            return
        if len(self.names) >= _LISTINGS:
            del self.names[next(iter(self.names))]
        names: set[str] = set()
        try:
            with os.scandir(os.path.join(root, parent)) as entries:
                for entry in entries:
                    if len(names) == _LISTED_MOST:
                        self.names[parent] = None
                        return
                    names.add(_caseless(entry.name))
        except FileNotFoundError:
            pass  # no such folder: it lacks every name
        except OSError:
            self.names[parent] = None  # unreadable: each name is asked by `stat`, as before
            return
        self.names[parent] = frozenset(names)


def _folder_of(relpath: str) -> tuple[str, str] | None:
    """The folder that holds `relpath`'s folder, and that folder's name; None at the docroot."""
    folder = relpath.rpartition("/")[0]
    if not folder:
        return None
    parent, _, name = folder.rpartition("/")
    return parent, name


def _trusted(name: str) -> bool:
    """Whether a listing that lacks `name` lacks the file it names: not where a file system may
    find it by another spelling than the listing's (Windows' short names and trailing dots)."""
    return "~" not in name and not name.endswith((".", " "))


def _caseless(name: str) -> str:
    """`name` as a case-insensitive file system compares it (Unicode's canonical caseless match,
    which also holds the two normalizations macOS may find one name by)."""
    if name.isascii():
        return name.lower()
    import unicodedata  # only for a name that is not ASCII: not loaded at each build's start

    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


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
