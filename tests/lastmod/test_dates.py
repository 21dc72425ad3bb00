"""Dates that cannot be true: SOURCE_DATE_EPOCH read as the reproducible-builds spec says, and
lastmods before 1990 or in the future said once per source, with a count and an example."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import error_line, git, html, make_tree, published

HINT = "set it to a time as `date +%s` prints it, e.g. $(git log -1 --format=%ct), or unset it"


def _warnings(err: str) -> list[str]:
    return [line.removeprefix("warning: ") for line in err.splitlines() if line.startswith("warning: ")]


def _content_build(cli: CliRunner, root: Path, state: Path, *more: str) -> tuple[int, str]:
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--state-file", state, *more)
    return run.code, run.err


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        pytest.param(
            "1.5", "is not an integer number of seconds since 1970 (the reproducible-builds spec)", id="fraction"
        ),
        pytest.param(
            " 1700000000", "is not an integer number of seconds since 1970 (the reproducible-builds spec)", id="space"
        ),
        pytest.param(
            "1e9", "is not an integer number of seconds since 1970 (the reproducible-builds spec)", id="exponent"
        ),
        pytest.param(
            "\uff11\uff17",
            "is not an integer number of seconds since 1970 (the reproducible-builds spec)",
            id="non-ascii",
        ),
        pytest.param(
            "999999999999999", "is not a time in the years 1 to 9999, which a lastmod can hold", id="too-late"
        ),
        pytest.param(
            "-99999999999999", "is not a time in the years 1 to 9999, which a lastmod can hold", id="too-early"
        ),
    ],
)
def test_a_malformed_source_date_epoch_is_refused(
    tmp_path: Path, site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, value: str, problem: str
) -> None:
    """The spec: "If the value is malformed, the build process SHOULD exit with a non-zero error code"."""
    root = site({"a.html": html()})
    state = tmp_path / "state.sqlite"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    code, err = _content_build(cli, root, state)
    assert (code, error_line(err)) == (2, f"SOURCE_DATE_EPOCH: {value!r} {problem}; {HINT}")
    assert sorted(p.name for p in root.iterdir()) == ["a.html"]  # nothing written
    assert not state.exists()
    # Only lastmod 'content' dates pages with the build time: other builds neither read nor judge it.
    os.utime(root / "a.html", (1_600_000_000, 1_600_000_000))
    run = cli("build", root, "--base-url", BASE)
    assert (run.code, _warnings(run.err)) == (0, [])


@pytest.mark.parametrize(
    ("value", "shown", "why"),
    [
        pytest.param("0", "1970-01-01T00:00:00+00:00", "before 1990", id="zero"),
        pytest.param("-5", "1969-12-31T23:59:55+00:00", "before 1990", id="negative"),
        pytest.param("315532800", "1980-01-01T00:00:00+00:00", "before 1990", id="nix-default"),
        pytest.param("99999999999", "5138-11-16T09:46:39+00:00", "in the future", id="year-5138"),
    ],
)
def test_a_source_date_epoch_that_cannot_be_a_build_time_is_warned_once(
    tmp_path: Path, site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, value: str, shown: str, why: str
) -> None:
    root = site({f"p{i}.html": html(f"page {i}") for i in range(3)})
    state = tmp_path / "state.sqlite"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    code, err = _content_build(cli, root, state)
    assert code == 0
    said = [w for w in _warnings(err) if "no lastmod state store yet" not in w]
    assert said == [
        f"SOURCE_DATE_EPOCH={value} is {shown}, {why}: lastmod 'content' dates new and changed pages with it;"
        f" {HINT} (the clock then dates them)"
    ]  # and not again for the pages it dated
    assert {u.lastmod for u in published(root, BASE)} == {shown}  # listed as dated, as the warning says

    # The store keeps the dates it recorded: a good SOURCE_DATE_EPOCH leaves them, and says so.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    code, err = _content_build(cli, root, state)
    assert code == 0
    assert _warnings(err) == [
        f"lastmod 'content' dated 3 pages {why}, listed so: the content store keeps the date"
        " a build first saw their content (a build whose clock or SOURCE_DATE_EPOCH was wrong) until it changes;"
        f" delete {state} to date them anew; e.g. p0.html {shown}"
    ]
    state.unlink()  # the advice followed
    code, err = _content_build(cli, root, state)
    assert code == 0
    assert [w for w in _warnings(err) if "no lastmod state store yet" not in w] == []
    assert {u.lastmod for u in published(root, BASE)} == {"2023-11-14T22:13:20+00:00"}


MTIME_ADVICE = (
    "their files' mtimes were reset (a Nix store sets 1 second past 1970, some archives 0); date them by their"
    " history instead: --lastmod git,mtime in a git checkout, or --lastmod content"
)


def test_mtimes_before_1990_are_one_warning_with_a_count(
    tmp_path: Path, site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site unpacked from a Nix store: every mtime is 1970-01-01T00:00:01. One line, not one a page."""
    root = site({f"p{i}.html": html(f"page {i}") for i in range(5)})
    for i in range(4):
        os.utime(root / f"p{i}.html", (1, 1))
    os.utime(root / "p4.html", (1_600_000_000, 1_600_000_000))
    before = {line: cli(line, root, "--base-url", BASE) for line in ("list", "build")}
    for command, run in before.items():
        assert run.code == 0, command
        assert _warnings(run.err) == [
            f"lastmod 'mtime' dated 4 pages before 1990, listed so: {MTIME_ADVICE};"
            " e.g. p0.html 1970-01-01T00:00:01+00:00"
        ], command
    assert [u.lastmod for u in published(root, BASE)] == ["1970-01-01T00:00:01+00:00"] * 4 + [
        "2020-09-13T12:26:40+00:00"
    ]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the advice followed: dated by content
    code, err = _content_build(cli, root, tmp_path / "state.sqlite")
    assert code == 0
    assert [w for w in _warnings(err) if "no lastmod state store yet" not in w] == []


MODIFIED = '<meta property="article:modified_time" content="{}">'


def test_lastmods_in_the_future_are_said_per_source(site: SiteFactory, cli: CliRunner) -> None:
    """A meta date of 2099 and an mtime from a clock set ahead: a line each, naming its source."""
    root = site(
        {
            "a.html": f"<html><head>{MODIFIED.format('2099-01-01T00:00:00Z')}</head></html>",
            "b.html": f"<html><head>{MODIFIED.format('2098-05-05')}</head></html>",
            "c.html": html("c"),
            "d.html": html("d"),
        }
    )
    os.utime(root / "c.html", (4_102_444_800, 4_102_444_800))  # 2100-01-01
    os.utime(root / "d.html", (1_600_000_000, 1_600_000_000))
    run = cli("build", root, "--base-url", BASE, "--lastmod", "meta,mtime")
    assert run.code == 0
    assert _warnings(run.err) == [
        "lastmod 'meta' dated 2 pages in the future, listed so: their heads'"
        " modified-time meta says so: correct the date where the generator takes it from (the pages' front matter),"
        " or take 'meta' out of lastmod; e.g. a.html 2099-01-01T00:00:00+00:00",
        "lastmod 'mtime' dated 1 page in the future, listed so: their files"
        " were written on a machine whose clock was ahead (or touched with a later date); date them by their history"
        " instead: --lastmod git,mtime in a git checkout, or --lastmod content; e.g. c.html 2100-01-01T00:00:00+00:00",
    ]
    assert [u.lastmod for u in published(root, BASE)] == [
        "2099-01-01T00:00:00+00:00",
        "2098-05-05T00:00:00+00:00",
        "2100-01-01T00:00:00+00:00",
        "2020-09-13T12:26:40+00:00",
    ]
    run = cli("build", root, "--base-url", BASE, "--lastmod", "mtime")  # 'meta' taken out, as advised
    assert [w for w in _warnings(run.err) if "'meta'" in w] == []


def test_git_dates_from_a_clock_set_wrong(tmp_path: Path, cli: CliRunner) -> None:
    repo = tmp_path / "repo"
    make_tree(repo, {"a.html": html("a"), "b.html": html("b")})
    git(repo, "init", "-q")
    git(repo, "add", "a.html")
    git(repo, "commit", "-q", "-m", "bad clock", date="1980-01-02T00:00:00Z", author_date="2020-01-02T00:00:00Z")
    git(repo, "add", "b.html")
    git(repo, "commit", "-q", "-m", "good clock", date="2021-01-01T00:00:00Z")
    run = cli("build", repo, "--base-url", BASE, "--lastmod", "git")
    assert run.code == 0
    assert _warnings(run.err) == [
        "lastmod 'git' dated 1 page before 1990, listed so: the last commits"
        " that touched them carry that commit date (a clock set wrong where they were made): if their author dates"
        " are right, set git_date = \"author\"; else put 'content' before 'git' in lastmod;"
        " e.g. a.html 1980-01-02T00:00:00+00:00"
    ]
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nlastmod = ["git"]\ngit_date = "author"\n')  # the advice followed
    run = cli("build", repo, "--config", config)
    assert (run.code, _warnings(run.err)) == (0, [])
    assert [u.lastmod for u in published(repo, BASE)] == ["2020-01-02T00:00:00+00:00", "2021-01-01T00:00:00+00:00"]
