"""``llms_txt`` and ``html_sitemap`` as options of the MkDocs plugin and of the Sphinx extension
(``sitemapgen_llms_txt``, ``sitemapgen_html_sitemap``): the real generators' sites get
``llms.txt`` and ``sitemap.html``, listing the XML sitemaps' pages by their titles."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import html as lxml_html

from sitemapgen.protocol import LLMS_NAME

from ..helpers import published
from ..output.test_llms import parse_llms
from .test_plugins import BASE, _mkdocs_build, _mkdocs_project, _sphinx_build, _sphinx_project


def _assert_listed(site: Path) -> None:
    urls = [u.loc for u in published(site, BASE)]  # every XML file valid against the XSDs, in the index's order
    assert len(urls) >= 2
    read = parse_llms((site / LLMS_NAME).read_text(encoding="utf-8"))
    assert sorted(url for _, url, _ in read.pages) == sorted(urls)
    assert all(title != url for title, url, _ in read.pages)  # every page has its title
    assert read.name


def test_the_mkdocs_plugin_writes_llms_txt(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    _mkdocs_build(_mkdocs_project(tmp_path, "  - sitemapgen:\n      llms_txt: true\n      site_name: Frob\n"))
    _assert_listed(tmp_path / "site")
    assert parse_llms((tmp_path / "site" / LLMS_NAME).read_text(encoding="utf-8")).name == "Frob"


def test_the_sphinx_extension_writes_llms_txt(tmp_path: Path) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, "sitemapgen_llms_txt = True\n")
    out = tmp_path / "dirhtml"
    assert _sphinx_build(src, out, "dirhtml") == 0
    _assert_listed(out)


def _assert_mapped(site: Path) -> None:
    """sitemap.html links every page of the XML sitemaps but itself, each by a title."""
    urls = [u.loc for u in published(site, BASE)]
    assert urls[-1] == f"{BASE}sitemap.html"
    doc = lxml_html.fromstring((site / "sitemap.html").read_bytes())
    links = [(a.get("href"), a.text_content()) for a in doc.xpath("//li/a[not(@hreflang)] | //h2/a[not(@hreflang)]")]
    assert [url for url, _ in links] == urls[:-1]
    assert all(title != url for url, title in links)


def test_the_mkdocs_plugin_writes_the_html_sitemap(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    _mkdocs_build(_mkdocs_project(tmp_path, "  - sitemapgen:\n      html_sitemap: true\n"))
    _assert_mapped(tmp_path / "site")


def test_the_sphinx_extension_writes_the_html_sitemap(tmp_path: Path) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, "sitemapgen_html_sitemap = True\n")
    out = tmp_path / "dirhtml"
    assert _sphinx_build(src, out, "dirhtml") == 0
    _assert_mapped(out)
    assert _sphinx_build(src, out, "dirhtml") == 0  # again: the map it wrote is not a page Sphinx made
    _assert_mapped(out)
