"""The one-frame decision of a page dated by its mtime, its head unread: the same outcome as the
page's decision, for every page and every mtime, and taken only where nothing else decides."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapgen import Config
from sitemapgen.config.tables import Section
from sitemapgen.config.words import LastmodSource
from sitemapgen.entry import Block
from sitemapgen.pages.walk import Walk
from sitemapgen.pipeline import flow
from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.quick import MtimeOnly, applies
from sitemapgen.protocol import LastmodFormat
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.urls import UrlStyle
from sitemapgen.util import parallel
from sitemapgen.util.parallel import BATCH

from ..conftest import BASE
from ..helpers import html, make_tree

#: The mtimes where the one frame could part from the decision: the epoch, before it, the
#: last second a `datetime` holds and the first it does not, a leap day, a fraction of a second.
MTIMES_NS = [
    0,
    -1,
    -86_400 * 365 * 10**9 - 1,
    1_795_000_000 * 10**9 + 999_999_999,
    951_782_400 * 10**9,  # 2000-02-29
    253_402_300_799 * 10**9,
    253_402_300_800 * 10**9,
    2**62,
]


def _tree(root: Path) -> Path:
    make_tree(
        root,
        {
            "index.html": html(),
            "a.html": html(),
            "caf\u00e9 & 'b'.html": html(),  # encoded, and escaped in the XML
            "dir/index.html": html(),
            "dir/index.htm": html(),  # a second name of the same URL: the walk's skip
            "dir/page.htm": html(),
            "404.html": html(),  # excluded by default
            ".hidden.html": html(),
            "x/" + ("long" * 60 + "/") * 10 + "p.html": html(),  # a URL too long
        },
    )
    os.symlink("a.html", root / "link.html")
    os.mkfifo(root / "pipe.html")
    return root


class _Decides(Protocol):
    def decide(self, candidate: tuple[str, bool]) -> Outcome: ...


def assert_same_at_every_mtime(
    root: Path, candidates: list[tuple[str, bool]], decider: Decider, quick: _Decides
) -> None:
    """`quick` decides every candidate as `decider` does, each page's mtime set to each of `MTIMES_NS`."""
    for mtime in MTIMES_NS:
        for relpath, _ in candidates:
            if not os.path.islink(root / relpath) and relpath != "pipe.html":
                os.utime(root / relpath, ns=(mtime, mtime))
        for candidate in candidates:
            assert quick.decide(candidate) == decider.decide(candidate), (candidate, mtime)


def _deciders(root: Path, **overrides: Any) -> tuple[Decider, MtimeOnly]:
    config = Config(docroot=root, base_url=BASE, read_heads=False, lastmod=(LastmodSource.MTIME,), **overrides)
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    assert applies(config, decider)
    return decider, MtimeOnly(decider)


def _candidates(decider: Decider) -> list[tuple[str, bool]]:
    config = decider.config
    walk = Walk(config.docroot, prune=decider.path_rules.check_dir, url_style=config.url_style)
    return list(walk.candidates())


@pytest.mark.parametrize(
    "style", [s for s in UrlStyle if s is not UrlStyle.CLEAN], ids=lambda style: style.value
)  # clean needs a host, which has a decision of its own
@pytest.mark.parametrize("fmt", list(LastmodFormat), ids=lambda fmt: fmt.value)
def test_every_page_has_the_decision_s_outcome(tmp_path: Path, style: UrlStyle, fmt: LastmodFormat) -> None:
    root = _tree(tmp_path / "public")
    decider, quick = _deciders(root, url_style=style, lastmod_format=fmt)
    candidates = _candidates(decider)
    assert len(candidates) > 8
    assert_same_at_every_mtime(root, candidates, decider, quick)
    assert any(quick.decide(candidate).skip is not None for candidate in candidates)  # each way out met


@pytest.mark.parametrize(
    ("overrides", "robots"),
    [
        pytest.param({"exclude": ("dir/",)}, None, id="exclude"),
        pytest.param({"exclude": ("!404.html",)}, None, id="a-default-undone"),
        pytest.param({}, "User-agent: *\nDisallow: /a.html\n", id="robots-txt"),
        pytest.param({}, "User-agent: *\nAllow: /\n", id="robots-txt-allowing-all"),
    ],
)
def test_path_rules_leave_out_what_they_say(tmp_path: Path, overrides: dict[str, Any], robots: str | None) -> None:
    root = _tree(tmp_path / "public")
    if robots is not None:
        (root / "robots.txt").write_text(robots)
    decider, quick = _deciders(root, **overrides)
    assert decider.path_rules.by_name is (robots is not None and "Disallow" not in robots)
    candidates = _candidates(decider)
    for candidate in candidates:
        assert quick.decide(candidate) == decider.decide(candidate), candidate
    assert any(quick.decide(candidate).skip is not None for candidate in candidates)


def test_a_generator_s_own_page_is_left_out(tmp_path: Path) -> None:
    root = _tree(tmp_path / "public")
    skip = Skip("a.html", SkipReason.NOT_FOUND_PAGE, "the generator says so")
    decider, quick = _deciders(root, not_documents={"a.html": skip})
    assert not decider.path_rules.by_name
    assert quick.decide(("a.html", False)) == decider.decide(("a.html", False))
    assert quick.decide(("a.html", False)).skip == skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mtime=st.integers(min_value=-(2**40) * 10**9, max_value=2**63 - 1))
def test_every_mtime_is_dated_as_the_decision_dates_it(tmp_path: Path, mtime: int) -> None:
    root = tmp_path / "public"
    if not root.exists():
        make_tree(root, {"a.html": html()})
    os.utime(root / "a.html", ns=(mtime, mtime))
    decider, quick = _deciders(root)
    assert quick.decide(("a.html", False)) == decider.decide(("a.html", False))


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"read_heads": True}, id="heads-read"),
        pytest.param({"lastmod": (LastmodSource.MTIME, LastmodSource.CONTENT)}, id="another-lastmod-source"),
        pytest.param({"lastmod": (LastmodSource.GIT, LastmodSource.MTIME)}, id="git-first"),
        pytest.param({"sitemaps": (Section("blog", "blog/"),)}, id="sections"),
        pytest.param({"documents": ("*.pdf",)}, id="documents"),
        pytest.param({"images": True}, id="images"),
    ],
)
def test_the_one_frame_is_taken_only_where_path_and_mtime_decide(tmp_path: Path, overrides: dict[str, Any]) -> None:
    assert not taken(tmp_path, applies, {"read_heads": False, "lastmod": (LastmodSource.MTIME,), **overrides})


def taken(tmp_path: Path, applies: Callable[[Config, Decider], bool], config: dict[str, Any]) -> bool:
    """Whether a one-frame decision that `applies` is taken in a build of a page with `config`."""
    root = make_tree(tmp_path / "public", {"a.html": html()})
    built = Config(docroot=root, base_url=BASE, **config)
    decider = Decider(built, warn=lambda _: None, dry_run=True)
    try:
        return applies(built, decider)
    finally:
        decider.abort()


def test_a_build_with_heads_off_takes_the_one_frame(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "public", {"a.html": html()})
    config = Config(docroot=root, base_url=BASE, read_heads=False, lastmod=(LastmodSource.MTIME,))
    pipeline = Pipeline(config, None, warn=lambda _: None, dry_run=True)
    try:
        decide = pipeline._decision(detail=False)
        assert getattr(decide, "__self__", None).__class__ is MtimeOnly
        assert pipeline._decision(detail=True).func == pipeline.decider.decide  # type: ignore[attr-defined]
    finally:
        pipeline.abort()


def test_a_build_with_heads_off_hands_its_pages_out_in_bigger_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page costs a worker a stat with heads off: its batches are four times as large as with
    heads on, so that their round trips through the pool are not what the workers wait on. Every
    page is in one."""
    pages = 2 * 4 * BATCH + 10
    root = make_tree(tmp_path / "public", {f"d{i // 100}/p{i}.html": html() for i in range(pages)})
    sizes: list[int] = []
    ordered_map = parallel.ordered_map  # the one `flow` calls

    def recorded(function: Any, tasks: Any, **kwargs: Any) -> Any:
        def counted() -> Any:
            for items, context in tasks:
                sizes.append(len(items))
                yield items, context

        return ordered_map(function, counted(), **kwargs)

    monkeypatch.setattr(flow, "ordered_map", recorded)
    for read_heads, batch in ((False, 4 * BATCH), (True, BATCH)):
        sizes.clear()
        config = Config(docroot=root, base_url=BASE, read_heads=read_heads, lastmod=(LastmodSource.MTIME,), jobs=1)
        pipeline = Pipeline(config, None, warn=lambda _: None, dry_run=True)
        try:
            rows = pipeline.rows(on_skip=lambda _: None)
            listed = sum(len(row.locs) if isinstance(row, Block) else 1 for row in rows)
        finally:
            pipeline.abort()
        assert (listed, sum(sizes), max(sizes)) == (pages, pages, batch)
