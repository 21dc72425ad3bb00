"""Sites as real generators write them: what is listed, in which form, and what is said.

Each fixture under ``realsites/`` was built by the generator itself from a small
source written for it (``src/``, ``build.sh`` and the README there say how and
with which versions); its HTML files are kept byte for byte. The cases the
generators taught us: Sphinx's ``html`` builder gives ``index.html`` the
canonical ``/index.html``; Sphinx 7's ``dirhtml`` gives ``api/index.html`` the
canonical ``/api.html``, which no file answers; MkDocs copies a Jinja partial
into the site and writes ``sitemap.xml.gz`` beside its ``sitemap.xml``; Hugo
writes alias pages (refresh + canonical) and one sitemap a language under an
index; jekyll-redirect-from writes a noindex refresh page.

Every listed URL must answer 200, without a redirect, from a real static server.
"""

from __future__ import annotations

import dataclasses
import http.client
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import bs4
import pytest
from lxml import html as lxml_html

import sitemapgen
from sitemapgen import Config, GitSource, SkipReason
from sitemapgen.pages import scanner
from sitemapgen.pages.labels import DESCRIPTION_LENGTH, TITLE_LENGTH, label

from .helpers import git, published, static_server
from .output.test_llms import parse_llms

REALSITES = Path(__file__).parent / "realsites"
BASE = "https://example.org/"


@dataclass(frozen=True)
class Expected:
    listed: tuple[str, ...]  # URL paths below BASE, in sitemap order
    skipped: dict[SkipReason, int]
    said: tuple[str, ...] = ()  # each is the start of one warning line (after the docroot for file warnings)
    replaced: str | None = None  # whose sitemap.xml the build replaced, as the summary says
    notes: dict[str, str] = field(default_factory=dict)


_SPHINX_HTML = Expected(
    listed=(
        "index.html",  # its canonical is /index.html: listed in that form, not dropped
        "api.html",
        "genindex.html",
        "install.html",
        "py-modindex.html",
        "usage.html",
        "_modules/index.html",
        "_modules/frobnicate.html",
    ),
    skipped={SkipReason.NOINDEX: 1},  # search.html
)

_ZENSICAL = ("", "de/", "de/install/", "de/usage/", "fr/", "fr/install/", "fr/usage/", "install/", "usage/")

CASES = {
    "sphinx7-html": _SPHINX_HTML,
    "sphinx9-html": _SPHINX_HTML,
    "sphinx7-dirhtml": Expected(
        listed=(
            "index.html",
            "_modules/index.html",
            "_modules/frobnicate/",  # canonical /_modules/frobnicate.html: no such file, ignored
            "api/",
            "genindex/",
            "install/",
            "py-modindex/",
            "usage/",
        ),
        skipped={SkipReason.NOINDEX: 1},
        said=("6 pages: canonical names a URL no file here answers, so it is ignored; each listed at its own URL",),
    ),
    "sphinx9-dirhtml": Expected(
        listed=("", "_modules/", "_modules/frobnicate/", "api/", "genindex/", "install/", "py-modindex/", "usage/"),
        skipped={SkipReason.NOINDEX: 1},
    ),
    "mkdocs-material": Expected(
        listed=("", "getting-started/install/", "guide/advanced/knobs/", "guide/usage/"),
        skipped={SkipReason.EXCLUDED: 1, SkipReason.FRAGMENT: 1},  # 404.html; overrides/partials/nav.html
        said=(
            "1 skipped, not a page (no doctype, html, head, body or title); e.g. overrides/partials/nav.html",
            "{root}: MkDocs' sitemap.xml.gz stays beside ours",  # once published: the last thing said
        ),
        replaced="MkDocs' sitemap.xml",
    ),
    "hugo-multilingual": Expected(
        listed=(
            "",
            "about/",
            "de/",
            "de/about/",
            "de/docs/",
            "de/docs/install/",
            "de/docs/usage/",
            "docs/",
            "docs/install/",
            "docs/usage/",
        ),
        skipped={SkipReason.REDIRECT: 3},  # old-path/, de/old-path/, en/
        said=("{root}: Hugo's en/sitemap.xml, de/sitemap.xml stay beside ours",),
        replaced="Hugo's sitemap.xml",
    ),
    # One project a language, each page's links the three language homes (Zensical's
    # `extra.alternate`): only the homes form a cluster; the other pages' links are no
    # translations of them, and no home names them back.
    "zensical-multilingual": Expected(
        listed=_ZENSICAL,
        skipped={SkipReason.EXCLUDED: 3},  # the three 404.html
        said=(
            "6 pages: hreflang links do not name the page itself, and no <html lang> says its language",
            "18 hreflang links on 6 pages dropped",
        ),
        replaced="Zensical's sitemap.xml",
    ),
    # The same without `lang` on the alternates: every link carries the page's own language.
    "zensical-nolang": Expected(
        listed=_ZENSICAL,
        skipped={SkipReason.EXCLUDED: 3},
        said=("9 pages: hreflang gives one language two URLs or more: that language's links dropped; e.g. index.html",),
        replaced="Zensical's sitemap.xml",
    ),
    "jekyll-seo": Expected(
        listed=("", "about.html", "install.html", "2024/03/01/frobnicate-0-3.html", "usage/"),
        skipped={SkipReason.NOINDEX: 1},  # old/, jekyll-redirect-from's page
        replaced="Jekyll's sitemap.xml",
    ),
}


def _status(server: str, loc: str) -> int:
    """The status a plain static server answers `loc` with, redirects not followed."""
    parts = urlsplit(server)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    try:
        connection.request("GET", "/" + loc.removeprefix(BASE))
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.parametrize("name", list(CASES))
def test_a_real_generators_site_is_listed_as_search_engines_see_it(tmp_path: Path, name: str) -> None:
    expected = CASES[name]
    root = tmp_path / name
    shutil.copytree(REALSITES / name / "site", root)
    said: list[str] = []
    result = sitemapgen.build(Config(docroot=root, base_url=BASE), on_warning=said.append)

    urls = published(root, BASE)  # each file validated against the XSDs on the way
    assert [u.loc.removeprefix(BASE) for u in urls] == list(expected.listed)
    assert dict(result.skipped) == expected.skipped
    assert result.written.replaced == expected.replaced
    starts = [start.format(root=root) for start in expected.said]
    assert len(said) == len(starts), said
    for line, start in zip(said, starts, strict=True):
        assert line.startswith(start), (line, start)

    for url in urls:  # a cluster names every version, itself included
        if url.alternates:
            assert url.loc in [href for _, href in url.alternates], url
    with static_server(root) as server:
        assert {u.loc: _status(server, u.loc) for u in urls} == {u.loc: 200 for u in urls}


def test_the_same_site_gives_the_same_bytes(tmp_path: Path) -> None:
    outputs = []
    for run in ("a", "b"):
        root = tmp_path / run
        shutil.copytree(REALSITES / "sphinx7-dirhtml" / "site", root)
        sitemapgen.build(Config(docroot=root, base_url=BASE, lastmod=(sitemapgen.LastmodSource.MTIME,)))
        outputs.append(
            {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.name.startswith("sitemap") and p.is_file()}
        )
    assert outputs[0] == outputs[1]


def test_a_site_built_for_another_host_is_said_once_not_a_page_at_a_time(tmp_path: Path) -> None:
    """MkDocs wrote canonicals for https://example.org/ (its site_url); listed under a preview
    host, every page names the other host: left out, one line counts them, one asks whether the
    base URL is right."""
    root = tmp_path / "site"
    shutil.copytree(REALSITES / "mkdocs-material" / "site", root)
    preview = "https://preview.example.net/"
    said: list[str] = []
    with pytest.raises(sitemapgen.SitemapgenError, match="no pages to list"):
        sitemapgen.build(Config(docroot=root, base_url=preview), on_warning=said.append)
    hosts = [line for line in said if "canonical on another host" in line or "--base-url" in line]
    assert hosts == [
        "4 skipped, canonical on another host; e.g. index.html to https://example.org/",
        "4 of 6 pages name example.org as canonical: is --base-url (base_url) the URL this site is served at?",
    ]


def test_hugo_pages_are_dated_by_their_content_files(tmp_path: Path) -> None:
    """Hugo's output beside its source in one repository: a page comes from X.md, or a
    section's _index.md, and a German page from X.de.md. One rule with candidates dates
    every page by the file it was made from."""
    repo = tmp_path / "repo"
    shutil.copytree(REALSITES / "hugo-multilingual" / "src", repo / "src")
    shutil.copytree(REALSITES / "hugo-multilingual" / "site", repo / "public")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "site", date="2024-01-01T00:00:00Z")
    (repo / "src/content/docs/install.de.md").write_text("geändert\n")
    git(repo, "commit", "-q", "-am", "de install", date="2025-02-03T04:05:06Z")
    rules = (
        GitSource(r"^de/index\.html$", "src/content/_index.de.md"),
        GitSource(r"^de/(.+)/index\.html$", (r"src/content/\1/_index.de.md", r"src/content/\1.de.md")),
        GitSource(r"^index\.html$", "src/content/_index.md"),
        GitSource(r"^(.+)/index\.html$", (r"src/content/\1/_index.md", r"src/content/\1.md")),
    )
    config = Config(docroot=repo / "public", base_url=BASE, lastmod=(sitemapgen.LastmodSource.GIT,), git_sources=rules)
    said: list[str] = []
    sitemapgen.build(dataclasses.replace(config, git_sources=()), on_warning=said.append)
    dates = {u.loc.removeprefix(BASE): u.lastmod for u in published(repo / "public", BASE)}
    assert dates["de/docs/install/"] == "2024-01-01T00:00:00+00:00"  # by the built file: the change is missed
    sitemapgen.build(config, on_warning=said.append)
    dates = {u.loc.removeprefix(BASE): u.lastmod for u in published(repo / "public", BASE)}
    assert dates["de/docs/install/"] == "2025-02-03T04:05:06+00:00"
    assert {loc: d for loc, d in dates.items() if loc != "de/docs/install/"} == dict.fromkeys(
        ["", "about/", "de/", "de/about/", "de/docs/", "de/docs/usage/", "docs/", "docs/install/", "docs/usage/"],
        "2024-01-01T00:00:00+00:00",
    )


def _bs4_labels(page: Path) -> tuple[str | None, str | None]:
    """A page's title and description as beautifulsoup4 reads its whole file (html.parser)."""
    soup = bs4.BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    title = soup.find("title")
    meta = soup.find("meta", attrs={"name": "description"})
    content = meta.get("content") if isinstance(meta, bs4.Tag) else None
    return (
        label(title.get_text(), TITLE_LENGTH) if isinstance(title, bs4.Tag) else None,
        label(content, DESCRIPTION_LENGTH) if isinstance(content, str) else None,
    )


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("scanner_kind", ["compiled", "python"])
def test_llms_txt_gives_each_real_page_the_title_and_description_bs4_reads(
    tmp_path: Path, name: str, scanner_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each real generator's site gets llms.txt listing exactly its XML sitemaps' pages, each by
    the title and description beautifulsoup4 reads in its file (with the compiled head scanner,
    and with the Python one alone)."""
    if scanner_kind == "python":
        monkeypatch.setattr(scanner, "COMPILED", None)
    elif scanner.COMPILED is None:
        pytest.skip("the compiled scanner is not built here")
    scanner.forget_seen()
    root = tmp_path / name
    shutil.copytree(REALSITES / name / "site", root)
    sitemapgen.build(Config(docroot=root, base_url=BASE, llms_txt=True), on_warning=lambda _: None)
    read = parse_llms((root / "llms.txt").read_text(encoding="utf-8"))
    urls = [u.loc for u in published(root, BASE)]
    assert sorted(url for _, url, _ in read.pages) == sorted(urls)
    for title, url, description in read.pages:
        path = url.removeprefix(BASE)
        page = root / (path + "index.html" if path.endswith("/") or not path else path)
        expected_title, expected_description = _bs4_labels(page)
        assert (title, description) == (expected_title or url, expected_description), url
    home_title, home_description = _bs4_labels(root / "index.html")
    assert (read.name, read.summary) == (home_title, home_description)


@pytest.mark.parametrize("name", list(CASES))
def test_the_three_outputs_list_each_real_page_as_the_xml_sitemaps_do(tmp_path: Path, name: str) -> None:
    """Each real generator's site, with all three outputs on: sitemap.html links exactly its XML
    sitemaps' pages (but itself, which they list), each by the title beautifulsoup4 reads in its
    file, in their order; sitemap.txt is their URLs; llms.txt lists them all, the map by its title."""
    root = tmp_path / name
    shutil.copytree(REALSITES / name / "site", root)
    config = Config(docroot=root, base_url=BASE, html_sitemap=True, text_sitemap=True, llms_txt=True)
    sitemapgen.build(config, on_warning=lambda _: None)
    urls = [u.loc for u in published(root, BASE)]
    assert urls[-1] == BASE + "sitemap.html"
    assert (root / "sitemap.txt").read_text(encoding="utf-8").splitlines() == urls
    read = parse_llms((root / "llms.txt").read_text(encoding="utf-8"))
    assert sorted(url for _, url, _ in read.pages) == sorted(urls)
    assert (f"Site map of {read.name}", BASE + "sitemap.html", None) in read.pages
    doc = lxml_html.fromstring((root / "sitemap.html").read_bytes())
    links = [(a.get("href"), a.text_content()) for a in doc.xpath("//li/a[not(@hreflang)] | //h2/a[not(@hreflang)]")]
    assert [url for url, _ in links] == urls[:-1]
    for url, title in links:
        path = url.removeprefix(BASE)
        page = root / (path + "index.html" if path.endswith("/") or not path else path)
        assert title == (_bs4_labels(page)[0] or url), url
    assert doc.findtext("head/title") == f"Site map of {_bs4_labels(root / 'index.html')[0]}"
