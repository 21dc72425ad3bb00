"""The compiled run of a heads-off batch (`_scan.mtime_block`, `quick.COMPILED`) against the
batch in Python: the same blocks and outcomes for any names, mtimes, URL styles, lastmod formats
and base URLs; and the run answers for the plain pages, not only hands them back."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapgen import Config
from sitemapgen.config.words import LastmodSource
from sitemapgen.entry import Block
from sitemapgen.lastmod.chain import OddDates
from sitemapgen.pages.walk import Walk
from sitemapgen.pipeline import quick
from sitemapgen.pipeline.blocks import Blocking, Gathered
from sitemapgen.pipeline.decide import Decider
from sitemapgen.protocol import LastmodFormat
from sitemapgen.urls import UrlStyle

pytestmark = pytest.mark.skipif(quick.COMPILED is None, reason="the compiled module is not built here")

#: Names a URL keeps as they are, encodes, or escapes in the element; index names; names that
#: are not UTF-8; names the defaults leave out.
_NAMES = st.one_of(
    st.sampled_from(["index.html", "index.htm", "INDEX.HTML", "a.html", "b c.htm", "é.html", ".x.html", "404.html"]),
    st.builds(
        lambda stem, suffix: stem + suffix,
        st.binary(min_size=1, max_size=5).map(lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_")),
        st.sampled_from([b".html", b".htm", b".HTML"]),
    ).map(os.fsdecode),
    st.builds(
        lambda a, b: a + b + ".html",
        st.sampled_from(["&", "'", "%", "~", "@", ":", "+", "é"]),
        st.text("ab", max_size=2),
    ),
)
#: Mtimes across the years a lastmod may be dated in, and past them.
_MTIMES = st.one_of(
    st.integers(min_value=-(10**9), max_value=2_000_000_000).map(lambda s: s * 10**9 + 5),
    st.sampled_from([0, 951_782_400 * 10**9, 253_402_300_799 * 10**9, 253_402_300_800 * 10**9, -1]),
)
_BASES = st.sampled_from(
    ["https://example.com/", "https://example.com/docs/", "http://example.com:8080/a&b/", "https://example.com/it's/"]
)


def _batch(root: Path, base: str, style: UrlStyle, fmt: LastmodFormat, compiled: bool) -> Gathered:
    """`MtimeOnly.batch` of every candidate of `root`, by the compiled run and Python, or Python alone."""
    config = Config(
        docroot=root,
        base_url=base,
        read_heads=False,
        lastmod=(LastmodSource.MTIME,),
        url_style=style,
        lastmod_format=fmt,
    )
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    try:
        odd = OddDates(decider.lastmod, datetime.now(UTC))
        blocking = Blocking(room=decider.room, low=odd.low, high=odd.high)
        candidates = list(Walk(root, prune=decider.path_rules.check_dir).candidates())
        with mock.patch.object(quick, "COMPILED", quick.COMPILED if compiled else None):
            return quick.MtimeOnly(decider, blocking).batch(candidates)
    finally:
        decider.abort()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.lists(_NAMES, min_size=1, max_size=2), _MTIMES), min_size=1, max_size=12),
    _BASES,
    st.sampled_from([UrlStyle.DIRECTORY, UrlStyle.INDEX]),
    st.sampled_from(list(LastmodFormat)),
)
def test_a_batch_is_the_python_batch(
    tmp_path_factory: pytest.TempPathFactory,
    pages: list[tuple[list[str], int]],
    base: str,
    style: UrlStyle,
    fmt: LastmodFormat,
) -> None:
    root = tmp_path_factory.mktemp("public")
    for names, mtime in pages:
        path = root.joinpath(*names)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():
                continue
            path.write_text("<html><head><title>x</title></head></html>")
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue
        os.utime(path, ns=(mtime, mtime))
    assert _batch(root, base, style, fmt, compiled=True) == _batch(root, base, style, fmt, compiled=False)


@pytest.mark.parametrize(("exclude", "asked"), [((), ["404.html.htm"]), (("b*",), None)], ids=["by-name", "a-pattern"])
def test_a_run_asks_the_path_rules_only_of_a_page_whose_name_they_may_leave_out(
    tmp_path: Path, exclude: tuple[str, ...], asked: list[str] | None
) -> None:
    """Where only the defaults leave a page out, by its name, a run asks the path rules only of a
    page whose name starts as one they leave out may (`walk.EXCLUDED_STARTS`); with a pattern of
    the config's, of every page."""
    root = tmp_path / "public"
    for name in ["index.html", "a.html", "b c.html", "404.htm", "404.html.htm", "d/index.html"]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    config = Config(docroot=root, base_url="https://example.com/", read_heads=False, exclude=exclude)
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    odd = OddDates(decider.lastmod, datetime.now(UTC))
    mtime_only = quick.MtimeOnly(decider, Blocking(room=decider.room, low=odd.low, high=odd.high))
    constants: Any = mtime_only.constants
    check = mock.Mock(wraps=constants[8])
    mtime_only.constants = (*constants[:8], check, *constants[9:])
    candidates = list(Walk(root, prune=decider.path_rules.check_dir).candidates())
    with mock.patch.object(quick, "COMPILED", None):
        python = quick.MtimeOnly(decider, mtime_only.blocking).batch(candidates)
    assert mtime_only.batch(candidates) == python
    assert sorted(call.args[0] for call in check.call_args_list) == sorted(asked or [c[0] for c in candidates])
    decider.abort()


def test_a_run_lists_the_plain_pages_itself(tmp_path: Path) -> None:
    # A folder of plain pages, one of them dated before the plausible years: the run lists every
    # page up to that one (which it hands back), and what it lists is what Python lists.
    root = tmp_path / "public"
    (root / "d").mkdir(parents=True)
    names = ["index.html", "a.html", "b c.html", "é.htm", "d/index.html", "d/x.html"]
    for i, name in enumerate(names):
        (root / name).write_text("")
        os.utime(root / name, ns=(1_700_000_000 * 10**9 + i, 1_700_000_000 * 10**9 + i))
    os.utime(root / "d/index.html", ns=(0, 0))
    config = Config(docroot=root, base_url="https://example.com/", read_heads=False, lastmod=(LastmodSource.MTIME,))
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    odd = OddDates(decider.lastmod, datetime.now(UTC))
    mtime_only = quick.MtimeOnly(decider, Blocking(room=decider.room, low=odd.low, high=odd.high))
    candidates = list(Walk(root).candidates())
    block = Block([], [], [], [], "mtime")
    assert mtime_only.constants is not None
    stop = quick.COMPILED(mtime_only.constants, candidates, 0, block.locs, block.xmls, block.keys, block.texts)  # type: ignore[misc]
    assert candidates[stop] == ("d/index.html", False)
    with mock.patch.object(quick, "COMPILED", None):
        python: Any = mtime_only.batch(candidates[:stop])
    assert python == [block]
    assert block.locs[:2] == ["https://example.com/", "https://example.com/a.html"]
    decider.abort()
