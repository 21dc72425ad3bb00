"""The content store (lastmod source 'content'): URL -> (content hash, first seen), in SQLite.

Kept beside the served output, never in it, and changed in one transaction
per build, so an interrupted build leaves it as the last good build left it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import resource
import sqlite3
import stat
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from sitemapgen._types import Notice, Warn
from sitemapgen.errors import EnvironmentFailure, SitemapgenError
from sitemapgen.lastmod.base import implausible
from sitemapgen.util.safeio import create_exclusive, open_regular

#: How long a build waits for another process to let go of the store, in seconds.
BUSY_TIMEOUT = 5.0


def _busy(error: sqlite3.Error) -> bool:
    return getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or (
        "locked" in str(error) or "busy" in str(error)
    )


def _corrupt(error: sqlite3.Error) -> bool:
    """Proven corrupt: SQLite says the file is not a database or is malformed, nothing else."""
    return getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


class ContentStore:
    """URL -> (content hash, lastmod first seen with that hash), kept in SQLite.

    A rebuild that rewrites every file with the same bytes keeps every
    lastmod; a page whose content changed gets the build time. Changes are
    committed in one transaction at the end of a build, so an interrupted
    build leaves the previous state intact. Rows for pages no longer on the
    site are dropped then, so the store does not grow forever. The pages a
    build saw are kept in a temporary table, not in the store, so a build in
    which nothing changed leaves the file as it was (bytes and mtime): a
    watcher that rebuilds on every change (sphinx-autobuild, an IDE) settles.
    """

    def __init__(self, path: Path, *, build_time: datetime, on_warning: Warn, readonly: bool = False) -> None:
        self.path = path
        self.build_time = build_time
        self.run = int(build_time.timestamp())
        self.readonly = readonly
        self._db = self._open_readonly(on_warning) if readonly else self._open(on_warning)

    def _open_readonly(self, warn: Warn) -> sqlite3.Connection | None:
        """For dry runs: read what is there, create and change nothing."""
        if not self.path.is_file():
            warn(
                f"{self.path}: no lastmod state store, so every page is dated with the build time"
                " (give the --out or --state-file of the build that keeps it)"
            )
            return None
        try:
            db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            db.execute("SELECT url, hash, lastmod FROM pages LIMIT 1").fetchall()
            return db
        except sqlite3.DatabaseError:
            return None

    def _open(self, warn: Warn) -> sqlite3.Connection:
        existed = not _started_here(self.path)
        for attempt in (1, 2):
            db: sqlite3.Connection | None = None
            try:
                db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT)
                db.execute(
                    "CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, hash BLOB NOT NULL,"
                    " lastmod TEXT NOT NULL, seen INTEGER NOT NULL)"
                )
                db.execute("SELECT url, hash, lastmod, seen FROM pages LIMIT 1").fetchall()
                db.execute("CREATE TEMP TABLE seen (url TEXT PRIMARY KEY)")  # kept out of the file
                db.execute("BEGIN IMMEDIATE")
                if not existed:  # said once it could be started: an error alone otherwise
                    warn(
                        Notice(
                            f"{self.path}: no lastmod state store yet; starting one, so every page counts as new"
                            " (in CI, keep this file between runs)"
                        )
                    )
                return db
            except sqlite3.DatabaseError as e:
                if db is not None:
                    db.close()
                if attempt == 2 or not _corrupt(e):
                    if not existed:  # made by this run, empty or half made: not left behind
                        _remove_store(self.path)
                    raise self._failure("open", e) from e
                aside = self._move_aside(e)
                warn(f"{self.path}: lastmod state store is corrupt ({e}); moved to {aside.name}, starting a new one")
        raise AssertionError("unreachable")

    def _failure(self, what: str, error: sqlite3.Error, *, kept: bool = False) -> EnvironmentFailure:
        """One line for a store the machine will not let us use: busy, read-only, full, missing.
        `kept`: this build's changes were rolled back, so the store is as the last build left it."""
        after = "; the store is as the last build left it, and nothing new was published" if kept else ""
        if _busy(error):
            return EnvironmentFailure(
                f"{self.path}: cannot {what} the lastmod state store: another process holds it"
                f" (waited {BUSY_TIMEOUT:g} s); nothing new was published"
            )
        cause = _cause(self.path, error)
        return EnvironmentFailure(f"{self.path}: cannot {what} the lastmod state store: {cause}{after}")

    def _move_aside(self, error: sqlite3.DatabaseError) -> Path:
        """Keep a corrupt store for whoever wants to look at it, under a name of its own."""
        stamp = self.build_time.strftime("%Y%m%dT%H%M%SZ")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        number = 1
        try:
            while True:
                try:
                    # The name taken by creating it, not by looking first: the rename below
                    # then replaces only this placeholder, never a copy kept by another run.
                    os.close(create_exclusive(aside, 0o600))
                    break
                except FileExistsError:
                    number += 1
                    aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{number}")
            try:
                os.rename(self.path, aside)
            except OSError:
                aside.unlink(missing_ok=True)
                raise
        except OSError as e:
            raise EnvironmentFailure(
                f"{self.path}: lastmod state store is corrupt ({error}) and cannot be moved aside: {e.strerror or e}"
            ) from e
        return aside

    def lastmod(self, url: str, digest: bytes) -> datetime:
        """The lastmod first seen with this content, or the build time for new content."""
        if self._db is None:
            return self.build_time
        try:
            return self._lastmod(self._db, url, digest)
        except sqlite3.Error as e:  # a full disk, a file size limit: SQLite spills the transaction as it grows
            self.abort()
            raise self._failure("read" if self.readonly else "write to", e, kept=not self.readonly) from e

    def _lastmod(self, db: sqlite3.Connection, url: str, digest: bytes) -> datetime:
        row = db.execute("SELECT hash, lastmod FROM pages WHERE url = ?", (url,)).fetchone()
        if self.readonly:
            return datetime.fromisoformat(row[1]) if row is not None and row[0] == digest else self.build_time
        db.execute("INSERT OR IGNORE INTO temp.seen (url) VALUES (?)", (url,))
        if row is not None and row[0] == digest:
            return datetime.fromisoformat(row[1])
        stamp = self.build_time.isoformat(timespec="seconds")
        db.execute(
            "INSERT OR REPLACE INTO pages (url, hash, lastmod, seen) VALUES (?, ?, ?, ?)",
            (url, digest, stamp, self.run),
        )
        return self.build_time

    def commit(self) -> None:
        """Keep this build's lastmods; forget pages it did not see."""
        if self._db is None:
            return
        if not self.readonly:
            try:
                self._db.execute("DELETE FROM pages WHERE url NOT IN (SELECT url FROM temp.seen)")
                self._db.execute("COMMIT")
            except sqlite3.Error as e:
                self.abort()
                raise self._failure("commit to", e, kept=True) from e
        self._db.close()
        self._db = None

    def abort(self) -> None:
        """Leave the store as the last successful build left it."""
        if self._db is None:
            return
        if not self.readonly and self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
        self._db.close()
        self._db = None
        if not self.readonly:
            _roll_back_journal(self.path)


def _remove_store(path: Path) -> None:
    """Remove a store this run made (never a symlink: what it names is the user's)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return
    except OSError:
        return
    for name in (path.name, path.name + "-journal"):
        with contextlib.suppress(OSError):
            path.with_name(name).unlink()


def _roll_back_journal(path: Path) -> None:
    """Put back the store's file as its last commit left it, now rather than at the next open.

    After a failed write (a full disk, EFBIG), SQLite leaves the rolled-back transaction in a
    "hot" journal beside the file, and the file itself as far as the write got; the next
    reader puts it back. Reading it here does that, so the file on disk is the old one
    again at once (its pages are rewritten in place and the file truncated: no more room
    needed). If even that fails, the next build's open does it.
    """
    if not path.with_name(path.name + "-journal").exists():
        return
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(path, timeout=BUSY_TIMEOUT)) as db:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()


def _cause(path: Path, error: sqlite3.Error) -> str:
    """SQLite's words for a failure, and what they leave unsaid: its "disk I/O error" for a
    write past the file size limit (``ulimit -f``, EFBIG) or onto a full disk."""
    code = getattr(error, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL:
        return f"disk full ({error})"
    if code is None or code & 0xFF != sqlite3.SQLITE_IOERR:
        return str(error)
    with contextlib.suppress(OSError):
        space = os.statvfs(path.parent)
        if space.f_bavail == 0:
            return f"disk full ({error})"
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY:
        return f"{error} (this process may write no file over {limit:,} bytes: ulimit -f)"
    return str(error)


def _started_here(path: Path) -> bool:
    """Whether this run makes the store's file (empty, which SQLite takes for an empty database).

    Made exclusively rather than looked for first: of two runs that find no
    store at the same moment, only the one that made it says it starts one.
    """
    try:
        os.close(create_exclusive(path))
    except FileExistsError:
        return not path.exists()  # a symlink to nothing: SQLite makes what it points to
    except OSError:
        return True  # a folder that is missing or read-only: SQLite's own open says so
    return True


#: The piece of a page hashed at a time: a page of any size costs this much memory.
DIGEST_PIECE = 1 << 20


#: The largest page `content_select` parses: parsing costs time and memory in proportion to the
#: page (beautifulsoup4 over lxml; docs/performance.md), in each worker; a larger page is not dated by
#: 'content' (see `TooLargeToSelect`).
SELECT_LIMIT = 1 << 20


class TooLargeToSelect(Exception):
    """The page is over `SELECT_LIMIT`: its content cannot be selected in bounded time and memory."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def selected_content(path: str, select: Sequence[str]) -> bytes | None:
    """The page's main content: the first element the first matching selector finds, as HTML.

    None when no selector matches: the caller fingerprints the whole page then. Parsed with
    beautifulsoup4 over lxml, so markup is read as a browser reads it. Raises
    `TooLargeToSelect` for a page over `SELECT_LIMIT`, having read no more than that.
    """
    from bs4 import BeautifulSoup

    with open(open_regular(path), "rb") as f:
        data = f.read(SELECT_LIMIT + 1)
        if len(data) > SELECT_LIMIT:
            raise TooLargeToSelect(os.fstat(f.fileno()).st_size)
    soup = BeautifulSoup(data, "lxml")
    for selector in select:
        element = soup.select_one(selector)
        if element is not None:
            return str(element).encode("utf-8")
    return None


def content_digest(path: str, ignore: Sequence[re.Pattern[bytes]], select: Sequence[str] = ()) -> bytes:
    """A hash of the page's bytes with the volatile parts (`ignore`) removed.

    With `select`, of the page's main content only (see `selected_content`, and its
    `TooLargeToSelect`), so a new footer or a build stamp in the header does not count as a change.

    Streamed: the page is read `DIGEST_PIECE` bytes at a time, so a 512 MiB page
    costs a few pieces' worth of memory (the patterns' copies), not 512 MiB.
    With `ignore` patterns, a piece is cut after its last line end (the rest
    starts the next piece), so a pattern matches within the lines of a piece:
    one that spans lines may miss a match that straddles a cut, on pages of a
    MiB or more only. A smaller page is one piece, hashed exactly as a whole.
    Never waits on a FIFO swapped in for the page.
    """
    digest = hashlib.blake2b(digest_size=16)
    if select:
        part = selected_content(path, select)
        if part is not None:
            digest.update(b"selected\0")  # never equal to a whole page's
            digest.update(_without(part, ignore))
            return digest.digest()
    with open(open_regular(path), "rb") as f:
        carry = b""
        while piece := f.read(DIGEST_PIECE):
            if not ignore:
                digest.update(piece)
                continue
            piece = carry + piece
            cut = piece.rfind(b"\n") + 1 if len(piece) >= DIGEST_PIECE else len(piece)
            if cut <= 0:
                cut = len(piece)  # no line end in a whole piece: cut it anyway, memory stays bounded
            carry = piece[cut:]
            digest.update(_without(piece[:cut], ignore))
        if carry:
            digest.update(_without(carry, ignore))
    return digest.digest()


def _without(data: bytes, ignore: Sequence[re.Pattern[bytes]]) -> bytes:
    for pattern in ignore:
        data = pattern.sub(b"", data)
    return data


#: SOURCE_DATE_EPOCH as the reproducible-builds spec has it: an integer, as `date +%s` prints it.
_EPOCH = re.compile(r"-?[0-9]+")
_EPOCH_HINT = "set it to a time as `date +%s` prints it, e.g. $(git log -1 --format=%ct), or unset it"


def source_date_epoch() -> datetime | None:
    """SOURCE_DATE_EPOCH, the build time of a reproducible build; None when unset or empty.

    Read as https://reproducible-builds.org/specs/source-date-epoch/ says: an
    ASCII integer with no fractional part, exactly as `date +%s` prints it. A
    malformed value, or one no datetime can hold, is refused (exit 2).
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return None
    if not _EPOCH.fullmatch(epoch):
        raise SitemapgenError(
            f"SOURCE_DATE_EPOCH: {epoch!r} is not an integer number of seconds since 1970"
            f" (the reproducible-builds spec); {_EPOCH_HINT}"
        )
    try:
        return datetime.fromtimestamp(int(epoch), tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise SitemapgenError(
            f"SOURCE_DATE_EPOCH: {epoch!r} is not a time in the years 1 to 9999, which a lastmod can hold;"
            f" {_EPOCH_HINT}"
        ) from None


def epoch_warning(epoch: datetime, now: datetime) -> str | None:
    """The warning for a SOURCE_DATE_EPOCH (`epoch`) that cannot be the time of a build, or None."""
    odd = implausible(epoch, now)
    if odd is None:
        return None
    return (
        f"SOURCE_DATE_EPOCH={os.environ.get('SOURCE_DATE_EPOCH')} is {epoch.isoformat()}, {odd}: lastmod 'content'"
        f" dates new and changed pages with it; {_EPOCH_HINT} (the clock then dates them)"
    )
