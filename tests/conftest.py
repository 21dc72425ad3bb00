from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitemapgen.cli.program import main
from sitemapgen.util import parallel

from .helpers import Files, make_tree

# A suite started in the background of a script (`make test &`, `nohup ... &`) inherits Ctrl-C
# ignored (POSIX: an asynchronous list ignores SIGINT), and so would every program a test runs:
# the tests that stop a build or `mkdocs serve` with Ctrl-C would see it ignored. Taken back here,
# as a terminal's foreground job has it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

BASE = "https://example.com/"


@pytest.fixture(autouse=True)
def _isolated_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every test in an empty directory: no repo config file may leak in."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)


def _threads() -> set[str]:
    try:
        return set(os.listdir("/proc/self/task"))  # as `util.parallel` counts them
    except OSError:
        return {str(t.native_id) for t in threading.enumerate()}


# `make unit` runs the tests on every CPU with pytest-xdist. Each xdist worker has a thread of
# execnet's beside the tests' (it talks to the controller), so a fork there is not what it is in a
# plain run: a build reads its pages itself instead of forking workers (`util.parallel`), and
# Python 3.12+ warns of os.fork. A test that forks the test process, or needs a build in it to fork
# its workers, is marked `forks`: make unit runs those in a plain pytest process beside the others
# (a worker skips them), where each first waits for the threads earlier tests left ending. In a
# worker, a test that forks unmarked fails, saying so.
_worker_threads: set[str] = set()  # in an xdist worker: its main thread and execnet's; else empty
_forked: list[str] = []  # in an xdist worker: how the running test forked, or would have


def _fork_seen() -> None:
    caller = sys._getframe(1).f_globals.get("__name__")
    if caller != "subprocess":  # a Popen's preexec_fn: its child execs at once (Python does not warn)
        _forked.append(f"forked the test process ({caller})")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker
        _worker_threads.update(_threads())
        os.register_at_fork(before=_fork_seen)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _worker_threads:
        skip = pytest.mark.skip(reason="marked forks: it runs without xdist (make unit runs it beside the others)")
        for item in items:
            if item.get_closest_marker("forks"):
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _forks_where_it_may(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Marked `forks`: wait for the threads earlier tests left ending (a test server's handler
    threads), and fail naming them if they do not end. In an xdist worker: fail a test that forks
    unmarked."""
    if not _worker_threads:
        if request.node.get_closest_marker("forks"):
            deadline = time.monotonic() + 10
            while len(_threads()) > 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert len(_threads()) == 1, f"other threads still run: {threading.enumerate()}"
        yield
        return
    why_not_fork = parallel._why_not_fork

    def spy() -> str | None:
        why = why_not_fork()
        if why is not None and not multiprocessing.current_process().daemon and _threads() <= _worker_threads:
            _forked.append("a build would have forked its workers (only execnet's thread stopped it)")
        return why

    monkeypatch.setattr(parallel, "_why_not_fork", spy)
    _forked.clear()
    yield
    if _forked:
        pytest.fail(f"{_forked[0]}: mark the test `@pytest.mark.forks` (see tests/conftest.py)", pytrace=False)


# What ram_tmp needs free on /dev/shm to use it: /dev/shm peaked at about 80 MiB used while
# the tests that use it ran (2026-11); a small or nearly full one (as in a container) is not used.
RAM_TMP_MIN_FREE = 512 * 1024 * 1024


def _shm_usable(shm: Path) -> bool:
    if not (shm.is_dir() and os.access(shm, os.W_OK | os.X_OK)):
        return False
    try:
        stat = os.statvfs(shm)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize >= RAM_TMP_MIN_FREE


@pytest.fixture
def ram_tmp(tmp_path: Path) -> Iterator[Path]:
    """A scratch directory on tmpfs where there is one with room, else tmp_path.

    For trees of tens of thousands of files: on this kind of VM disk, creating
    them costs from 2 to 30 seconds depending on load, on tmpfs half a second.
    What is tested (chunking at the protocol's limits) does not depend on the disk.
    """
    shm = Path("/dev/shm")
    if not _shm_usable(shm):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="sitemapgen-test-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 256 KiB file system (tmpfs), where mounting one is allowed (root, as in CI)."""
    mountpoint = tmp_path / "disk"
    mountpoint.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mountpoint)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", str(mountpoint)], check=True)


SiteFactory = Callable[[Files], Path]


@pytest.fixture
def site(tmp_path: Path) -> SiteFactory:
    """A docroot in tmp_path built from {relative path: content}."""

    def make(files: Files) -> Path:
        return make_tree(tmp_path / "public", files)

    return make


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


CliRunner = Callable[..., Run]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> CliRunner:
    """Run the CLI in-process, as `sitemapgen ARGS...`."""

    def run(*args: str | Path) -> Run:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run
