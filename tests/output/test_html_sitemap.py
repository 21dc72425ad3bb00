"""``html_sitemap = true``: sitemap.html (then sitemap-2.html, ...) beside the index, read back as
a browser's parser reads it (lxml.html) and held to the XML sitemaps as a crawler reads them (the
index, then each sitemap gunzipped and parsed): the same pages, each by the title beautifulsoup4
reads in it, with its lastmod's date; the map itself a page the sitemaps list."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
from pathlib import Path

import html5lib  # type: ignore[import-untyped]
import pytest
from bs4 import BeautifulSoup
from lxml import etree
from lxml import html as lxml_html

from sitemapgen.output import htmlmap
from sitemapgen.output.htmlmap import KIND
from sitemapgen.output.htmlpages import MAX_LINKS

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import error_line, head, make_tree, output_files, read_index
from .kills import kill_everywhere
from .test_text import SM, _config, xml_urls

RECORD = KIND.record
XHTML = "http://www.w3.org/1999/xhtml"


def _page(title: str, extra: str = "", lang: str = "en") -> str:
    return f'<!DOCTYPE html><html lang="{lang}"><head><title>{title}</title>{extra}</head><body>x</body></html>\n'


def _cluster(lang: str) -> str:
    return "".join(f'<link rel="alternate" hreflang="{other}" href="{BASE}{other}/">' for other in ("en", "de", "fr"))


SITE = {
    "index.html": _page("Frob &amp; Co"),
    "about.html": _page("About   us\n here"),
    **{f"docs/p{i}.html": _page(f"Doc {i}") for i in range(3)},
    "docs/index.html": _page("The docs"),
    "docs/deep/er.html": _page("Deeper"),
    "blog/post.html": _page("A <post>".replace("<", "&lt;").replace(">", "&gt;")),
    **{f"{lang}/index.html": _page(f"Home {lang}", _cluster(lang), lang) for lang in ("en", "de", "fr")},
    "docs/hidden.html": head('<meta name="robots" content="noindex">'),
    "untitled.html": "<!DOCTYPE html><html><head></head><body>x</body></html>",
}


def _map_pages(out: Path) -> list[Path]:
    """sitemap.html, sitemap-2.html, ... as far as they go on."""
    pages: list[Path] = []
    while (path := out / ("sitemap.html" if not pages else f"sitemap-{len(pages) + 1}.html")).exists():
        pages.append(path)
    return pages


def _listed_links(page: Path) -> list[tuple[str, str, str | None]]:
    """Each page a map page lists, in order: (URL, link text, the date shown), read by lxml.html;
    not the links to the site's home in the <h1>, to other map pages, or to other languages."""
    doc = lxml_html.fromstring(page.read_bytes())
    found = []
    for a in doc.iter("a"):
        parent = a.getparent()
        if a.get("hreflang") is not None or a.get("rel") is not None or parent.tag not in ("li", "h2"):
            continue
        time = parent.find("time")
        found.append((a.get("href"), a.text_content(), time.get("datetime") if time is not None else None))
    return found


def _bs4_title(path: Path) -> str | None:
    title = BeautifulSoup(path.read_bytes(), "html.parser").title
    text = " ".join(title.get_text().split()) if title is not None else ""
    return text or None


def _lastmods(out: Path) -> dict[str, str | None]:
    """Each URL of the XML sitemaps and its lastmod, as written."""
    found = {}
    for loc, _ in read_index(out / "sitemap.xml"):
        root = etree.fromstring(gzip.decompress((out / loc.removeprefix(BASE)).read_bytes()))
        for url in root.iterchildren(f"{{{SM}}}url"):
            found[str(url.findtext(f"{{{SM}}}loc"))] = url.findtext(f"{{{SM}}}lastmod")
    return found


def test_it_lists_the_pages_of_the_xml_sitemaps_by_section_with_their_titles(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(html_sitemap=True, text_sitemap=True, sections=False)
    run = cli("build", root, "--json")
    assert run.code == 0, run.err
    urls = xml_urls(root)
    assert urls[-1] == f"{BASE}sitemap.html"  # a page of the site, listed after the pages it lists
    assert (root / "sitemap.txt").read_text(encoding="utf-8").splitlines() == urls
    links = _listed_links(root / "sitemap.html")
    assert sorted(url for url, _, _ in links) == sorted(urls[:-1])  # every page but itself, once
    lastmods = _lastmods(root)
    for url, text, date in links:
        path = root / url.removeprefix(BASE).replace("%20", " ")
        if url.endswith("/"):
            path = path / "index.html"
        assert text == (_bs4_title(path) or url), url  # entities decoded, white space collapsed
        assert date == str(lastmods[url])[:10]
    doc = lxml_html.fromstring((root / "sitemap.html").read_bytes())
    assert doc.get("lang") == "en"
    assert doc.findtext("head/title") == "Site map of Frob & Co"
    assert doc.find(".//script") is None
    assert doc.find(".//link[@rel='stylesheet']") is None
    headings = [" ".join(h.text_content().split()) for h in doc.iter("h2")]
    assert [h.split(" 2")[0] for h in headings] == ["Frob & Co", "/blog/", "Home de", "The docs", "Home en", "Home fr"]
    de = doc.xpath("//h2[a[@href=$u]]", u=f"{BASE}de/")[0]
    assert [(a.get("hreflang"), a.get("href")) for a in de.iter("a") if a.get("hreflang")] == [
        ("en", f"{BASE}en/"),
        ("fr", f"{BASE}fr/"),
    ]
    assert de.xpath("a[1]/@lang") == ["de"]  # its title is in its own language
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse((root / "sitemap.html").read_bytes())
    assert json.loads(run.out)["html_sitemap"] == [
        {"path": str(root / "sitemap.html"), "pages": len(urls) - 1, "changed": True}
    ]
    before = output_files(root)
    again = cli("build", root)
    assert again.code == 0, again.err
    assert f"; kept {root / 'sitemap.html'} (an HTML sitemap of {len(urls) - 1} pages)" in again.err
    assert output_files(root) == before  # the walk passes over the map it wrote: the same bytes
    assert cli("check", root).code == 0


def test_titles_in_another_language_than_the_maps_words_say_theirs(site: SiteFactory, cli: CliRunner) -> None:
    """The map's own words are English (its <html lang>); the site's name and each title in
    another language carry their page's language, for a screen reader to speak them so."""
    root = site({"index.html": _page("Startseite", lang="de"), "a.html": _page("Über uns", lang="de-AT")})
    _config(html_sitemap=True, sections=False)
    assert cli("build", root).code == 0
    doc = lxml_html.fromstring((root / "sitemap.html").read_bytes())
    assert doc.get("lang") == "en"
    assert doc.xpath("//h1/a/span/@lang") == ["de"]
    assert [(a.text_content(), a.get("lang")) for a in doc.xpath("//main//h2/a | //main//li/a")] == [
        ("Startseite", "de"),
        ("Über uns", "de-AT"),
    ]


@pytest.mark.forks  # enough pages for the build to fork its workers
def test_a_big_site_gets_pages_linked_in_order(site: SiteFactory, cli: CliRunner) -> None:
    count = 2 * MAX_LINKS + 345
    root = site({f"docs/p{i:05}.html": _page(f"Doc {i}") for i in range(count)} | {"index.html": _page("Home")})
    _config(html_sitemap=True, sections=False)
    assert (run := cli("build", root)).code == 0, run.err
    pages = _map_pages(root)
    assert [p.name for p in pages] == ["sitemap.html", "sitemap-2.html", "sitemap-3.html"]
    urls = xml_urls(root)
    assert urls[-3:] == [f"{BASE}{p.name}" for p in pages]
    listed = [url for page in pages for url, _, _ in _listed_links(page)]
    assert listed == urls[:-3]  # in the sitemaps' order, each once
    for number, page in enumerate(pages, start=1):
        doc = lxml_html.fromstring(page.read_bytes())
        assert len(_listed_links(page)) <= MAX_LINKS
        prev = doc.xpath("head/link[@rel='prev']/@href")
        following = doc.xpath("head/link[@rel='next']/@href")
        assert prev == ([pages[number - 2].name] if number > 1 else [])
        assert following == ([pages[number].name] if number < len(pages) else [])
        assert doc.findtext("head/title") == f"Site map of Home (page {number} of 3)"
    assert lxml_html.fromstring(pages[1].read_bytes()).findtext(".//h2") == "/docs/ (continued)"
    assert "(an HTML sitemap" not in run.err
    assert f"3 HTML sitemap pages of {count + 1:,} pages" in run.err


def test_the_map_is_dated_by_the_newest_page_it_lists_and_decided_as_a_page(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    for number, path in enumerate(sorted(root.rglob("*.html"))):
        os.utime(path, (1_700_000_000 + number * 3600, 1_700_000_000 + number * 3600))
    _config(html_sitemap=True, sections=False)
    assert cli("build", root).code == 0
    lastmods = _lastmods(root)
    own = lastmods.pop(f"{BASE}sitemap.html")
    assert own == max(str(v) for v in lastmods.values())
    _config(html_sitemap=True, sections=False, exclude=["sitemap.html"])
    run = cli("build", root)
    assert run.code == 0, run.err
    assert f"{BASE}sitemap.html" not in xml_urls(root)  # excluded from the sitemaps, still written
    assert (root / "sitemap.html").exists()
    assert "1 excluded by pattern" in run.err


def test_the_host_decides_its_url(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(html_sitemap=True, sections=False)
    assert (run := cli("build", root, "--host", "cloudflare")).code == 0, run.err
    assert xml_urls(root)[-1] == f"{BASE}sitemap"  # Cloudflare Pages answers /sitemap, redirects /sitemap.html


def test_the_previous_deploy_sees_the_map_as_a_page(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    """With ``previous``, the map is one of the URLs compared: unchanged, nothing is said to change."""
    root = site(SITE)
    _config(html_sitemap=True, sections=False)
    assert cli("build", root).code == 0
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    for name, data in output_files(root).items():
        (earlier / name).write_bytes(data)
    again = cli("build", root, "--previous", earlier, "--max-removed", "0")
    assert again.code == 0, again.err
    assert "+0 -0 ~0 since the previous deploy" in again.err


def test_a_page_the_writer_leaves_out_as_too_large_is_not_on_the_map(site: SiteFactory, cli: CliRunner) -> None:
    """The stylesheet's line takes 54 bytes of each sitemap: an entry that fits without it is left
    out by the writer, after the map has seen it. The map lists what the sitemaps list, no more."""
    deep = "/".join(["d" * 200] * 3)
    pages = {f"{deep}/{'p' * n}.html": _page(f"Long {n}") for n in range(80, 200)}
    root = site({"index.html": _page("Home"), **pages})
    _config(html_sitemap=True, stylesheet=True, max_bytes_per_sitemap=1024, sections=False)
    run = cli("build", root)
    assert run.code == 0, run.err
    urls = xml_urls(root)
    assert 1 < len(urls) - 2 < len(pages)  # some long pages fit, some are left out
    assert [url for url, _, _ in _listed_links(root / "sitemap.html")] == urls[:-1]


def test_turned_off_it_is_kept_one_build_then_removed_and_never_listed(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(html_sitemap=True)
    assert cli("build", root).code == 0
    written = (root / "sitemap.html").read_bytes()
    _config()
    run = cli("build", root)
    assert (run.code, "removed" in run.err) == (0, False)
    assert (root / "sitemap.html").read_bytes() == written
    assert f"{BASE}sitemap.html" not in xml_urls(root)  # ours, kept: not a page of the site
    run = cli("build", root)
    assert run.code == 0
    assert [line for line in run.err.splitlines() if "sitemap.html" in line] == [
        f"warning: {root / 'sitemap.html'}: removed (an HTML sitemap page no build has written since the one before)"
    ]
    assert not (root / "sitemap.html").exists()
    assert not (root / RECORD).exists()


def test_check_says_stale_when_the_map_is_missing(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(html_sitemap=True, sections=False)
    assert cli("build", root).code == 0
    (root / "sitemap.html").unlink()
    run = cli("check", root)
    assert run.code == 1
    assert f"  HTML sitemap: {root / 'sitemap.html'} is missing, or not as a build writes it" in run.out.splitlines()


def _maps(out: Path) -> list[bytes]:
    return [page.read_bytes() for page in _map_pages(out)]


@pytest.mark.forks  # each build a forked child, killed at a file operation
def test_a_run_killed_at_any_file_operation_leaves_whole_map_pages_it_can_replace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed anywhere, from a build whose map has two pages to one that needs three: each page
    there is whole, the old or the new, and the next run, which proves them ours, goes ahead."""
    monkeypatch.setattr(htmlmap, "MAX_LINKS", 4)
    config = {"max_urls_per_sitemap": 4, "read_heads": False, "html_sitemap": True}
    _, old, new, seen = kill_everywhere(tmp_path, _page, _maps, **config)
    assert (len(old), len(new)) == (2, 3)
    assert {(0, False), (0, True)} <= seen  # killed before sitemap.html changed, and after


def test_a_full_disk_publishes_nothing_new_and_leaves_nothing(small_disk: Path, cli: CliRunner) -> None:
    """The disk is full when the map and the sitemaps are to be written: exit 3, one line, what
    was published stays as it was, and no temporary file is left."""
    root = make_tree(small_disk / "public", {f"p{i}.html": _page(f"Page {i}") for i in range(10)})
    _config(html_sitemap=True, sections=False)
    assert cli("build", root).code == 0
    for i in range(5):
        (root / f"q{i}.html").write_text(_page(f"New page {i}"), encoding="utf-8")
    before = output_files(root)
    with contextlib.suppress(OSError), (small_disk / "pad").open("wb") as f:
        while True:
            f.write(b"\0" * 4096)
            f.flush()
    os.truncate(small_disk / "pad", (small_disk / "pad").stat().st_size - 12_288)  # room for the journal and a chunk
    run = cli("build", root)
    assert run.code == 3, run.err
    assert error_line(run.err).endswith("No space left on device; nothing new was published")
    assert output_files(root) == before
    assert not [p.name for p in root.iterdir() if p.name.endswith(".tmp")]
