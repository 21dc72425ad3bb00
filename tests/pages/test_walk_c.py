"""The compiled walk (`_scan.walk`, `lister.WALK`) against the walk in Python: the same
candidates, the same skips at the same places, on any tree; and each directory it cannot answer
for exactly is handed back to `Walk.list_directory`."""

from __future__ import annotations

import os
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapgen.pages import lister, walk
from sitemapgen.pages.walk import Candidate, Walk, exclusion_spec
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.urls import UrlStyle

try:
    from sitemapgen.pages import _scan
except ImportError:  # no C compiler where this was installed: test_scan_c says whether one was
    _scan = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(lister.WALK is None, reason="the compiled walk is not built here")

#: Names of every kind the walk tells apart: index names, page suffixes in any case, a suffix
#: that shares a URL with ".html" where suffixes are dropped, names the defaults leave out, names
#: that begin others, and names that are not UTF-8.
_NAMES = st.one_of(
    st.sampled_from(
        ["index.html", "index.htm", "INDEX.HTML", "a.html", "a.htm", "a", "a.html.x", "b.HTML", ".git", ".x.html"]
        + ["404.html", "sub", "sub.html", "é.html", "z"]
    ),
    st.builds(
        lambda stem, suffix: stem + suffix,
        st.binary(min_size=1, max_size=4).map(lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_")),
        st.sampled_from([b"", b".html", b".htm", b".Html"]),
    ).map(os.fsdecode),
)
_KINDS = st.sampled_from(["page", "page", "page", "dir", "asset", "page link", "dir link", "broken", "fifo"])


def _make(root: Path, entries: list[tuple[list[str], str]]) -> None:
    """A tree of `entries`: each a path of names (the directories on its way made) and a kind."""
    (root / "target.html").write_text("")
    (root / "target").mkdir()
    for names, kind in entries:
        if any(name in (".", "..") for name in names):
            continue
        parent = root.joinpath(*names[:-1])
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            continue  # a file is where a directory would be
        path = parent / names[-1]
        if os.path.lexists(path):
            continue
        if kind in ("page", "asset"):
            path.write_text("")
        elif kind == "dir":
            path.mkdir()
        elif kind == "page link":
            path.symlink_to(root / "target.html")
        elif kind == "dir link":
            path.symlink_to(root / "target")
        elif kind == "broken":
            path.symlink_to(root / "nowhere")
        else:
            os.mkfifo(path)


def _walked(root: Path, *, compiled: bool, **options: object) -> tuple[list[Candidate], list[tuple[int, Skip]]]:
    """Every candidate of the walk of `root`, and each skip with the number of candidates before it."""
    found: list[Candidate] = []
    skips: list[tuple[int, Skip]] = []
    with mock.patch.object(lister, "WALK", lister.WALK if compiled else None):
        walking = Walk(root, on_skip=lambda skip: skips.append((len(found), skip)), **options)  # type: ignore[arg-type]
        found.extend(walking.candidates())
    return found, skips


def _excluding_sub(relpath: str) -> Skip | None:
    """A prune as a pattern gives it (``sub/`` and the defaults): asked of every directory."""
    return Skip(relpath, SkipReason.EXCLUDED_DIR) if _SPEC.match_file(relpath) else None


_SPEC = exclusion_spec(["sub/"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.lists(_NAMES, min_size=1, max_size=3), _KINDS), max_size=30),
    st.sampled_from([None, *UrlStyle]),
    st.booleans(),
    st.sampled_from([1, 3, 2048]),
)
def test_a_walk_is_the_python_walk(
    tmp_path_factory: pytest.TempPathFactory,
    entries: list[tuple[list[str], str]],
    style: UrlStyle | None,
    by_pattern: bool,
    run: int,
) -> None:
    # Directories of every kind of entry, nested, under any names; pruned by the defaults or by
    # a pattern asked of every directory; walked a candidate a call and more: the same
    # candidates in the same order, the same skips among them.
    root = tmp_path_factory.mktemp("walk")
    _make(root, entries)
    options = {"url_style": style, "prune": _excluding_sub if by_pattern else None}
    with mock.patch.object(walk, "_WALK_RUN", run):
        assert _walked(root, compiled=True, **options) == _walked(root, compiled=False, **options)


def test_a_big_directory_among_small_ones_is_walked_in_python_in_its_place(tmp_path: Path) -> None:
    # A directory of more entries than the compiled walk holds at once, between two others.
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text("")
    for i in range(4_100):
        (tmp_path / "b" / f"p{i:05d}.html").write_text("")
    compiled = _walked(tmp_path, compiled=True)
    assert compiled == _walked(tmp_path, compiled=False)
    assert len(compiled[0]) == 4_103
    assert [relpath for relpath, _ in compiled[0][:2]] == ["a/index.html", "b/index.html"]


@pytest.mark.parametrize(
    ("entries", "stems", "handed"),
    [
        ({"a.html": "page", "b.html": "page"}, None, False),
        ({"a.html": "page", "x": "dir link"}, None, True),  # a symlink that may be a directory's
        ({"a.html": "page", "x.png": "broken"}, None, True),
        ({"a.html": "page", "x.html": "page link"}, None, False),  # a page's symlink is a candidate
        ({"index.html": "page", "index.htm": "page"}, None, True),  # two index names
        ({"index.html": "page", "index.htm": "dir"}, None, False),
        ({"a.html": "page", "a.htm": "page"}, b".html", True),  # stems shared where suffixes are dropped
        ({"a.html": "page", "b.HTML": "page"}, b".html", True),
        ({"a.html": "page", "a.htm": "page"}, None, False),
        ({"a.html": "page", ".git": "dir"}, None, True),  # a subdirectory the prune leaves out
        ({"a.html": "page", "sub": "dir"}, None, False),
    ],
)
def test_a_directory_it_cannot_answer_for_is_handed_back(
    tmp_path: Path, entries: dict[str, str], stems: bytes | None, handed: bool
) -> None:
    (tmp_path / "t").mkdir()
    _make(tmp_path / "t", [([name], kind) for name, kind in entries.items()])
    pending = [b"t/"]
    found = _scan.walk(os.fsencode(tmp_path) + b"/", pending, walk._prune_default, stems, 100)
    if handed:
        assert (found, pending) == ([b"t/"], [])  # nothing said of it: list_directory says it all
    else:
        assert b"t/" not in found
        assert all(type(candidate) is tuple for candidate in found)


def test_a_directory_that_cannot_be_listed_is_handed_back(tmp_path: Path) -> None:
    pending = [b"gone/", b"t/"]
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.html").write_text("")
    found = _scan.walk(os.fsencode(tmp_path) + b"/", pending, walk._prune_default, None, 100)
    assert (found, pending) == ([("t/a.html", False), b"gone/"], [])


def test_a_prune_that_raises_raises(tmp_path: Path) -> None:
    (tmp_path / "r" / "d").mkdir(parents=True)

    def prune(relpath: str) -> Skip | None:
        raise RuntimeError(relpath)

    with pytest.raises(RuntimeError, match="^r/d/$"):
        _scan.walk(os.fsencode(tmp_path) + b"/", [b"r/"], prune, None, 100)


def test_a_call_lists_at_most_its_limit_of_directories(tmp_path: Path) -> None:
    # A tree of empty directories: the call returns after `limit` of them, the rest still to walk.
    for i in range(10):
        (tmp_path / "r" / f"d{i}").mkdir(parents=True)
    pending = [b"r/"]
    assert _scan.walk(os.fsencode(tmp_path) + b"/", pending, walk._prune_default, None, 3) == []
    assert len(pending) == 8  # r/ and two of its ten listed


def test_a_name_comes_before_every_longer_name_it_begins(tmp_path: Path) -> None:
    # Sorted as the listing's entries sort (a NUL after each name): "a.htm" before "a.html",
    # before "a.html.htm"; and folders among them in the same order. (No two index names and no
    # symlink: the compiled walk lists every folder here itself.)
    root = tmp_path / "r"
    root.mkdir()
    names = ["a.html.htm", "a.html", "a.htm", "ab.html"]
    _make(root, [([name], "page") for name in names] + [([d, "p.html"], "page") for d in ("ab", "a.h", "a")])
    compiled = _walked(root, compiled=True)
    assert compiled == _walked(root, compiled=False)
    assert [relpath for relpath, _ in compiled[0]] == [
        "a.htm",
        "a.html",
        "a.html.htm",
        "ab.html",
        "target.html",
        "a/p.html",
        "a.h/p.html",
        "ab/p.html",
    ]
    pending = [b"r/"]
    assert (
        len(_scan.walk(os.fsencode(tmp_path) + b"/", pending, walk._prune_default, None, 100)) == 8
    )  # none handed back
