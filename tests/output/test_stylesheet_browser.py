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

from ..browser import CHROMIUM, chromium, near, pixels, unavailable
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
