"""The live page count a build shows on stderr, when a person is watching a terminal."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

from sitemapgen.cli.streams import Guarded, is_terminal


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
