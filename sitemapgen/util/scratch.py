"""A build's own temporary files and databases, unnamed and gone once closed (the hreflang
check's, llms.txt's lines): where the machine gives them no room, one line that names where."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator

from sitemapgen.errors import EnvironmentFailure


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
        if isinstance(e, OSError):
            where, reason = tempfile.gettempdir(), e.strerror or str(e)
        else:  # SQLite picks its own directory: the first it may write to, full or not
            where = os.environ.get("SQLITE_TMPDIR") or os.environ.get("TMPDIR") or "/var/tmp or /tmp"
            reason = str(e)
        raise EnvironmentFailure(
            f"cannot keep {what} in a temporary file ({where}): {reason}; nothing new was published"
        ) from e
