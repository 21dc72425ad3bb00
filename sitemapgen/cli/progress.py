"""The live page count a build shows on stderr, when a person is watching a terminal."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

from sitemapgen.util.streams import Guarded, is_terminal


@contextlib.contextmanager
def progress(enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A live page count on stderr, only when a person is watching a terminal.

    Refreshed by the build's own calls, never by a thread of rich's: workers are
    forked, and a fork while another thread runs can deadlock the child. Drawn
    through `Guarded`: a terminal that goes away stops the drawing, not the build.
    """
    stderr = sys.stderr
    if not enabled or stderr is None or not is_terminal(stderr):
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.completed:,} pages"),
        TimeElapsedColumn(),
        console=Console(file=Guarded(stderr)),  # type: ignore[arg-type]  # a file as rich uses one
        transient=True,
        auto_refresh=False,
    ) as bar:
        task = bar.add_task("walk", total=None)
        shown = 0.0

        def update(n: int) -> None:
            nonlocal shown
            bar.update(task, completed=n)
            now = time.monotonic()
            if now - shown >= 0.1:
                bar.refresh()
                shown = now

        yield update


@contextlib.contextmanager
def counted(enabled: bool, what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A bar of (done, of so many) `what` on stderr, only when a person is watching a terminal
    and only once the run has taken a second: a quick run draws nothing."""
    stderr = sys.stderr
    if not enabled or stderr is None or not is_terminal(stderr):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    started = time.monotonic()
    shown = 0.0
    bar = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=Guarded(stderr)),  # type: ignore[arg-type]  # a file as rich uses one
        transient=True,
        auto_refresh=False,
    )
    task = bar.add_task(what, total=None)

    def update(done: int, total: int) -> None:
        nonlocal shown
        now = time.monotonic()
        if now - started < 1.0 or now - shown < 0.1:
            return
        if not bar.live.is_started:
            bar.start()
        bar.update(task, completed=done, total=total)
        bar.refresh()
        shown = now

    try:
        yield update
    finally:
        if bar.live.is_started:
            bar.stop()
