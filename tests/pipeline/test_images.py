"""Config `images`: each listed page's images in ``<image:image><image:loc>``, on a real
generator's pages (MkDocs, built by `mkdocs build`), valid against the sitemap XSD and the
image XSD; and what the decision does with them (robots.txt, the 1,000 a page, the byte limit)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from ..conftest import CliRunner, SiteFactory
from ..helpers import index_paths, parse_valid, read_index, read_xml, schema

BASE = "https://example.org/"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"  # Google's image extension
_IMAGE = "{" + IMAGE_NS + "}"
_SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

#: A page with an image of every kind, as its Markdown (raw HTML where Markdown has no syntax).
_GALLERY = """# Gallery

![Plain](img/plain.png)

<img src="/img/small.png" srcset="/img/medium.png 800w, /img/large.png 1600w, /img/tiny.png 200w" alt="srcset">

<picture><source type="image/avif" srcset="/img/photo-800.avif 800w, /img/photo-400.avif 400w">\
<source srcset="/img/photo-800.webp 800w"><img src="/img/photo.jpg" alt="picture"></picture>

<img class="lazyload" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/img/lazy.jpg" alt="lazy">
<noscript><img src="/img/lazy.jpg" alt="lazy"></noscript>
<noscript><img src="/img/noscript-only.jpg" alt="noscript"></noscript>

<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
<img src="/img/pixel.gif" width="1" height="1" alt="">
<img src="/private/secret.png" alt="disallowed">
<img src="https://cdn.example.net/assets/hero.jpg?w=1200&amp;q=80" alt="cdn">

![Plain again](img/plain.png)
"""

#: The theme's head block, overridden as MkDocs' docs show: an og:image on the gallery only.
_OVERRIDE = """{% extends "base.html" %}
{% block extrahead %}{% if page and page.file.src_uri == 'gallery.md' %}\
<meta property="og:image" content="{{ config.site_url }}img/og.png">{% endif %}{% endblock %}
"""

_MKDOCS_YML = f"""site_name: Gallery
site_url: {BASE}
theme:
  name: mkdocs
  custom_dir: overrides
plugins:
  - search
  - sitemapgen:
      images: true
      sitemaps: [{{name: home, pattern: /index.html}}]
"""


def _gallery_project(root: Path) -> Path:
    docs = root / "docs"
    (docs / "img").mkdir(parents=True)
    (docs / "gallery.md").write_text(_GALLERY)
    (docs / "index.md").write_text("# Home\n\nNo pictures here.\n")
    (docs / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    for name in ("plain.png", "small.png"):
        (docs / "img" / name).write_bytes(b"\x89PNG")
    (root / "overrides").mkdir()
    (root / "overrides" / "main.html").write_text(_OVERRIDE)
    (root / "mkdocs.yml").write_text(_MKDOCS_YML)
    return root / "site"


def _urls(path: Path) -> dict[str, list[str]]:
    """A sitemap's pages and the image locs of each, in order. Valid against sitemap.xsd with
    the image XSD (`sitemap-with-extensions.xsd`: sitemap.xsd takes other namespaces strictly,
    so only with their schemas), against sitemap.xsd alone when it has no image, and each
    ``<image:image>`` by itself against the image XSD."""
    plain = IMAGE_NS.encode() not in read_xml(path)
    root = parse_valid(path, "sitemap-with-extensions.xsd", *(["sitemap.xsd"] if plain else []))
    found: dict[str, list[str]] = {}
    for url in root.iterchildren(_SM + "url"):
        images = url.findall(_IMAGE + "image")
        for image in images:
            assert schema("sitemap-image.xsd").validate(etree.fromstring(etree.tostring(image)))
        found[url.findtext(_SM + "loc")] = [image.findtext(_IMAGE + "loc") for image in images]
    return found


def test_a_mkdocs_site_lists_each_kind_of_image_in_page_order(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    site = _gallery_project(tmp_path)
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stderr
    chunks = {loc.rpartition("/")[2]: site / loc[len(BASE) :] for loc, _ in read_index(site / "sitemap.xml")}
    assert set(chunks) == {"sitemap-1.xml.gz", "sitemap-home-1.xml.gz"}
    assert _urls(chunks["sitemap-1.xml.gz"]) == {
        f"{BASE}gallery/": [
            f"{BASE}img/og.png",
            f"{BASE}img/plain.png",
            f"{BASE}img/large.png",
            f"{BASE}img/photo-800.avif",
            f"{BASE}img/lazy.jpg",
            f"{BASE}img/noscript-only.jpg",
            "https://cdn.example.net/assets/hero.jpg?w=1200&q=80",
        ]
    }
    # The namespace is declared only in the sitemaps that use it.
    assert IMAGE_NS.encode() not in read_xml(chunks["sitemap-home-1.xml.gz"])
    assert _urls(chunks["sitemap-home-1.xml.gz"]) == {BASE: []}
    checked = subprocess.run(
        [sys.executable, "-m", "sitemapgen", "validate", str(site / "sitemap.xml"), "--base-url", BASE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _page(*images: str) -> str:
    return f"<!doctype html><html><head><title>p</title></head><body>{''.join(images)}</body></html>"


def _only_chunk(out: Path) -> dict[str, list[str]]:
    (index,) = index_paths(out)
    ((loc, _),) = read_index(index)
    return _urls(out / loc.rpartition("/")[2])


def test_robots_txt_is_read_for_googlebot_image_and_other_hosts_are_kept(site: SiteFactory, cli: CliRunner) -> None:
    docroot = site(
        {
            "robots.txt": "User-agent: *\nDisallow: /a/\n\nUser-agent: Googlebot-Image\nDisallow: /img/\n",
            "index.html": _page(
                '<img src="/img/x.png">',
                '<img src="/a/y.png">',
                '<img src="/b/z.png">',
                '<img src="//cdn.test/img/c.png">',
            ),
        }
    )
    run = cli("build", docroot, "--base-url", BASE, "--config", _config(docroot, "images = true"))
    assert run.code == 0, run.err
    # Googlebot-Image's own group decides for images: /a/ is disallowed only for the others.
    assert _only_chunk(docroot) == {BASE: [f"{BASE}a/y.png", f"{BASE}b/z.png", "https://cdn.test/img/c.png"]}


def _config(docroot: Path, text: str) -> Path:
    path = docroot.parent / "sitemapgen.toml"
    path.write_text(text + "\n")
    return path


def test_at_most_1000_images_a_page_with_a_warning(site: SiteFactory, cli: CliRunner) -> None:
    docroot = site({"index.html": _page(*(f'<img src="/i/{n}.png">' for n in range(1_005)))})
    run = cli("build", docroot, "--base-url", BASE, "--config", _config(docroot, "images = true"))
    assert run.code == 0, run.err
    assert _only_chunk(docroot)[BASE] == [f"{BASE}i/{n}.png" for n in range(1_000)]
    assert "index.html: shows 1,005 images; listed the first 1,000, the most one <url> may list" in run.err


def test_images_that_would_pass_the_byte_limit_are_dropped_not_the_page(site: SiteFactory, cli: CliRunner) -> None:
    docroot = site({"index.html": _page(*(f'<img src="/{"i" * 40}/{n}.png">' for n in range(40)))})
    config = _config(docroot, "images = true\nmax_bytes_per_sitemap = 2048")
    run = cli("build", docroot, "--base-url", BASE, "--config", config)
    assert run.code == 0, run.err
    chunk = next(docroot.glob("sitemap-*.xml.gz"))
    kept = _only_chunk(docroot)[BASE]
    assert 0 < len(kept) < 40
    assert kept == [f"{BASE}{'i' * 40}/{n}.png" for n in range(len(kept))]
    assert len(read_xml(chunk)) <= 2048
    assert (
        f"index.html: listed {len(kept)} of its 40 images: a <url> with more would not fit in a sitemap"
        " of max_bytes_per_sitemap (2,048 bytes)"
    ) in run.err


def test_explain_shows_a_pages_images(site: SiteFactory, cli: CliRunner) -> None:
    docroot = site({"a/index.html": _page('<img src="x.png">', '<img src="/y.png" width="1" height="1">')})
    run = cli("explain", docroot, "a/", "--base-url", BASE, "--config", _config(docroot, "images = true"))
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert lines[1] == f"a/index.html: listed as {BASE}a/"
    assert lines[2].startswith("  lastmod ")
    assert lines[3:] == [f"  image {BASE}a/x.png"]


def test_images_takes_true_or_false(site: SiteFactory, cli: CliRunner) -> None:
    docroot = site({"index.html": _page('<img src="x.png">')})
    config = _config(docroot, 'images = "yes"')
    run = cli("build", docroot, "--base-url", BASE, "--config", config)
    assert (run.code, run.err) == (2, f"error: {config}: images: must be true or false, got 'yes'\n")
    assert not (docroot / "sitemap.xml").exists()


def test_a_build_with_images_is_current_for_check_and_valid_for_validate(site: SiteFactory, cli: CliRunner) -> None:
    docroot = site({"index.html": _page('<img src="/a.png">'), "b/index.html": _page("no image")})
    config = _config(docroot, "images = true")
    assert cli("build", docroot, "--base-url", BASE, "--config", config).code == 0
    assert cli("check", docroot, "--base-url", BASE, "--config", config).code == 0
    assert cli("validate", docroot / "sitemap.xml", "--base-url", BASE).code == 0
    # Without images the same pages are listed without their images: changed, not added or removed.
    run = cli("check", docroot, "--base-url", BASE)
    assert run.code == 1
    assert run.out.splitlines() == [
        "stale: 0 pages added, 0 removed, 1 changed; 1 of 1 sitemap would be written (run sitemapgen build)",
        f"  ~ {BASE}",
    ]
