"""Type aliases shared by every stage, written once."""

from __future__ import annotations

from collections.abc import Callable

#: Where a stage says a warning: one line, for the user (the CLI prints it; the library logs it).
Warn = Callable[[str], None]
