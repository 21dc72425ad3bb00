"""``stylesheet = true`` in a real browser: Debian's Chromium, headless, opens the index and a
sitemap from a local static server, and shows each as a table (read from its DOM and seen in a
screenshot). Slow (a browser starts for each page); `make browser` installs Chromium, and
without it these tests skip, saying so."""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from lxml import html as lxml_html

from ..browser import CHROMIUM, NO_XSLT, chromium, near, pixels, unavailable
from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import head, html, published, read_index

pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason=unavailable("chromium") or "")]
HEADER_BACKGROUND = (0xEE, 0xF1, 0xF5)  # the table head's, from the stylesheet's CSS
LINK = (0x06, 0x45, 0xAD)


class _Handler(SimpleHTTPRequestHandler):
    """A static server; with `encoded`, it serves ``.xml.gz`` as XML sent gzip-encoded
    (``Content-Encoding: gzip``, as nginx's gzip_static or a host's header rule can),
    rather than as a download of type application/gzip (what http.server, and most hosts, do)."""

    encoded = False

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        if self.encoded and str(path).endswith(".xml.gz"):
            return "application/xml"
        return super().guess_type(path)

    def end_headers(self) -> None:
        if self.encoded and self.path.endswith(".xml.gz"):
            self.send_header("Content-Encoding", "gzip")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def _server(directory: Path, *, encoded: bool) -> Iterator[str]:
    handler = type("Handler", (_Handler,), {"encoded": encoded})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def _table(dom: str) -> list[list[str]]:
    """The body rows of the page's table, each cell's text (list items joined by a space)."""
    page = lxml_html.fromstring(dom)
    rows = []
    for tr in page.xpath("//table/tbody/tr"):
        cells = []
        for td in tr.findall("td"):
            parts = td.findall("ul/li") or [td]
            cells.append(" ".join(" ".join(part.text_content().split()) for part in parts))
        rows.append(cells)
    return rows


SITE = {
    "index.html": html("home"),
    "en/index.html": head(
        '<link rel="alternate" hreflang="en" href="https://example.com/en/">'
        '<link rel="alternate" hreflang="fr" href="https://example.com/fr/">'
    ),
    "fr/index.html": head(
        '<link rel="alternate" hreflang="en" href="https://example.com/en/">'
        '<link rel="alternate" hreflang="fr" href="https://example.com/fr/">'
    ),
    **{f"docs/page-{i}.html": html(f"page {i}") for i in range(6)},
}


def test_chromium_shows_the_index_and_a_sitemap_as_tables(tmp_path: Path, site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    Path("sitemapgen.toml").write_text(f'base_url = "{BASE}"\nstylesheet = true\n', encoding="utf-8")
    assert cli("build", root).code == 0
    index = read_index(root / "sitemap.xml")
    urls = published(root, BASE)
    chunk = index[0][0].removeprefix(BASE)
    with _server(root, encoded=True) as served:
        shown_index = _table(chromium(tmp_path, "--dump-dom", served + "sitemap.xml"))
        shown_chunk = _table(chromium(tmp_path, "--dump-dom", served + chunk))
        shot = tmp_path / "index.png"
        chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,800", served + "sitemap.xml")
    assert shown_index == [[loc, lastmod or ""] for loc, lastmod in index]
    assert shown_chunk == [
        [u.loc, u.lastmod or "", " ".join(f"{lang}: {href}" for lang, href in u.alternates)] for u in urls
    ]
    assert any(u.alternates for u in urls)
    shown = pixels(shot.read_bytes())
    background = shown[0]
    assert sum(1 for p in shown if p != background) > len(shown) // 200  # not a blank page
    assert HEADER_BACKGROUND in set(shown)  # the table's head, styled by the stylesheet's CSS
    assert any(near(p, LINK) for p in shown)  # a link's text


def test_served_as_a_download_a_gzipped_sitemap_shows_no_page(
    tmp_path: Path, site: SiteFactory, cli: CliRunner
) -> None:
    """What the docs say a person sees where the host serves .xml.gz as application/gzip (as
    http.server and most hosts do): the index's table, and a sitemap's file downloaded, not shown."""
    root = site(SITE)
    Path("sitemapgen.toml").write_text(f'base_url = "{BASE}"\nstylesheet = true\n', encoding="utf-8")
    assert cli("build", root).code == 0
    chunk = read_index(root / "sitemap.xml")[0][0].removeprefix(BASE)
    assert gzip.decompress((root / chunk).read_bytes()).startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<?xml-')
    with _server(root, encoded=False) as served:
        assert len(_table(chromium(tmp_path, "--dump-dom", served + "sitemap.xml"))) == 1
        # A download never finishes loading a page: stopped after 5 s, the page is empty.
        assert _table(chromium(tmp_path, "--timeout=5000", "--dump-dom", served + chunk)) == []
    assert (tmp_path / "home" / "Downloads" / chunk).read_bytes() == (root / chunk).read_bytes()


def test_with_xslt_off_as_chrome_155_ships_the_index_shows_as_xml(
    tmp_path: Path, site: SiteFactory, cli: CliRunner
) -> None:
    """What the docs say a person sees in Chrome 155 and later: XSLT off (`NO_XSLT`, the feature
    Chrome 155 ships disabled), the index is Chromium's XML tree, under its line saying the page
    uses XSLT, which the browser does not support: no table. The same run with another feature
    off still draws the table, and the flag takes XSLTProcessor away from scripts as well."""
    root = site(SITE)
    Path("sitemapgen.toml").write_text(f'base_url = "{BASE}"\nstylesheet = true\n', encoding="utf-8")
    assert cli("build", root).code == 0
    index = read_index(root / "sitemap.xml")
    probe = "data:text/html,<title>x</title><script>document.title = typeof XSLTProcessor</script>"
    with _server(root, encoded=True) as served:
        off = lxml_html.fromstring(chromium(tmp_path, NO_XSLT, "--dump-dom", served + "sitemap.xml"))
        on = chromium(tmp_path, "--disable-features=NoSuchFeature", "--dump-dom", served + "sitemap.xml")
    assert len(_table(on)) == len(index)
    assert off.xpath("//table") == []
    assert [" ".join(off.xpath("string(//div[@class='header']/span)").split())] == [
        "This document cannot be formatted as intended. It uses XSLT, which the browser does not support."
        " You might be able to install a browser extension that allows you to view it."
    ]
    lines = [" ".join(line.text_content().split()) for line in off.find_class("line")]
    assert lines == [
        '<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>',
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        *(
            line
            for loc, lastmod in index
            for line in ("<sitemap>", f"<loc>{loc}</loc>", f"<lastmod>{lastmod}</lastmod>", "</sitemap>")
        ),
        "</sitemapindex>",
    ]
    assert lxml_html.fromstring(chromium(tmp_path, NO_XSLT, "--dump-dom", probe)).findtext(".//title") == "undefined"
    assert lxml_html.fromstring(chromium(tmp_path, "--dump-dom", probe)).findtext(".//title") == "function"
