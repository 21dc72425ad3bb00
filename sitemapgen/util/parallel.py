"""An ordered parallel map over batches, with forked workers: the only place processes live.

Work goes out in batches (a list of items each, large enough that pickling is
noise), at most `AHEAD` batches per worker in flight, and comes back in the
order sent: the output is the same whatever the number of workers, and memory
stays flat however many items there are. The first `INLINE` items are done in
this process, so a small site never pays for starting workers.

Workers are forked, so they inherit the function and everything it holds (the
build's rules, git dates, compiled patterns) without pickling any of it; only
the items and the results cross, and the caller keeps both small (plain
tuples where it can: a dataclass costs about five times as much to send).
Without fork (Windows), everything runs in this process.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import resource
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from sitemapgen.errors import EnvironmentFailure

BATCH = 512  # items per batch: what callers should aim for
INLINE = 1_024  # items done in this process before workers start (pages with real heads: ~75 ms)
AHEAD = 4  # batches in flight per worker: enough that none waits while the caller consumes

T = TypeVar("T")
R = TypeVar("R")
C = TypeVar("C")

_FUNCTION: Callable[[Any], Any] | None = None  # what forked workers inherit and run
_PR_SET_PDEATHSIG = 1
_POLL = 1.0  # seconds between checks that the pool is still alive, while waiting on it
_FDS_PER_WORKER = 3  # the ends of two pipes the pool keeps per worker, plus one while forking
_FDS_SPARE = 32  # for the build's own files: a page, a chunk, the index, the store, the journal


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


def _worker_init(parent: int) -> None:
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
    then look at what the worker made since, 5% of a worker's time less on
    real heads, and they no longer write to the pages shared with the parent."""
    gc.freeze()
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


def _run(batch: Sequence[Any]) -> list[Any]:
    """A worker's task: the inherited function over one batch."""
    function = _FUNCTION
    assert function is not None
    return [function(item) for item in batch]


def ordered_map(
    function: Callable[[T], R], tasks: Iterable[tuple[Sequence[T], C]], *, jobs: int
) -> Iterator[tuple[list[R], C]]:
    """`function` over each task's items, yielded per task, in the order of `tasks`.

    A task is (items, context); the context comes back untouched beside the
    results, for the caller to put them in place. `jobs` is the number of
    worker processes (1: none). A worker that dies is a `SitemapgenError`.
    """
    global _FUNCTION
    tasks = iter(tasks)
    inline = 0
    for items, context in tasks:
        yield [function(item) for item in items], context
        inline += len(items)
        if jobs > 1 and inline >= INLINE and can_fork():
            break
    else:
        return
    _FUNCTION = function  # inherited by the forked workers
    pool = ProcessPoolExecutor(
        jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init, initargs=(os.getpid(),)
    )
    pending: deque[tuple[C, Future[list[R]]]] = deque()
    finished = False
    previous_hook = threading.excepthook
    threading.excepthook = _quiet_pool_threads(previous_hook)
    try:
        for items, context in tasks:
            pending.append((context, _submit(pool, items)))
            while len(pending) >= AHEAD * jobs:
                done, future = pending.popleft()
                yield _result(pool, future), done
        while pending:
            done, future = pending.popleft()
            yield _result(pool, future), done
        finished = True
    except BrokenProcessPool as e:
        raise EnvironmentFailure(
            "a worker process died (out of memory?); nothing new was published. Try again, or with --jobs 1"
        ) from e
    finally:
        _shut_down(pool, wait=finished)
        threading.excepthook = previous_hook
        _FUNCTION = None


def _quiet_pool_threads(
    previous: Callable[[threading.ExceptHookArgs], Any],
) -> Callable[[threading.ExceptHookArgs], Any]:
    """A hook that keeps the pool's threads from printing a traceback when the machine fails them
    (`_result` turns it into one line); any other thread's exception is printed as before."""

    def hook(args: threading.ExceptHookArgs) -> None:
        if isinstance(args.exc_value, RuntimeError | MemoryError):
            return
        previous(args)

    return hook


def _result(pool: ProcessPoolExecutor, future: Future[list[R]]) -> list[R]:
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


def _submit(pool: ProcessPoolExecutor, items: Sequence[Any]) -> Future[list[Any]]:
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
