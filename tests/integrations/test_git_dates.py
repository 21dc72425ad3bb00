"""The plugins date each page by the git history of the source file it was made from: real
``mkdocs build``, ``mkdocs serve`` and ``sphinx-build`` in a git repository whose commits have
known dates. The built site is not tracked (as in a real project): every date below can only
come from a source file's commit; a page made from every source (Sphinx's genindex and
py-modindex, a theme's search page) gets the newest of their commits, so a rebuild in which
nothing changed writes the same bytes."""

from __future__ import annotations

import contextlib
import gzip
import os
import subprocess
import sys
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from ..helpers import NS, _free_port, fetch, git, make_tree, output_files, published

BASE = "https://example.org/"

#: Each source file's one commit, and the lastmod it must give the page made from it.
DATES = {
    "index": ("2021-01-02T03:04:05Z", "2021-01-02T03:04:05+00:00"),
    "install": ("2022-02-03T04:05:06+02:00", "2022-02-03T02:05:06+00:00"),
    "usage": ("2023-03-04T05:06:07Z", "2023-03-04T05:06:07+00:00"),
}
#: The commit of the project's own files (config, .gitignore): no page may get this date.
SETUP_DATE = "2020-06-01T00:00:00Z"


def _commit_each(root: Path, sources: dict[str, str], setup: dict[str, str]) -> None:
    """A repository at `root`: `setup` in one commit, then each source in its own, dated as `DATES` says."""
    root.mkdir()
    git(root, "init", "-q")
    make_tree(root, {".gitignore": "site/\nout/\n", **setup})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "setup", date=SETUP_DATE)
    for name, path in sources.items():
        make_tree(root, {path: _source_text(name, path)})
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", name, date=DATES[name][0])


def _source_text(name: str, path: str) -> str:
    title = name.capitalize()
    if path.endswith(".md"):
        return f"# {title}\n\nAbout {name}.\n"
    body = f"{title}\n{'=' * len(title)}\n\nAbout {name}.\n"
    if name == "install":  # a module: Sphinx writes py-modindex
        body += "\n.. py:module:: frobnicate\n\n.. py:function:: frobnicate.run()\n"
    return body + ("\n.. toctree::\n\n   install\n   guide/usage\n" if name == "index" else "")


def _mkdocs_project(root: Path, theme: str = "mkdocs") -> Path:
    config = f"site_name: Frobnicate\nsite_url: https://example.org/\ntheme: {theme}\nplugins:\n  - search\n"
    config += "  - sitemapgen:\n      lastmod: [git, mtime]\n"
    sources = {"index": "docs/index.md", "install": "docs/install.md", "usage": "docs/guide/usage.md"}
    _commit_each(root, sources, {"mkdocs.yml": config})
    return root


def _run(*argv: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a Python module's command; its messages without colour, as a CI that sets FORCE_COLOR
    would otherwise see them (Sphinx colours its log then, even into a pipe)."""
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"} | {"NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", *map(str, argv)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


MKDOCS_DATES = {
    "": DATES["index"][1],
    "install/": DATES["install"][1],
    "guide/usage/": DATES["usage"][1],
}


def test_mkdocs_build_dates_each_page_by_its_markdown_file(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    root = _mkdocs_project(tmp_path / "project")
    run = _run("mkdocs", "build", "--strict", cwd=root)
    assert run.returncode == 0, run.stderr
    got = {u.loc.removeprefix(BASE): u.lastmod for u in published(root / "site", BASE)}
    assert got == MKDOCS_DATES
    assert "lastmod from 3 git;" in run.stderr


@contextlib.contextmanager
def _serving(root: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    argv = [sys.executable, "-m", "mkdocs", "serve", "--strict", "--no-livereload", "-a", f"127.0.0.1:{port}"]
    with (root.parent / "serve.log").open("wb") as log:
        proc = subprocess.Popen(argv, cwd=root, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:  # pragma: no cover - a server that ignores SIGTERM
                proc.kill()
                proc.wait()


def _wait_for(url: str, proc: subprocess.Popen[bytes], log: Path, seconds: float = 120) -> bytes:
    deadline = time.monotonic() + seconds
    while True:
        try:
            return fetch(url)
        except (urllib.error.URLError, ConnectionError):
            if proc.poll() is not None:
                pytest.fail(f"mkdocs serve exited {proc.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"mkdocs serve did not serve {url} in {seconds} s")
            time.sleep(0.2)


def _urls(xml: bytes, tag: str) -> list[tuple[str, str | None]]:
    root = etree.fromstring(gzip.decompress(xml) if xml[:2] == b"\x1f\x8b" else xml)
    return [
        (element.findtext("sm:loc", namespaces=NS) or "", element.findtext("sm:lastmod", namespaces=NS))
        for element in root.iterfind(f"sm:{tag}", NS)
    ]


def test_mkdocs_serve_strict_starts_and_serves_git_dates(tmp_path: Path) -> None:
    """serve builds into a temporary site_dir, outside the repository: git runs from the docs.
    (serve gives site_url the server's own address, so the sitemaps list that.)"""
    pytest.importorskip("mkdocs")
    root = _mkdocs_project(tmp_path / "project")
    port = _free_port()
    server = f"http://127.0.0.1:{port}/"
    with _serving(root, port) as proc:
        index = _wait_for(server + "sitemap.xml", proc, tmp_path / "serve.log")
        sitemaps = [loc for loc, _ in _urls(index, "sitemap")]
        assert sitemaps
        got: dict[str, str | None] = {}
        for loc in sitemaps:
            assert loc.startswith(server), loc
            got.update(_urls(fetch(loc), "url"))
    assert {loc.removeprefix(server): lastmod for loc, lastmod in got.items()} == MKDOCS_DATES


def _sphinx_project(root: Path) -> Path:
    conf = f'project = "Frobnicate"\nextensions = ["sitemapgen.sphinx"]\nhtml_baseurl = "{BASE}"\n'
    conf += 'sitemapgen_lastmod = ["git", "mtime"]\n'
    sources = {"index": "src/index.rst", "install": "src/install.rst", "usage": "src/guide/usage.rst"}
    _commit_each(root, sources, {"src/conf.py": conf})
    return root


def _sphinx_build(root: Path, builder: str) -> Path:
    out = root / "out" / builder
    run = _run("sphinx", "-W", "-b", builder, "-d", root / "out/doctrees", root / "src", out, cwd=root)
    assert run.returncode == 0, run.stderr
    return out


#: The newest commit of the sources: the date of a page made from every one of them.
NEWEST = DATES["usage"][1]


@pytest.mark.parametrize(
    ("builder", "pages"),
    [
        ("html", {"index.html": "index", "install.html": "install", "guide/usage.html": "usage"}),
        ("dirhtml", {"": "index", "install/": "install", "guide/usage/": "usage"}),
    ],
)
def test_sphinx_build_dates_each_page_by_its_source_file(tmp_path: Path, builder: str, pages: dict[str, str]) -> None:
    """The indexes Sphinx makes from every document are dated by the newest commit among them
    (usage's, though the module is in install.rst: adding a page re-indexes), not the build's time."""
    pytest.importorskip("sphinx")
    out = _sphinx_build(_sphinx_project(tmp_path / "project"), builder)
    got = {u.loc.removeprefix(BASE): u.lastmod for u in published(out, BASE)}
    indexes = {"genindex.html", "py-modindex.html"} if builder == "html" else {"genindex/", "py-modindex/"}
    assert got == {page: DATES[name][1] for page, name in pages.items()} | dict.fromkeys(indexes, NEWEST)


def _next_second() -> None:
    """Wait until the clock's second changes: a page written after it has another mtime."""
    time.sleep(1.05 - time.time() % 1)


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_an_unchanged_sphinx_rebuild_writes_the_same_bytes(tmp_path: Path, builder: str) -> None:
    pytest.importorskip("sphinx")
    root = _sphinx_project(tmp_path / "project")
    before = output_files(_sphinx_build(root, builder))
    _next_second()  # Sphinx writes genindex and py-modindex again on every build
    after = output_files(_sphinx_build(root, builder))
    assert after == before
    assert "sitemap.xml" in after


def test_an_unchanged_mkdocs_rebuild_writes_the_same_bytes(tmp_path: Path) -> None:
    """The readthedocs theme renders search.html from the whole site: dated by the newest
    commit, if it is listed, not the build's time."""
    pytest.importorskip("mkdocs")
    root = _mkdocs_project(tmp_path / "project", theme="readthedocs")
    assert (run := _run("mkdocs", "build", "--strict", cwd=root)).returncode == 0, run.stderr
    before = output_files(root / "site")
    assert {u.lastmod for u in published(root / "site", BASE)} <= {date for _, date in DATES.values()}
    _next_second()  # MkDocs writes every page again
    assert (run := _run("mkdocs", "build", "--strict", cwd=root)).returncode == 0, run.stderr
    assert output_files(root / "site") == before


def test_mkdocs_sources_git_does_not_track_are_one_warning_until_committed(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    root = tmp_path / "project"
    config = "site_name: Frobnicate\nsite_url: https://example.org/\nplugins:\n  - sitemapgen:\n"
    _commit_each(root, {}, {"mkdocs.yml": config + "      lastmod: [git, mtime]\n"})
    make_tree(root, {"docs/index.md": "# Frobnicate\n", "docs/install.md": "# Install\n"})  # not committed yet
    run = _run("mkdocs", "build", cwd=root)
    assert run.returncode == 0, run.stderr
    said = [line.split(maxsplit=2)[2] for line in run.stderr.splitlines() if line.startswith("WARNING")]
    assert said == [
        "sitemapgen: lastmod 'git' dated none of the 2 pages (mtime dated them): git tracks none of the source"
        " files the pages were built from; commit them (git add, git commit), or date the pages by content:"
        " lastmod 'content'"
    ]
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs", date=DATES["index"][0])  # the advice followed
    run = _run("mkdocs", "build", "--strict", cwd=root)
    assert run.returncode == 0, run.stderr
    assert {u.lastmod for u in published(root / "site", BASE)} == {DATES["index"][1]}
