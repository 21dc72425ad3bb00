"""The one-frame decision of a page dated by its mtime, its head unread: the same outcome as the
page's decision, for every page and every mtime, and taken only where nothing else decides."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapgen import Config
from sitemapgen.config.tables import Section
from sitemapgen.config.words import LastmodSource
from sitemapgen.entry import Block
from sitemapgen.lastmod.chain import OddDates
from sitemapgen.pages.walk import Walk
from sitemapgen.pipeline import flow, quick
from sitemapgen.pipeline.blocks import Blocking
from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.quick import MtimeOnly, applies
from sitemapgen.protocol import LastmodFormat
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.urls import UrlStyle
from sitemapgen.util import parallel
from sitemapgen.util.parallel import BATCH, each

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


@pytest.fixture(autouse=True, params=["compiled", "python"])
def each_batch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test with runs of pages listed by the compiled module (`_scan.mtime_block`), where it
    is built, then with every page listed in Python, as where it is not."""
    return each_way(request, monkeypatch, "COMPILED")


def each_way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, name: str) -> str:
    """The test of `request` with `quick`'s compiled run `name` where it is built (else skipped),
    or with None in its place (`request.param`: "compiled" or "python")."""
    if request.param == "compiled" and getattr(quick, name) is None:
        pytest.skip("the compiled module is not built here (no C compiler at install)")
    if request.param == "python":
        monkeypatch.setattr(quick, name, None)
    return str(request.param)


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
    def decide(self, candidate: tuple[str, bool]) -> Any: ...


class _Gathered:
    """One page's decision as its batch leaves a worker: its outcome, in a block where plain
    (`blocks.Blocking`); by the page's decision (`Decider.decide`) or by `MtimeOnly.batch`."""

    def __init__(
        self, decider: Decider, batch: Callable[[list[tuple[str, bool]]], list[Any]], blocking: Blocking
    ) -> None:
        self.decider = decider
        self.batch = batch
        self.blocking = blocking

    def decide(self, candidate: tuple[str, bool]) -> list[Outcome | Block]:
        return self.blocking(self.batch([candidate]))


def assert_same_at_every_mtime(
    root: Path, candidates: list[tuple[str, bool]], decider: _Decides, quick: _Decides
) -> None:
    """`quick` decides every candidate as `decider` does, each page's mtime set to each of `MTIMES_NS`."""
    for mtime in MTIMES_NS:
        for relpath, _ in candidates:
            if not os.path.islink(root / relpath) and relpath != "pipe.html":
                os.utime(root / relpath, ns=(mtime, mtime))
        for candidate in candidates:
            assert quick.decide(candidate) == decider.decide(candidate), (candidate, mtime)


def _deciders(root: Path, **overrides: Any) -> tuple[_Gathered, _Gathered]:
    """The page's decision and `MtimeOnly`'s, each gathered as a worker sends it."""
    config = Config(docroot=root, base_url=BASE, read_heads=False, lastmod=(LastmodSource.MTIME,), **overrides)
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    assert applies(config, decider)
    odd = OddDates(decider.lastmod, datetime.now(UTC))
    blocking = Blocking(room=decider.room, low=odd.low, high=odd.high)
    return _Gathered(decider, each(decider.decide), blocking), _Gathered(
        decider, MtimeOnly(decider, blocking).batch, blocking
    )


def _skipped(gathered: list[Outcome | Block]) -> bool:
    return any(isinstance(item, Outcome) and item.skip is not None for item in gathered)


def _candidates(gathered: _Gathered) -> list[tuple[str, bool]]:
    decider = gathered.decider
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
    assert any(_skipped(quick.decide(candidate)) for candidate in candidates)  # each way out met


def each_page(gathered: list[Outcome | Block]) -> list[Any]:
    """Each page of `gathered` on its own: a block's rows, with its lastmod source and the notes of
    each, and the outcomes (one that is a row and notes alone, as a block's row is)."""
    pages: list[Any] = []
    for item in gathered:
        if isinstance(item, Block):
            notes = [tuple(note[1:] for note in item.notes if note[0] == at) for at in range(len(item.locs))]
            pages += [(row, item.source, notes[at]) for at, row in enumerate(item.rows())]
        elif item.notes and item.row is not None and item.entry is None and not item.warnings:
            assert (item.key, item.labels, item.row.section) == (None, None, "")
            pages.append((item.row, item.lastmod_source, item.notes))
        else:
            pages.append(item)
    return pages


def test_a_batch_of_every_page_is_each_page_decided_alone(tmp_path: Path) -> None:
    """A batch's plain pages go straight into blocks, the others as the decision says; page for
    page, what leaves the worker is the outcomes of the decision, gathered."""
    root = _tree(tmp_path / "public")
    for name in ("b.html", "c.html", "d.html"):
        (root / name).write_text(html())
    os.utime(root / "c.html", ns=(0, 0))  # dated before the plausible years: said, not in a block
    reference, quick = _deciders(root)
    candidates = _candidates(reference)
    batch = quick.batch(candidates)
    assert any(isinstance(item, Block) and len(item.locs) > 1 for item in batch)  # made in the batch itself
    assert each_page(quick.blocking(batch)) == each_page(reference.blocking(reference.batch(candidates)))
    assert any(isinstance(item, Outcome) and item.row is not None for item in batch)  # c.html
    assert any(isinstance(item, Outcome) and item.skip is not None for item in batch)


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
    assert decider.decider.path_rules.by_name is (robots is not None and "Disallow" not in robots)
    candidates = _candidates(decider)
    for candidate in candidates:
        assert quick.decide(candidate) == decider.decide(candidate), candidate
    assert any(_skipped(quick.decide(candidate)) for candidate in candidates)


def test_a_generator_s_own_page_is_left_out(tmp_path: Path) -> None:
    root = _tree(tmp_path / "public")
    skip = Skip("a.html", SkipReason.NOT_FOUND_PAGE, "the generator says so")
    decider, quick = _deciders(root, not_documents={"a.html": skip})
    assert not decider.decider.path_rules.by_name
    assert quick.decide(("a.html", False)) == decider.decide(("a.html", False))
    assert quick.decide(("a.html", False)) == [Outcome("a.html", skip=skip)]


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
        assert pipeline._decision(detail=True).args[0].func == pipeline.decider.decide  # type: ignore[attr-defined]
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
