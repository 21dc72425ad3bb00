"""The library API, as a Python user calls it."""

from __future__ import annotations

from pathlib import Path

import pytest

import sitemapgen
from sitemapgen import ChangeFreq, Config, Rule, SkipReason

from .helpers import html, locs, make_tree, published


def test_build_from_python(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"index.html": html(), "docs/a.html": html(), "404.html": html()})
    warnings: list[str] = []
    result = sitemapgen.build(
        Config(docroot=root, base_url="https://example.com", rules=(Rule("docs/", 0.9, ChangeFreq.WEEKLY),)),
        on_warning=warnings.append,
    )
    assert result.listed == 2
    assert result.skipped == {SkipReason.EXCLUDED: 1}
    assert [s.path.name for s in result.written.sitemaps] == ["sitemap-1.xml.gz"]
    assert result.written.indexes == (root / "sitemap.xml",)
    assert result.summary().startswith("listed 2 pages in 1 sitemap; skipped 1 excluded by pattern; wrote ")
    assert warnings == []
    urls = published(root, "https://example.com/")
    assert [(u.loc, u.priority, u.changefreq) for u in urls] == [
        ("https://example.com/", None, None),
        ("https://example.com/docs/a.html", "0.9", "weekly"),
    ]


def test_iter_entries_writes_nothing(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    entries = list(sitemapgen.iter_entries(Config(docroot=root, base_url="https://example.com/")))
    assert [e.loc for e in entries] == ["https://example.com/a.html"]
    assert sorted(p.name for p in root.iterdir()) == ["a.html"]


def test_warnings_go_to_logging_by_default(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    (root / "b.html").symlink_to("missing")
    sitemapgen.build(Config(docroot=root, base_url="https://example.com/"))
    assert [r.getMessage() for r in caplog.records] == ["b.html: skipped, broken symlink"]
    assert locs(root, "https://example.com/") == ["https://example.com/a.html"]


def test_undecodable_names_are_shown_escaped_in_warnings(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    (root / "b\udcff.html").symlink_to("missing")
    warnings: list[str] = []
    sitemapgen.build(Config(docroot=root, base_url="https://example.com/"), on_warning=warnings.append)
    assert warnings == ["b\\xff.html: skipped, broken symlink"]
