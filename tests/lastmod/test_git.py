"""When git cannot date anything, lastmod 'git' says what git said (its first line) and what it
means, in one warning, and the next source dates the pages: the build goes on (exit 0), whether
or not a source follows 'git' in the chain. Each warning's advice, once followed, silences it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ..conftest import BASE, CliRunner
from ..helpers import git, html, make_tree, published

MTIME = "2020-09-13T12:26:40+00:00"  # every page's mtime
COMMITTED = "2021-06-01T12:00:00+00:00"


@pytest.fixture(autouse=True)
def _own_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git reads no config of the machine's (a safe.directory there would hide a refusal)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _repo(root: Path, *, committed: bool = True) -> Path:
    """A repository at `root` with its site in `public/`: one page, committed or not."""
    make_tree(root, {"public/a.html": html("a")})
    os.utime(root / "public/a.html", (1_600_000_000, 1_600_000_000))
    git(root, "init", "-q", "-b", "main")
    if committed:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "a", date=COMMITTED)
    return root / "public"


def _build(cli: CliRunner, public: Path, lastmod: str = "git,mtime") -> tuple[list[str], list[str | None]]:
    """The warnings of a build (asserted to succeed) and the lastmods it published."""
    run = cli("build", public, "--base-url", BASE, "--lastmod", lastmod)
    assert run.code == 0, run.err
    warnings = [line.removeprefix("warning: ") for line in run.err.splitlines() if line.startswith("warning: ")]
    return warnings, [u.lastmod for u in published(public, BASE)]


def test_git_missing_from_path_is_said_so(tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    public = _repo(tmp_path / "repo")
    path = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    assert _build(cli, public) == (
        [
            "lastmod 'git': cannot run git (No such file or directory): install git, or put it on PATH;"
            " using the next source ('mtime')"
        ],
        [MTIME],
    )
    monkeypatch.setenv("PATH", path)  # the advice followed
    assert _build(cli, public) == ([], [COMMITTED])


def test_gits_dubious_ownership_refusal_is_said_in_its_words(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    public = _repo(tmp_path / "repo")
    root = public.parent
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # as in a CI container: another user's checkout
    probe = subprocess.run(["git", "rev-parse"], cwd=root, capture_output=True, text=True, check=False)
    if probe.returncode == 0:
        pytest.skip("this git does not honour GIT_TEST_ASSUME_DIFFERENT_OWNER")
    where = probe.stderr.splitlines()[0].rpartition(" at ")[2].strip("'")  # the path as git prints it
    assert Path(where).resolve() == root.resolve()
    assert _build(cli, public) == (
        [
            f"lastmod 'git': git refuses the repository at {where}, which another user owns"
            f" (git: \"fatal: detected dubious ownership in repository at '{where}'\");"
            f" if you trust it: git config --global --add safe.directory {where}; using the next source ('mtime')"
        ],
        [MTIME],
    )
    git(root, "config", "--global", "--add", "safe.directory", where)  # the advice followed
    assert _build(cli, public) == ([], [COMMITTED])


@pytest.mark.parametrize(
    ("lastmod", "instead", "lastmods"),
    [
        ("git,mtime", "using the next source ('mtime')", [MTIME]),
        ("git", "no page gets a lastmod from it", [None]),
    ],
    ids=["then-mtime", "git-alone"],
)
def test_a_repository_with_no_commit_is_a_warning_not_an_error(
    tmp_path: Path, cli: CliRunner, lastmod: str, instead: str, lastmods: list[str | None]
) -> None:
    public = _repo(tmp_path / "repo", committed=False)
    root = public.parent
    assert _build(cli, public, lastmod) == (
        [
            f"lastmod 'git': the repository at {root} has no commit yet"
            f" (git: \"fatal: your current branch 'main' does not have any commits yet\"); {instead}"
        ],
        lastmods,
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a", date=COMMITTED)  # the advice (a commit) followed
    assert _build(cli, public, lastmod) == ([], [COMMITTED])


def test_outside_a_work_tree_git_says_so_in_its_words(tmp_path: Path, cli: CliRunner) -> None:
    public = make_tree(tmp_path / "site", {"a.html": html("a")})
    os.utime(public / "a.html", (1_600_000_000, 1_600_000_000))
    env = {**os.environ, "LC_ALL": "C"}
    probe = subprocess.run(["git", "rev-parse"], cwd=public, env=env, capture_output=True, text=True, check=False)
    said = probe.stderr.splitlines()[
        0
    ]  # "...(or any of the parent directories)", or "(or any parent up to mount point"
    assert said.startswith("fatal: not a git repository")
    assert _build(cli, public) == (
        [f"lastmod 'git': {public} is not in a git work tree (git: \"{said}\"); using the next source ('mtime')"],
        [MTIME],
    )


def test_git_pages_date_a_docroot_outside_the_repository(tmp_path: Path) -> None:
    """The plugins' map (library: `GitPages`): git runs where the sources are, the site is
    elsewhere (mkdocs serve's temporary site_dir); [[git_sources]] rules come first."""
    import sitemapgen

    root = make_tree(tmp_path / "repo", {"docs/a.md": "a"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a", date="2021-01-01T00:00:00Z")
    make_tree(root, {"docs/b.md": "b"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "b", date="2022-02-02T00:00:00Z")
    public = make_tree(tmp_path / "elsewhere", {f"{name}.html": html(name) for name in "abcd"})
    for page in public.iterdir():
        os.utime(page, (1_600_000_000, 1_600_000_000))
    sources: dict[str, str | Path] = {
        "a.html": "a.md",
        "b.html": root / "docs/b.md",
        "c.html": "c.md",
        "d.html": "b.md",
    }
    rule = sitemapgen.GitSource(match=r"^d\.html$", source="docs/a.md")
    config = sitemapgen.load_config(
        public,
        base_url=BASE,
        lastmod=["git", "mtime"],
        git_sources=[rule],
        git_pages=sitemapgen.GitPages(root / "docs", sources),
    )
    warnings: list[str] = []
    result = sitemapgen.build(config, on_warning=warnings.append)
    assert warnings == []
    assert result.listed == 4
    assert {u.loc.removeprefix(BASE): u.lastmod for u in published(public, BASE)} == {
        "a.html": "2021-01-01T00:00:00+00:00",
        "b.html": "2022-02-02T00:00:00+00:00",  # an absolute source path
        "c.html": MTIME,  # its source is not in git: the next source
        "d.html": "2021-01-01T00:00:00+00:00",  # the rule, before the map's b.md
    }


def test_git_pages_must_be_a_git_pages(tmp_path: Path) -> None:
    import sitemapgen

    with pytest.raises(sitemapgen.ConfigError, match=r"^git_pages: must be a GitPages .*got \{'a.html': 'a.md'\}$"):
        sitemapgen.load_config(tmp_path, base_url=BASE, git_pages={"a.html": "a.md"})


def test_git_pages_through_symlinks(tmp_path: Path) -> None:
    """A source that is a symlink is dated by the link's own commits (git tracks the link); a
    project directory reached through a symlink is the repository's all the same."""
    import sitemapgen

    root = make_tree(tmp_path / "repo", {"docs/real.md": "real"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "real", date="2021-01-01T00:00:00Z")
    (root / "docs/link.md").symlink_to("real.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "link", date="2022-02-02T00:00:00Z")
    (tmp_path / "project").symlink_to(root)
    public = make_tree(tmp_path / "site", {"real.html": html("real"), "link.html": html("link")})
    sources: dict[str, str | Path] = {"real.html": "real.md", "link.html": "link.md"}
    pages = sitemapgen.GitPages(tmp_path / "project/docs", sources)
    config = sitemapgen.load_config(public, base_url=BASE, lastmod=["git"], git_pages=pages)
    warnings: list[str] = []
    sitemapgen.build(config, on_warning=warnings.append)
    assert warnings == []
    assert {u.loc.removeprefix(BASE): u.lastmod for u in published(public, BASE)} == {
        "real.html": "2021-01-01T00:00:00+00:00",
        "link.html": "2022-02-02T00:00:00+00:00",
    }
