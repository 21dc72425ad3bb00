"""``html_sitemap = true`` checked from outside: a site of a few thousand pages (so its map has
three pages) served by a real static server (`python -m http.server`), each page of the map
opened in Debian's Chromium, headless, and read back from its DOM against the XML sitemaps (read
with lxml) and what beautifulsoup4 reads as each page's title; seen in a screenshot; run
through axe-core inside Chromium and through the Nu HTML checker. Slow (a browser starts for
each page); without Chromium, or the checkers (`make slow` installs them from npm where node
is), the tests that need them skip, saying why."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lxml import html as lxml_html

from sitemapgen.cli.program import main

from ..browser import AXE_SCRIPT, JAVA, VNU_JAR, chromium, near, pixels, unavailable
from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import file_of, labelled_site, make_tree, published, shown_title, static_server

pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(unavailable("chromium")), reason=unavailable("chromium") or "")]

PER_SECTION = 1250  # docs/ and blog/: 2,500 pages and a few, a map of three pages
MAP_PAGE = re.compile(r"sitemap(-[0-9]+)?\.html")
LINK = (0x0B, 0x57, 0xD0)  # a link's colour, from htmlpages' inline CSS
TOP = Path(__file__).resolve().parent.parent.parent
DOCS_IMAGE = TOP / "docs" / "images" / "html-sitemap.png"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with the map once for the module's tests (its docroot)."""
    top = tmp_path_factory.mktemp("site")
    root = make_tree(top / "public", labelled_site(PER_SECTION))
    (top / "sitemapgen.toml").write_text(f'base_url = "{BASE}"\nhtml_sitemap = true\n', encoding="utf-8")
    cwd = Path.cwd()
    os.chdir(top)
    try:
        assert main(["build", str(root)]) == 0
    finally:
        os.chdir(cwd)
    return root


def _map_pages(root: Path) -> list[str]:
    """The map's pages, by name, as the XML sitemaps list them."""
    return [u.loc.removeprefix(BASE) for u in published(root, BASE) if MAP_PAGE.fullmatch(u.loc.removeprefix(BASE))]


def test_chromium_shows_every_listed_page_once_by_its_title_on_pages_linked_in_order(
    tmp_path: Path, built: Path
) -> None:
    urls = published(built, BASE)
    names = _map_pages(built)
    listed = [u for u in urls if not MAP_PAGE.fullmatch(u.loc.removeprefix(BASE))]
    assert len(names) >= 3
    assert names[0] == "sitemap.html"
    with static_server(built) as served:
        doms = {name: lxml_html.fromstring(chromium(tmp_path, "--dump-dom", served + name)) for name in names}
        shot = tmp_path / "map.png"
        chromium(tmp_path, f"--screenshot={shot}", "--window-size=800,1000", served + "sitemap.html")

    # The pages, linked in order: from sitemap.html, each rel=next the next one listed, each
    # rel=prev the one before, in the head and in the page's navigation at its top and its end.
    chain = [names[0]]
    while nexts := doms[chain[-1]].xpath("//head/link[@rel='next']/@href"):
        assert doms[chain[-1]].xpath("//nav/a[@rel='next']/@href") == nexts * 2
        chain.append(nexts[0])
    assert chain == names
    for before, name in zip(names, names[1:], strict=False):
        assert doms[name].xpath("//head/link[@rel='prev']/@href") == [before]
        assert doms[name].xpath("//nav/a[@rel='prev']/@href") == [before] * 2
    assert doms[names[0]].xpath("//link[@rel='prev'] | //a[@rel='prev']") == []

    shown: list[tuple[Any, Any]] = []  # each listed page's link and its item (<li> or <h2>), in order
    for name in names:
        dom = doms[name]
        assert dom.get("lang") == "en"  # the home page's
        assert dom.xpath("//script") == []
        assert dom.findtext(".//title", "").startswith("Site map of Home & Garden — Café")
        assert dom.xpath("string(//h1)") == "Site map of Home & Garden — Café"
        shown.extend((a, a.getparent()) for a in dom.xpath("//main/section/h2/a | //main/section/ul/li/a"))
    hrefs = [a.get("href") for a, _ in shown]
    assert hrefs == [u.loc for u in listed]  # every listed page once, in the sitemaps' order
    for (a, item), url in zip(shown, listed, strict=True):
        assert a.text_content() == shown_title(file_of(built, url.loc, BASE), url.loc), url.loc
        date = url.lastmod[:10] if url.lastmod else None
        assert item.xpath("time/@datetime") == ([date] if date else []), url.loc
        assert item.xpath("string(time)") == (date or "")
        others = [(h, href) for h, href in url.alternates if href != url.loc and h.lower() != "x-default"]
        assert [(x.get("hreflang"), x.get("href")) for x in item.xpath(".//a[@hreflang]")] == others, url.loc
    assert any(item.xpath(".//a[@hreflang]") for _, item in shown)  # the cluster is shown
    assert any(a.get("href") == a.text_content() for a, _ in shown)  # a page with no title: its URL
    # The section with an index page is headed by it; one without by its folder; one that goes
    # on past a page is headed again, "continued".
    headings = [" ".join(h.text_content().split()) for dom in doms.values() for h in dom.xpath("//main/section/h2")]
    assert f"{BASE}docs/" in [a.get("href") for a, item in shown if item.tag == "h2"]
    assert "/blog/" in headings
    assert any(h.endswith("(continued)") for h in headings)

    seen = pixels(shot.read_bytes())
    background = seen[0]
    assert sum(1 for p in seen if p != background) > len(seen) // 200  # not a blank page
    assert any(near(p, LINK) for p in seen)  # a link's text, in the map's colour


_AXE_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>axe</title></head><body>
<iframe id="map" title="the page checked" src="{page}" style="width:1000px;height:800px"></iframe>
<pre id="result"></pre>
<script>
const frame = document.getElementById("map");
const said = (value) => {{ document.getElementById("result").textContent = JSON.stringify(value); }};
frame.addEventListener("load", () => {{
  const page = frame.contentDocument;
  const script = page.createElement("script");
  script.src = "{axe}";
  script.onload = () => frame.contentWindow.axe.run(page).then(
    (r) => said({{violations: r.violations, incomplete: r.incomplete.map((x) => x.id), passes: r.passes.length}}),
    (e) => said({{error: String(e)}}));
  script.onerror = () => said({{error: "axe.min.js did not load"}});
  page.head.appendChild(script);
}});
</script></body></html>
"""


@pytest.mark.skipif(bool(unavailable("chromium", "axe")), reason=unavailable("chromium", "axe") or "")
def test_axe_core_finds_no_violation_on_any_page_of_the_map(tmp_path: Path, built: Path) -> None:
    """axe-core's rules (WCAG 2 A and AA, best practices) on each page of the map as Chromium
    draws it: axe is added to the page, unchanged, from a page of the same origin that frames it."""
    shutil.copy(AXE_SCRIPT, built / "_axe.min.js")
    results = {}
    try:
        with static_server(built) as served:
            for name in _map_pages(built):
                wrapper = built / f"_axe-{name}"
                wrapper.write_text(_AXE_PAGE.format(page=name, axe="_axe.min.js"), encoding="utf-8")
                dom = chromium(tmp_path, "--virtual-time-budget=60000", "--dump-dom", served + wrapper.name)
                text = lxml_html.fromstring(dom).findtext(".//pre", "")
                assert text, f"axe gave no result for {name}"
                results[name] = json.loads(text)
    finally:
        for extra in built.glob("_axe*"):
            extra.unlink()
    assert {name: result.get("error") for name, result in results.items()} == dict.fromkeys(results)
    assert all(result["passes"] > 10 for result in results.values())
    violations = {
        name: [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]]) for v in result["violations"]]
        for name, result in results.items()
    }
    assert violations == {name: [] for name in results}


@pytest.mark.skipif(bool(unavailable("vnu")), reason=unavailable("vnu") or "")
def test_the_nu_html_checker_finds_nothing_to_say_of_any_page(built: Path) -> None:
    """The W3C's Nu HTML checker (vnu.jar) on the map's files, CSS included: no error, no
    warning, no note."""
    assert JAVA is not None
    files = [str(built / name) for name in _map_pages(built)]
    done = subprocess.run(
        [JAVA, "-jar", str(VNU_JAR), "--format", "json", "--also-check-css", *files],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    messages = json.loads(done.stderr or done.stdout)["messages"]
    assert [(Path(m.get("url", "")).name, m["type"], m.get("subType"), m["message"]) for m in messages] == []
    assert done.returncode == 0


def test_the_docs_screenshot_of_the_sample_sites_map(tmp_path: Path, site: SiteFactory, cli: CliRunner) -> None:
    """The map of sample_site/ (as `make demo` builds it, with html_sitemap = true) drawn in
    Chromium: a page, links in the map's colour. With SITEMAPGEN_DOCS_IMAGES=1 the screenshot
    replaces docs/images/html-sitemap.png, the one the docs show."""
    root = tmp_path / "sample"
    shutil.copytree(TOP / "sample_site", root)
    config = (TOP / "sample_site.toml").read_text(encoding="utf-8")
    Path("sitemapgen.toml").write_text("html_sitemap = true\n" + config, encoding="utf-8")
    assert cli("build", root).code == 0
    shot = tmp_path / "sample.png"
    with static_server(root) as served:
        chromium(tmp_path, f"--screenshot={shot}", "--window-size=800,1000", served + "sitemap.html")
    seen = pixels(shot.read_bytes())
    background = seen[0]
    assert sum(1 for p in seen if p != background) > len(seen) // 200
    assert any(near(p, LINK) for p in seen)
    if os.environ.get("SITEMAPGEN_DOCS_IMAGES") == "1":
        shutil.copy(shot, DOCS_IMAGE)
    assert DOCS_IMAGE.stat().st_size < 150_000
