"""The ordered parallel map: same results in the same order whatever the workers; no orphans."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Generator, Sequence
from pathlib import Path

import pytest

from sitemapgen.errors import EnvironmentFailure, SitemapgenError
from sitemapgen.util.parallel import INLINE, Wire, each, ordered_map, usable_cpus

from ..conftest import BASE
from ..helpers import (
    html,
    locs,
    make_tree,
)

pytestmark = pytest.mark.forks  # else no worker starts


def _square(n: int) -> tuple[int, int]:
    return n, n * n


def _tasks(count: int, size: int) -> list[tuple[list[int], str]]:
    return [(list(range(i * size, (i + 1) * size)), f"batch {i}") for i in range(count)]


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_come_back_in_order_with_their_context(jobs: int) -> None:
    tasks = _tasks(40, 256)  # 10,240 items: past the inline start, so workers run
    assert 40 * 256 > INLINE
    results = list(ordered_map(each(_square), tasks, jobs=jobs))
    assert [context for _, context in results] == [context for _, context in tasks]
    assert [pair for batch, _ in results for pair in batch] == [(n, n * n) for n in range(40 * 256)]


def _batch_seen(items: Sequence[int]) -> list[tuple[int, int, int]]:
    """Each item with the size of the batch it came in, and the process that saw it."""
    return [(n, len(items), os.getpid()) for n in items]


def test_a_batch_is_one_call_of_the_function_in_a_worker_or_here() -> None:
    """The function gets a task's items together (a build's work shared by a batch is done
    once), in the workers as in this process."""
    sizes = [300, 1, 512, 7] * 10  # 8,200 items: past the inline start, so workers run
    tasks = [(list(range(sum(sizes[:i]), sum(sizes[: i + 1]))), i) for i in range(len(sizes))]
    results = list(ordered_map(_batch_seen, tasks, jobs=2))
    assert [context for _, context in results] == list(range(len(sizes)))
    assert [n for batch, _ in results for n, _, _ in batch] == list(range(sum(sizes)))
    assert [{size for _, size, _ in batch} for batch, _ in results] == [{size} for size in sizes]
    assert {pid for batch, _ in results for _, _, pid in batch} - {os.getpid()}  # workers ran some


def test_no_tasks_no_results() -> None:
    assert list(ordered_map(each(_square), [], jobs=2)) == []


_PARENT = os.getpid()


def _dies(n: int) -> int:
    if n >= INLINE:
        assert os.getpid() != _PARENT, "run in the test's own process, not in a worker"
        os._exit(9)  # as the OOM killer would end a worker
    return n


def test_a_worker_that_dies_is_a_clear_error() -> None:
    with pytest.raises(SitemapgenError, match="a worker process died"):
        list(ordered_map(each(_dies), _tasks(20, 512), jobs=2))


_ORPHANS = """
import os, sys, time
from sitemapgen.util.parallel import INLINE, each, ordered_map

def slow(n):
    if n >= INLINE:  # in the workers: slow enough that they are still busy when the parent dies
        time.sleep(0.005)
    return os.getpid()

seen = set()
for batch, _ in ordered_map(each(slow), [(list(range(i * 64, (i + 1) * 64)), i) for i in range(1000)], jobs=2):
    new = set(batch) - seen - {os.getpid()}
    if new:
        seen |= new
        print(" ".join(map(str, sorted(new))), flush=True)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux's")
def test_workers_die_with_a_killed_parent() -> None:
    with subprocess.Popen([sys.executable, "-c", _ORPHANS], stdout=subprocess.PIPE, text=True) as parent:
        assert parent.stdout is not None
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert workers
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert not [pid for pid in workers if _alive(pid)]


def _no_thread(self: object) -> None:
    raise RuntimeError("can't start new thread")  # what a small address-space limit does


def test_a_pool_whose_thread_cannot_start_is_an_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a small memory limit the pool's own thread dies starting its queue's thread: the
    map must say so at once, print no traceback, and leave no worker behind. Which words it
    says depends on the Python: up to 3.11 the pool's thread dies ("the worker pool stopped"),
    from 3.12 on the pool catches it and calls itself broken ("a worker process died") and
    stops its workers with SIGTERM, which they must not ignore (they did: a hang)."""
    import multiprocessing.queues

    monkeypatch.setattr(multiprocessing.queues.Queue, "_start_thread", _no_thread)
    started = time.monotonic()
    with pytest.raises(EnvironmentFailure, match="^(the worker pool stopped|a worker process died) .*nothing new"):
        list(ordered_map(each(_square), _tasks(20, 512), jobs=2))
    assert time.monotonic() - started < 15
    assert multiprocessing.active_children() == []


def test_a_map_closed_while_its_workers_run_has_ended_its_pool_when_close_returns() -> None:
    """An interrupted build closes its rows, and the map with them: when `close` returns, no
    worker is a child of this process any more, and the pool's own thread is gone. That thread
    reaps workers too: one it had reaped but not yet noted as ended was still a child here, for
    `multiprocessing.active_children`, after the map had returned (seen under load, in CI)."""
    for _ in range(3):
        before = set(threading.enumerate())
        results = ordered_map(each(_square), _tasks(40, 512), jobs=2)
        for _ in range(4):  # past the inline start: the pool's workers run
            next(results)
        assert isinstance(results, Generator)  # as `build` closes its rows
        results.close()
        assert multiprocessing.active_children() == []
        assert [thread.name for thread in threading.enumerate() if thread not in before] == []


def test_a_pool_whose_own_thread_cannot_start_is_an_error_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's own thread, not its queue's, cannot start: the map says so in its own words,
    and ends the workers the pool forked first; there is no thread of the pool to join."""
    import concurrent.futures.process

    start = threading.Thread.start

    def no_manager(thread: threading.Thread) -> None:
        if isinstance(thread, concurrent.futures.process._ExecutorManagerThread):
            raise RuntimeError("can't start new thread")
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", no_manager)
    with pytest.raises(EnvironmentFailure, match="^cannot start the worker pool .*nothing new was published"):
        list(ordered_map(each(_square), _tasks(20, 512), jobs=2))
    assert multiprocessing.active_children() == []


def test_jobs_beyond_the_open_file_limit_are_bounded(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {f"d{i // 500}/p{i}.html": html() for i in range(3_000)})
    code = (
        "import resource, sys; from sitemapgen.cli.program import main;"
        " resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48));"
        f" sys.exit(main(['build', {str(root)!r}, '--base-url', {BASE!r}, '--jobs', '64', '--quiet']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("warning: --jobs 64: the open-file limit (48) leaves room for "), done.stderr
    assert len(locs(root, BASE)) == 3_000


def _fail() -> None:
    raise RuntimeError("the host's own error")


def _raise_in_a_thread() -> None:
    thread = threading.Thread(target=_fail)
    thread.start()
    thread.join()


def test_maps_at_once_leave_the_hosts_thread_hook_and_pass_it_its_errors() -> None:
    """Two maps under way at once, the first to start ending first (as two builds in a host's
    threads can; the second sees the first's pool threads and reads its items itself): the
    host's hook hears its threads' errors during and after, and is the hook after."""
    heard: list[str] = []
    before = threading.excepthook

    def host_hook(args: threading.ExceptHookArgs) -> None:
        heard.append(str(args.exc_value))

    threading.excepthook = host_hook
    try:
        first = ordered_map(each(_square), _tasks(20, 512), jobs=2)
        second = ordered_map(each(_square), _tasks(20, 512), jobs=2)
        for _ in range(INLINE // 512 + 2):  # past the items done inline: the first's pool runs
            next(first)
            next(second)
        _raise_in_a_thread()
        assert len(list(first)) == len(list(second)) == 20 - INLINE // 512 - 2
        assert threading.excepthook is host_hook
        _raise_in_a_thread()
        assert heard == ["the host's own error"] * 2
    finally:
        threading.excepthook = before


def _cgroups(root: Path, files: dict[str, str], membership: str) -> tuple[Path, Path]:
    make_tree(root / "fs", files)
    (root / "cgroup").write_text(membership)
    return root / "fs", root / "cgroup"


_V2 = "0::/user.slice/build.scope\n"
_V1 = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n"


@pytest.mark.parametrize(
    ("files", "membership", "cpus"),
    [
        pytest.param({"cpu.max": "100000 100000\n"}, "0::/\n", 1, id="v2-one-cpu"),
        pytest.param({"user.slice/build.scope/cpu.max": "150000 100000\n"}, _V2, 2, id="v2-one-and-a-half-up"),
        pytest.param({"user.slice/build.scope/cpu.max": "50000 100000\n"}, _V2, 1, id="v2-half-a-cpu"),
        pytest.param(
            {"user.slice/build.scope/cpu.max": "max 100000\n", "user.slice/cpu.max": "100000 100000\n"},
            _V2,
            1,
            id="v2-the-parents-quota",
        ),
        pytest.param(
            {
                "cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "100000\n",
                "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
            },
            _V1,
            1,
            id="v1-one-cpu",
        ),
        pytest.param(
            {"cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"},
            _V1,
            None,
            id="v1-no-quota",
        ),
        pytest.param({"cpu.max": "max 100000\n"}, "0::/\n", None, id="v2-no-quota"),
        pytest.param({"cpu.max": "garbage\n"}, "0::/\n", None, id="v2-unreadable"),
        pytest.param({}, "", None, id="no-cgroups"),
    ],
)
def test_workers_by_default_are_the_cpus_the_cgroup_allows(
    tmp_path: Path, files: dict[str, str], membership: str, cpus: int | None
) -> None:
    root, member = _cgroups(tmp_path, files, membership)
    allowed = len(os.sched_getaffinity(0))
    assert usable_cpus(root, member) == (allowed if cpus is None else min(cpus, allowed))


def _packed_here(results: list[tuple[int, int]]) -> tuple[int, list[tuple[int, int]]]:
    return os.getpid(), results


def test_a_wire_packs_in_the_worker_and_unpacks_here() -> None:
    packers: set[int] = set()

    def unpack(packed: tuple[int, list[tuple[int, int]]]) -> list[tuple[int, int]]:
        pid, results = packed
        packers.add(pid)
        return results

    tasks = _tasks(40, 256)
    results = list(ordered_map(each(_square), tasks, jobs=2, wire=Wire(_packed_here, unpack)))
    assert [pair for batch, _ in results for pair in batch] == [(n, n * n) for n in range(40 * 256)]
    assert packers  # the workers packed what they sent
    assert os.getpid() not in packers  # and nothing done here was packed
