"""``text_sitemap`` as the MkDocs plugin's option and the Sphinx extension's ``sitemapgen_text_sitemap``:
the real generators' sites get ``sitemap.txt``, the XML sitemaps' URLs one a line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen.output.text import TEXT_NAME

from ..helpers import published
from .test_plugins import BASE, _mkdocs_build, _mkdocs_project, _sphinx_build, _sphinx_project


def _assert_listed(site: Path) -> None:
    urls = [u.loc for u in published(site, BASE)]  # every XML file valid against the XSDs, in the index's order
    assert len(urls) >= 2
    assert (site / TEXT_NAME).read_text(encoding="utf-8") == "".join(f"{url}\n" for url in urls)


def test_the_mkdocs_plugin_writes_sitemap_txt(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    _mkdocs_build(_mkdocs_project(tmp_path, "  - sitemapgen:\n      text_sitemap: true\n"))
    _assert_listed(tmp_path / "site")


def test_the_sphinx_extension_writes_sitemap_txt(tmp_path: Path) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, "sitemapgen_text_sitemap = True\n")
    out = tmp_path / "dirhtml"
    assert _sphinx_build(src, out, "dirhtml") == 0
    _assert_listed(out)
