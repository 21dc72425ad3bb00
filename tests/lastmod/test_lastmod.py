from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from sitemapgen.lastmod.base import parse_datetime
from sitemapgen.lastmod.git import read_git_dates

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import git, html, make_tree, output_files, published, read_index


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01", datetime(2024, 5, 1, tzinfo=UTC)),
        ("2024-05-01T10:00:00Z", datetime(2024, 5, 1, 10, tzinfo=UTC)),
        ("2024-05-01T10:00:00+02:00", datetime(2024, 5, 1, 10, tzinfo=timezone(timedelta(hours=2)))),
        ("2024-05-01T10:00:00.123-0530", datetime(2024, 5, 1, 10, tzinfo=timezone(-timedelta(hours=5, minutes=30)))),
        ("2024-05-01T10:00", datetime(2024, 5, 1, 10, tzinfo=UTC)),
        ("2024-05-01 10:00:00", datetime(2024, 5, 1, 10, tzinfo=UTC)),
        ("Tue, 15 Nov 1994 08:12:31 GMT", datetime(1994, 11, 15, 8, 12, 31, tzinfo=UTC)),
        ("yesterday", None),
        ("2024-13-01", None),
        ("", None),
    ],
)
def test_parse_datetime(text: str, expected: datetime | None) -> None:
    assert parse_datetime(text) == expected


def commit(repo: Path, files: dict[str, str], date: str, author_date: str | None = None) -> None:
    make_tree(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"at {date}", date=date, author_date=author_date)


def test_git_sources_try_candidates_in_order_and_author_dates(tmp_path: Path, cli: CliRunner) -> None:
    """A Hugo site's pages come from X.md, X/index.md or X/_index.md, and a German page from
    its translation, else the English file: one rule with candidates says it. Hugo's .GitInfo
    takes the author date; a rebase moved the commit date of one change."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    pages = {f"public/{p}": html(p) for p in ("a/index.html", "b/index.html", "c/index.html", "de/a/index.html")}
    commit(
        repo,
        {**pages, "content/a.md": "a", "content/b/index.md": "b", "content/c/_index.md": "c"},
        "2020-01-01T00:00:00Z",
    )
    commit(repo, {"content/a.md": "a2"}, "2024-05-05T00:00:00Z", author_date="2021-02-03T04:05:06Z")  # rebased
    commit(repo, {"content/c/_index.md": "c2"}, "2022-07-08T09:10:11Z")
    config = tmp_path / "c.toml"
    rules = (
        '[[git_sources]]\nmatch = "^de/([^/]+)/index\\\\.html$"\n'
        'source = ["content/\\\\1.de.md", "content/\\\\1.md"]\n'
        '[[git_sources]]\nmatch = "^([^/]+)/index\\\\.html$"\n'
        'source = ["content/\\\\1.md", "content/\\\\1/index.md", "content/\\\\1/_index.md"]\n'
    )
    for git_date, a_date in (("commit", "2024-05-05T00:00:00+00:00"), ("author", "2021-02-03T04:05:06+00:00")):
        config.write_text(f'base_url = "{BASE}"\nlastmod = ["git"]\ngit_date = "{git_date}"\n{rules}')
        run = cli("build", repo / "public", "--config", config)
        assert run.code == 0, run.err
        got = {u.loc.removeprefix(BASE): u.lastmod for u in published(repo / "public", BASE)}
        assert got == {
            "a/": a_date,  # content/a.md
            "b/": "2020-01-01T00:00:00+00:00",  # content/b/index.md
            "c/": "2022-07-08T09:10:11+00:00",  # content/c/_index.md
            "de/a/": a_date,  # no content/a.de.md: the English file
        }, git_date


def test_a_git_source_must_be_a_string_or_a_list_of_them(tmp_path: Path, cli: CliRunner) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\n[[git_sources]]\nmatch = "x"\nsource = []\n')
    run = cli("build", tmp_path, "--config", config)
    assert run.code == 2
    assert "source in the 1st [[git_sources]] block: must be a non-empty string or a list of them" in run.err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    commit(
        root,
        {"public/a.html": html("a1"), "public/ü dir/é.html": html("e"), "content/b.md": "b"},
        "2020-01-01T00:00:00Z",
    )
    commit(root, {"public/a.html": html("a2"), "public/b/index.html": html("b")}, "2021-06-01T12:00:00Z")
    commit(root, {"content/b.md": "b2"}, "2022-03-04T05:06:07+02:00")
    return root


def test_git_dates_in_one_pass(repo: Path) -> None:
    dates = read_git_dates(repo / "public")
    assert dates is not None
    assert not dates.shallow
    assert dates.dates["public/a.html"] == datetime(2021, 6, 1, 12, tzinfo=UTC)
    assert dates.dates["public/ü dir/é.html"] == datetime(2020, 1, 1, tzinfo=UTC)
    assert dates.dates["content/b.md"] == datetime(2022, 3, 4, 3, 6, 7, tzinfo=UTC)


def test_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert read_git_dates(tmp_path / "plain") is None


def test_git_lastmod_end_to_end_with_source_mapping(repo: Path, cli: CliRunner, tmp_path: Path) -> None:
    os.utime(repo / "public/a.html", (2_000_000_000, 2_000_000_000))  # a fresh checkout's mtime: ignored
    (repo / "public/new.html").write_text(html("untracked"))
    os.utime(repo / "public/new.html", (1_700_000_000, 1_700_000_000))
    config = tmp_path / "c.toml"
    config.write_text(
        f'base_url = "{BASE}"\nlastmod = ["git", "mtime"]\n'
        '[[git_sources]]\nmatch = "^b/index\\\\.html$"\nsource = "content/b.md"\n'
    )
    run = cli("build", repo / "public", "--config", config)
    assert run.code == 0, run.err
    got = {u.loc: u.lastmod for u in published(repo / "public", BASE)}
    assert got == {
        BASE + "a.html": "2021-06-01T12:00:00+00:00",
        BASE + "new.html": "2023-11-14T22:13:20+00:00",  # not in git: falls back to mtime
        BASE + "b/": "2022-03-04T03:06:07+00:00",  # dated by its source file
        BASE + "%C3%BC%20dir/%C3%A9.html": "2020-01-01T00:00:00+00:00",
    }
    assert "lastmod from 3 git, 1 mtime" in run.err


def test_shallow_clone_is_reported_never_one_date_for_all(repo: Path, cli: CliRunner, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", repo.as_uri(), str(clone))
    dates = read_git_dates(clone)
    assert dates is not None
    assert dates.shallow
    # The boundary commit seems to add every file: only the newer commit's files have a known date.
    assert "public/a.html" in dates.shallow_paths
    assert "content/b.md" not in dates.shallow_paths
    assert dates.dates == {"content/b.md": datetime(2022, 3, 4, 3, 6, 7, tzinfo=UTC)}
    for path in (clone / "public").rglob("*.html"):
        os.utime(path, (1_600_000_000, 1_600_000_000))
    run = cli("build", clone / "public", "--base-url", BASE, "--lastmod", "git,mtime")
    assert run.code == 0, run.err
    assert "shallow clone" in run.err
    assert "fetch-depth: 0" in run.err
    assert {u.lastmod for u in published(clone / "public", BASE)} == {"2020-09-13T12:26:40+00:00"}  # mtime


def test_git_source_without_repo_warns_and_falls_back(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    os.utime(root / "a.html", (1_600_000_000, 1_600_000_000))
    run = cli("build", root, "--base-url", BASE, "--lastmod", "git,mtime")
    assert run.code == 0
    assert 'is not in a git work tree (git: "fatal: not a git repository' in run.err
    assert run.err.count("; using the next source ('mtime')") == 1
    assert run.err.count("warning: ") == 1  # said as it opened, not again once the pages are dated
    assert [u.lastmod for u in published(root, BASE)] == ["2020-09-13T12:26:40+00:00"]  # the mtime
    # git alone: there is no next source, and the pages have no lastmod.
    run = cli("build", root, "--base-url", BASE, "--lastmod", "git")
    assert run.code == 0
    [warning] = _warnings(run.err)
    assert warning.startswith(f"lastmod 'git': {root} is not in a git work tree (git: ")
    assert warning.endswith("); no page gets a lastmod from it")
    assert "; no lastmod (no source dated any page); " in _summary(run.err)
    assert [u.lastmod for u in published(root, BASE)] == [None]


def test_meta_lastmod(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(
        tmp_path / "site",
        {
            "a.html": '<head><meta property="article:modified_time" content="2024-05-01T10:00:00+02:00"></head>',
            "b.html": '<head><meta name="last-modified" content="2023-01-02"></head>',
            "c.html": '<head><meta itemprop="dateModified" content="not a date"></head>',
            "d.html": html(),
        },
    )
    for name in "abcd":
        os.utime(root / f"{name}.html", (1_600_000_000, 1_600_000_000))
    run = cli("build", root, "--base-url", BASE, "--lastmod", "meta,mtime")
    assert run.code == 0
    assert [u.lastmod for u in published(root, BASE)] == [
        "2024-05-01T10:00:00+02:00",
        "2023-01-02T00:00:00+00:00",
        "2020-09-13T12:26:40+00:00",
        "2020-09-13T12:26:40+00:00",
    ]
    assert "c.html: unreadable modified-time meta 'not a date'" in run.err


def content_build(cli: CliRunner, root: Path, state: Path, when: int, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(when))
    run = cli(
        "build", root, "--base-url", BASE, "--lastmod", "content", "--state-file", state, "--max-urls-per-sitemap", "3"
    )
    assert run.code == 0, run.err
    return run.err


def test_content_lastmod_survives_a_full_rebuild(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"p{i}.html": html(f"page {i}") for i in range(7)}
    root = make_tree(tmp_path / "site", files)
    state = tmp_path / "state.sqlite"
    content_build(cli, root, state, 1_600_000_000, monkeypatch)
    first = output_files(root)
    make_tree(root, files)  # a full site rebuild: every file rewritten, same bytes, new mtimes
    for path in root.glob("*.html"):
        os.utime(path, (1_700_000_000, 1_700_000_000))
    content_build(cli, root, state, 1_700_000_000, monkeypatch)
    assert output_files(root) == first

    (root / "p4.html").write_text(html("page 4, edited"))
    content_build(cli, root, state, 1_800_000_000, monkeypatch)
    after = {u.loc: u.lastmod for u in published(root, BASE)}
    assert after.pop(BASE + "p4.html") == "2027-01-15T08:00:00+00:00"
    assert set(after.values()) == {"2020-09-13T12:26:40+00:00"}
    index = [lastmod or "" for _, lastmod in read_index(root / "sitemap.xml")]
    assert sorted(index) == ["2020-09-13T12:26:40+00:00"] * (len(index) - 1) + ["2027-01-15T08:00:00+00:00"]
    second = output_files(root)
    # One chunk replaced (a new file; the old one kept until the next build) and the index: nothing else touched.
    assert len(set(second) - set(first)) == 1
    assert set(first) <= set(second)
    assert [n for n in set(first) & set(second) if first[n] != second[n]] == ["sitemap.xml"]


def test_content_ignore_strips_volatile_parts(tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(tmp_path / "site", {"a.html": "<html><!-- built 1 --><p>same</p>"})
    state = tmp_path / "s.sqlite"
    config = tmp_path / "c.toml"
    config.write_text(
        f'base_url = "{BASE}"\nlastmod = "content"\nstate_file = "{state}"\n'
        'content_ignore = ["<!-- built [0-9]+ -->"]\n'
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1600000000")
    assert cli("build", root, "--config", config).code == 0
    (root / "a.html").write_text("<html><!-- built 2 --><p>same</p>")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert cli("build", root, "--config", config).code == 0
    assert published(root, BASE)[0].lastmod == "2020-09-13T12:26:40+00:00"


def test_corrupt_store_is_rebuilt_with_a_warning(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    state = tmp_path / "state.sqlite"
    state.write_bytes(b"this is not a database" * 100)
    err = content_build(cli, root, state, 1_600_000_000, monkeypatch)
    aside = tmp_path / "state.sqlite.corrupt-20200913T122640Z"
    assert f"{state}: lastmod state store is corrupt (file is not a database); moved to {aside.name}" in err
    assert aside.read_bytes() == b"this is not a database" * 100  # kept, not unlinked
    assert published(root, BASE)[0].lastmod == "2020-09-13T12:26:40+00:00"
    content_build(cli, root, state, 1_700_000_000, monkeypatch)
    assert published(root, BASE)[0].lastmod == "2020-09-13T12:26:40+00:00"


def test_failed_build_leaves_the_store_as_it_was(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    state = tmp_path / "state.sqlite"
    content_build(cli, root, state, 1_600_000_000, monkeypatch)
    (root / "a.html").write_text(html("changed"))

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys.modules["sitemapgen.commands.build"], "write_rows", full_disk)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    failed = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--state-file", state)
    assert (failed.code, failed.err) == (
        3,
        f"error: {root}: cannot write the sitemaps: No space left on device; nothing new was published\n",
    )
    monkeypatch.undo()
    content_build(cli, root, state, 1_800_000_000, monkeypatch)
    assert published(root, BASE)[0].lastmod == "2027-01-15T08:00:00+00:00"  # first seen by a build that finished


def test_default_state_file_is_beside_the_output_not_inside(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    first = cli("build", root, "--base-url", BASE, "--lastmod", "content")
    assert first.code == 0
    assert "no lastmod state store yet; starting one, so every page counts as new" in first.err
    again = cli("build", root, "--base-url", BASE, "--lastmod", "content")
    assert "warning" not in again.err
    assert (tmp_path / ".sitemapgen-state-site.sqlite").is_file()
    assert sorted(p.name for p in root.iterdir()) == ["a.html", "sitemap-1.xml.gz", "sitemap.xml"]


def test_the_source_table_and_the_names_agree() -> None:
    """A source is an enum member and a table entry; neither without the other."""
    from sitemapgen.config.words import LastmodSource
    from sitemapgen.lastmod.base import Source
    from sitemapgen.lastmod.chain import SOURCES

    assert set(SOURCES) == set(LastmodSource)
    assert all(issubclass(kind, Source) for kind in SOURCES.values())
    page = (Path(__file__).parents[2] / "docs" / "lastmod.md").read_text(encoding="utf-8")
    for name in LastmodSource:
        assert f"| `{name.value}` |" in page  # a row of the sources table of the lastmod page


@pytest.mark.parametrize(
    "text", ["2024-01-02T03:04:05+14:01", "2024-01-02T03:04:05-15:00", "Tue, 02 Jan 2024 03:04:05 +1500"]
)
def test_offsets_beyond_14_hours_are_not_dates(text: str) -> None:
    assert parse_datetime(text) is None  # W3C Datetime and xsd:dateTime stop at +/-14:00


def test_a_source_that_reads_heads_needs_them(tmp_path: Path) -> None:
    from sitemapgen import Config, ConfigError

    with pytest.raises(ConfigError, match="lastmod: source 'meta' reads page heads, but read_heads is false"):
        Config(docroot=tmp_path, base_url="https://example.com/", lastmod=("meta",), read_heads=False)  # type: ignore[arg-type]


def test_list_says_when_there_is_no_store_to_read(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    store = tmp_path / "nowhere.sqlite"
    run = cli("list", root, "--base-url", BASE, "--lastmod", "content", "--state-file", store)
    assert run.code == 0
    assert run.err == (
        f"warning: {store}: no lastmod state store, so every page is dated with the build time"
        " (give the --out or --state-file of the build that keeps it)\n"
    )
    assert not store.exists()  # and it made none


def _writer(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")  # another build, half-way through its own


def _reader(db: sqlite3.Connection) -> None:
    db.execute("BEGIN")
    db.execute("SELECT * FROM pages").fetchall()  # holds a read lock: our commit cannot happen


@pytest.mark.parametrize(
    ("hold", "what"),
    [
        pytest.param(_writer, "open", id="a-writer-holds-it"),
        pytest.param(_reader, "commit to", id="a-reader-at-commit"),
    ],
)
def test_a_busy_store_is_waited_for_then_one_line_and_nothing_published(
    tmp_path: Path,
    cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    hold: Callable[[sqlite3.Connection], None],
    what: str,
) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html(), "b.html": html("b")})
    state = tmp_path / "state.sqlite"
    content_build(cli, root, state, 1_600_000_000, monkeypatch)
    before = output_files(root)
    (root / "a.html").write_text(html("changed"))
    monkeypatch.setattr("sitemapgen.lastmod.store.BUSY_TIMEOUT", 0.2)
    other = sqlite3.connect(state, isolation_level=None)
    try:
        hold(other)
        run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--state-file", state)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert run.code == 3
    assert run.err == (
        f"error: {state}: cannot {what} the lastmod state store: another process holds it (waited 0.2 s);"
        " nothing new was published\n"
    )
    assert output_files(root) == before
    content_build(cli, root, state, 1_700_000_000, monkeypatch)  # the store was kept, not thrown away
    assert [(u.loc, u.lastmod) for u in published(root, BASE)] == [
        (BASE + "a.html", "2023-11-14T22:13:20+00:00"),
        (BASE + "b.html", "2020-09-13T12:26:40+00:00"),
    ]
    assert not list(tmp_path.glob("state.sqlite.corrupt*"))


def test_lastmod_matches_date_command(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "b.html": html()})
    os.utime(root / "a.html", ns=(0, 1_098_780_999_999_999_999))  # 2004-10-26T08:56:39.999...
    os.utime(root / "b.html", ns=(0, -1_500_000_000))  # before the epoch: date -r floors
    assert cli("build", root, "--base-url", BASE).code == 0
    got = [u.lastmod for u in published(root, BASE)]
    expected = [
        subprocess.run(
            ["date", "--iso-8601=seconds", "-u", "-r", str(root / name)], capture_output=True, text=True, check=True
        ).stdout.strip()
        for name in ("a.html", "b.html")
    ]
    assert got == expected == ["2004-10-26T08:56:39+00:00", "1969-12-31T23:59:58+00:00"]


def test_lastmod_date_only(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    os.utime(root / "a.html", (1098780999, 1098780999))
    assert cli("build", root, "--base-url", BASE, "--lastmod-format", "date").code == 0
    assert [u.lastmod for u in published(root, BASE)] == ["2004-10-26"]
    assert read_index(root / "sitemap.xml")[0][1] == "2004-10-26"


def _warnings(err: str) -> list[str]:
    return [line.removeprefix("warning: ") for line in err.splitlines() if line.startswith("warning: ")]


def _summary(err: str) -> str:
    [line] = [line for line in err.splitlines() if line.startswith("sitemapgen: ")]
    return line


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A repository whose build output (public/, ignored) is not tracked: its sources are."""
    root = tmp_path / "built"
    root.mkdir()
    git(root, "init", "-q")
    commit(root, {".gitignore": "public/\n", "content/a.md": "a", "content/b.md": "b"}, "2021-06-01T12:00:00Z")
    make_tree(root / "public", {"a.html": html("a"), "b.html": html("b"), "c.html": html("c")})
    for page in (root / "public").iterdir():
        os.utime(page, (1_600_000_000, 1_600_000_000))
    return root


def test_git_dating_no_page_of_built_output_is_a_warning_until_its_advice_is_followed(
    built: Path, cli: CliRunner, tmp_path: Path
) -> None:
    """--lastmod git,mtime on untracked output dated every page by mtime and said nothing: now one
    warning says git dated none, why, and what to do; each thing it says to do silences it."""
    public = built / "public"
    run = cli("build", public, "--base-url", BASE, "--lastmod", "git,mtime")
    assert run.code == 0, run.err
    assert {u.lastmod for u in published(public, BASE)} == {"2020-09-13T12:26:40+00:00"}  # mtime
    assert _warnings(run.err) == [
        f"lastmod 'git' dated none of the 3 pages (mtime dated them): git ignores {public} (built output);"
        " map built pages to the files they are made from with [[git_sources]] in the config, or date them"
        " by content: lastmod 'content' with previous, the deployed index (--lastmod content --previous URL)"
    ]
    assert "; lastmod from 3 mtime; " in _summary(run.err)

    # Followed: [[git_sources]] maps each built page to its source (c.html has none: mtime).
    config = tmp_path / "c.toml"
    config.write_text(
        f'base_url = "{BASE}"\nlastmod = ["git", "mtime"]\n'
        '[[git_sources]]\nmatch = "^(.*)\\\\.html$"\nsource = "content/\\\\1.md"\n'
    )
    run = cli("build", public, "--config", config)
    assert run.code == 0, run.err
    assert _warnings(run.err) == []
    assert "; lastmod from 2 git, 1 mtime; " in _summary(run.err)
    assert {u.loc: u.lastmod for u in published(public, BASE)}[BASE + "a.html"] == "2021-06-01T12:00:00+00:00"

    # Followed the other way: dates by content, remembered by the previous deploy.
    previous = tmp_path / "deployed"
    content = ("build", public, "--base-url", BASE, "--lastmod", "content", "--previous", previous)
    assert cli(*content, "--out", previous).code == 0  # the deploy before, which publishes its manifest
    run = cli(*content)
    assert run.code == 0, run.err
    assert _warnings(run.err) == []
    assert "; lastmod from 3 content; " in _summary(run.err)


@pytest.mark.parametrize(
    ("setup", "why"),
    [
        pytest.param(
            lambda root: (root / ".gitignore").write_text(""),
            "git tracks no file in {public}; map built pages",
            id="untracked-not-ignored",
        ),
        pytest.param(
            lambda root: commit(
                root, {".gitignore": "*.html\n", "public/CNAME": "example.org"}, "2021-07-01T00:00:00Z"
            ),
            "none of the pages is tracked by git; map built pages",
            id="docroot-tracked-pages-not",
        ),
    ],
)
def test_git_dating_no_page_says_what_git_knows_of_the_docroot(
    built: Path, cli: CliRunner, setup: Callable[[Path], object], why: str
) -> None:
    setup(built)
    public = built / "public"
    run = cli("build", public, "--base-url", BASE, "--lastmod", "git,mtime")
    assert run.code == 0, run.err
    [warning] = _warnings(run.err)
    assert warning.startswith(
        "lastmod 'git' dated none of the 3 pages (mtime dated them): " + why.format(public=public)
    )


def test_git_sources_that_match_nothing_git_knows_are_named(built: Path, cli: CliRunner, tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        f'base_url = "{BASE}"\nlastmod = ["git"]\n'
        '[[git_sources]]\nmatch = "^(.*)\\\\.html$"\nsource = "src/\\\\1.md"\n'  # src/, not content/
    )
    run = cli("build", built / "public", "--config", config)
    assert run.code == 0, run.err
    assert _warnings(run.err) == [
        "lastmod 'git' dated none of the 3 pages (they have no lastmod): neither the pages nor the files"
        " [[git_sources]] maps them to are tracked by git; check each rule's match and source against"
        " `git ls-files`"
    ]
    assert "; no lastmod (no source dated any page); " in _summary(run.err)
    assert [u.lastmod for u in published(built / "public", BASE)] == [None, None, None]


def test_meta_dating_no_page_is_a_warning_and_the_summary_counts_each_source(site: SiteFactory, cli: CliRunner) -> None:
    dated = '<head><meta property="article:modified_time" content="2024-05-01T10:00:00+00:00"></head>'
    root = site({"a.html": html("a"), "b.html": html("b")})
    run = cli("build", root, "--base-url", BASE, "--lastmod", "meta,mtime")
    assert run.code == 0, run.err
    assert _warnings(run.err) == [
        "lastmod 'meta' dated none of the 2 pages (mtime dated them): no page's head gives a readable modified"
        " time (article:modified_time, last-modified or itemprop dateModified meta); take 'meta' out of lastmod"
        " if the generator writes none"
    ]
    # One page gives a date: meta dated it; the other has no lastmod, and the summary says so.
    (root / "a.html").write_text(dated)
    run = cli("build", root, "--base-url", BASE, "--lastmod", "meta")
    assert run.code == 0, run.err
    assert _warnings(run.err) == []
    assert "; lastmod from 1 meta, none for 1 page; " in _summary(run.err)
    assert {u.loc: u.lastmod for u in published(root, BASE)} == {
        BASE + "a.html": "2024-05-01T10:00:00+00:00",
        BASE + "b.html": None,
    }


def _long_page(sections: int) -> str:
    """A page whose <main> holds `sections` sections of headings, paragraphs and links."""
    body = "".join(
        f'<div class="s"><h2 id="h{i}">Section {i}</h2><p>Some <a href="/x{i}.html">text</a>, <em>{i}</em>.</p></div>\n'
        for i in range(sections)
    )
    return f"<!doctype html><html><head><title>long</title></head><body><main>{body}</main></body></html>"


@pytest.mark.parametrize(
    ("chain", "instead", "big_lastmod"),
    [
        pytest.param("content,mtime", "'mtime' dates it instead", "mtime", id="then-mtime"),
        pytest.param("content", "it is listed without a lastmod", None, id="alone"),
    ],
)
def test_content_select_on_a_15_mib_page_is_bounded(
    site: SiteFactory, chain: str, instead: str, big_lastmod: str | None
) -> None:
    """Parsing a 15 MiB page for content_select took 56 s and 1.9 GB: a page over the limit is
    read no further than it, said in a warning, and dated by the next source. Run in 512 MiB of
    address space, with a timeout well under what parsing it took."""
    root = site({"index.html": html("home"), "big.html": _long_page(135_000)})
    size = (root / "big.html").stat().st_size
    assert 15 << 20 <= size < 16 << 20
    os.utime(root / "big.html", (1_600_000_000, 1_600_000_000))
    (root.parent / "sitemapgen.toml").write_text('content_select = ["main"]\n')
    cmd = [sys.executable, "-m", "sitemapgen", "build", str(root), "--base-url", BASE, "--lastmod", chain]
    cmd += ["--config", str(root.parent / "sitemapgen.toml")]

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))

    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=30, preexec_fn=limit, env=env)
    assert done.returncode == 0, done.stderr
    assert (
        f"warning: big.html: {size:,} bytes, over the 1,048,576 that content_select parses, so lastmod 'content'"
        in (done.stderr)
    )
    warned = [line for line in done.stderr.splitlines() if line.startswith("warning: big.html")]
    assert warned == [
        f"warning: big.html: {size:,} bytes, over the 1,048,576 that content_select parses,"
        f" so lastmod 'content' does not date it; {instead}"
    ]
    dates = {url.loc: url.lastmod for url in published(root, BASE)}
    assert dates == {
        BASE: "2023-11-14T22:13:20+00:00",  # content: new, so the build time (SOURCE_DATE_EPOCH)
        BASE + "big.html": "2020-09-13T12:26:40+00:00" if big_lastmod else None,
    }
