"""A block of rows is written as its rows are, one by one: the same chunks, byte for byte, the
same cut points, the same rows left out, whatever the limits (`output.filling`)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sitemapgen.config.limits import Limits
from sitemapgen.config.words import Chunking
from sitemapgen.entry import Block, Row, dated_row, entry_room, utc_second_text
from sitemapgen.output.writer import write_rows
from sitemapgen.skips import Skip

from ..conftest import BASE
from ..helpers import Url, output_files, read_chunk


def _rows(n: int, seed: int) -> list[Row]:
    """`n` dated rows of many sizes, some lastmods the same second, in the main section."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        loc = f"{BASE}{'deep/' * rng.randrange(12)}page-{i}.html"
        seconds = 1_600_000_000 + rng.randrange(3) * 86_400 * rng.randrange(400)
        rows.append(dated_row(loc, seconds, utc_second_text(seconds, False)))
    return rows


def _blocks(rows: list[Row], seed: int) -> list[Row | Block]:
    """`rows`, in blocks of 1 to 600 rows, and now and then one alone, as a build's come."""
    rng = random.Random(seed)
    items: list[Row | Block] = []
    at = 0
    while at < len(rows):
        if rng.random() < 0.1:
            items.append(rows[at])
            at += 1
            continue
        run = rows[at : at + rng.randint(1, 600)]
        keys = [key for row in run if (key := row.lastmod_key) is not None]
        texts = [text for row in run if (text := row.lastmod_text) is not None]
        items.append(Block([row.loc for row in run], [row.xml for row in run], keys, texts, "mtime"))
        at += len(run)
    return items


#: What a writer wrote: its files, each chunk (name, URLs, bytes, lastmod, entries), and the rows it left out.
_Written = tuple[dict[str, bytes], list[tuple[str, int, int, str | None, list[Url]]], list[Skip]]


def _written(tmp_path: Path, name: str, rows: list[Row | Block], limits: Limits, stylesheet: bool) -> _Written:
    out = tmp_path / name
    out.mkdir()
    skipped: list[Skip] = []
    result = write_rows(rows, out, base_url=BASE, limits=limits, on_skip=skipped.append, stylesheet=stylesheet)
    chunks = [(s.path.name, s.urls, s.size, s.lastmod, read_chunk(s.path)) for s in result.sitemaps]
    return output_files(out), chunks, skipped


@pytest.mark.parametrize(
    ("limits", "stylesheet"),
    [
        (Limits(), False),  # cut points about one URL in 10,000: most blocks go in whole
        (Limits(max_urls=50), False),  # a cut point about one URL in ten, and a chunk full every 50
        (Limits(max_urls=3), True),  # every URL a cut point
        (Limits(max_urls=700, chunking=Chunking.FILL), False),  # no cut points: only the limits
        (Limits(max_bytes=4_000), False),  # full by its bytes every few dozen rows
        (Limits(max_bytes=4_000, chunking=Chunking.FILL), True),
    ],
    ids=["default", "urls-50", "urls-3", "fill", "bytes", "bytes-fill-stylesheet"],
)
def test_a_block_is_written_as_its_rows_one_by_one(tmp_path: Path, limits: Limits, stylesheet: bool) -> None:
    rows = _rows(30_000 if limits.max_urls == Limits().max_urls else 3_000, seed=1)
    one_by_one = _written(tmp_path, "rows", list(rows), limits, stylesheet)
    in_blocks = _written(tmp_path, "blocks", _blocks(rows, seed=2), limits, stylesheet)
    assert in_blocks == one_by_one
    files, chunks, _ = one_by_one
    assert len(chunks) > 1
    assert sum(urls for _, urls, *_ in chunks) == len(rows)


def test_a_row_too_large_beside_the_stylesheets_line_is_left_out_of_a_block_as_alone(tmp_path: Path) -> None:
    """A worker lets into a block any row a sitemap holds; with a stylesheet, a chunk's opening
    line is longer, and a row that fits but for it is left out by the writer, named, as alone."""
    limits = Limits(max_bytes=2_000)
    rows = _rows(40, seed=3)
    loc = BASE + "x" * (entry_room(limits.max_bytes) - 100)
    big = dated_row(loc, 1_600_000_000, utc_second_text(1_600_000_000, False))
    assert len(big.xml) <= entry_room(limits.max_bytes)  # a sitemap without a stylesheet holds it
    rows[20] = big
    one_by_one = _written(tmp_path, "rows", list(rows), limits, True)
    in_blocks = _written(tmp_path, "blocks", _blocks(rows, seed=4), limits, True)
    assert in_blocks == one_by_one
    assert [skip.relpath for skip in one_by_one[2]] == [loc]
