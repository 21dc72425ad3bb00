"""Pages a generator makes that are no document (its not-found page, its search page, a theme's
own page) are never listed: the plugin and the extension by what MkDocs and Sphinx know, the CLI
by what the page says. Every site here is built by the real generator, in the test."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ..conftest import CliRunner
from ..helpers import published
from .test_plugins import _PAGES, _mkdocs_build, _run, _sphinx_build, _sphinx_project

BASE = "https://example.org/"


def _listed(site: Path) -> list[str]:
    return [u.loc.removeprefix(BASE) for u in published(site, BASE)]


def _summary(err: str) -> str:
    return next(line for line in err.splitlines() if line.startswith("sitemapgen: listed "))


def _verdicts(out: str) -> list[str]:
    """What `explain` says of each page, without the details under it (its lastmod)."""
    return [line for line in out.splitlines() if not line.startswith(" ")]


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


def test_the_cli_leaves_out_a_search_page_by_its_form_and_says_so(tmp_path: Path, cli: CliRunner) -> None:
    """The theme's search page holds a form that sends the query to the page itself; the page
    about searching holds the theme's search box, which sends it to the search page."""
    pytest.importorskip("mkdocs")
    _readthedocs_project(tmp_path, "  - search\n")
    assert _run("mkdocs", "build", cwd=tmp_path).returncode == 0
    site = tmp_path / "site"
    (site / "sitemap.xml.gz").unlink()  # MkDocs' own
    run = cli("build", site, "--base-url", BASE)
    assert run.code == 0, run.err
    # sitemap.html says nothing that tells it from a document: only the plugin can leave it out
    assert _listed(site) == ["", "sitemap.html", "guide/usage/", "install/", "search/"]
    assert "; skipped 1 excluded by pattern, 1 search page;" in _summary(run.err)
    said = cli("explain", site, "search.html", "search/index.html", "--base-url", BASE)
    assert _verdicts(said.out) == [
        "search.html: not listed: search page (its search form's action ./search.html is the page itself)",
        f"search/index.html: listed as {BASE}search/",
    ]


def _dirhtml(root: Path, extra: str = "") -> Path:
    """A Sphinx project built as ``dirhtml``, the documents of `_sphinx_project` and an
    ``errors/404`` page about the HTTP error (``errors/404/``, a document to list)."""
    src = _sphinx_project(root, extra)
    (src / "errors").mkdir()
    (src / "errors" / "404.rst").write_text(":orphan:\n\nError 404\n=========\n\nWhat the server answers.\n")
    out = root / "dirhtml"
    assert _sphinx_build(src, out, "dirhtml") == 0
    return out


def test_the_cli_leaves_out_a_not_found_page_that_says_so(tmp_path: Path, cli: CliRunner) -> None:
    """Read the Docs' not-found page in Sphinx's dirhtml, from a ``404`` document: ``404/``,
    whose title says so; ``errors/404/``, about the error, is a document."""
    pytest.importorskip("sphinx")
    src = tmp_path / "src"
    out = _dirhtml(tmp_path, "extensions = []\n")  # no extension: the CLI alone
    assert not (src / "404.rst").exists()
    (src / "404.rst").write_text(":orphan:\n\nPage not found\n==============\n\nNo such page here.\n")
    assert _sphinx_build(src, out, "dirhtml") == 0
    run = cli("build", out, "--base-url", BASE)
    assert run.code == 0, run.err
    assert _listed(out) == ["", "errors/404/", "genindex/", "install/", "usage/"]
    assert "; skipped 1 noindex, 1 not-found page;" in _summary(run.err)
    said = cli("explain", out, "404/index.html", "errors/404/index.html", "--base-url", BASE)
    assert _verdicts(said.out) == [
        "404/index.html: not listed: not-found page (its title says so: 'Page not found — Frobnicate documentation')",
        f"errors/404/index.html: listed as {BASE}errors/404/",
    ]


# sphinx-notfound-page 1.1.0 calls a Sphinx function as Sphinx 9 deprecates
@pytest.mark.filterwarnings("ignore:'tags' will become a required keyword argument")
def test_sphinx_notfound_pages_not_found_page_is_never_listed(tmp_path: Path, cli: CliRunner) -> None:
    """sphinx-notfound-page (Flask's and Jinja's theme turn it on), built as dirhtml: ``404/``.
    The extension knows it from sphinx-notfound-page; the CLI from the page's title."""
    pytest.importorskip("sphinx")
    pytest.importorskip("notfound", reason="sphinx-notfound-page is not installed")
    out = _dirhtml(tmp_path, 'extensions.append("notfound.extension")\n')
    assert (out / "404" / "index.html").is_file()
    assert _listed(out) == ["", "errors/404/", "genindex/", "install/", "usage/"]
    run = cli("build", out, "--base-url", BASE)
    assert run.code == 0, run.err
    assert _listed(out) == ["", "errors/404/", "genindex/", "install/", "usage/"]
    assert "; skipped 1 noindex, 1 not-found page;" in _summary(run.err)


@pytest.mark.filterwarnings("ignore:'tags' will become a required keyword argument")
def test_the_sphinx_extension_knows_the_not_found_page_whatever_it_says(tmp_path: Path) -> None:
    """A not-found page whose title does not say so (``notfound_context``): the extension knows
    it from sphinx-notfound-page's ``notfound_pagename``, not from what the page says."""
    pytest.importorskip("sphinx")
    pytest.importorskip("notfound", reason="sphinx-notfound-page is not installed")
    out = _dirhtml(
        tmp_path,
        'extensions.append("notfound.extension")\nnotfound_pagename = "lost"\n'
        'notfound_context = {"title": "Lost?", "body": "<h1>Lost?</h1>"}\n',
    )
    assert (out / "lost" / "index.html").is_file()
    assert _listed(out) == ["", "errors/404/", "genindex/", "install/", "usage/"]
