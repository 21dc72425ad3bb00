"""``stylesheet`` as the MkDocs plugin's option and the Sphinx extension's ``sitemapgen_stylesheet``:
the real generators' sites get ``sitemap.xsl``, named by the index and every sitemap."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen.output.stylesheet import STYLESHEET, STYLESHEET_NAME

from ..helpers import index_paths, published, read_index, read_xml
from .test_plugins import BASE, _mkdocs_build, _mkdocs_project, _sphinx_build, _sphinx_project

_PI = b'<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>\n'


def _assert_styled(site: Path) -> None:
    assert (site / STYLESHEET_NAME).read_bytes() == STYLESHEET
    files = index_paths(site) + [site / loc.removeprefix(BASE) for loc, _ in read_index(site / "sitemap.xml")]
    assert len(files) >= 2
    assert all(read_xml(path).startswith(_PI) for path in files)
    assert published(site, BASE)  # every file still valid against the XSDs


def test_the_mkdocs_plugin_writes_the_stylesheet(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    _mkdocs_build(_mkdocs_project(tmp_path, "  - sitemapgen:\n      stylesheet: true\n"))
    _assert_styled(tmp_path / "site")


def test_the_sphinx_extension_writes_the_stylesheet(tmp_path: Path) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, "sitemapgen_stylesheet = True\n")
    out = tmp_path / "dirhtml"
    assert _sphinx_build(src, out, "dirhtml") == 0
    _assert_styled(out)
