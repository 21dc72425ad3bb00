"""`explain`: a view of the pipeline's decisions for the pages asked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import sitemapgen
from sitemapgen import Config, LastmodFormat, LastmodSource, Rule

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import HEAD_SITE, head, html, make_tree


def test_explain(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({**HEAD_SITE, "drafts/x.html": head(), "404.html": head(), "robots.txt": ""})
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nexclude = ["drafts/"]\n[[rules]]\npattern = "*"\npriority = 0.4\n')
    run = cli("explain", root, "ok.html", "hidden.html", "dupe.html", "old/index.html", "--config", config)
    assert run.code == 1
    assert run.out.splitlines()[0] == f"ok.html: listed as {BASE}ok.html"
    assert "  priority 0.4 (from [[rules]])" in run.out
    assert "hidden.html: not listed: noindex" in run.out
    assert f"dupe.html: not listed: canonical elsewhere (to {BASE}ok.html)" in run.out
    assert f"old/index.html: not listed: redirect (to {BASE}new/)" in run.out
    for page, why in [
        ("drafts/x.html", "directory drafts/ excluded by pattern 'drafts/'"),
        ("404.html", "excluded by pattern '404.html'"),
        ("nope.html", "no such file in the docroot"),
        ("robots.txt", "not an HTML page"),
    ]:
        answer = cli("explain", root, page, "--config", config)
        assert (answer.code, answer.out.startswith(f"{page}: not listed: {why}")) == (1, True), answer.out
    by_path = cli("explain", root, root / "en" / "index.html", "--config", config)
    assert by_path.code == 0
    assert f"en/index.html: listed as {BASE}en/" in by_path.out
    assert f"  hreflang de: {BASE}de/" in by_path.out
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("sitemap")) == []


def test_values_are_written_as_the_sitemap_writes_them(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    os.utime(root / "a.html", (1_700_000_000, 1_700_000_000))
    config = Config(
        docroot=root, base_url=BASE, rules=(Rule("*", priority=0.00001),), lastmod_format=LastmodFormat.DATE
    )
    [answer] = sitemapgen.explain(config, ["a.html"])
    assert answer.lines == (
        f"a.html: listed as {BASE}a.html",
        "  lastmod 2023-11-14 (from mtime)",
        "  priority 0.00001 (from [[rules]])",
    )


def test_a_pages_own_warnings_are_part_of_its_explanation(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "site",
        {
            "a.html": head(
                '<link rel="canonical" href="/missing.html">',
                '<link rel="alternate" hreflang="no language" href="/x">',
                '<meta name="last-modified" content="not a date">',
            ),
            "b.html": head(
                '<link rel="alternate" hreflang="de" href="/de/">',
                '<link rel="alternate" hreflang="en" href="/b.html">',
            ),
        },
    )
    config = Config(docroot=root, base_url=BASE, lastmod=(LastmodSource.META,))
    said: list[str] = []
    a, b = sitemapgen.explain(config, ["a.html", "b.html"], on_warning=said.append)
    assert a.lines == (
        f"a.html: listed as {BASE}a.html",
        "  warning: a.html: hreflang link ignored: hreflang='no language' href='/x'",
        "  warning: a.html: unreadable modified-time meta 'not a date'",
        "  note: canonical names a URL no file here answers, so it is ignored; listed under their own URL:"
        f" a.html names {BASE}missing.html",
    )
    assert b.lines == (f"b.html: listed as {BASE}b.html", f"  hreflang de: {BASE}de/", f"  hreflang en: {BASE}b.html")
    assert said == []  # nothing for the build as a whole: the note is the page's own


def test_one_pipeline_for_all_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three pages, one git history read (not three), as in a build."""
    from sitemapgen.config.words import GitDate
    from sitemapgen.lastmod.git import GitDates, read_git_dates

    calls: list[Path] = []

    def counted(directory: Path, date: GitDate = GitDate.COMMIT) -> GitDates | None:
        calls.append(directory)
        return read_git_dates(directory, date)

    monkeypatch.setattr("sitemapgen.lastmod.git.read_git_dates", counted)
    root = make_tree(tmp_path / "site", {"a.html": html(), "b.html": html(), "c/d.html": html()})
    config = Config(docroot=root, base_url=BASE, lastmod=(LastmodSource.GIT, LastmodSource.MTIME))
    answers = sitemapgen.explain(config, ["a.html", "b.html", "c/d.html"], on_warning=lambda _: None)
    assert [a.listed for a in answers] == [True, True, True]
    assert len(calls) == 1


def test_paths_relative_to_the_docroot_in_any_spelling(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a/b.html": html()})
    config = Config(docroot=root, base_url=BASE)
    answers = sitemapgen.explain(config, ["./a/b.html", "a//b.html", "/a/b.html", "a/../a/b.html", "../x.html"])
    assert [a.lines[0] for a in answers] == [f"a/b.html: listed as {BASE}a/b.html"] * 4 + [
        "../x.html: not listed: outside the docroot"
    ]


def test_the_walks_own_reasons(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"index.html": html(), "index.htm": html(), "real/a.html": html()})
    (root / "link").symlink_to(root / "real")
    config = Config(docroot=root, base_url=BASE)
    answers = sitemapgen.explain(config, ["index.htm", "link/a.html", "real", ".hidden.html", "real/a.html"])
    assert [a.lines[0] for a in answers] == [
        "index.htm: not listed: same URL as an earlier page (index.html)",
        "link/a.html: not listed: inside link/, a directory symlink, which is not followed",
        "real: not listed: a directory, not a page",
        ".hidden.html: not listed: no such file in the docroot",
        f"real/a.html: listed as {BASE}real/a.html",
    ]


def test_explain_takes_every_site_option(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site(
        {
            "a.html": head(
                "".join(f'<link rel="alternate" hreflang="x{c}" href="/{c}/">' for c in "abcdefghijklmnopqrstuvwxyz")
            )
        }
    )
    args = [root, "a.html", "--base-url", BASE, "--out", tmp_path / "out"]
    assert cli("explain", *args).code == 0
    small = cli("explain", *args, "--max-bytes-per-sitemap", "1024")
    assert small.code == 1
    assert small.out.startswith("a.html: not listed: entry larger than max_bytes_per_sitemap allows (")
