"""hreflang links that name a listed page in another form are published in the form listed.

Docusaurus' default build writes ``a/index.html`` and links it as ``/a`` (which a
static server redirects to ``/a/``); a head may name ``/b/index.html`` (the file
that answers ``/b/``); under a host that serves pretty URLs, ``/c.html`` redirects
to ``/c``. Each host lists the pages in its own form: the links follow it, the
cluster stays reciprocal, and a link to a URL no file answers is still dropped.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import pytest

from sitemapgen import Config, urls
from sitemapgen.pipeline.forms import Forms
from sitemapgen.urls import Served, UrlStyle

from .. import hostservers, hostsite
from ..conftest import BASE, CliRunner
from ..helpers import html, make_tree, published, static_server

HOSTS = ("plain", "netlify", "cloudflare", "vercel", "firebase", "serve")


def _page(title: str, lang: str, canonical: str | None, *links: tuple[str, str], base: str = BASE) -> str:
    tags = "".join(f'<link rel="alternate" href="{base}{href}" hreflang="{code}">' for code, href in links)
    if canonical is not None:
        tags = f'<link rel="canonical" href="{base}{canonical}">' + tags
    return f'<!doctype html><html lang="{lang}"><head><title>{title}</title>{tags}</head><body></body></html>'


#: Three clusters (en and fr), each linked in a form some host does not list, and a link in
#: each to a page no file answers (de): cluster -> the links (language, path) both its heads write.
_LINKS = {
    "a": (("en", "a"), ("fr", "fr/a"), ("x-default", "a"), ("de", "de/a")),  # Docusaurus, trailingSlash unset
    "b": (("en", "b/index.html"), ("fr", "fr/b/index.html"), ("de", "de/b/index.html")),
    "c": (("en", "c.html"), ("fr", "fr/c.html"), ("de", "de/c.html")),
}


#: Each page: its language, and its canonical (Docusaurus writes one; the others none).
_PAGES = {
    "a/index.html": ("a", "en", "a"),
    "fr/a/index.html": ("a", "fr", "fr/a"),
    "b/index.html": ("b", "en", None),
    "fr/b/index.html": ("b", "fr", None),
    "c.html": ("c", "en", None),
    "fr/c.html": ("c", "fr", None),
}


def _site(base: str = BASE) -> dict[str, str]:
    """The pages, each titled with its path, their links to `base`."""
    return {
        relpath: _page(relpath, lang, canonical, *_LINKS[cluster], base=base)
        for relpath, (cluster, lang, canonical) in _PAGES.items()
    }


SITE = _site()

#: What each page of a cluster is, by language.
_CLUSTERS = {
    "a": {"en": "a/index.html", "fr": "fr/a/index.html"},
    "b": {"en": "b/index.html", "fr": "fr/b/index.html"},
    "c": {"en": "c.html", "fr": "fr/c.html"},
}

#: The URL each host lists each page under (with no host file: each host's defaults). The
#: canonical /a settles a/index.html where the host answers both /a and /a/ with it.
LISTED = {
    "plain": ("a/", "fr/a/", "b/", "fr/b/", "c.html", "fr/c.html"),
    "netlify": ("a", "fr/a", "b/", "fr/b/", "c.html", "fr/c.html"),
    "cloudflare": ("a/", "fr/a/", "b/", "fr/b/", "c", "fr/c"),
    "vercel": ("a", "fr/a", "b/", "fr/b/", "c.html", "fr/c.html"),
    "firebase": ("a/", "fr/a/", "b/", "fr/b/", "c.html", "fr/c.html"),
    "serve": ("a", "fr/a", "b", "fr/b", "c", "fr/c"),
}


def _build(cli: CliRunner, root: Path, host: str) -> tuple[dict[str, list[tuple[str, str]]], list[str]]:
    run = cli("build", root, "--base-url", BASE, "--host", host)
    assert run.code == 0, run.err
    urls = published(root, BASE)  # each sitemap valid against sitemap.xsd with the xhtml schema
    links = {u.loc.removeprefix(BASE): [(code, href.removeprefix(BASE)) for code, href in u.alternates] for u in urls}
    return links, [line.removeprefix("warning: ") for line in run.err.splitlines() if line.startswith("warning: ")]


def _relisted(listed: dict[str, str]) -> tuple[int, int]:
    """The links a build publishes in another form than the head writes (and on how many pages):
    each that does not name its page in the form `listed`, on each page of its cluster."""
    links = pages = 0
    for cluster, heads in _LINKS.items():
        moved = sum(
            href != listed[_CLUSTERS[cluster]["fr" if code == "fr" else "en"]] for code, href in heads if code != "de"
        )
        links += moved * len(_CLUSTERS[cluster])
        pages += len(_CLUSTERS[cluster]) if moved else 0
    return links, pages


@pytest.mark.parametrize("host", HOSTS)
def test_links_to_another_form_are_published_as_listed(tmp_path: Path, cli: CliRunner, host: str) -> None:
    root = make_tree(tmp_path / "site", SITE)
    links, warnings = _build(cli, root, host)
    listed = dict(zip(SITE, LISTED[host], strict=True))
    assert sorted(links) == sorted(listed.values())
    for cluster, pages in _CLUSTERS.items():
        en, fr = listed[pages["en"]], listed[pages["fr"]]
        expected = [("en", en), ("fr", fr)] + ([("x-default", en)] if cluster == "a" else [])
        for relpath in pages.values():  # every page of the cluster names every version, as listed
            assert links[listed[relpath]] == expected, (relpath, links[listed[relpath]])
    moved, pages_moved = _relisted(listed)
    assert moved > 0  # every host lists /b/index.html in another form
    said = [w.partition(" (a URL")[0] for w in warnings if "a listed page in another form" in w]
    assert said == [f"{moved} hreflang links on {pages_moved} pages name a listed page in another form"]
    # The links to de/, which no file answers, are dropped as before; every page names itself.
    assert [w.partition(" dropped")[0] for w in warnings if " dropped: " in w] == ["6 hreflang links on 6 pages"]
    assert all("do not name the page itself" not in w for w in warnings)


def _answer(base: str, path: str) -> tuple[int, str | None]:
    response, _ = hostservers.get(base, path, timeout=10)
    return response.status, response.getheader("Location")


def test_a_real_static_server_redirects_each_link_to_the_url_published(tmp_path: Path, cli: CliRunner) -> None:
    """With no host model, a plain static server decides: each href as the head writes it is
    answered by a redirect to the URL the sitemap publishes, or by the same file."""
    root = tmp_path / "site"
    root.mkdir()
    with static_server(root) as base:
        make_tree(root, _site(base))
        run = cli("build", root, "--base-url", base)
        assert run.code == 0, run.err
        urls = {u.loc: dict(u.alternates) for u in published(root, base)}
        assert len(urls) == len(SITE)
        for cluster, heads in _LINKS.items():
            for relpath in _CLUSTERS[cluster].values():
                loc = base + LISTED["plain"][list(SITE).index(relpath)]
                for code, written in heads:
                    status, location = _answer(base, "/" + written)
                    if code == "de":
                        assert (status, code in urls[loc]) == (404, False)
                        continue
                    url = urls[loc][code]
                    if url == base + written:
                        assert status == 200
                    elif status == 200:  # the file itself, at another of its URLs
                        assert url == base + written.removesuffix("index.html")
                    else:
                        assert (status, urljoin(base + written, location or "")) == (301, url)
                    assert _answer(base, urlsplit(url).path) == (200, None)


def _get(base: str, path: str) -> tuple[int, str | None, str | None]:
    """One GET of `path` from the server at `base`: status, the path it redirects to, the page's title."""
    response, body = hostservers.get(base, path)
    location = response.getheader("Location")
    title = body.partition(b"<title>")[2].partition(b"</title>")[0].decode() or None
    return response.status, None if location is None else urlsplit(urljoin(base + path[1:], location)).path, title


@pytest.mark.slow
@pytest.mark.parametrize("host", [host for host in HOSTS if host != "plain"])
def test_each_hosts_own_server_answers_each_link_as_published(tmp_path: Path, cli: CliRunner, host: str) -> None:
    """The host's own local server (in `make slow`), on the host test site with these pages in it:
    every alternate published answers 200 with its page, and each href as the head writes it
    either redirects there (within five hops) or answers the same page itself."""
    reason = hostservers.unavailable(host)
    if reason is not None:
        pytest.skip(reason)
    top = tmp_path / "site"
    docroot = make_tree(hostsite.write_site(top, host), SITE)
    run = cli("build", docroot, "--base-url", BASE, "--host", host)
    assert run.code == 0, run.err
    urls = [url for url in published(docroot, BASE) if url.alternates]
    assert len(urls) == len(SITE)
    moved = 0
    with hostservers.running(host, top, docroot) as server:
        for url in urls:
            status, _, relpath = _get(server, "/" + url.loc.removeprefix(BASE))
            assert (status, relpath in _PAGES) == (200, True), (url.loc, status, relpath)
            assert relpath is not None
            cluster, _, _ = _PAGES[relpath]
            pages = _CLUSTERS[cluster]
            published_links = dict(url.alternates)
            for code, written in _LINKS[cluster]:
                if code == "de":  # no file answers it: dropped
                    assert code not in published_links
                    continue
                target = pages["fr" if code == "fr" else "en"]
                path = "/" + published_links[code].removeprefix(BASE)
                assert _get(server, path) == (200, None, target), (host, path)
                hops = [_get(server, "/" + written)]
                while hops[-1][1] is not None and len(hops) <= 5:
                    hops.append(_get(server, hops[-1][1]))
                assert (hops[-1][0], hops[-1][2]) == (200, target), (host, written, hops)
                assert len(hops) == 1 or hops[-2][1] == path, (host, written, hops)
                moved += path != "/" + written
    assert moved > 0


#: A docroot's folders under ``p/``, spelled as file systems may find them by other spellings:
#: in another case, composed and decomposed, a Windows short name, a trailing dot.
_FOLDERS = ("en", "DA", "caf\u00e9", "cafe\u0301x", "long~1", "dot.", "sp ace", "only-htm", "no-index", "deep/er")


def _folder_tree(root: Path) -> Path:
    files = {f"p/{name}/index.htm" if name == "only-htm" else f"p/{name}/index.html": html(name) for name in _FOLDERS}
    del files["p/no-index/index.html"]
    files["p/no-index/a.html"] = html("a")
    files["p/file"] = "not a folder"
    return make_tree(root, files)


def test_folders_no_file_answers_are_found_by_their_parent_s_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page linking each language's home, one of them built: once one home is found missing,
    its parent is listed, and the other homes are known missing without a `stat` of their files,
    nor the files a server would try for them asked for."""
    from sitemapgen.pipeline import forms
    from sitemapgen.pipeline.forms import Form

    root = _folder_tree(tmp_path / "site")
    looked: list[str] = []
    isfile, served_name = os.path.isfile, urls.served_name
    asked: list[str] = []

    def counted(path: str) -> bool:
        looked.append(path)
        return isfile(path)

    def served(name: str, style: UrlStyle) -> Served:
        asked.append(name)
        return served_name(name, style)

    monkeypatch.setattr(os.path, "isfile", counted)
    monkeypatch.setattr(forms, "served_name", served)
    found = Forms(Config(docroot=root, base_url=BASE), None)
    homes = ["da", "de", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "sv", "tr", "uk", "zh"]
    assert [found.listed(f"{BASE}p/{lang}x/") for lang in homes] == [None] * len(homes)
    assert len(looked) == 2  # the first home's index.html and index.htm; the rest none
    assert asked == ["p/dax/"]
    assert found.listed(BASE + "p/en/") == Form(BASE + "p/en/", False)


def test_forms_that_keep_listings_answer_as_forms_that_look_for_each_file(tmp_path: Path) -> None:
    """Whatever is asked, in whatever order, a URL's answer is the one of forms that look for its
    files afresh: a listing never says a folder is missing that a `stat` would find."""
    root = _folder_tree(tmp_path / "site")
    names = [*_FOLDERS, "da", "Da", "CAF%C3%89", "caf%C3%A9", "cafe%CC%81x", "long~1", "dot", "missing", "file"]
    urls = [f"{BASE}p/{quote(name)}{end}" for name in names for end in ("/", "", "/index.html", "/x/")]
    urls += [f"{BASE}gone/{name}/" for name in ("a", "b")] + [BASE, BASE + "p/"]
    rng = random.Random("listings")
    for style in ("directory", "extensionless", "index"):
        config = Config(docroot=root, base_url=BASE, url_style=style)  # type: ignore[arg-type]
        for _ in range(20):
            kept = Forms(config, None)
            for url in rng.sample(urls, len(urls)):
                assert kept.listed(url) == Forms(config, None).listed(url), (style, url)


def test_a_listing_lacks_a_name_only_where_no_spelling_of_it_is_there(tmp_path: Path) -> None:
    """A case-insensitive file system finds ``da/`` as ``DA/`` and ``café`` composed as it is
    decomposed; Windows finds a short name and a name less its trailing dot: a listing lacks
    none of these, only a name no spelling of which it holds."""
    from sitemapgen.pipeline.forms import _Listings

    root = _folder_tree(tmp_path / "site")
    listings = _Listings()
    listings.list_parent(str(root), "p/missing/index.html")
    lacked = ["de", "cafe", "missing", "dot"]
    not_lacked = ["da", "Da", "DA", "CAFÉ", "cafe\u0301", "caf\u00e9x", "LONG~1", "other~1", "dot.", "SP ACE"]
    assert [listings.lack(f"p/{name}/index.html") for name in lacked + not_lacked] == [True] * 4 + [False] * 10
    assert not listings.lack("q/de/index.html")  # a folder not listed: asked by `stat`
