"""The compiled run of a heads-on batch (`_scan.head_block`, `quick.COMPILED_HEADS`) against the
decision: page for page the same outcomes, whatever the heads say, the names, the base URL and the
settings; what it keeps of a tag (`HeadRead.known`) holds on every page it is used on; and it lists
the plain pages itself, reading each page once."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapgen import Config
from sitemapgen.config.words import LastmodSource
from sitemapgen.entry import Block
from sitemapgen.lastmod.chain import OddDates
from sitemapgen.pages import kinds, scanner
from sitemapgen.pages.head import read_head_at
from sitemapgen.pages.walk import Walk
from sitemapgen.pipeline import quick
from sitemapgen.pipeline.blocks import Blocking
from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.protocol import LastmodFormat
from sitemapgen.skips import SkipReason
from sitemapgen.urls import UrlStyle, url_path

from .test_quick import each_page

pytestmark = pytest.mark.skipif(quick.COMPILED_HEADS is None, reason="the compiled module is not built here")

#: Tags a head may hold, `{loc}` the page's URL as the build writes it, `{path}` its path from
#: the base URL, `{other}` another page's URL, `{first}` and `{first_url}` the first page's path
#: from the root and URL: each way a tag may name the page, or seem to.
TAGS = (
    '<link rel="canonical" href="{loc}">',
    "<link rel='canonical' href='{loc}'>",
    "<LINK REL=canonical HREF={loc}>",
    '<link rel="canonical" href=" {loc} ">',
    '<link rel="canonical" href="{loc}#top">',
    '<link rel="canonical alternate" href="{loc}">',
    '<link rel="canonical" href="/{path}">',
    '<link rel="canonical" href="{other}">',
    '<link rel="canonical" href="{first}" data-x="{loc}">',  # the page's URL, but not as its href
    '<link rel="canonical" href="{loc}" data-x="{loc}">',
    '<link data-x="{loc}" rel="canonical" href="{first_url}">',  # the page's URL twice on the first page
    '<link rel="canonical" hreflang="en" href="{loc}">',
    '<link rel="alternate" hreflang="en" href="{loc}">',
    '<link rel="alternate" hreflang="fr" href="{other}">',
    '<meta property="article:modified_time" content="2020-01-02T03:04:05Z">',
    '<meta name="robots" content="index, follow">',
    '<meta name="robots" content="noindex">',
    '<meta name="robots" content="{loc}">',
    '<meta http-equiv="refresh" content="0; url={loc}">',
    '<meta property="og:url" content="{loc}">',
    '<meta property="og:title" content="a &amp; b">',
    '<link rel="stylesheet" href="/s.css?a=1&amp;b=2">',
    '<meta name="description" content="canonical noindex">',
)
_NAMES = st.sampled_from(
    ["index.html", "a.html", "b.html", "b c.htm", "\u00e9.html", "d/index.html", "d/x.html", "e,noindex.html"]
    + ["f&g.html", "it's.html", "search.html", "404/index.html", "x=y.html"]
)
_TAG_LISTS = st.lists(st.sampled_from(range(len(TAGS))), max_size=3)
#: A page's own tags, after its site's (a template's, the same on every page), and how its head ends.
_HEADS = st.tuples(_TAG_LISTS, st.sampled_from(["ended", "ended", "open", "latin", "huge", "fragment"]))
_BASES = st.sampled_from(["https://example.com/", "https://example.com/docs/", "HTTPS://Example.COM/", "http://h/a&b/"])


def _page(tags: list[int], shape: str, loc: str, path: str, other: str, first: str, first_url: str) -> bytes:
    head = "".join(TAGS[t].format(loc=loc, path=path, other=other, first=first, first_url=first_url) for t in tags)
    if shape == "fragment":  # no page at all
        return f"<p>{head}</p>".encode()
    charset = "iso-8859-1" if shape == "latin" else "utf-8"
    text = "x" * 70_000 if shape == "huge" else ""  # the tags past the bytes read of a head
    page = f"<!DOCTYPE html><html><head><meta charset='{charset}'><title>t</title>{text}{head}"
    return (page if shape == "open" else page + "</head><body>b</body></html>").encode("latin-1", "replace")


def _heads(root: Path, **overrides: Any) -> tuple[Decider, quick.HeadRead, Blocking]:
    config = Config(docroot=root, lastmod=(LastmodSource.MTIME,), **{"base_url": "https://example.com/", **overrides})
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    assert quick.applies_read(config, decider)
    odd = OddDates(decider.lastmod, datetime.now(UTC))
    blocking = Blocking(room=decider.room, low=odd.low, high=odd.high)
    return decider, quick.HeadRead(decider, blocking), blocking


def _candidates(decider: Decider) -> list[tuple[str, bool]]:
    walk = Walk(decider.config.docroot, prune=decider.path_rules.check_dir, url_style=decider.config.url_style)
    return list(walk.candidates())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    template=_TAG_LISTS,
    pages=st.dictionaries(_NAMES, _HEADS, min_size=1, max_size=8),
    base=_BASES,
    style=st.sampled_from([UrlStyle.DIRECTORY, UrlStyle.INDEX]),
    fmt=st.sampled_from(list(LastmodFormat)),
    hreflang=st.booleans(),
)
def test_a_batch_is_each_page_decided(
    tmp_path_factory: pytest.TempPathFactory,
    template: list[int],
    pages: dict[str, tuple[list[int], str]],
    base: str,
    style: UrlStyle,
    fmt: LastmodFormat,
    hreflang: bool,
) -> None:
    root = tmp_path_factory.mktemp("public")
    for name in pages:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"")
    names = [relpath for relpath, _ in Walk(root).candidates() if kinds.candidate(relpath) is None] or sorted(pages)
    first_url = base + url_path(names[0], style)  # the first page a run may list
    first = urlsplit(first_url).path
    for i, name in enumerate(sorted(pages)):
        tags, shape = pages[name]
        loc = base + url_path(name, style)
        other = base + url_path(names[(i + 1) % len(names)], style)
        (root / name).write_bytes(_page(template + tags, shape, loc, url_path(name, style), other, first, first_url))
        os.utime(root / name, ns=(1_600_000_000 * 10**9 + i * 86_399 * 10**9,) * 2)
    decider, heads, blocking = _heads(root, base_url=base, url_style=style, lastmod_format=fmt, hreflang=hreflang)
    try:
        candidates = _candidates(decider)
        for _ in range(2):  # the second time with what the first kept
            batch = heads.batch(candidates)
            assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    finally:
        decider.abort()


def _site(root: Path) -> None:
    base = "https://example.com/"
    pages = {
        "index.html": f'<link rel="canonical" href="{base}">',
        "a.html": f'<link rel="canonical" href="{base}a.html"><meta property="article:modified_time" content="x">',
        "b.html": "",
        "c.html": f'<link rel="alternate" hreflang="en" href="{base}c.html">',  # a cluster: the decision's
        "d/index.html": f'<link rel="canonical" href="{base}d/"><meta name="robots" content="index, follow">',
        "d/e.html": f'<link rel="canonical" href="{base}d/e.html">',
    }
    for name, tags in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<html><head><title>t</title>{tags}</head><body></body></html>")


def test_a_run_lists_the_plain_pages_itself_reading_each_once(tmp_path: Path) -> None:
    root = tmp_path / "public"
    _site(root)
    decider, heads, blocking = _heads(root, url_style=UrlStyle.DIRECTORY)
    candidates = _candidates(decider)
    with mock.patch.object(quick, "read_head_at", wraps=read_head_at) as reading:
        batch = heads.batch(candidates)
    assert isinstance(batch[0], Block)
    assert batch[0].locs == ["https://example.com/", "https://example.com/a.html", "https://example.com/b.html"]
    assert isinstance(batch[1], Outcome)
    assert batch[1].relpath == "c.html"  # handed back, with its head: not read again
    # The next page is decided without a run (see `HeadRead.backoff`), reading its head, and the
    # one after it by a run again.
    assert [call.args[0] for call in reading.call_args_list] == [str(root / "d/index.html")]
    assert isinstance(batch[-1], Block)
    assert batch[-1].locs == ["https://example.com/d/e.html"]
    assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    # One shape for every page naming itself so: as its canonical, nothing more; in a cluster, more.
    assert heads.known == {
        '<link rel="canonical" href="\0">': True,
        '<link rel="alternate" hreflang="en" href="\0">': False,
    }
    decider.abort()


@pytest.mark.parametrize(
    "tag",
    [
        pytest.param('<link rel="canonical" href="/a.html" data-x="{url}">', id="href-from-the-root"),
        pytest.param('<link data-x="{url}" rel="canonical" href="https://example.com/a.html">', id="url-twice"),
    ],
)
def test_a_shape_names_the_page_only_where_its_href_is_the_page_s_url(tmp_path: Path, tag: str) -> None:
    """A tag that names a.html as canonical, and holds the page's URL elsewhere too, is not kept
    by its shape on a.html: on the next page, the same shape names a.html, another page."""
    root = tmp_path / "public"
    root.mkdir()
    for name in ("a.html", "b.html"):
        head = tag.format(url=f"https://example.com/{name}")
        (root / name).write_text(f"<html><head>{head}</head><body></body></html>")
    decider, heads, _ = _heads(root)
    batch = heads.batch(_candidates(decider))
    assert isinstance(batch[0], Block)
    assert batch[0].locs == ["https://example.com/a.html"]
    assert isinstance(batch[1], Outcome)
    assert batch[1].skip is not None
    assert batch[1].skip.reason is SkipReason.CANONICAL
    assert heads.known == {}
    decider.abort()


def test_a_tag_met_on_one_page_only_is_not_kept(tmp_path: Path) -> None:
    root = tmp_path / "public"
    root.mkdir()
    for i in range(20):
        tag = f'<meta property="article:modified_time" content="2020-01-{i + 1:02}">'
        (root / f"{i}.html").write_text(f"<html><head>{tag}</head><body></body></html>")
    (root / "z.html").write_text('<html><head><meta name="robots" content="all"></head></html>')
    (root / "zz.html").write_text('<html><head><meta name="robots" content="all"></head></html>')
    decider, heads, _ = _heads(root)
    batch = heads.batch(_candidates(decider))
    assert len(batch) == 1
    assert isinstance(batch[0], Block)
    assert len(batch[0].locs) == 22
    assert heads.known == {'<meta name="robots" content="all">': True}  # met twice
    decider.abort()


def test_a_python_scanner_has_python_decide_every_page(tmp_path: Path) -> None:
    root = tmp_path / "public"
    _site(root)
    with mock.patch.object(scanner, "COMPILED", None):
        decider, heads, _ = _heads(root)
        assert heads.constants is None
        assert not any(isinstance(item, Block) for item in heads.batch(_candidates(decider)))
    decider.abort()


def test_what_the_judge_raises_the_batch_raises(tmp_path: Path) -> None:
    root = tmp_path / "public"
    _site(root)
    decider, heads, _ = _heads(root)

    def judged(text: str, loc: str, shape: str | None) -> bool:
        raise RuntimeError(f"judged {text} on {loc}")

    constants: Any = heads.constants
    heads.constants = (*constants[:-1], judged)
    with pytest.raises(RuntimeError, match="judged <link"):
        heads.batch(_candidates(decider))
    with pytest.raises(TypeError, match="head_block"):
        quick.COMPILED_HEADS(constants[:-1], [], 0, [], [], [], [], [])  # type: ignore[misc]
    decider.abort()
