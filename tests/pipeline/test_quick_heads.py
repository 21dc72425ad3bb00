"""The decision of a plain page with its head read, in a frame or two (`quick.HeadRead`): the
same outcome as the page's decision, for every head, every mtime and every setting it is taken
under, and taken only where nothing but the path, the `stat` and the head decides."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sitemapgen import Config
from sitemapgen.config.tables import Section
from sitemapgen.config.words import LastmodSource
from sitemapgen.lastmod.chain import OddDates
from sitemapgen.pages.walk import Walk
from sitemapgen.pipeline.blocks import Blocking
from sitemapgen.pipeline.decide import Decider
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.quick import HeadRead, applies_read
from sitemapgen.protocol import LastmodFormat
from sitemapgen.urls import UrlStyle

from ..conftest import BASE
from ..helpers import make_tree
from .test_quick import assert_same_at_every_mtime, each_page, each_way, taken


def _page(head: str, lang: str = "") -> str:
    return (
        f"<!DOCTYPE html><html{lang}><head><meta charset='utf-8'><title>t</title>{head}</head><body>b</body></html>\n"
    )


def _link(lang: str, href: str) -> str:
    return f'<link rel="alternate" hreflang="{lang}" href="{href}">'


#: Heads that say nothing, and every head that says something the one frame must not decide alone.
HEADS: dict[str | bytes, str | bytes] = {
    "index.html": _page(""),
    "plain.html": _page('<meta name="description" content="nothing to decide">'),
    "self.html": _page(f'<link rel="canonical" href="{BASE}self.html">'),
    "self-relative.html": _page('<link rel="canonical" href="/self-relative.html">'),
    "self-dir/index.html": _page(f'<link rel="canonical" href="{BASE}self-dir/">'),
    "other.html": _page('<link rel="canonical" href="/plain.html">'),
    "declared/index.html": _page('<link rel="canonical" href="/declared/index.html">'),  # its own file: listed so
    "missing.html": _page('<link rel="canonical" href="/nowhere.html">'),  # listed, a note
    "away.html": _page('<link rel="canonical" href="https://elsewhere.example/a">'),
    "two.html": _page('<link rel="canonical" href="/a.html"><link rel="canonical" href="/b.html">'),
    "noindex.html": _page('<meta name="robots" content="noindex">'),
    "refresh.html": _page('<meta http-equiv="refresh" content="0; url=/plain.html">'),
    "refresh-self.html": _page(f'<meta http-equiv="refresh" content="5; url={BASE}refresh-self.html">'),
    "modified.html": _page('<meta property="article:modified_time" content="2020-01-02T03:04:05Z">'),
    "de/a.html": _page(_link("en", "/en/a.html") + _link("de", "/de/a.html") + _link("x-default", "/en/a.html")),
    "en/a.html": _page(_link("en", "/en/a.html") + _link("de", "/de/a.html"), ' lang="en"'),
    "fr/a.html": _page(_link("en", "/en/a.html") + _link("de", "/de/a.html"), ' lang="fr"'),  # adds itself
    "it/a.html": _page(_link("en", "/en/a.html") + _link("en", "/en/b.html")),  # one language, two URLs
    "bad.html": _page(_link("not a language", "/x")),  # a problem: a warning
    "entity.html": _page('<link rel="canonical" href="/entity.html?a=1&amp;b=2">'),  # read by bs4
    "latin.html": _page('<link rel="canonical" href="/latin.html">').replace("utf-8", "iso-8859-1").encode("latin-1")
    + "<!-- caf\u00e9 -->".encode("latin-1"),
    "upper.html": "<HTML><HEAD><LINK REL=CANONICAL HREF='/upper.html'></HEAD><BODY>b</BODY></HTML>",
    "fragment.html": "<p>a part of a page, with no head or body</p>\n",
    "whole-head.html": "<!DOCTYPE html><html><head><title>t</title>",  # the file ends in the head
    "long.html": _page("<script>" + "x" * 3_000 + "</script>" + '<link rel="canonical" href="/long.html">'),
    "huge.html": _page("<script>" + "x" * 70_000 + "</script>"),  # no end of head in the bytes read
    "search.html": _page("") + '<form action="/search.html"><input name="q"></form>',
    "search/index.html": _page(""),
    "404/index.html": "<html><head><title>404 Not Found</title></head><body>not found</body></html>",
    # Candidates their heads leave out first (Sphinx's search page says noindex)
    "docs/search.html": _page('<meta name="robots" content="noindex">') + '<form action="search.html"></form>',
    "fr/404/index.html": _page('<link rel="canonical" href="/404/index.html">'),
    "v2/Search/index.html": _page('<meta http-equiv="refresh" content="0; url=/search/">'),
    "nul.html": b"<html><head>\x00<title>t</title></head></html>",
    "utf16.html": _page("").encode("utf-16"),
}


def _tree(root: Path) -> Path:
    make_tree(root, HEADS)
    os.symlink("plain.html", root / "link.html")
    os.mkfifo(root / "pipe.html")
    return root


@pytest.fixture(autouse=True, params=["compiled", "python"])
def each_run(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test with runs of plain pages listed by the compiled module (`_scan.head_block`), where
    it is built, then with every page decided in Python, as where it is not."""
    return each_way(request, monkeypatch, "COMPILED_HEADS")


def _blocking(decider: Decider) -> Blocking:
    odd = OddDates(decider.lastmod, datetime.now(UTC))
    return Blocking(room=decider.room, low=odd.low, high=odd.high)


def _deciders(root: Path, **overrides: Any) -> tuple[Decider, HeadRead]:
    config = Config(docroot=root, base_url=BASE, lastmod=(LastmodSource.MTIME,), **overrides)
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    assert applies_read(config, decider)
    return decider, HeadRead(decider, _blocking(decider))


def assert_batch_is_each_page_decided(decider: Decider, heads: HeadRead, candidates: list[tuple[str, bool]]) -> None:
    """`heads.batch` of the candidates gives, page for page, the outcomes of `decider`, gathered."""
    blocking = _blocking(decider)
    batch = heads.batch(candidates)
    assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))


def _candidates(decider: Decider) -> list[tuple[str, bool]]:
    config = decider.config
    return list(Walk(config.docroot, prune=decider.path_rules.check_dir, url_style=config.url_style).candidates())


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({}, id="defaults"),
        pytest.param({"url_style": UrlStyle.DIRECTORY, "lastmod_format": LastmodFormat.DATE}, id="directory-date"),
        pytest.param({"url_style": UrlStyle.EXTENSIONLESS}, id="extensionless"),
        pytest.param({"hreflang": False}, id="hreflang-off"),
        pytest.param({"check_canonical": False, "check_noindex": False, "check_redirects": False}, id="checks-off"),
        pytest.param({"hreflang_x_default": "en"}, id="x-default"),
        pytest.param({"head_max_bytes": 2_048}, id="head-max-bytes"),
        pytest.param({"exclude": ("de/",)}, id="exclude"),
    ],
)
def test_every_head_has_the_decision_s_outcome(tmp_path: Path, overrides: dict[str, Any]) -> None:
    root = _tree(tmp_path / "public")
    decider, heads = _deciders(root, **overrides)
    candidates = _candidates(decider)
    assert len(candidates) >= len(HEADS)
    assert_same_at_every_mtime(root, candidates, decider, heads)
    assert_batch_is_each_page_decided(decider, heads, candidates)
    outcomes = [heads.decide(candidate) for candidate in candidates]
    assert any(o.skip is not None for o in outcomes)
    assert any(o.warnings for o in outcomes)
    clusters = [o for o in outcomes if o.row is not None and b"<xhtml:link" in o.row.xml]
    assert bool(clusters) is overrides.get("hreflang", True)


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"read_heads": False}, id="heads-off"),
        pytest.param({"llms_txt": True}, id="labels-wanted"),
        pytest.param({"html_sitemap": True}, id="labels-wanted-by-the-html-sitemap"),
        pytest.param({"lastmod": (LastmodSource.META, LastmodSource.MTIME)}, id="another-lastmod-source"),
        pytest.param({"sitemaps": (Section("blog", "blog/"),)}, id="sections"),
        pytest.param({"documents": ("*.pdf",)}, id="documents"),
        pytest.param({"images": True}, id="images"),
    ],
)
def test_the_head_frame_is_taken_only_where_path_stat_and_head_decide(
    tmp_path: Path, overrides: dict[str, Any]
) -> None:
    assert not taken(tmp_path, applies_read, {"lastmod": (LastmodSource.MTIME,), **overrides})


def test_a_build_with_heads_on_takes_the_head_frame(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "public", {"a.html": _page("")})
    pipeline = Pipeline(Config(docroot=root, base_url=BASE), None, warn=lambda _: None, dry_run=True)
    try:
        assert getattr(pipeline._decision(detail=False), "__self__", None).__class__ is HeadRead
        assert pipeline._decision(detail=True).args[0].func == pipeline.decider.decide  # type: ignore[attr-defined]
    finally:
        pipeline.abort()


def test_a_search_or_not_found_page_its_head_leaves_out_is_decided_in_the_head_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page named as a search or not-found page may be one (`kinds.candidate`), which only the
    decision reads it again to tell; but a head that leaves the page out says so first, as in the
    decision: Sphinx's search page, noindex, is left out from its head, read once."""
    root = _tree(tmp_path / "public")
    decider, heads = _deciders(root)
    names = ["docs/search.html", "fr/404/index.html", "v2/Search/index.html"]
    expected = [decider.decide((name, False)) for name in names]
    assert all(outcome.skip is not None for outcome in expected)

    def unasked(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the decision asked of {args}")

    monkeypatch.setattr(decider, "decide", unasked)
    monkeypatch.setattr(decider, "decided", unasked)
    assert [heads.decide((name, False)) for name in names] == expected


def test_a_head_that_cannot_be_read_is_the_decision_s_to_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that fails once the page is open (EIO from a failing disk) is no crash: the page is
    left out as unreadable, as the decision leaves it out."""
    from sitemapgen.pages import head
    from sitemapgen.skips import SkipReason

    def failing(fd: int, max_bytes: int) -> tuple[bytes, bool, bool]:
        raise OSError(5, "Input/output error")

    root = make_tree(tmp_path / "public", {"a.html": _page("")})
    decider, heads = _deciders(root)
    monkeypatch.setattr(head, "read_open_head", failing)
    monkeypatch.setattr(head, "COMPILED", None)  # the compiled read's failures are its own test's
    outcome = heads.decide(("a.html", False))
    assert outcome == decider.decide(("a.html", False))
    assert outcome.skip is not None
    assert outcome.skip.reason is SkipReason.UNREADABLE
