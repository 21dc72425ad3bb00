"""The live count a command shows on stderr, when a person is watching a terminal: `build`'s pages
walked, `verify`'s pages fetched of those to fetch."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Protocol

from sitemapgen.util.streams import Guarded, is_terminal


class Update(Protocol):
    def __call__(self, done: int, total: int | None = None) -> None: ...


@contextlib.contextmanager
def progress(enabled: bool, what: str = "pages", *, delay: float = 0.0) -> Iterator[Update | None]:
    """A live count of `what` on stderr (a spinner and the count; a bar once a total is told),
    only when a person is watching a terminal, and only once the run has taken `delay` seconds:
    a quick run draws nothing.

    Refreshed by the command's own calls, never by a thread of rich's: workers are forked, and a
    fork while another thread runs can deadlock the child. Drawn through `Guarded`: a terminal
    that goes away stops the drawing, not the command.
    """
    stderr = sys.stderr
    if not enabled or stderr is None or not is_terminal(stderr):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    started, shown = time.monotonic(), 0.0
    counting = (SpinnerColumn(), TextColumn(f"{{task.completed:,}} {what}"))
    of_total = (TextColumn(what), BarColumn(), MofNCompleteColumn())
    bar: Progress | None = None

    def update(done: int, total: int | None = None) -> None:
        nonlocal shown, bar
        now = time.monotonic()
        if now - started < delay or now - shown < 0.1:
            return
        if bar is None:
            columns = counting if total is None else of_total
            console = Console(file=Guarded(stderr))  # type: ignore[arg-type]  # a file as rich uses one
            bar = Progress(*columns, TimeElapsedColumn(), console=console, transient=True, auto_refresh=False)
            bar.add_task(what, total=total)
            bar.start()
        bar.update(bar.task_ids[0], completed=done, total=total)
        bar.refresh()
        shown = now

    try:
        yield update
    finally:
        if bar is not None:
            bar.stop()
