"""Pages a generator makes that are no document (its not-found page, its search page, a theme's
own page) are never listed: the plugin and the extension by what MkDocs and Sphinx know, the CLI
by what the page says. Every site here is built by the real generator, in the test."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ..helpers import published
from .test_plugins import _PAGES, _mkdocs_build

BASE = "https://example.org/"


def _listed(site: Path) -> list[str]:
    return [u.loc.removeprefix(BASE) for u in published(site, BASE)]


def _readthedocs_project(root: Path, plugins: str) -> Path:
    """An MkDocs site with the readthedocs theme, which with the search plugin renders its
    search-results template as ``search.html``, and a theme template ``sitemap.html`` rendered
    as a page (as a third-party theme's static templates are); a documentation page about
    searching is ``search/``."""
    docs = root / "docs"
    (docs / "guide").mkdir(parents=True)
    for name, (title, text) in _PAGES.items():
        (docs / ("guide/" if name == "usage" else "") / f"{name}.md").write_text(f"# {title}\n\n{text}\n")
    (docs / "search.md").write_text("# Searching\n\nHow to find a frobnicator.\n")
    (root / "theme").mkdir()
    (root / "theme" / "sitemap.html").write_text(
        '{% extends "main.html" %}\n{% block content %}<h1>Site map</h1>\n<ul>{% for p in pages %}'
        "<li>{{ p.page.title }}</li>{% endfor %}</ul>{% endblock %}\n"
    )
    config = root / "mkdocs.yml"
    config.write_text(
        f"site_name: Frobnicate\nsite_url: {BASE}\ntheme:\n  name: readthedocs\n  custom_dir: theme\n"
        f"  static_templates: [sitemap.html]\nplugins:\n{plugins}"
    )
    return config


def test_the_mkdocs_plugin_lists_no_page_the_theme_made(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("mkdocs")
    caplog.set_level(logging.INFO)
    _mkdocs_build(_readthedocs_project(tmp_path, "  - search\n  - sitemapgen\n"))
    site = tmp_path / "site"
    assert {"search.html", "sitemap.html", "404.html"} <= {p.name for p in site.iterdir()}
    assert _listed(site) == ["", "guide/usage/", "install/", "search/"]
    summary = next(r.getMessage() for r in caplog.records if "sitemapgen: listed " in r.getMessage())
    assert "skipped 1 excluded by pattern, 1 search page, 1 theme page that is no document;" in summary
