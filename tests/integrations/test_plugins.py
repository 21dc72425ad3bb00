"""The MkDocs plugin and the Sphinx extension: a real site built by the real generator, with them.

Skipped only when the extra is not installed (`make` installs both).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ..helpers import published

BASE = "https://example.org/"

_PAGES = {
    "index": ("Frobnicate", "A tool that frobnicates."),
    "install": ("Install", "pip install it."),
    "usage": ("Usage", "Run it."),
}


def _mkdocs_project(root: Path, plugin: str) -> Path:
    docs = root / "docs"
    (docs / "guide").mkdir(parents=True)
    for name, (title, text) in _PAGES.items():
        (docs / ("guide/" if name == "usage" else "") / f"{name}.md").write_text(f"# {title}\n\n{text}\n")
    (docs / "draft.md").write_text("# Draft\n\nNot yet.\n")
    config = root / "mkdocs.yml"
    config.write_text(f"site_name: Frobnicate\nsite_url: {BASE}\nplugins:\n{plugin}")
    return config


def _mkdocs_build(config: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(config)))


def test_the_mkdocs_plugin_writes_the_sitemaps_and_mkdocs_writes_none(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    config = _mkdocs_project(tmp_path, "  - sitemapgen:\n      exclude: ['draft/']\n      lastmod_format: date\n")
    _mkdocs_build(config)
    site = tmp_path / "site"
    urls = published(site, BASE)  # the index and every sitemap, validated against the XSDs
    assert [u.loc.removeprefix(BASE) for u in urls] == ["", "guide/usage/", "install/"]
    assert all(u.lastmod is not None and len(u.lastmod) == 10 for u in urls)  # lastmod_format: date
    assert not (site / "sitemap.xml.gz").exists()  # MkDocs' own, every page dated with the build's day


def test_a_bad_mkdocs_option_fails_the_build_in_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("mkdocs")
    from mkdocs.exceptions import Abort

    config = _mkdocs_project(tmp_path, "  - sitemapgen:\n      chunking: sideways\n")
    with pytest.raises(Abort):  # how MkDocs ends a build a plugin failed
        _mkdocs_build(config)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        "sitemapgen: mkdocs.yml: plugins.sitemapgen.chunking: must be one of 'stable', 'fill', got 'sideways'"
    ]
    assert not (tmp_path / "site" / "sitemap.xml").exists()


def _sphinx_project(root: Path, extra: str = "") -> Path:
    src = root / "src"
    src.mkdir()
    toctree = "\n".join(f"   {name}" for name in _PAGES if name != "index")
    for name, (title, text) in _PAGES.items():
        body = f"{title}\n{'=' * len(title)}\n\n{text}\n"
        if name == "index":
            body += f"\n.. toctree::\n\n{toctree}\n"
        (src / f"{name}.rst").write_text(body)
    (src / "conf.py").write_text(
        f'project = "Frobnicate"\nextensions = ["sitemapgen.sphinx"]\nhtml_baseurl = "{BASE}"\n{extra}'
    )
    return src


def _sphinx_build(src: Path, out: Path, builder: str) -> int:
    from sphinx.cmd.build import build_main

    return build_main(["-q", "-b", builder, "-d", str(out.parent / f"doctrees-{builder}"), str(src), str(out)])


@pytest.mark.parametrize(
    ("builder", "listed"),
    [
        # html: Sphinx gives index.html the canonical /index.html, and it is listed so
        ("html", ["index.html", "genindex.html", "install.html", "usage.html"]),
        ("dirhtml", ["", "genindex/", "install/", "usage/"]),
    ],
)
def test_the_sphinx_extension_writes_the_sitemaps(tmp_path: Path, builder: str, listed: list[str]) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, 'sitemapgen_lastmod = ["mtime"]\n')
    out = tmp_path / builder
    assert _sphinx_build(src, out, builder) == 0
    urls = published(out, BASE)
    assert [u.loc.removeprefix(BASE) for u in urls] == listed  # search.html: noindex, left out


def test_a_bad_sphinx_option_fails_the_build_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, 'sitemapgen_chunking = "sideways"\n')
    out = tmp_path / "html"
    with caplog.at_level(logging.WARNING):
        assert _sphinx_build(src, out, "html") != 0
    said = capsys.readouterr().err
    assert "sitemapgen: conf.py: sitemapgen_chunking: " in said
    assert not (out / "sitemap.xml").exists()
