"""Chunks compressed in a thread of their own (`output.chunks._Aside`): the same bytes, an
error of the thread's raised to the writer, and only once no worker process will be forked."""

from __future__ import annotations

import errno
import logging
import random
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from sitemapgen.config.limits import Limits
from sitemapgen.entry import Entry, Row, row_of
from sitemapgen.output import chunks
from sitemapgen.output.writer import write_rows
from sitemapgen.protocol import LastmodFormat

from ..conftest import BASE, CliRunner
from ..helpers import make_tree, output_files


def _rows(count: int, seed: int = 1) -> list[Row]:
    """Rows of random URLs, which compress poorly: the files are large."""
    rng = random.Random(seed)
    return [row_of(Entry(f"{BASE}{rng.getrandbits(128):032x}/{i}/"), LastmodFormat.DATETIME) for i in range(count)]


def _write(out: Path, rows: list[Row], *, aside: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_rows(iter(rows), out, base_url=BASE, limits=Limits(max_urls=2_000), aside=(lambda: True) if aside else None)


def test_chunks_compressed_aside_are_the_same_bytes(tmp_path: Path) -> None:
    rows = _rows(9_000)
    _write(tmp_path / "here", rows, aside=False)
    with mock.patch.object(chunks, "_Aside", wraps=chunks._Aside) as aside:
        _write(tmp_path / "aside", rows, aside=True)
    assert aside.call_count >= 5  # one a chunk, each with its thread
    assert output_files(tmp_path / "aside") == output_files(tmp_path / "here")


def test_a_chunk_compressed_aside_is_finished_once_the_next_has_begun(tmp_path: Path) -> None:
    # Its thread compresses its last part while the writer fills the next chunk (chunks.Closing).
    events: list[str] = []
    init, finish = chunks.Chunk.__init__, chunks.Chunk.finish

    def begun(self: chunks.Chunk, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        events.append(f"begun {self.tmp.name}")

    def finished(self: chunks.Chunk, faults: Any) -> bytes:
        events.append(f"finished {self.tmp.name}")
        return finish(self, faults)

    with mock.patch.object(chunks.Chunk, "__init__", begun), mock.patch.object(chunks.Chunk, "finish", finished):
        _write(tmp_path / "aside", _rows(9_000), aside=True)
    first, second = events[0].split()[1], events[1].split()[1]
    assert events[:3] == [f"begun {first}", f"begun {second}", f"finished {first}"]
    assert events[-1].startswith("finished")
    assert len(events) >= 10


def test_a_full_disk_under_the_gzip_thread_is_the_writers_error_and_leaves_nothing(small_disk: Path) -> None:
    out = small_disk / "out"
    with pytest.raises(OSError) as raised:  # noqa: PT011 - which OSError is asserted below
        _write(out, _rows(20_000), aside=True)
    assert raised.value.errno == errno.ENOSPC
    assert list(out.iterdir()) == []  # its temporary files removed, the journal too


@pytest.mark.forks  # else no worker starts
def test_a_build_with_hreflang_links_forks_its_workers_and_compresses_aside_once_they_are_done(
    tmp_path: Path, cli: CliRunner, caplog: pytest.LogCaptureFixture
) -> None:
    # Every page has an hreflang link, so every row waits for the walk's end (`pipeline.hreflang`):
    # the chunks are all begun once the workers are gone, and no thread kept them from forking.
    pages = {
        f"d{i // 300}/p{i}.html": f'<head><link rel="alternate" hreflang="en" href="/en/{i}"></head>'
        for i in range(3_000)
    }
    root = make_tree(tmp_path / "site", pages)
    args = ["--base-url", BASE, "--jobs", "2", "--max-urls-per-sitemap", "500"]
    with caplog.at_level(logging.INFO), mock.patch.object(chunks, "_Aside", wraps=chunks._Aside) as aside:
        run = cli("build", root, *args, "--out", tmp_path / "out")
    assert run.code == 0, run.err
    assert "working in this process" not in caplog.text  # the workers were forked
    assert aside.call_count >= 6  # every chunk
    with mock.patch.object(chunks, "_Aside", side_effect=RuntimeError("can't start new thread")):
        assert cli("build", root, *args, "--out", tmp_path / "here").code == 0  # gzip then works in the writer
    assert output_files(tmp_path / "out") == output_files(tmp_path / "here")
