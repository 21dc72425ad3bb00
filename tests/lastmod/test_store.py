"""The content store: its hash streamed, so a page of any size costs a bounded piece of memory;
who starts it; untouched by a build in which nothing changed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import resource
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapgen.lastmod.store import DIGEST_PIECE, ContentStore, content_digest

from ..conftest import BASE, CliRunner
from ..helpers import error_line, html, make_tree, output_files, published

_VOLATILE = [re.compile(rb'<meta name="generator"[^>]*>'), re.compile(rb"\?v=[0-9a-f]{8}")]


def _whole(data: bytes, ignore: list[re.Pattern[bytes]]) -> bytes:
    """The digest as it was before streaming: the page read whole, every pattern removed."""
    for pattern in ignore:
        data = pattern.sub(b"", data)
    return hashlib.blake2b(data, digest_size=16).digest()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [b"<p>x</p>\n", b'<meta name="generator" content="Hugo 0.1">', b"a.css?v=0123abcd", b"\n", b"y"]
        ),
        max_size=60,
    )
)
def test_a_page_under_a_piece_hashes_as_read_whole(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes]
) -> None:
    data = b"".join(pieces)
    path = tmp_path_factory.mktemp("p") / "page.html"
    path.write_bytes(data)
    assert content_digest(str(path), _VOLATILE) == _whole(data, _VOLATILE)
    assert content_digest(str(path), []) == _whole(data, [])


@pytest.mark.parametrize("ignore", [[], _VOLATILE], ids=["plain", "with-patterns"])
def test_a_large_page_streams_in_bounded_memory(tmp_path: Path, ignore: list[re.Pattern[bytes]]) -> None:
    line = b'<p>text a.css?v=0123abcd <meta name="generator" content="x"></p>\n'
    data = line * (12 * DIGEST_PIECE // len(line))
    path = tmp_path / "big.html"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        got = content_digest(str(path), ignore)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * DIGEST_PIECE, f"{peak:,} bytes for a {len(data):,}-byte page"
    assert got == _whole(data, ignore)  # no pattern here spans a line: cut at line ends, nothing is missed


def test_a_page_swapped_for_a_fifo_is_an_error_not_a_wait(tmp_path: Path) -> None:
    fifo = tmp_path / "page.html"
    os.mkfifo(fifo)
    outcome: list[BaseException | bytes] = []

    def read() -> None:
        try:
            outcome.append(content_digest(str(fifo), []))
        except BaseException as e:  # handed to the test thread
            outcome.append(e)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "content_digest waited on a FIFO"
    assert isinstance(outcome[0], OSError)


def test_of_two_runs_that_find_no_store_at_once_one_says_it_starts_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another run starts the store between this run's look and its own open: only the run
    whose file it is says that it starts one (the other's pages are not all new)."""
    path = tmp_path / "state.sqlite"
    now = datetime(2026, 11, 25, tzinfo=UTC)
    said: list[str] = []
    real_connect = sqlite3.connect
    first = [True]

    def another_run_first(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        if first:
            first.clear()
            ContentStore(path, build_time=now, on_warning=said.append).commit()  # its open is the second
        connection: sqlite3.Connection = real_connect(*args, **kwargs)
        return connection

    monkeypatch.setattr(sqlite3, "connect", another_run_first)
    ContentStore(path, build_time=now, on_warning=said.append).commit()
    assert [line for line in said if "no lastmod state store yet; starting one" in line] == [
        f"{path}: no lastmod state store yet; starting one, so every page counts as new"
        " (in CI, keep this file between runs)"
    ]


def test_a_build_in_which_nothing_changed_leaves_the_store_as_it_was(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bytes and mtime, and no journal made beside it: a watcher of the folder (sphinx-autobuild)
    sees no change, so it does not build again. A change, and a page gone, are still kept."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795600000")
    public = make_tree(tmp_path / "public", {"a.html": html("a"), "b.html": html("b"), "c.html": html("c")})
    build = ("build", public, "--base-url", "https://example.org/", "--lastmod", "content")
    store = tmp_path / ".sitemapgen-state-public.sqlite"
    assert cli(*build).code == 0
    os.utime(store, ns=(1_000_000_000, 1_000_000_000))  # an mtime any write would change
    before = store.read_bytes()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795600060")  # a build a minute later
    watched = _Watch(tmp_path, ignore=public)
    with watched:
        again = cli(*build)
    assert again.code == 0, again.err
    assert (store.read_bytes(), store.stat().st_mtime_ns) == (before, 1_000_000_000)
    assert watched.changes == []
    assert [u.lastmod for u in published(public, "https://example.org/")] == ["2026-11-25T09:46:40+00:00"] * 3

    (public / "a.html").write_text(html("a, changed"))
    (public / "c.html").unlink()
    assert cli(*build).code == 0
    with contextlib.closing(sqlite3.connect(store)) as db:
        kept = db.execute("SELECT url FROM pages ORDER BY url").fetchall()
    assert kept == [("https://example.org/a.html",), ("https://example.org/b.html",)]
    assert store.stat().st_mtime_ns != 1_000_000_000


class _Watch:
    """What a watcher of `root` (watchfiles, as sphinx-autobuild uses it) sees, outside `ignore`."""

    def __init__(self, root: Path, ignore: Path) -> None:
        self.root, self.ignore = root, ignore
        self.changes: list[str] = []
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        from watchfiles import watch

        for changes in watch(self.root, stop_event=self.stop, yield_on_timeout=True, rust_timeout=100, debounce=50):
            self.ready.set()
            self.changes += [p for _, p in changes if not Path(p).is_relative_to(self.ignore)]

    def __enter__(self) -> None:
        self.thread.start()
        assert self.ready.wait(10)  # the first timeout: the watch is set up

    def __exit__(self, *exc: object) -> None:
        time.sleep(1)  # a change made at the end is reported within a debounce
        self.stop.set()
        self.thread.join(10)


def _pages(root: Path, start: int, stop: int) -> None:
    """Pages with long names: a build's new rows outgrow SQLite's page cache (2 MiB) within
    8,000 of them, so the store writes to its file while pages are being dated, not only at
    the commit."""
    make_tree(root, {f"d{i % 20}/{'a-long-page-name-' * 12}{i}.html": html(f"page {i}") for i in range(start, stop)})


def test_a_full_disk_under_the_store_is_one_line_and_loses_nothing(
    small_disk: Path, tmp_path: Path, cli: CliRunner
) -> None:
    """The store on a real file system that fills up as it grows: one line naming the store,
    exit 3, the old store and the published sitemaps as they were, no journal left."""
    root = tmp_path / "site"
    _pages(root, 0, 300)
    state = small_disk / "state.sqlite"
    # --jobs 1: in this process, a build that fails while workers send their results can leave
    # the pool's thread waiting at exit for a message a killed worker never finished (util.parallel).
    args = [root, "--base-url", BASE, "--lastmod", "content", "--state-file", state, "--jobs", "1"]
    assert cli("build", *args).code == 0
    stored, published_before = state.read_bytes(), output_files(root)
    _pages(root, 300, 8_000)  # a store far larger than the disk
    run = cli("build", *args)
    assert run.code == 3, run.err
    line = error_line(run.err)
    assert re.fullmatch(
        rf"{re.escape(str(state))}: cannot (write to|commit to) the lastmod state store: disk full \(.*\);"
        " the store is as the last build left it, and nothing new was published",
        line,
    ), line
    assert state.read_bytes() == stored
    assert sorted(p.name for p in small_disk.iterdir()) == ["state.sqlite"]  # no journal: rolled back now
    assert output_files(root) == published_before
    with contextlib.closing(sqlite3.connect(state)) as db:
        assert db.execute("SELECT count(*) FROM pages").fetchone() == (300,)


def test_a_store_started_on_a_full_disk_is_not_left_behind(small_disk: Path, tmp_path: Path, cli: CliRunner) -> None:
    root = tmp_path / "site"
    _pages(root, 0, 3)
    fd = os.open(small_disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 4096):
                pass
    finally:
        os.close(fd)
    state = small_disk / "state.sqlite"
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--state-file", state)
    assert run.code == 3, run.err
    assert error_line(run.err).startswith(f"{state}: cannot open the lastmod state store: disk full (")
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]
    assert not (root / "sitemap.xml").exists()


def test_a_file_size_limit_under_the_store_is_one_line_and_loses_nothing(tmp_path: Path) -> None:
    """RLIMIT_FSIZE (``ulimit -f``): SQLite's write fails with EFBIG (Python ignores SIGXFSZ),
    which it calls a disk I/O error; the line says what limit the process runs under."""
    root = tmp_path / "site"
    _pages(root, 0, 300)
    state = tmp_path / "state.sqlite"
    cmd = [sys.executable, "-m", "sitemapgen", "build", str(root), "--base-url", BASE]
    cmd += ["--lastmod", "content", "--state-file", str(state), "--max-urls-per-sitemap", "1000"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    stored, published_before = state.read_bytes(), output_files(root)
    limit = len(stored) + 64 * 1024
    _pages(root, 300, 8_000)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, preexec_fn=limited)
    assert done.returncode == 3, done.stderr
    assert re.fullmatch(
        rf"{re.escape(str(state))}: cannot (write to|commit to) the lastmod state store: disk I/O error"
        rf" \(this process may write no file over {limit:,} bytes: ulimit -f\);"
        " the store is as the last build left it, and nothing new was published",
        error_line(done.stderr),
    ), done.stderr
    assert state.read_bytes() == stored
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("state")) == ["state.sqlite"]
    assert output_files(root) == published_before
