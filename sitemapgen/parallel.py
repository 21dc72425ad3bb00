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

import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from .errors import SitemapgenError

BATCH = 512  # items per batch: what callers should aim for
INLINE = 2_048  # items done in this process before workers are started
AHEAD = 4  # batches in flight per worker: enough that none waits while the caller consumes

T = TypeVar("T")
R = TypeVar("R")
C = TypeVar("C")

_FUNCTION: Callable[[Any], Any] | None = None  # what forked workers inherit and run
_PR_SET_PDEATHSIG = 1


def can_fork() -> bool:
    """Whether workers can be forked here (not on Windows)."""
    return "fork" in multiprocessing.get_all_start_methods()


def _worker_init(parent: int) -> None:
    """Ctrl-C reaches the whole process group: the parent handles it and shuts the
    workers down, so they must not each print a traceback. On Linux a worker also
    dies with its parent, even by SIGKILL, instead of running on, orphaned."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
    try:
        for items, context in tasks:
            pending.append((context, pool.submit(_run, items)))
            while len(pending) >= AHEAD * jobs:
                done, future = pending.popleft()
                yield future.result(), done
        while pending:
            done, future = pending.popleft()
            yield future.result(), done
    except BrokenProcessPool as e:
        raise SitemapgenError(
            "a worker process died (out of memory?); nothing new was published. Try again, or with --jobs 1"
        ) from e
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _FUNCTION = None
