"""``stylesheet = true`` in a real browser: Debian's Chromium, headless, opens the index and a
sitemap from a local static server, and shows each as a table (read from its DOM and seen in a
screenshot). Slow (a browser starts for each page); `make browser` installs Chromium, and
without it these tests skip, saying so."""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import shutil
import struct
import subprocess
import threading
import zlib
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from lxml import html as lxml_html

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import head, html, published, read_index

CHROMIUM = shutil.which("chromium")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser installs it, as root)"),
]
#: The flags of a headless run that reaches nothing but the page it is given.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
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


def _chromium(tmp_path: Path, *args: str) -> str:
    """Run Chromium with a new, empty profile and a home of its own under `tmp_path` (where a
    download goes); its stdout."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


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


def _pixels(png: bytes) -> list[tuple[int, ...]]:
    """Every pixel of an 8-bit, non-interlaced PNG (what Chromium writes), read with zlib alone."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    pos, idat, header = 8, b"", b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = data
        elif kind == b"IDAT":
            idat += data
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, interlace) == (8, 0)
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    raw, stride = zlib.decompress(idat), width * bpp
    previous = bytearray(stride)
    pixels: list[tuple[int, ...]] = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        pixels.extend(tuple(line[x : x + 3]) for x in range(0, stride, bpp))
        previous = line
    return pixels


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
        shown_index = _table(_chromium(tmp_path, "--dump-dom", served + "sitemap.xml"))
        shown_chunk = _table(_chromium(tmp_path, "--dump-dom", served + chunk))
        shot = tmp_path / "index.png"
        _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,800", served + "sitemap.xml")
    assert shown_index == [[loc, lastmod or ""] for loc, lastmod in index]
    assert shown_chunk == [
        [u.loc, u.lastmod or "", " ".join(f"{lang}: {href}" for lang, href in u.alternates)] for u in urls
    ]
    assert any(u.alternates for u in urls)
    pixels = _pixels(shot.read_bytes())
    background = pixels[0]
    assert sum(1 for p in pixels if p != background) > len(pixels) // 200  # not a blank page
    assert HEADER_BACKGROUND in set(pixels)  # the table's head, styled by the stylesheet's CSS
    assert any(max(abs(x - y) for x, y in zip(p, LINK, strict=True)) < 40 for p in pixels)  # a link's text


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
        assert len(_table(_chromium(tmp_path, "--dump-dom", served + "sitemap.xml"))) == 1
        # A download never finishes loading a page: stopped after 5 s, the page is empty.
        assert _table(_chromium(tmp_path, "--timeout=5000", "--dump-dom", served + chunk)) == []
    assert (tmp_path / "home" / "Downloads" / chunk).read_bytes() == (root / chunk).read_bytes()
