from __future__ import annotations

import os
import sys
from pathlib import Path
from unittest import mock

import pytest

from sitemapgen.errors import DocrootError
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.walk import exclusion_spec, iter_pages

from .helpers import make_tree


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
    with mock.patch("os.scandir", wraps=os.scandir) as scandir:
        pages = [p.relpath for p in iter_pages(root, exclude=exclusion_spec(["skip/"]), on_skip=skips.append)]
    assert pages == ["keep/a.html"]
    assert skips == [Skip("skip/", SkipReason.EXCLUDED_DIR)]
    scanned = sorted(os.path.relpath(os.fsdecode(c.args[0]), root) for c in scandir.call_args_list)
    assert scanned == [".", "keep"]  # the docroot and keep/; never skip/, nor anything below it


def test_unlistable_directory_is_a_skip_not_a_crash(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.html": "", "locked/b.html": ""})
    real = os.scandir

    def scandir(path: str) -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    skips: list[Skip] = []
    with mock.patch("os.scandir", side_effect=scandir):
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
