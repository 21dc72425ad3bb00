"""`check`: are the published sitemaps what `build` would write now?"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import html, output_files


def test_check_fresh_stale_and_missing(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(12)})
    missing = cli("check", root, "--base-url", BASE)
    assert missing.code == 1
    assert missing.out.startswith("missing: no sitemap index at")
    assert cli("build", root, "--base-url", BASE).code == 0
    before = output_files(root)
    fresh = cli("check", root, "--base-url", BASE)
    assert (fresh.code, fresh.out) == (0, "current: 1 sitemap, 12 pages\n")
    os.utime(root / "p3.html", (1_700_000_000, 1_700_000_000))
    (root / "new.html").write_text(html())
    (root / "p5.html").unlink()
    stale = cli("check", root, "--base-url", BASE)
    assert stale.code == 1
    assert stale.out.splitlines()[0].startswith("stale: 1 page added, 1 removed, 1 changed;")
    assert f"  + {BASE}new.html" in stale.out
    assert f"  - {BASE}p5.html" in stale.out
    assert f"  ~ {BASE}p3.html" in stale.out
    assert output_files(root) == before  # check never writes
    assert cli("build", root, "--base-url", BASE).code == 0
    assert cli("check", root, "--base-url", BASE).code == 0


def test_stale_because_only_the_index_files_differ_says_so(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(5)})
    split = ("--max-urls-per-sitemap", "1", "--max-sitemaps-per-index", "2")
    assert cli("build", root, "--base-url", BASE, *split).code == 0
    assert cli("check", root, "--base-url", BASE, *split).out == "current: 5 sitemaps, 5 pages\n"
    stale = cli("check", root, "--base-url", BASE, "--max-urls-per-sitemap", "1")
    assert stale.code == 1
    assert stale.out.splitlines() == [
        "stale: 0 pages added, 0 removed, 0 changed; 0 of 5 sitemaps would be written (run sitemapgen build)",
        "  index files: 3 published, 1 would be written (the sitemaps per index differ)",
    ]


def _git_repo(root: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env |= {
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_AUTHOR_DATE": "2024-01-02T03:04:05Z",
        "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "x"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.mark.parametrize(
    "sources",
    [
        pytest.param("content", id="content"),
        pytest.param("content,mtime", id="content-then-mtime"),
        pytest.param("git,mtime", id="git"),
        pytest.param("meta,mtime", id="meta"),
        pytest.param("mtime", id="mtime"),
    ],
)
def test_current_right_after_a_build_whatever_the_lastmod_sources(
    tmp_path: Path, cli: CliRunner, sources: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    for i in range(5):
        (root / f"p{i}.html").write_text(html(f"p{i}"))
    _git_repo(root)
    args = [root, "--base-url", BASE, "--out", tmp_path / "out", "--lastmod", sources]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the build's time, for content it has not seen
    assert cli("build", *args).code == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000100")  # a later run
    checked = cli("check", *args)
    assert (checked.code, checked.out) == (0, "current: 1 sitemap, 5 pages\n")
    (root / "p1.html").write_text(html("changed"))  # new content, and a new mtime
    os.utime(root / "p1.html", (1_800_000_000, 1_800_000_000))
    stale = cli("check", *args)
    expected = 0 if sources.startswith("git") else 1  # git dates commits: nothing was committed
    assert stale.code == expected, stale.out


def test_check_never_changes_the_content_store(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = site({"a.html": html()})
    store = tmp_path / "state.sqlite"
    args = [root, "--base-url", BASE, "--lastmod", "content", "--state-file", store]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert cli("build", *args).code == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000100")
    before = store.read_bytes()
    (root / "a.html").write_text(html("new"))
    assert cli("check", *args).code == 1
    assert store.read_bytes() == before
    assert output_files(root)  # and the sitemaps are still there, untouched
