"""The docroot's robots.txt: its ``Sitemap:`` lines (its ``Disallow`` rules are `pipeline.robots`).

Only our own lines are touched: a ``Sitemap:`` line pointing at one of this
build's index URLs is kept, one pointing at an index name of ours under the
same base URL that this build no longer writes is removed, and missing ones are
appended. Every other byte of the file is kept as it was, line ends included.

The file is the site's, not ours: a robots.txt that is a symlink (or anything
but a regular file) is never written through or replaced, only named in a
warning, and the new version is written to a temporary file created
exclusively, so nothing planted under that name is followed or truncated.

Other processes may write it during a build: lines only added are appended in
place, and a new version replaces the file only while the file is as it was
read, lines appended meanwhile carried over (compare, then rename; else read again).
"""

from __future__ import annotations

import enum
import os
import re
import secrets
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from sitemapgen._types import Warn
from sitemapgen.config.settings import Config
from sitemapgen.config.words import RobotsTxt
from sitemapgen.errors import EnvironmentFailure, SitemapgenError, os_failure
from sitemapgen.protocol import ROBOTS_FILE
from sitemapgen.urls import at_host_root
from sitemapgen.util.safeio import create_exclusive, open_regular_stat, write_beside

_SITEMAP_LINE = re.compile(rb"^[ \t]*sitemap[ \t]*:[ \t]*(\S+)[ \t]*$", re.IGNORECASE)
_OUR_INDEX = re.compile(r"^(?:sitemap\.xml|sitemap-index-[1-9][0-9]*\.xml)$")


_MAX_ROBOTS = 8 << 20  # far above the 500 KiB crawlers read


class RobotsOutcome(enum.Enum):
    """What became of the docroot's robots.txt."""

    CREATED = "created"  # there was none: one was written
    UPDATED = "updated"  # its Sitemap: lines were changed
    UNCHANGED = "unchanged"  # it named exactly our indexes already
    MISSING = "missing"  # there was none, and none was to be created
    NOT_A_FILE = "not a file"  # a symlink or something else: left as it is (a warning said so)
    CHANGING = "changing"  # another process kept changing it: left as it is (a warning said so)
    NOT_AT_ROOT = "not at the root"  # the base URL has a path: crawlers never read it there (a warning said so)


def name_indexes(config: Config, indexes: Sequence[Path], *, warn: Warn) -> RobotsOutcome:
    """Name the published `indexes` in the docroot's robots.txt, where it is the host's (the
    caller holds the output directory's lock: one writer at a time), and say what became of it."""
    index_urls = [config.base_url + path.name for path in indexes]
    if not at_host_root(config.base_url):
        warn(
            f"{config.docroot / ROBOTS_FILE}: served at {config.base_url}robots.txt, where"
            " crawlers never look (only the host's root counts), so sitemapgen leaves it alone; drop robots_txt"
            f" (--robots-txt) here, and name the index in the root's robots.txt: Sitemap: {index_urls[0]}"
        )
        return RobotsOutcome.NOT_AT_ROOT
    robots = update_robots_txt(
        config.docroot, config.base_url, index_urls, create=config.robots_txt is RobotsTxt.CREATE, on_warning=warn
    )
    if robots is RobotsOutcome.MISSING:
        warn(
            f"{config.docroot}: no robots.txt to update, so none names the sitemap index;"
            " robots_txt 'create' (--robots-txt create) writes one"
        )
    return robots


def update_robots_txt(
    docroot: Path,
    base_url: str,
    index_urls: Sequence[str],
    *,
    create: bool,
    on_warning: Warn | None = None,
) -> RobotsOutcome:
    """Make robots.txt name exactly our index URLs; say what became of it.

    Without `create`, a missing robots.txt is left missing. An existing one is
    replaced only while it is as it was read, give or take lines appended to it
    meanwhile (they are carried over); one that another process keeps changing
    otherwise is read again, and after `_TRIES` reads left as it is, with a warning.
    """
    path = docroot / ROBOTS_FILE
    for _ in range(_TRIES):
        try:
            outcome, result = _update(path, base_url, index_urls, create, on_warning)
        except (_Appeared, _Changed):
            # Made between this run's look and its write (by the site's build, or a run into another
            # output), or changed since it was read: the site's file now, read and edited again.
            continue
        others = other_sitemaps(result, base_url, index_urls)
        if others and on_warning is not None:
            on_warning(
                f"{path}: also names {', '.join(others)}, which sitemapgen did not write (a generator's sitemap?"
                " then remove the line: sitemapgen edits only its own)"
            )
        return outcome
    if on_warning is not None:
        on_warning(
            f"{path}: another process changed it each of the {_TRIES} times sitemapgen read it, so it was left"
            " as it is and may not name this build's sitemap index; build again once it is left alone"
        )
    return RobotsOutcome.CHANGING


#: How many times robots.txt is read and edited again when another process changed it meanwhile.
_TRIES = 5


class _Appeared(EnvironmentFailure):
    """A robots.txt appeared where there was none when this run looked: never written over."""


class _Changed(Exception):
    """robots.txt changed, otherwise than by lines appended to it, since it was read."""


def _update(
    path: Path, base_url: str, index_urls: Sequence[str], create: bool, on_warning: Warn | None
) -> tuple[RobotsOutcome, bytes]:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise os_failure(path, "read", e) from e
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        if on_warning is not None:
            on_warning(f"{path}: is {what}, so it was left as it is (sitemapgen never writes through a link)")
        return RobotsOutcome.NOT_A_FILE, b""
    if st is None and not create:
        return RobotsOutcome.MISSING, b""
    if st is None:
        result = rewritten(b"", base_url, index_urls)
        _replace(path, result, new=True)
        return RobotsOutcome.CREATED, result
    fd, data = _read(path, st.st_ino)
    os.close(fd)
    result = rewritten(data, base_url, index_urls)
    if result == data:
        return RobotsOutcome.UNCHANGED, result
    appended = _append(path, st.st_ino, base_url, index_urls) if result.startswith(data) else None
    if appended is not None:
        return RobotsOutcome.UPDATED, appended
    _swap(path, st.st_ino, data, result)
    return RobotsOutcome.UPDATED, result


def _append(path: Path, ino: int, base_url: str, index_urls: Sequence[str]) -> bytes | None:
    """Add our missing lines at the end of `path` (inode `ino`) in place, with one appending
    write: nothing another process appends meanwhile can be lost. `_Changed` where the file
    is no longer one our lines are only to be added to. The file's new content; None where
    the file itself may not be written (read-only: it is replaced instead, as before)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except PermissionError:
        return None
    except OSError as e:
        raise _Changed from e  # replaced, or no longer a file: read again
    try:
        st = os.fstat(fd)
        data = os.pread(fd, _MAX_ROBOTS + 1, 0)
        result = rewritten(data, base_url, index_urls)
        if st.st_ino != ino or not stat.S_ISREG(st.st_mode) or not result.startswith(data):
            raise _Changed
        os.write(fd, result[len(data) :])
        os.fsync(fd)
    except OSError as e:
        raise os_failure(path, "write", e) from e
    finally:
        os.close(fd)
    return result


def _swap(path: Path, ino: int, data: bytes, result: bytes) -> None:
    """Replace `path`, inode `ino` read as `data`, by `result`, checked right before the rename:
    lines appended meanwhile go into the new file too (and those appended to the old one just
    after the look, once it is renamed over); any other change raises `_Changed`, and nothing
    is replaced."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        fd = create_exclusive(tmp)
    except OSError as e:
        raise os_failure(path, "write", e) from e
    old = -1
    try:
        with open(fd, "wb") as f:
            f.write(result)
            f.flush()
            os.fsync(f.fileno())
            seen = data
            while True:  # each pass a few microseconds: appends are caught up with
                old, now = _read(path, ino)
                if not now.startswith(seen) or (now != seen and not seen.endswith((b"\n", b"\r"))):
                    raise _Changed  # rewritten, or a line of its own continued
                if now == seen:
                    break
                os.close(old)
                old = -1
                f.write(now[len(seen) :])
                f.flush()
                seen = now
        os.replace(tmp, path)
    except BaseException as e:
        if old >= 0:
            os.close(old)
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise os_failure(path, "write", e) from e
        raise
    try:
        _carry_over(path, old, len(seen))
    except OSError as e:
        raise os_failure(path, "write", e) from e
    finally:
        os.close(old)


#: When, after the rename, the replaced file is looked at again, for a line appended by a
#: process that had opened it just before: its open and its write are moments apart, unless the
#: machine is busy and it waits its turn between them (docs/performance.md). A process that
#: waits longer still can lose its line: no rename can wait for it.
_SETTLE = (0.0, 0.005, 0.05)


def _carry_over(path: Path, old: int, seen: int) -> None:
    """Append to `path` what was appended to the file it replaced (open as `old`) after its last
    look: at once, and again after a moment, and a longer one (`_SETTLE`)."""
    for pause in _SETTLE:
        time.sleep(pause)
        late = os.pread(old, _MAX_ROBOTS, seen)
        if late:
            seen += len(late)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                os.write(fd, late)
            finally:
                os.close(fd)


def _read(path: Path, ino: int) -> tuple[int, bytes]:
    """`path` opened and read; `_Changed` unless it is still the file of inode `ino`."""
    try:
        fd, st = open_regular_stat(path, follow_symlinks=False)
    except FileNotFoundError:
        raise _Changed from None
    except OSError as e:
        raise os_failure(path, "read", e) from e
    try:
        if st.st_ino != ino:
            raise _Changed  # replaced by another process
        data = os.pread(fd, _MAX_ROBOTS + 1, 0)
        if len(data) > _MAX_ROBOTS:
            raise SitemapgenError(f"{path}: larger than {_MAX_ROBOTS:,} bytes; not a robots.txt to edit")
    except BaseException:
        os.close(fd)
        raise
    return fd, data


def rewritten(data: bytes, base_url: str, index_urls: Sequence[str]) -> bytes:
    """`data` with exactly one ``Sitemap:`` line for each of our index URLs, and every other byte kept."""
    lines = data.splitlines(keepends=True)
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    wanted = [url.encode("ascii") for url in index_urls]
    present: set[bytes] = set()
    kept: list[bytes] = []
    for line in lines:
        match = _SITEMAP_LINE.match(line.rstrip(b"\r\n"))
        if match:
            url = match.group(1)
            text = url.decode("utf-8", "replace")
            ours = text.startswith(base_url) and _OUR_INDEX.match(text[len(base_url) :])
            if url in wanted:
                if url in present:
                    continue  # a second copy of our own line
                present.add(url)
            elif ours:
                continue  # an index this build no longer writes
        kept.append(line)
    missing = [url for url in wanted if url not in present]
    if kept and not kept[-1].endswith((b"\n", b"\r")) and missing:
        kept[-1] += newline
    if missing and kept and kept[-1].strip():
        kept.append(newline)  # a blank line before our group, as robots.txt groups are written
    kept.extend(b"Sitemap: " + url + newline for url in missing)
    return b"".join(kept)


def other_sitemaps(data: bytes, base_url: str, index_urls: Sequence[str]) -> list[str]:
    """The ``Sitemap:`` URLs of robots.txt `data` under `base_url` that are not our indexes."""
    found = []
    for line in data.splitlines():
        match = _SITEMAP_LINE.match(line)
        if match:
            url = match.group(1).decode("utf-8", "replace")
            if url.startswith(base_url) and url not in index_urls:
                found.append(url)
    return found


def _replace(path: Path, data: bytes, *, new: bool) -> None:
    """Replace `path` with `data` atomically, through a temporary file of a name no one has;
    where there was none (`new`), never over one that has appeared since (`_Appeared`)."""
    try:
        write_beside(path, data, over=not new)
    except FileExistsError as e:
        if not new:
            raise os_failure(path, "write", e) from e
        raise _Appeared(f"{path}: cannot write: {e.strerror or e}") from None
    except OSError as e:
        raise os_failure(path, "write", e) from e
