"""An ordered parallel map over batches, with forked workers: the only place processes live.

Work goes out in batches (a list of items each, large enough that pickling is
noise), at most `AHEAD` batches per worker in flight, and comes back in the
order sent: the output is the same whatever the number of workers, and memory
stays flat however many items there are. The first `INLINE` items are done in
this process, so a small site never pays for starting workers.

Workers are forked, so they inherit the function and everything it holds (the
build's rules, git dates, compiled patterns) without pickling any of it; only
the items and the results cross, and the caller keeps both small. Results
of its own types cross as the caller's `Wire` packs them: plain tuples pickle
in C, where a class's own `__reduce__` is a Python call for every item.
The function is bound to its own pool (its workers' initializer gets it), so
maps running at once in one process each run their own. Without fork (Windows),
in a daemonic process (a `multiprocessing.Pool` worker: it may have no
children) and while other threads run (a fork then can deadlock the child, and
Python 3.12+ warns of it), everything runs in this process.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import logging
import math
import multiprocessing
import os
import resource
import signal
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

from sitemapgen.errors import EnvironmentFailure

BATCH = 512  # items per batch: what callers should aim for
INLINE = 1_024  # items done in this process before workers start: less than forking them costs
AHEAD = 4  # batches in flight per worker: enough that none waits while the caller consumes

T = TypeVar("T")
R = TypeVar("R")
C = TypeVar("C")

logger = logging.getLogger(__name__)
_function: Callable[[Any], Any] | None = None  # in a worker only: its pool's batch function (`_worker_init`)
_pack: Callable[[list[Any]], Any] | None = None  # in a worker only: its pool's `Wire.pack`
_PR_SET_PDEATHSIG = 1
_POLL = 1.0  # seconds between checks that the pool is still alive, while waiting on it
_FDS_PER_WORKER = 3  # the ends of two pipes the pool keeps per worker, plus one while forking
_FDS_SPARE = 32  # for the build's own files: a page, a chunk, the index, the store, the journal
#: The garbage collector's thresholds in our own processes (`collect_less`): a collection after
#: 20,000 more objects instead of 700. A build's objects die by reference counting (a head read,
#: a page's outcome, its row: no cycles); what it keeps (the tags read before,
#: `pages.scanner._TAGS`, and everything loaded) the default thresholds looked through again and
#: again (what that cost: docs/performance.md). The cycles there are (bs4's trees, for the few
#: heads only it reads) wait at most that long: with workers, a build whose every head bs4 reads
#: keeps the same peak memory; in one process, a little more (docs/performance.md).
_FEWER_COLLECTIONS = (20_000, 50, 1_000)


def collect_less() -> None:
    """Collect garbage less often, in a process that is ours alone: the ``sitemapgen`` command's
    (`sitemapgen.__main__`) and its workers, not a program that calls the library."""
    gc.set_threshold(*_FEWER_COLLECTIONS)


class Wire(NamedTuple, Generic[R]):
    """How a batch of results crosses from a worker: `pack` there, `unpack` here (into what
    the function returned, in order)."""

    pack: Callable[[list[R]], Any]
    unpack: Callable[[Any], list[R]]


def worker_limit() -> tuple[int, int]:
    """(the most workers the open-file limit leaves room for, that limit).

    Each worker costs the pool descriptors in this process; past the limit,
    starting one fails half-way and the pool waits forever.
    """
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 16, soft
    try:
        in_use = len(os.listdir("/proc/self/fd"))
    except OSError:
        in_use = 16
    return max(1, (soft - in_use - _FDS_SPARE) // _FDS_PER_WORKER), soft


def can_fork() -> bool:
    """Whether workers can be forked here (not on Windows)."""
    return "fork" in multiprocessing.get_all_start_methods()


def usable_cpus(cgroup_root: Path = Path("/sys/fs/cgroup"), membership: Path = Path("/proc/self/cgroup")) -> int:
    """The CPUs this process may use: those its affinity allows, bounded by its cgroup's CPU quota
    (a container's `--cpus`), not the machine's count. `membership` names the process's cgroups
    under `cgroup_root` (both parameters for tests)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on macOS or Windows
        cpus = os.cpu_count() or 1
    quota = cgroup_cpu_quota(cgroup_root, membership)
    if quota is not None:
        cpus = min(cpus, max(1, math.ceil(quota)))
    return max(1, cpus)


def cgroup_cpu_quota(root: Path, membership: Path) -> float | None:
    """The CPU time per period the process's cgroups allow it, in CPUs (the tightest of its
    cgroup and those above it), or None for no quota (or none readable). cgroup v2 says it in
    ``cpu.max`` ("200000 100000", or "max 100000"), v1 in ``cpu.cfs_quota_us`` (-1: none) over
    ``cpu.cfs_period_us``."""
    try:
        lines = membership.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    v2 = "/"
    v1 = "/"
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":
            v2 = path or "/"
        elif "cpu" in controllers.split(","):
            v1 = path or "/"
    limits = [q for d in _up(root, v2) if (q := _v2_quota(d / "cpu.max")) is not None]
    for mount in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
        limits += [q for d in _up(root / mount, v1) if (q := _v1_quota(d)) is not None]
    return min(limits, default=None)


def _up(root: Path, path: str) -> list[Path]:
    """`root` joined with `path` and each folder above it, up to `root`."""
    parts = [p for p in path.split("/") if p and p not in (".", "..")]
    return [root.joinpath(*parts[:n]) for n in range(len(parts), -1, -1)]


def _v2_quota(path: Path) -> float | None:
    try:
        quota, period = path.read_text().split()[:2]
        return int(quota) / int(period) if quota != "max" and int(period) > 0 and int(quota) > 0 else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _v1_quota(folder: Path) -> float | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return quota / period if quota > 0 and period > 0 else None


def _why_not_fork() -> str | None:
    """Why workers must not be forked here and now, or None: a daemonic process may have no
    children, and a fork while another thread runs can deadlock the child (a lock that thread
    held stays held in it; Python 3.12+ warns of it). Threads are counted as the OS sees them
    where it says (Linux: those of C libraries too, as Python's own warning counts them)."""
    if multiprocessing.current_process().daemon:
        return "a daemonic process (a multiprocessing pool's worker) may start no worker processes"
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        threads = threading.active_count()
    if threads > 1:
        return "other threads run in this process, and a worker forked now could deadlock"
    return None


def _worker_init(parent: int, function: Callable[[Any], Any], pack: Callable[[list[Any]], Any] | None) -> None:
    """Ctrl-C reaches every process of the group: the parent handles it and shuts
    the workers down, so they must not each print a traceback. SIGTERM gets its
    default action back (the parent's handler is inherited at fork): a worker
    dies of it at once and quietly, which is how the pool itself stops workers
    when it breaks (`Process.terminate`); a worker that ignored it would be
    waited for forever. A worker holds nothing of the caller's: its stdin,
    stdout and stderr are /dev/null (its errors travel back to the parent as
    exceptions), so a pipe the caller reads closes when the parent exits. On
    Linux a worker also dies with its parent, even by SIGKILL, instead of
    running on, orphaned (the output directory's lock is closed at fork, see
    `outdir`). What the worker inherits lives as long as it does, so the
    garbage collector is told to leave it alone (`gc.freeze`): its collections
    then look at what the worker made since, and they no longer write to the
    pages shared with the parent;
    and it collects less often (`collect_less`).
    `function` is what the worker runs: given here, by its own pool (with fork
    nothing is pickled), so two pools never run each other's; `pack`, its `Wire`'s."""
    global _function, _pack
    _function, _pack = function, pack
    gc.freeze()
    collect_less()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _run(batch: Sequence[Any]) -> Any:
    """A worker's task: its pool's function over one batch, packed."""
    function = _function
    assert function is not None
    results = function(batch)
    return results if _pack is None else _pack(results)


def each(function: Callable[[T], R]) -> Callable[[Sequence[T]], list[R]]:
    """The batch function (what `ordered_map` runs) that calls `function` on each item."""
    return functools.partial(_each, function)


def _each(function: Callable[[T], R], items: Sequence[T]) -> list[R]:
    return [function(item) for item in items]


def ordered_map(
    function: Callable[[Sequence[T]], list[R]],
    tasks: Iterable[tuple[Sequence[T], C]],
    *,
    jobs: int,
    wire: Wire[R] | None = None,
) -> Iterator[tuple[list[R], C]]:
    """`function` over each task's items, yielded per task, in the order of `tasks`.

    A task is (items, context); `function` takes a task's items and gives their
    results (`each` makes one of a function of an item), in one call, so that
    work shared by a batch's items is done once. The context comes back
    untouched beside the results, for the caller to put them in place. `jobs` is the number of
    worker processes (1: none); `wire`, how their results cross. A worker that dies is a `SitemapgenError`.
    Where workers cannot be started safely (see `_why_not_fork`), all runs
    here, and an info line says why.
    """
    tasks = iter(tasks)
    inline = 0
    for items, context in tasks:
        yield function(items), context
        inline += len(items)
        if jobs > 1 and inline >= INLINE and can_fork():
            break
    else:
        return
    why = _why_not_fork()
    if why is not None:
        logger.info("working in this process, not in %d worker processes: %s", jobs, why)
        for items, context in tasks:
            yield function(items), context
        return
    pool = ProcessPoolExecutor(
        jobs,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_init,
        initargs=(os.getpid(), function, None if wire is None else wire.pack),
    )
    unpack: Callable[[Any], list[R]] = (lambda results: results) if wire is None else wire.unpack
    pending: deque[tuple[C, Future[Any]]] = deque()
    finished = False
    _quiet_pool_threads(pool)
    try:
        for items, context in tasks:
            pending.append((context, _submit(pool, items)))
            while len(pending) >= AHEAD * jobs:
                done, future = pending.popleft()
                yield unpack(_result(pool, future)), done
        while pending:
            done, future = pending.popleft()
            yield unpack(_result(pool, future)), done
        finished = True
    except BrokenProcessPool as e:
        raise EnvironmentFailure(
            "a worker process died (out of memory?); nothing new was published. Try again, or with --jobs 1"
        ) from e
    finally:
        _shut_down(pool, wait=finished)
        _hear_pool_threads(pool)


_pools: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()  # pools whose threads `_hook` quiets
_pools_lock = threading.Lock()
_previous_hook: Callable[[threading.ExceptHookArgs], Any] | None = None  # what `_hook` replaced


def _hook(args: threading.ExceptHookArgs) -> None:
    """`threading.excepthook` while a pool runs: a pool's own thread that the machine fails (no
    memory for a thread) prints no traceback (`_result` and `_submit` say it in one line);
    any other thread's exception goes to the hook this one replaced."""
    owner = getattr(args.thread, "executor_reference", None)  # the pool's thread's (not public)
    pool = owner() if callable(owner) else None
    if pool is not None and pool in _pools and isinstance(args.exc_value, RuntimeError | MemoryError):
        return
    previous = _previous_hook or threading.__excepthook__
    previous(args)


def _quiet_pool_threads(pool: ProcessPoolExecutor) -> None:
    """Quiet `pool`'s threads: `_hook` is installed by the first pool running, for all of them."""
    global _previous_hook
    with _pools_lock:
        if not _pools and threading.excepthook is not _hook:
            _previous_hook = threading.excepthook
            threading.excepthook = _hook
        _pools.add(pool)


def _hear_pool_threads(pool: ProcessPoolExecutor) -> None:
    """`pool` is done: the last pool running puts back the hook `_hook` replaced (unless the
    program has set another since: that one stays)."""
    global _previous_hook
    with _pools_lock:
        _pools.discard(pool)
        if not _pools and threading.excepthook is _hook:
            threading.excepthook = _previous_hook or threading.__excepthook__
            _previous_hook = None


def _result(pool: ProcessPoolExecutor, future: Future[Any]) -> Any:
    """The future's result; an error, not a wait forever, if the pool's own thread has died
    (it does when it cannot start a thread of its own: no memory left for the stack)."""
    while True:
        try:
            return future.result(timeout=_POLL)
        except TimeoutError:
            manager = getattr(pool, "_executor_manager_thread", None)  # not public: best effort
            if manager is not None and not manager.is_alive() and not future.done():
                raise EnvironmentFailure(
                    "the worker pool stopped (out of memory?); nothing new was published. Try --jobs 1"
                ) from None


def _submit(pool: ProcessPoolExecutor, items: Sequence[Any]) -> Future[Any]:
    """Hand a batch to the pool; the pool's own thread that cannot start (no memory left for
    its stack) is the machine failing, not a bug."""
    try:
        return pool.submit(_run, items)
    except BrokenProcessPool:  # a RuntimeError too: a worker died, said by the caller
        raise
    except RuntimeError as e:
        raise EnvironmentFailure(
            f"cannot start the worker pool ({e}: out of memory?); nothing new was published. Try --jobs 1"
        ) from e


#: How long a failed build waits, at most, for its workers to finish the batches they hold.
_GRACE = 5.0


def _shut_down(pool: ProcessPoolExecutor, *, wait: bool) -> None:
    """Shut the pool down; after a failure, without waiting on workers that may never answer
    (a pool whose thread never started), by killing them."""
    if wait:
        pool.shutdown(wait=True, cancel_futures=True)
        return
    processes = dict(getattr(pool, "_processes", None) or {})  # not public: best effort
    manager = getattr(pool, "_executor_manager_thread", None)  # the same; gone after `shutdown`
    pool.shutdown(wait=False, cancel_futures=True)
    # A worker killed while it sends a result leaves half a message, which the pool's thread
    # then waits for forever, and the interpreter's exit with it: the batches in hand (a few,
    # small) are let finish first, and only a worker that does not is killed.
    for process in processes.values():
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join(_GRACE)
    for process in processes.values():
        with contextlib.suppress(OSError, ValueError, AttributeError):
            if process.is_alive():
                process.kill()
    for process in processes.values():
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join(5)
    # The pool's own thread reaps the workers too: one it has reaped is a child of this process
    # (`multiprocessing.active_children`) until that thread has noted its end. It ends once they
    # have; joined, no worker outlives the map. (Not started, as where no thread can start: no
    # thread to join, and `join` would raise.)
    if manager is not None and manager.is_alive() and manager is not threading.current_thread():
        manager.join(_GRACE)
