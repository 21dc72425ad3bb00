"""Most pages leave the decision in blocks of rows (`pipeline.blocks`), and every stage after
passes a block on whole: what each stage makes of them is what it makes of the same rows one
by one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitemapgen import Config, SkipReason
from sitemapgen.entry import Block, Row, each_row
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.hreflang import Reciprocity

from ..conftest import BASE
from ..helpers import html, make_tree


def _head(extra: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title>{extra}</head><body>b</body></html>\n"


def _site(root: Path) -> Path:
    """1,800 pages in folders of 300, and among them what a block must not hold or must be
    split by: the walk's own skips (an index twin after an index page, a broken symlink, an
    excluded folder) in the middle of a folder, noindex pages, pages with warnings, hreflang
    links, dates from the future and from 1970."""
    files: dict[str | bytes, str | bytes] = {}
    for i in range(1_800):
        folder = f"part-{i // 300}"
        if i % 300 == 0:
            files[f"{folder}/index.html"] = html(f"home {i}")
            files[f"{folder}/index.htm"] = html(f"twin {i}")  # a duplicate URL, after index.html
            files[f"{folder}/.cache/x.html"] = html("excluded")
        name = f"{folder}/p{i:04}.html"
        if i % 97 == 5:
            files[name] = _head('<meta name="robots" content="noindex">')
        elif i % 89 == 7:
            files[name] = _head('<link rel="alternate" hreflang="not a language" href="/x">')  # a warning
        elif i % 83 == 3:
            own, other = f"/{folder}/p{i:04}.html", f"/{folder}/p{i + 1:04}.html"  # which does not link back
            links = (
                f'<link rel="alternate" hreflang="en" href="{own}"><link rel="alternate" hreflang="de" href="{other}">'
            )
            files[name] = _head(links)
        else:
            files[name] = html(f"page {i}")
    make_tree(root, files)
    os.symlink("missing.html", root / "part-2" / "p0650-link.html")  # broken, among pages
    os.utime(root / "part-3" / "p0905.html", (4_000_000_000, 4_000_000_000))  # in 2096
    os.utime(root / "part-4" / "p1205.html", (10, 10))
    return root


def _events(pipeline: Pipeline) -> tuple[list[tuple[str, object]], int]:
    """What `rows` gives, each row alone and each skip where it was heard; and how many rows came in blocks."""
    events: list[tuple[str, object]] = []
    in_blocks = 0
    for item in pipeline.rows(lambda skip: events.append(("skip", (skip.relpath, skip.reason)))):
        if isinstance(item, Block):
            in_blocks += len(item.locs)
        events.extend(("row", row) for row in each_row([item]))
    return events, in_blocks


@pytest.mark.parametrize("read_heads", [True, False])
def test_rows_in_blocks_are_the_rows_outcomes_give_one_by_one_with_the_skips_in_place(
    tmp_path: Path, read_heads: bool
) -> None:
    root = _site(tmp_path / "site")
    warnings: list[str] = []
    config = Config(docroot=root, base_url=BASE, read_heads=read_heads, jobs=1)
    events, in_blocks = _events(Pipeline(config, None, warn=warnings.append, dry_run=True))
    detailed = Pipeline(config, None, warn=lambda _: None, dry_run=True)
    expected = [
        ("skip", (o.skip.relpath, o.skip.reason)) if o.skip is not None else ("row", o.row) for o in detailed.outcomes()
    ]
    assert events == expected
    rows = [row for kind, row in events if kind == "row"]
    assert in_blocks > 0.9 * len(rows)  # nearly all
    reasons = {value[1] for kind, value in events if kind == "skip"}  # type: ignore[index]
    assert {SkipReason.DUPLICATE_URL, SkipReason.BROKEN_SYMLINK, SkipReason.EXCLUDED_DIR} <= reasons
    assert any("in the future" in w for w in warnings)
    assert any("before 1990" in w for w in warnings)


def test_a_block_holds_no_page_that_needs_words(tmp_path: Path) -> None:
    """A page with a warning, a note or an odd date crosses alone (one with hreflang links in a
    block, as any), and the lastmod sources count every page, in blocks or not."""
    root = _site(tmp_path / "site")
    pipeline = Pipeline(Config(docroot=root, base_url=BASE, jobs=1), None, warn=lambda _: None, dry_run=True)
    alone: list[str] = []
    listed = 0
    for item in pipeline.rows(lambda _: None):
        if isinstance(item, Row):
            alone.append(item.loc.removeprefix(BASE))
        listed += len(item.locs) if isinstance(item, Block) else 1
    odd = {"part-3/p0905.html", "part-4/p1205.html"}
    warned = {f"part-{i // 300}/p{i:04}.html" for i in range(1_800) if i % 89 == 7 and i % 97 != 5}
    assert set(alone) == odd | warned
    assert pipeline.sources_used == {"mtime": listed}


def test_the_hreflang_stage_drops_links_in_blocks_as_in_rows_one_by_one(tmp_path: Path) -> None:
    """Rows with links are in blocks, among rows alone (a warning, an odd date): the spool keeps
    every row's place, and a block whose rows lose links comes out a copy, those rows changed."""
    root = _site(tmp_path / "site")
    config = Config(docroot=root, base_url=BASE, jobs=1)
    items = list(Pipeline(config, None, warn=lambda _: None, dry_run=True).rows(lambda _: None))
    assert isinstance(items[0], Block)
    linked = [item for item in items if isinstance(item, Block) and any(b"<xhtml:link" in x for x in item.xmls)]
    assert linked
    before = [list(block.xmls) for block in linked]
    blocked, one_by_one = Reciprocity(BASE), Reciprocity(BASE)
    out = list(blocked.filter(iter(items)))
    assert any(isinstance(item, Block) for item in out[1:])  # after the first link too: spooled whole
    assert list(each_row(out)) == list(one_by_one.filter(each_row(items)))
    assert (blocked.dropped, blocked.pages) == (one_by_one.dropped, one_by_one.pages)
    assert blocked.dropped > 0
    assert [list(block.xmls) for block in linked] == before  # the blocks that came in are as they were
