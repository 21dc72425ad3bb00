"""Type aliases shared by every stage, written once."""

from __future__ import annotations

from collections.abc import Callable

#: Where a stage says a warning: one line, for the user (the CLI prints it; the library logs it).
Warn = Callable[[str], None]


class Notice(str):
    """A line said through `Warn` that reports no fault: what a healthy first build does (starting
    the content store). The CLI prints it as a warning; a host whose strict mode fails a build on
    any warning (MkDocs' ``--strict``, ``sphinx-build -W``) logs it at info level instead."""

    __slots__ = ()
