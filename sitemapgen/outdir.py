"""The output directory: the location rule, one writer at a time, and no litter on failure."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from .config import Config
from .errors import DocrootError, SitemapgenError


def check_output(config: Config) -> Path:
    """The output directory, or an error if the protocol's location rule would break there."""
    out = config.output_dir
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


@contextlib.contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold an exclusive lock on the output directory, or fail at once.

    The lock is on the directory itself (flock), so no lock file is left to be
    deployed, and the kernel releases it when a run dies, even by SIGKILL.
    """
    try:
        fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as e:
        raise DocrootError(f"--out: cannot open {out}: {e.strerror or e}") from e
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SitemapgenError(
                f"another sitemapgen run is writing to {out}; try again when it has finished"
            ) from None
        yield
    finally:
        os.close(fd)


class ClaimedOutput:
    """An output directory this run holds: created if missing, locked, and removed
    again (if it is still empty) when the run fails or has nothing to write."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.created = False

    def release_if_empty(self) -> None:
        """Undo creating the directory, if this run created it and left it empty."""
        if self.created:
            with contextlib.suppress(OSError):
                self.out.rmdir()


@contextlib.contextmanager
def claim_output(out: Path) -> Iterator[ClaimedOutput]:
    """Create `out` if needed and lock it for the duration; on failure, remove it if this run created it."""
    claimed = ClaimedOutput(out)
    claimed.created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DocrootError(f"--out: cannot create {out}: {e.strerror or e}") from e
    try:
        with output_lock(out):
            yield claimed
    except BaseException:
        claimed.release_if_empty()
        raise
