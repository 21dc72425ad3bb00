"""The fault hook: a build that stops itself at a chosen file operation, to prove each is safe.

The crash tests run a build once per file operation it makes (opening,
fsyncing, renaming, removing a file), killing it at that step, and check that
the published set is the old one or the new one, whole, every time. The
Ctrl-C tests send SIGINT to the process group at a step instead.
"""

from __future__ import annotations

import os
import signal

#: Set to N to have the process kill itself (SIGKILL) at its N-th file
#: operation: the hook the crash tests use to prove every step is safe.
#: ``N:INT`` sends SIGINT to its process group instead, as Ctrl-C in a terminal does;
#: ``N:TERM`` sends SIGTERM to the process alone, as ``kill PID`` (or a CI runner) does.
FAULT_ENV = "SITEMAPGEN_FAULT_AT"


def _checkpoint() -> None:
    """Nothing: calling a Python function is where pending signal handlers run."""


class Faults:
    """Counts file operations; stops the process at the one `FAULT_ENV` names."""

    def __init__(self) -> None:
        at, _, how = os.environ.get(FAULT_ENV, "").partition(":")
        self.at = int(at) if at.isdigit() else 0
        self.how = how
        self.count = 0

    def step(self) -> None:
        self.count += 1
        if self.count != self.at:
            return
        if self.how in ("INT", "TERM"):
            if self.how == "INT":
                os.killpg(os.getpgrp(), signal.SIGINT)
            else:
                os.kill(os.getpid(), signal.SIGTERM)
            _checkpoint()  # a Python call: its handler runs, and the exception rises, right here
        else:
            os.kill(os.getpid(), signal.SIGKILL)
