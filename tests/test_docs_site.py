"""The docs site builds with `mkdocs build --strict`, and this project's own plugin writes its sitemap.

Strict: a broken link or anchor between pages, a page left out of the nav, or a warning from
the plugin fails the build. Skipped only when the MkDocs extra is not installed (`make`
installs it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import published

REPO = Path(__file__).parent.parent
DOCS = REPO / "docs"


def _site_url() -> str:
    """The docs' site_url, as MkDocs reads mkdocs.yml; MkDocs' search is kept beside our plugin."""
    from mkdocs.config import load_config

    config = load_config(str(REPO / "mkdocs.yml"))
    assert {"search", "sitemapgen"} <= set(config.plugins)
    assert config.site_url is not None
    return config.site_url


def test_the_docs_build_strict_and_list_every_page_under_site_url(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"), "-d", str(site)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sitemapgen: listed" in done.stderr  # the plugin's summary, through MkDocs' log
    base = _site_url()
    urls = [u.loc for u in published(site, base)]  # the index and every sitemap, validated against the XSDs
    pages = sorted(path.relative_to(DOCS).with_suffix("") for path in DOCS.rglob("*.md"))
    assert sorted(urls) == sorted(base if page == Path("index") else f"{base}{page.as_posix()}/" for page in pages)
    assert not (site / "sitemap.xml.gz").exists()  # MkDocs' own sitemap is not written
