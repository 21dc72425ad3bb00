"""The output directory: the location rule, one writer at a time, and no litter on failure.

What a run may remove there is only what it can prove it wrote: the journal
(`Journal`) names every file a run is about to create, before it creates it,
so the next run can tidy up after one that was killed, and touch nothing else.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

from sitemapgen._types import Warn
from sitemapgen.config.settings import Config
from sitemapgen.errors import DocrootError, EnvironmentFailure, SitemapgenError, os_failure
from sitemapgen.util.safeio import create_exclusive, read_regular

#: What the machine refuses (rather than what the input gets wrong).
_MACHINE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO})

#: The lock descriptors this process holds: a forked child closes its copies at
#: once, so a worker never keeps the lock (flock belongs to the open file, which
#: a fork shares) when the run that made it is gone.
_HELD: set[int] = set()


def _close_held_in_child() -> None:
    for fd in _HELD:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_close_held_in_child)


def check_output(config: Config) -> Path:
    """The output directory, or an error if the protocol's location rule would break there."""
    out = config.output_dir
    if out.is_symlink() and not out.exists():
        raise DocrootError(f"--out: a symlink to nothing: {out} -> {os.readlink(out)}")
    if out.exists() and not out.is_dir():
        raise DocrootError(f"--out: not a directory: {out}")
    real_out = os.path.realpath(out)
    real_root = os.path.realpath(config.docroot)
    if real_out != real_root and real_out.startswith(real_root.rstrip(os.sep) + os.sep):
        raise DocrootError(
            f"--out: {out} is inside the docroot, so its sitemaps would be served below the base URL,"
            " where the protocol's location rule lets them list only the pages under their own folder;"
            " write them to the docroot itself or outside it"
        )
    return out


def check_docroot(config: Config) -> None:
    """An error unless the docroot is a directory."""
    if not config.docroot.is_dir():
        what = "not found" if not config.docroot.exists() else "not a directory"
        raise DocrootError(f"docroot {what}: {config.docroot}")


#: How an output directory is opened to be locked.
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
#: How many times a run claims the output directory again when the one it found was removed
#: (by the run that had made it) before it held the lock.
_CLAIM_TRIES = 3


#: How long a run waits for another run on the same output directory (a build, or a `check`
#: or `list` reading it) to let go of it, in seconds.
LOCK_TIMEOUT = 600.0
#: After how many seconds of waiting a run says that it waits.
_SAY_AFTER = 1.0


def _holders(fd: int) -> tuple[str, list[int]]:
    """Who holds a lock on the directory open as `fd`: "WRITE" (a build), "READ" (readers) or ""
    (not known), and their pids, from Linux's /proc/locks (elsewhere: not known)."""
    st = os.fstat(fd)
    where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    kind, pids = "", list[int]()
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return kind, pids
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:260072 0 EOF"; a waiter's line has "->" second.
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == where and fields[4].isdigit():
            kind = "WRITE" if fields[3] == "WRITE" else kind or "READ"
            pids.append(int(fields[4]))
    return kind, sorted(set(pids))


def _who(fd: int, out: Path) -> str:
    """Who holds `out`, in words, as far as can be known."""
    kind, pids = _holders(fd)
    shown = f" (pid{'s' if len(pids) > 1 else ''} {', '.join(map(str, pids))})" if pids else ""
    if kind == "WRITE":
        return f"a build is running in {out}{shown}"
    if kind == "READ":
        return f"a check or list is reading {out}{shown}"
    return f"another sitemapgen run is using {out}"


def _busy(fd: int, out: Path) -> EnvironmentFailure:
    return EnvironmentFailure(f"{_who(fd, out)}; waited {LOCK_TIMEOUT:g} s, try again when it has finished")


def wait_for_lock(fd: int, out: Path, operation: int, warn: Warn | None) -> None:
    """flock `fd` (`out` opened), exclusive or shared as `operation` says, waiting while another
    run holds it, and saying so once; an error after `LOCK_TIMEOUT` seconds."""
    start = time.monotonic()
    delay = 0.002
    said = False
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        waited = time.monotonic() - start
        if waited >= LOCK_TIMEOUT:
            raise _busy(fd, out)
        if not said and waited >= _SAY_AFTER and warn is not None:
            warn(f"{_who(fd, out)}; waiting for it to finish (at most {LOCK_TIMEOUT:g} s)")
            said = True
        time.sleep(min(delay, LOCK_TIMEOUT - waited))
        delay = min(delay * 2, 0.05)


def _lock(out: Path, warn: Warn | None = None) -> int | None:
    """`out` opened and exclusively locked (flock), once other runs have let go of it, or an
    error; None where no directory is there any more, or no longer the one this run locked."""
    try:
        fd = os.open(out, _DIR_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as e:
        error = EnvironmentFailure if e.errno in _MACHINE_ERRNOS else DocrootError
        raise error(f"--out: cannot open {out}: {e.strerror or e}") from e
    _HELD.add(fd)
    try:
        wait_for_lock(fd, out, fcntl.LOCK_EX, warn)
        if _is_at(fd, out):
            return fd
    except BaseException:
        _unlock(fd)
        raise
    _unlock(fd)
    return None


def _is_at(fd: int, out: Path) -> bool:
    """Whether `out` still leads to the directory open as `fd` (the run that made it removes
    it again, empty, when it fails or has nothing to write: a lock on it then guards nothing)."""
    try:
        there = os.stat(out)
    except OSError:
        return False
    locked = os.fstat(fd)
    return (locked.st_dev, locked.st_ino) == (there.st_dev, there.st_ino)


def _unlock(fd: int) -> None:
    _HELD.discard(fd)
    os.close(fd)


@contextlib.contextmanager
def output_lock(out: Path, warn: Warn | None = None) -> Iterator[None]:
    """Hold an exclusive lock on the output directory, waiting (at most `LOCK_TIMEOUT`) while
    another run holds it.

    The lock is on the directory itself (flock), so no lock file is left to be
    deployed, and the kernel releases it when a run dies, even by SIGKILL.
    """
    fd = _lock(out, warn)
    if fd is None:
        raise DocrootError(f"--out: cannot open {out}: {os.strerror(errno.ENOENT)}")
    try:
        yield
    finally:
        _unlock(fd)


@contextlib.contextmanager
def reading(out: Path, warn: Warn | None = None) -> Iterator[None]:
    """Hold a shared lock on the output directory while reading what is published there: a
    build (which holds it exclusively) is waited for, at most `LOCK_TIMEOUT`, and cannot start
    until the readers are done; other readers read alongside. Nothing to wait for where there
    is no directory (nothing is published there)."""
    try:
        fd = os.open(out, _DIR_FLAGS)
    except OSError:
        yield  # none there, or not to be opened: what reads it next says so
        return
    _HELD.add(fd)
    try:
        wait_for_lock(fd, out, fcntl.LOCK_SH, warn)
        yield
    finally:
        _unlock(fd)


class ClaimedOutput:
    """An output directory this run holds: created if missing, locked, and removed
    again (if it is still empty) when the run fails or has nothing to write."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.created = False  # by this run's own mkdir: never by looking first

    def release_if_empty(self) -> None:
        """Undo creating the directory, if this run created it and left it empty.

        Called only while this run holds the lock, and once: after it, another run
        may create a directory of the same name, which is not this run's.
        """
        if self.created:
            self.created = False
            with contextlib.suppress(OSError):
                self.out.rmdir()


def _make_dir(out: Path, *, parents: bool = True) -> bool:
    """Create `out`, and its missing parents as ``mkdir -p`` does; True only if this call's own
    mkdir created `out`.

    Never a look first: two runs that both found `out` missing would both take it
    for theirs, and the one that lost the lock would remove it under the winner.
    The parents are never removed (only the directory asked for is a run's own),
    so who made them does not matter.
    """
    try:
        out.mkdir()
    except FileNotFoundError:
        if not parents or out.parent == out:
            raise
        out.parent.mkdir(parents=True, exist_ok=True)
        return _make_dir(out, parents=False)
    except OSError:
        # Not EEXIST alone: a system may say EACCES or EROFS first of a directory that is there.
        if not out.is_dir():
            raise
        return False
    return True


@contextlib.contextmanager
def claim_output(out: Path, warn: Warn | None = None) -> Iterator[ClaimedOutput]:
    """Create `out` if needed and lock it for the duration (waiting, as `output_lock`, while another
    run holds it); on failure, remove it if this run created it.

    A run that does not get the lock removes nothing, and one that does removes
    the directory (empty) before it lets go of the lock, so that no other run
    can have locked it yet.
    """
    claimed = ClaimedOutput(out)
    fd = None
    for _ in range(_CLAIM_TRIES):
        try:
            claimed.created = _make_dir(out)
        except OSError as e:
            error = EnvironmentFailure if e.errno in _MACHINE_ERRNOS else DocrootError
            raise error(f"--out: cannot create {out}: {e.strerror or e}") from e
        fd = _lock(out, warn)
        if fd is not None:
            break
    if fd is None:  # made and removed again by other runs, each time
        raise EnvironmentFailure(
            f"--out: {out} was removed by another run each time before this run could lock it; try again"
        )
    try:
        yield claimed
    except BaseException:
        claimed.release_if_empty()
        raise
    finally:
        _unlock(fd)


JOURNAL_NAME = ".sitemapgen-journal"
_JOURNAL_HEAD = "sitemapgen journal 1: the files a run was creating here; the next run removes them\n"
_JOURNAL_LIMIT = 16 << 20


class Journal:
    """The files a run is creating in the output directory, each written down before it exists.

    Three kinds of line: ``tmp NAME`` (a temporary file), ``new NAME DIGEST``
    (a sitemap file placed under a fresh name) and ``old NAME DIGEST`` (a
    published file the new index is about to stop listing). A run that ends,
    well or not, tidies up itself and removes its journal; one that was killed
    leaves it, and `recover` in the next run removes what it names, provided
    no index lists it and, for sitemap files, its bytes are still the ones
    written. No fsync: the journal guards against a dead process, and a power
    cut at worst leaves a file that is then named in a warning, never removed.
    """

    def __init__(self, out: Path) -> None:
        self.path = out / JOURNAL_NAME
        try:
            self._fd = create_exclusive(self.path, 0o600)
        except FileExistsError:
            raise SitemapgenError(
                f"{self.path}: exists and is not a journal this run could read; move it away"
            ) from None
        except OSError as e:
            raise os_failure(self.path, "create the journal", e) from e
        try:
            self._write(_JOURNAL_HEAD)
        except OSError as e:  # a full disk: an empty journal left behind would block every later run
            os.close(self._fd)
            self.path.unlink(missing_ok=True)  # created exclusively just now: ours
            raise os_failure(self.path, "write the journal", e) from e

    def _write(self, line: str) -> None:
        os.write(self._fd, line.encode("utf-8", "surrogateescape"))

    def temporary(self, name: str) -> None:
        """Write down a temporary file about to be created."""
        self._write(f"tmp {name}\n")

    def placed(self, name: str, digest: bytes) -> None:
        """Write down a sitemap file about to appear under `name` with these bytes."""
        self._write(f"new {name} {digest.hex()}\n")

    def retiring(self, name: str, digest: bytes) -> None:
        """Write down a published file the next index will no longer list."""
        self._write(f"old {name} {digest.hex()}\n")

    def close(self) -> None:
        """The run is over and has tidied up after itself: the journal goes too."""
        os.close(self._fd)
        self.path.unlink(missing_ok=True)

    @staticmethod
    def recover(out: Path, listed: Collection[str], digest_of: Callable[[Path], bytes | None], warn: Warn) -> int:
        """Tidy up after a killed run, if one left its journal; the number of files removed.

        `listed` are the names the published indexes list: never removed.
        """
        path = out / JOURNAL_NAME
        try:
            text = read_regular(path, limit=_JOURNAL_LIMIT, follow_symlinks=False).decode("utf-8", "surrogateescape")
        except FileNotFoundError:
            return 0
        except OSError as e:
            raise SitemapgenError(
                f"{path}: cannot read ({e.strerror or e}); it is not a journal sitemapgen wrote: move it away"
            ) from e
        if not text.startswith(_JOURNAL_HEAD):
            raise SitemapgenError(f"{path}: not a journal sitemapgen wrote; move it away")
        removed = 0
        for line in text[len(_JOURNAL_HEAD) :].splitlines():
            kind, _, rest = line.partition(" ")
            name, _, digest = rest.partition(" ")
            if not name or "/" in name or name in (".", "..", JOURNAL_NAME) or name in listed:
                continue
            target = out / name
            try:
                st = os.lstat(target)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if kind == "tmp" or (kind in ("new", "old") and (digest_of(target) or b"").hex() == digest):
                try:
                    target.unlink()
                    removed += 1
                except OSError as e:
                    warn(f"{target}: left by a run that was killed, and cannot be removed: {e.strerror or e}")
        path.unlink()
        return removed
