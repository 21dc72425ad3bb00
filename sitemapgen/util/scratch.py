"""A build's own temporary files and databases, unnamed and gone once closed (the hreflang
check's, llms.txt's lines, the previous deploy's URLs): where the machine gives them no room,
one line that names where."""

from __future__ import annotations

import contextlib
import os
import pickle
import sqlite3
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from sitemapgen.errors import EnvironmentFailure


def pickled(file: IO[bytes]) -> Iterator[Any]:
    """What was pickled to `file`, a batch at a time, from where it stands to its end."""
    while True:
        try:
            yield pickle.load(file)
        except EOFError:
            return


def no_room(what: str, error: OSError | sqlite3.Error) -> str:
    """The words for a temporary file or database, keeping `what`, that failed with `error`,
    naming the directory it was in: Python's files go in `tempfile.gettempdir()`; SQLite picks
    its own, the first it may write to, full or not (the two differ where ``TMPDIR`` names a
    full disk: Python then falls back to another)."""
    if isinstance(error, OSError):
        where, reason = tempfile.gettempdir(), error.strerror or str(error)
    else:
        where = os.environ.get("SQLITE_TMPDIR") or os.environ.get("TMPDIR") or "/var/tmp or /tmp"
        reason = str(error)
    return f"cannot keep {what} in a temporary file ({where}): {reason}"


@contextlib.contextmanager
def kept_aside(what: str, *, database_only: bool = False) -> Iterator[None]:
    """Around what reads or writes the build's own temporary files or database, which keep
    `what` ("llms.txt's lines"): their failure (a temporary directory full, gone or read-only)
    is the machine's, said in one line, and not a traceback. With `database_only`, around what
    writes other files too (the output's): only the temporary database's failures are said here."""
    try:
        yield
    except (OSError, sqlite3.Error) as e:
        if database_only and not isinstance(e, sqlite3.Error):
            raise
        raise EnvironmentFailure(f"{no_room(what, e)}; nothing new was published") from e
