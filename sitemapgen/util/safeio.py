"""Opening files that someone else may have planted: never block, never follow, never clobber.

A path checked with `stat` can be swapped for a FIFO before it is opened, and
opening a FIFO for reading waits for a writer forever. So the kind of file is
checked after `open`, on the descriptor (`fstat`), and the open itself never
waits (``O_NONBLOCK``, which reading a regular file ignores). Files this tool
creates are created exclusively (``O_EXCL``), which also refuses to follow a
symlink planted under the chosen name, and a finished file is given its final
name by a hard link, which fails rather than replace a file that appeared there.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
# Directories are only walked through: O_PATH needs no read permission on them, as a path lookup needs none.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


class NotRegularFile(OSError):
    """The path is a FIFO, a device, a socket or a directory, not a file to read."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        super().__init__(errno.EINVAL, "not a regular file", os.fspath(path))
        self.mode = mode  # the file's st_mode

    @property
    def kind(self) -> str:
        """What the path is instead: "a directory", "a FIFO", "a socket", "a device" or "not a regular file"."""
        return next((what for test, what in _KINDS if test(self.mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> int:
    """A descriptor for reading the regular file at `path`; `NotRegularFile` for anything else.

    Never blocks on a FIFO (even one swapped in after a `stat`). Without
    `follow_symlinks`, a symlink is refused (``ELOOP``).
    """
    return open_regular_stat(path, follow_symlinks=follow_symlinks)[0]


def open_regular_stat(
    path: str | os.PathLike[str], *, follow_symlinks: bool = True, dir_fd: int | None = None
) -> tuple[int, os.stat_result]:
    """`open_regular`, and the file's status, as a `stat` would give it (a page's mtime
    without a second system call). With `dir_fd`, a relative `path` is relative to that directory."""
    flags = _READ_FLAGS if follow_symlinks else _READ_FLAGS | os.O_NOFOLLOW
    fd = os.open(path, flags) if dir_fd is None else os.open(path, flags, dir_fd=dir_fd)  # per page: no keyword
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotRegularFile(path, status.st_mode)
        # Left non-blocking: reading a regular file ignores O_NONBLOCK, and clearing it
        # was one system call more for every page.
    except BaseException:
        os.close(fd)
        raise
    return fd, status


def open_regular_below(directory: str | os.PathLike[str], parts: Sequence[str]) -> tuple[int, os.stat_result]:
    """`open_regular_stat` of the file `directory`/`parts`, opened one component at a time, following no link.

    `directory` itself is followed; below it, a symlink at any component is
    refused instead of followed, so a link swapped in after a check of the
    path cannot lead the open anywhere else.
    """
    *dirs, name = parts
    dir_fd = os.open(directory, _DIR_FLAGS)
    try:
        for part in dirs:
            inner = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
            os.close(dir_fd)
            dir_fd = inner
        return open_regular_stat(name, dir_fd=dir_fd, follow_symlinks=False)
    finally:
        os.close(dir_fd)


def read_regular(path: str | os.PathLike[str], *, limit: int | None = None, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file at `path` (at most `limit`), never blocking on a FIFO."""
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    with open(fd, "rb") as f:
        return f.read() if limit is None else f.read(limit)


def create_exclusive(path: str | os.PathLike[str], mode: int = 0o644) -> int:
    """A descriptor for writing a new file at `path`; `FileExistsError` if anything is there,
    a symlink included (it is never followed)."""
    return os.open(path, _CREATE_FLAGS, mode)


def link_into_place(tmp: str | os.PathLike[str], final: str | os.PathLike[str]) -> None:
    """Give the finished file `tmp` the name `final`, which must not exist: a hard link fails
    rather than replace anything; where there are none (some mounts), a checked rename."""
    try:
        os.link(tmp, final, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(final):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fspath(final)) from None
        os.replace(tmp, final)
        return
    os.unlink(tmp)


def write_beside(path: Path, data: bytes, *, over: bool) -> None:
    """Give `path` the content `data` whole: written and made durable under a temporary name
    beside it that no one has, then renamed over the file there (`over`), or linked into
    place, never over a file that appeared meanwhile (`FileExistsError`). The temporary is
    gone either way; an error creating it is said of `path`."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        fd = create_exclusive(tmp)
    except OSError as e:
        raise OSError(e.errno, e.strerror, os.fspath(path)) from e
    try:
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if over:
            os.replace(tmp, path)
        else:
            link_into_place(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # ours, half-written (a full disk), or not linked
        raise


def replace_durably(tmp: Path, path: Path, pieces: Iterable[bytes], step: Callable[[], None]) -> None:
    """Write `pieces` to the new file `tmp` (a name the caller chose: one its journal knows),
    make it durable and rename it over `path`; `tmp` is gone if anything fails. `step` runs
    before each thing that can fail (a fault injected there, in the tests)."""
    step()
    try:
        with open(create_exclusive(tmp), "wb") as out:
            for piece in pieces:
                out.write(piece)
            out.flush()
            step()
            os.fsync(out.fileno())
        step()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_page(path: str, fd: int | None, read: Callable[[int], T]) -> T:
    """`read` of the regular file at `path` (opened with `open_regular`, closed after), or of
    `fd` when given (open, and left open)."""
    if fd is not None:
        return read(fd)
    fd = open_regular(path)
    try:
        return read(fd)
    finally:
        os.close(fd)
