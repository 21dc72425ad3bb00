"""`check`: are the published sitemaps what `build` would write now?"""

from __future__ import annotations

import os
import re
import subprocess
import sys
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


#: Rounds of the race below, and the pages of its site (in ~200 sitemaps, so that a build
#: replaces ~200 files each round).
RACE_ROUNDS = 8
RACE_PAGES = 2_000
_VERDICT = re.compile(r"^(current: |stale: 0 pages added, 0 removed, 2,000 changed; )")


def test_a_check_racing_a_build_never_reads_a_half_replaced_set(tmp_path: Path) -> None:
    """Each round every page is re-dated, then a real `build` and a real `check` start together.
    The check comes before the build (every page changed, none added or removed) or after it
    (current), never in between: before the fix it read the old index, then found the files it
    listed removed by the build ("listed but missing") and their pages "added"."""
    root = tmp_path / "site"
    root.mkdir()
    for n in range(RACE_PAGES):
        (root / f"p{n}.html").write_text(html(f"page {n}"))
    args = [str(root), "--base-url", BASE, "--max-urls-per-sitemap", "50", "--jobs", "1"]
    sitemapgen = [sys.executable, "-m", "sitemapgen"]
    subprocess.run([*sitemapgen, "build", *args], check=True, capture_output=True)
    failures = []
    for n in range(RACE_ROUNDS):
        when = 1_600_000_000 + n * 86_400
        for page in root.glob("p*.html"):
            os.utime(page, (when, when))
        build = subprocess.Popen([*sitemapgen, "build", *args], stderr=subprocess.PIPE, text=True)
        check = subprocess.run([*sitemapgen, "check", *args], capture_output=True, text=True)
        build_err = build.communicate()[1]
        lines = check.stdout.splitlines()
        waits = [line for line in check.stderr.splitlines() if not line.startswith("warning: a build is running in ")]
        if build.returncode != 0 or check.returncode not in (0, 1) or not _VERDICT.match(lines[0] if lines else ""):
            failures.append(f"round {n}: build {build.returncode} {build_err!r}, check {check.returncode} {lines[:3]}")
        elif any(line.startswith("  listed but missing") for line in lines) or waits:
            failures.append(f"round {n}: check said {lines[:3]}, {waits}")
    assert not failures, f"{len(failures)} of {RACE_ROUNDS} rounds: {failures[:3]}"
    final = subprocess.run([*sitemapgen, "check", *args], capture_output=True, text=True)
    assert (final.returncode, final.stdout) == (0, f"current: {final.stdout.split()[1]} sitemaps, 2,000 pages\n")
