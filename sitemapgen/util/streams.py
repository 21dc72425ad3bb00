"""Printing to stdout and stderr, whatever became of them (the command line prints through here).

What is printed never decides what a command does. A stream whose reader went away
(``| head -1``, a terminal closed), that was closed (``>&-``) or whose disk is full stops taking
output: the rest of what was meant for it is dropped and the work goes on. As Python advises
(https://docs.python.org/3/library/signal.html#note-on-sigpipe), the dead descriptor is pointed
at /dev/null, so the last flush at exit does not fail again ("Exception ignored ...").
What a stream's encoding cannot take (``PYTHONIOENCODING=ascii``, a latin-1 locale) is written
as backslash escapes; JSON uses its own ``\\u`` escapes there (`takes_unicode`), so it stays JSON.

Whether lost output matters is the caller's to say (the command line's `cli.exits.delivered`).
"""

from __future__ import annotations

import codecs
import errno
import os
import sys
from typing import TextIO

#: Failures that mean nobody reads the stream any more (not a disk that is full).
GONE = (errno.EPIPE, errno.EBADF)


def put(stream: TextIO | None, text: str, *, flush: bool = True) -> OSError | None:
    """Write `text` to `stream` (and flush it); the failure that stopped it, if any, after which
    the stream takes nothing more: what is written to it later is dropped."""
    if stream is None:  # Python's stream for a descriptor closed before it started (``>&-``)
        return OSError(errno.EBADF, "closed")
    try:
        try:
            if text:
                stream.write(text)
        except UnicodeEncodeError:  # raised before a byte is written: the whole text, escaped
            encoding = stream.encoding
            stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        if flush:
            stream.flush()
    except ValueError as e:  # "I/O operation on closed file"
        if not getattr(stream, "closed", False):
            raise
        return OSError(errno.EBADF, str(e))
    except OSError as e:
        _silence(stream)
        return e
    return None


def echo(message: str, *, err: bool = False) -> OSError | None:
    """`message` and a line end on stdout (stderr with `err`), as `put` writes them."""
    return put(sys.stderr if err else sys.stdout, message + "\n")


def takes_unicode(stream: TextIO | None) -> bool:
    """Whether `stream`'s encoding can write every character (one of the UTFs)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        return codecs.lookup(encoding).name.startswith("utf")
    except LookupError:
        return False


def is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def flush_all() -> None:
    """Flush stdout and stderr now, so that the interpreter's own flush at exit has nothing to fail on."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            put(stream, "")


class Guarded:
    """A stream as a file for a writer that is not ours (rich's console): written with `put`."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.encoding = stream.encoding

    def write(self, text: str) -> int:
        put(self.stream, text, flush=False)
        return len(text)

    def flush(self) -> None:
        put(self.stream, "")

    def isatty(self) -> bool:
        return is_terminal(self.stream)

    def fileno(self) -> int:
        return self.stream.fileno()


def _silence(stream: TextIO) -> None:
    """Point `stream`'s descriptor at /dev/null: what it still buffers, and all later output, go
    there. A stream with no descriptor (a test's capture) fails again on each write instead."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)
