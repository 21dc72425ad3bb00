from __future__ import annotations

import os
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest

from sitemapgen.errors import DocrootError
from sitemapgen.pages import lister
from sitemapgen.pages.lister import listing as list_entries
from sitemapgen.pages.walk import Walk, exclusion_spec, iter_pages
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.urls import UrlStyle

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    git,
    html,
    locs,
    make_tree,
    output_files,
)

#: Each test with the directories listed by the compiled scanner, then by `os.scandir` alone.
pytestmark = pytest.mark.usefixtures("each_scanner")


def test_order_is_index_first_then_bytes_then_subdirectories(tmp_path: Path) -> None:
    names = ["b.html", "index.htm", "index.html", "a.html", "z/index.html", "B.html", "m/x.htm"]
    make_tree(tmp_path, dict.fromkeys(names, ""))
    assert [p.relpath for p in iter_pages(tmp_path)] == [
        "index.html",
        "index.htm",
        "B.html",
        "a.html",
        "b.html",
        "m/x.htm",
        "z/index.html",
    ]


def test_only_html_and_htm_in_any_case(tmp_path: Path) -> None:
    make_tree(tmp_path, dict.fromkeys(["a.HTML", "b.Htm", "c.xhtml", "d.html.gz", "e.txt", "html", ".html"], ""))
    assert [p.relpath for p in iter_pages(tmp_path)] == ["a.HTML", "b.Htm"]


def test_excluded_directories_are_pruned_not_walked(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"keep/a.html": "", "skip/a.html": "", "skip/deep/b.html": ""})
    skips: list[Skip] = []
    # The Python walk, whose listings are counted: the compiled one hands a directory with a
    # subdirectory pruned to it (test_walk_c).
    with (
        mock.patch.object(lister, "WALK", None),
        mock.patch("sitemapgen.pages.walk.listing", wraps=list_entries) as listing,
    ):
        pages = [p.relpath for p in iter_pages(root, exclude=exclusion_spec(["skip/"]), on_skip=skips.append)]
    assert pages == ["keep/a.html"]
    assert skips == [Skip("skip/", SkipReason.EXCLUDED_DIR)]
    scanned = sorted(os.path.relpath(c.args[0], root) for c in listing.call_args_list)
    assert scanned == [".", "keep"]  # the docroot and keep/; never skip/, nor anything below it


def test_unlistable_directory_is_a_skip_not_a_crash(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.html": "", "locked/b.html": ""})

    def listing(path: str, document: Callable[[str], bool] | None) -> object:
        if path.endswith("locked"):
            raise PermissionError(13, "Permission denied", path)
        return list_entries(path, document)

    skips: list[Skip] = []
    # The Python walk: the compiled one hands a directory it cannot list to it (test_walk_c).
    with mock.patch.object(lister, "WALK", None), mock.patch("sitemapgen.pages.walk.listing", side_effect=listing):
        pages = [p.relpath for p in iter_pages(tmp_path, on_skip=skips.append)]
    assert pages == ["a.html"]
    assert skips == [Skip("locked/", SkipReason.UNREADABLE, "Permission denied")]


def test_mtime_comes_from_the_symlink_target(tmp_path: Path) -> None:
    make_tree(tmp_path, {"t.html": ""})
    os.utime(tmp_path / "t.html", ns=(0, 1_234_000_000_000))
    (tmp_path / "l.html").symlink_to("t.html")
    assert {p.relpath: p.mtime_ns for p in iter_pages(tmp_path)} == {
        "l.html": 1_234_000_000_000,
        "t.html": 1_234_000_000_000,
    }


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back  # type: ignore[assignment]
    return depth


def test_deep_trees_do_not_recurse(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 200)
    make_tree(tmp_path, {deep + "/x.html": ""})
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 50)  # a recursive walk would need 200 more frames
    try:
        pages = [p.relpath for p in iter_pages(tmp_path)]
    finally:
        sys.setrecursionlimit(old)
    assert pages == [deep + "/x.html"]


@pytest.mark.parametrize("missing", ["nope", "file"])
def test_bad_docroot(tmp_path: Path, missing: str) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(DocrootError):
        list(iter_pages(tmp_path / missing))


def test_default_patterns_shortcut_matches_pathspec(tmp_path: Path) -> None:
    names = [
        "a.html",
        ".b.html",
        "404.html",
        "x/404.html",
        "sub/404.html/in.html",
        ".hidden/p.html",
        "v/.w/p.html",
        "v/ok.html",
        "..html",
        "404.htm",
        "a404.html",
        "d.e/f.html",
        "x/.y.html",
        "x/y./z.html",
    ]
    make_tree(tmp_path, dict.fromkeys(names, ""))
    results = []
    for exclude in (None, exclusion_spec(())):
        skips: list[Skip] = []
        pages = [p.relpath for p in iter_pages(tmp_path, exclude=exclude, on_skip=skips.append)]
        results.append((pages, skips))
    assert results[0] == results[1]
    assert results[0][0] == ["404.htm", "a.html", "a404.html", "d.e/f.html", "v/ok.html", "x/y./z.html"]


@pytest.mark.parametrize("style", [None, UrlStyle.DIRECTORY, UrlStyle.EXTENSIONLESS])
def test_a_big_directory_costs_little_memory_per_page(tmp_path: Path, style: UrlStyle | None) -> None:
    """A million pages in one directory must fit in 128 MiB: the listing held while it is
    sorted and walked is the cost, measured per page (it was about 450 bytes; a million
    of them, 475 MiB of RSS)."""
    count = 20_000
    root = tmp_path / "big"
    root.mkdir()
    for i in range(count):
        (root / f"page-{i:07d}.html").touch()
    walk = Walk(root, url_style=style)
    tracemalloc.start()
    try:
        seen = sum(1 for _ in walk.candidates())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == count
    assert peak / count < 100, f"{peak / count:.0f} bytes a page"


@pytest.mark.parametrize(
    ("names", "style", "duplicates"),
    [
        (
            ["a.html", "a.htm", "a.htm.x.html", "a.HTML"],
            UrlStyle.EXTENSIONLESS,
            {"a.htm": "a.HTML", "a.html": "a.HTML"},
        ),
        (["b.htm", "b.Html", "c.html"], UrlStyle.EXTENSIONLESS, {"b.htm": "b.Html"}),
        (["index.htm", "index.html", "a.htm", "a.html"], UrlStyle.DIRECTORY, {"index.htm": "index.html"}),
        (
            ["index.htm", "index.html", "a.htm", "a.html"],
            UrlStyle.EXTENSIONLESS,
            {"index.htm": "index.html", "a.html": "a.htm"},
        ),
        (["index.htm", "index.html"], UrlStyle.INDEX, {}),
        (["index.htm", "a.html", "0.html", "_.htm"], UrlStyle.DIRECTORY, {}),
        (["index.htm", "index.html", "0.html"], UrlStyle.CLEAN, {"index.htm": "index.html"}),
        (["a.html", "b.html"], UrlStyle.EXTENSIONLESS, {}),
    ],
)
def test_names_that_share_a_url_keep_the_first(
    tmp_path: Path, names: list[str], style: UrlStyle, duplicates: dict[str, str]
) -> None:
    make_tree(tmp_path, dict.fromkeys(names, ""))
    skips: list[Skip] = []
    found = [relpath for relpath, _ in Walk(tmp_path, url_style=style, on_skip=skips.append).candidates()]
    assert {s.relpath: s.detail for s in skips if s.reason is SkipReason.DUPLICATE_URL} == duplicates
    assert sorted(found) == sorted(set(names) - set(duplicates))


def test_index_and_htm_twins_give_one_url_and_a_warning(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"index.html": html(), "index.htm": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0
    assert locs(root, BASE) == [BASE]
    assert "warning: index.htm: skipped, same URL as an earlier page (index.html)" in run.err


def test_symlinks(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.html").write_text(html("secret"))
    root = site({"real.html": html("real"), "sub/page.html": html("sub")})
    (root / "alias.html").symlink_to("real.html")
    (root / "leak.html").symlink_to(outside / "secret.html")
    (root / "broken.html").symlink_to("nowhere.html")
    (root / "linkdir").symlink_to(root / "sub")
    (root / "loop").symlink_to(root)
    (root / "outdir").symlink_to(outside)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert locs(root, BASE) == [BASE + "alias.html", BASE + "real.html", BASE + "sub/page.html"]
    assert "warning: leak.html: skipped, symlink to outside the docroot" in run.err
    assert "warning: broken.html: skipped, broken symlink" in run.err
    assert str(outside) not in run.err.replace("leak.html", "")
    assert "3 directory symlinks not followed" in run.err


def _looping_site(root: Path) -> None:
    """Page symlinks that never reach a file, one that reaches it through 45 links (more than
    the 40 Linux follows), and directory symlinks to the docroot and above it, beside real pages."""
    (root / "a.html").symlink_to("b.html")  # a -> b -> a
    (root / "b.html").symlink_to("a.html")
    (root / "self.html").symlink_to("self.html")
    (root / "d").symlink_to(".")
    (root / "up").symlink_to("..")
    (root / "via.html").symlink_to("d/via.html")  # through the directory symlink to itself
    (root / "m.html").symlink_to("sub/m.html")  # m -> sub/m -> m, a real page between them in the walk
    (root / "sub/m.html").symlink_to("../m.html")
    for i in range(45):
        (root / f"c{i:02}.html").symlink_to(f"c{i + 1:02}.html")
    (root / "c45.html").symlink_to("real.html")
    (root / "deep.html").symlink_to("d/d/d/sub/page.html")  # a few links, then a file: a page


TOO_DEEP = [f"c{i:02}.html" for i in range(6)]  # c06 -> ... -> c45 -> real.html is 40 links


@pytest.mark.parametrize(
    ("jobs", "heads", "lastmod"),
    [
        pytest.param("1", "--read-heads", "mtime", id="serial-heads-mtime"),
        pytest.param("2", "--read-heads", "git", id="workers-heads-git"),
        pytest.param("2", "--no-read-heads", "content", id="workers-noheads-content"),
        pytest.param("1", "--no-read-heads", "git", id="serial-noheads-git"),
    ],
)
def test_symlink_loops_are_skipped_and_the_rest_listed(
    site: SiteFactory, cli: CliRunner, jobs: str, heads: str, lastmod: str
) -> None:
    root = site({"real.html": html("real"), "sub/page.html": html("sub"), "z.html": html("z")})
    _looping_site(root)
    if lastmod == "git":
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "site", date="2024-01-02T03:04:05Z")
    run = cli("build", root, "--base-url", BASE, "--jobs", jobs, heads, "--lastmod", lastmod)
    assert run.code == 0, run.err
    chain = [f"c{i:02}.html" for i in range(6, 46)]
    assert locs(root, BASE) == sorted(
        [BASE + name for name in [*chain, "deep.html", "real.html", "z.html", "sub/page.html"]],
        key=lambda url: ("/sub/" in url, url),
    )
    warnings = [line for line in run.err.splitlines() if line.startswith("warning: ") and "state store" not in line]
    too_deep = "skipped, symlink chain too long to follow (Too many levels of symbolic links)"
    assert warnings == [  # in walk order, as every warning
        "warning: a.html: skipped, symlink loop",
        "warning: b.html: skipped, symlink loop",
        *(f"warning: {name}: {too_deep}" for name in TOO_DEEP),
        *(f"warning: {name}: skipped, symlink loop" for name in ["m.html", "self.html", "via.html", "sub/m.html"]),
    ]
    summary = run.err.splitlines()[-1]
    counts = "2 directory symlinks not followed, 6 symlink loops, 6 symlink chains too long to follow;"
    assert counts in summary, summary
    explained = cli("explain", root, "a.html", "c00.html", "--base-url", BASE)
    assert explained.out.splitlines() == [
        "a.html: not listed: symlink loop",
        "c00.html: not listed: symlink chain too long to follow (Too many levels of symbolic links)",
    ]


def test_unreadable_entries_warn_and_the_run_goes_on(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"ok.html": html()})
    os.mkfifo(root / "pipe.html")  # opening it would hang: it must never be opened
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0
    assert locs(root, BASE) == [BASE + "ok.html"]
    assert "warning: pipe.html: skipped, not a regular file" in run.err


def test_own_output_and_other_files_are_never_listed(site: SiteFactory, cli: CliRunner) -> None:
    files: dict[str, str | bytes] = {"a.html": html(), "feed.xml": "<feed/>", "img.png": b"\x89PNG", "x.html.txt": ""}
    root = site(files)
    assert cli("build", root, "--base-url", BASE).code == 0
    first = output_files(root)
    assert cli("build", root, "--base-url", BASE).code == 0
    assert locs(root, BASE) == [BASE + "a.html"]
    assert output_files(root) == first


def test_a_walk_with_documents_yields_the_files_they_name_in_walk_order(tmp_path: Path) -> None:
    """A file that is no page is a candidate when `documents` accepts it, a symlink too, in the
    order pages have; with extensionless URLs, ``manual.pdf.html`` (``/manual.pdf``) is served
    after ``manual.pdf`` itself, as try_files $uri $uri.html does: the page is the duplicate."""
    root = make_tree(
        tmp_path / "site",
        dict.fromkeys(["index.html", "b.pdf", "a.png", "manual.pdf", "manual.pdf.html", "d/c.pdf", "d/index.html"], ""),
    )
    os.symlink("b.pdf", root / "link.pdf")
    skips: list[Skip] = []
    walk = Walk(root, on_skip=skips.append, url_style=UrlStyle.EXTENSIONLESS, documents=lambda p: p.endswith(".pdf"))
    assert list(walk.candidates()) == [
        ("index.html", False),
        ("b.pdf", False),
        ("link.pdf", True),
        ("manual.pdf", False),
        ("d/index.html", False),
        ("d/c.pdf", False),
    ]
    assert skips == [Skip("manual.pdf.html", SkipReason.DUPLICATE_URL, "manual.pdf")]
    assert [relpath for relpath, _ in Walk(root).candidates()] == ["index.html", "manual.pdf.html", "d/index.html"]
