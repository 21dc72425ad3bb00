"""Where a page's ``<lastmod>`` comes from: a chain of sources, first answer wins.

mtime is the protocol FAQ's own answer, but a CI checkout or a full rebuild
gives every file a new mtime, and crawlers learn to ignore a lastmod that
always changes. So the user can put truer sources before it: the page's own
meta tags, the last git commit that touched the page (or its source), or a
content hash remembered across builds.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import os
import re
import sqlite3
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, tzinfo
from email.utils import parsedate_to_datetime
from pathlib import Path

from .errors import SitemapgenError


class LastmodSource(enum.Enum):
    """The sources a ``lastmod`` chain may name."""

    MTIME = "mtime"
    GIT = "git"
    META = "meta"
    CONTENT = "content"


_W3C = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$",
    re.IGNORECASE,
)


def mtime_lastmod(mtime_ns: int) -> datetime | None:
    """The mtime in UTC, truncated to the second as `date -r` does."""
    return _utc_second(mtime_ns // 1_000_000_000)


@functools.lru_cache(maxsize=4096)
def _utc_second(seconds: int) -> datetime | None:
    # A build writes its pages within a few seconds: most share a handful of mtimes.
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def parse_datetime(text: str) -> datetime | None:
    """A W3C Datetime / ISO 8601 or HTTP date, as an aware datetime; None if unreadable.

    A date alone is midnight UTC; a time without an offset is taken as UTC,
    since a sitemap's lastmod must carry one.
    """
    text = text.strip()
    match = _W3C.match(text)
    try:
        if match:
            year, month, day, hour, minute, second, offset = match.groups()
            if hour is None:
                return datetime.combine(date(int(year), int(month), int(day)), time(), tzinfo=UTC)
            tz: tzinfo = UTC
            if offset and offset.upper() != "Z":
                tz = datetime.strptime(offset.replace(":", ""), "%z").tzinfo or UTC
            return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), tzinfo=tz)
        parsed = parsedate_to_datetime(text)
    except (ValueError, TypeError, IndexError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class GitSource:
    """Maps a docroot page to the file in git whose history dates it (regex and replacement)."""

    match: str
    source: str


@dataclass(frozen=True, slots=True)
class GitDates:
    """Last commit time per path, from one `git log` pass over the whole repository."""

    root: Path  # the repository's top level
    dates: Mapping[str, datetime]  # path relative to `root` -> commit time
    shallow_paths: frozenset[str]  # paths whose only commit is a shallow boundary: date unknown
    shallow: bool


def _git(args: Sequence[str], cwd: Path) -> bytes:
    result = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, capture_output=True, check=False)
    if result.returncode != 0:
        raise SitemapgenError(f"git {' '.join(args)}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def read_git_dates(directory: Path) -> GitDates | None:
    """Every tracked path's last commit time, or None when `directory` is not in a git work tree.

    One `git log --name-only -z` pass, newest commit first: the first time a
    path appears is its last change. In a shallow clone the boundary commits
    seem to add every file at once; paths seen only there are reported apart,
    never given that commit's date.
    """
    try:
        top = _git(["rev-parse", "--show-toplevel"], directory).decode().strip()
    except (SitemapgenError, FileNotFoundError):
        return None
    root = Path(top)
    shallow = _git(["rev-parse", "--is-shallow-repository"], root).strip() == b"true"
    boundary: set[str] = set()
    if shallow:
        shallow_file = Path(_git(["rev-parse", "--git-path", "shallow"], root).decode().strip())
        shallow_file = shallow_file if shallow_file.is_absolute() else root / shallow_file
        boundary = set(shallow_file.read_text().split())
    out = _git(["log", "-z", "--name-only", "--no-renames", "--format=%x01%H %ct", "HEAD", "--"], root)
    dates: dict[str, datetime] = {}
    unknown: set[str] = set()
    when: datetime | None = None
    at_boundary = False
    for field in out.split(b"\0"):
        if field.startswith(b"\n"):
            field = field[1:]
        if field.startswith(b"\x01"):
            header, _, first = field[1:].partition(b"\n")
            sha, _, stamp = header.decode().partition(" ")
            when = datetime.fromtimestamp(int(stamp), tz=UTC)
            at_boundary = sha in boundary
            field = first
        if not field or when is None:
            continue
        path = os.fsdecode(field)
        if path in dates or path in unknown:
            continue
        if at_boundary:
            unknown.add(path)
        else:
            dates[path] = when
    return GitDates(root, dates, frozenset(unknown), shallow)


class ContentStore:
    """URL -> (content hash, lastmod first seen with that hash), kept in SQLite.

    A rebuild that rewrites every file with the same bytes keeps every
    lastmod; a page whose content changed gets the build time. Changes are
    committed in one transaction at the end of a build, so an interrupted
    build leaves the previous state intact. Rows for pages no longer on the
    site are dropped then, so the store does not grow forever.
    """

    def __init__(
        self, path: Path, *, build_time: datetime, on_warning: Callable[[str], None], readonly: bool = False
    ) -> None:
        self.path = path
        self.build_time = build_time
        self.run = int(build_time.timestamp())
        self.readonly = readonly
        self._db = self._open_readonly() if readonly else self._open(on_warning)

    def _open_readonly(self) -> sqlite3.Connection | None:
        """For dry runs: read what is there, create and change nothing."""
        if not self.path.is_file():
            return None
        try:
            db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            db.execute("SELECT url, hash, lastmod FROM pages LIMIT 1").fetchall()
            return db
        except sqlite3.DatabaseError:
            return None

    def _open(self, warn: Callable[[str], None]) -> sqlite3.Connection:
        if not self.path.exists():
            warn(
                f"{self.path}: no lastmod state store yet; starting one, so every page counts as new"
                " (in CI, keep this file between runs)"
            )
        for attempt in (1, 2):
            db: sqlite3.Connection | None = None
            try:
                db = sqlite3.connect(self.path, isolation_level=None)
                db.execute(
                    "CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, hash BLOB NOT NULL,"
                    " lastmod TEXT NOT NULL, seen INTEGER NOT NULL)"
                )
                db.execute("SELECT url, hash, lastmod, seen FROM pages LIMIT 1").fetchall()
                db.execute("BEGIN IMMEDIATE")
                return db
            except sqlite3.DatabaseError as e:
                if db is not None:
                    db.close()
                if attempt == 2:
                    raise SitemapgenError(f"{self.path}: cannot use the lastmod state store: {e}") from e
                warn(f"{self.path}: lastmod state store unreadable ({e}); starting a new one")
                self.path.unlink(missing_ok=True)
        raise AssertionError("unreachable")

    def lastmod(self, url: str, digest: bytes) -> datetime:
        """The lastmod first seen with this content, or the build time for new content."""
        if self._db is None:
            return self.build_time
        row = self._db.execute("SELECT hash, lastmod FROM pages WHERE url = ?", (url,)).fetchone()
        if row is not None and row[0] == digest:
            if not self.readonly:
                self._db.execute("UPDATE pages SET seen = ? WHERE url = ?", (self.run, url))
            return datetime.fromisoformat(row[1])
        if self.readonly:
            return self.build_time
        stamp = self.build_time.isoformat(timespec="seconds")
        self._db.execute(
            "INSERT OR REPLACE INTO pages (url, hash, lastmod, seen) VALUES (?, ?, ?, ?)",
            (url, digest, stamp, self.run),
        )
        return self.build_time

    def commit(self) -> None:
        """Keep this build's lastmods; forget pages it did not see."""
        if self._db is None:
            return
        if not self.readonly:
            self._db.execute("DELETE FROM pages WHERE seen != ?", (self.run,))
            self._db.execute("COMMIT")
        self._db.close()
        self._db = None

    def abort(self) -> None:
        """Leave the store as the last successful build left it."""
        if self._db is None:
            return
        if not self.readonly:
            self._db.execute("ROLLBACK")
        self._db.close()
        self._db = None


def content_digest(path: str, ignore: Sequence[re.Pattern[bytes]]) -> bytes:
    """A hash of the page's bytes with the volatile parts (`ignore`) removed."""
    with open(path, "rb") as f:
        data = f.read()
    for pattern in ignore:
        data = pattern.sub(b"", data)
    return hashlib.blake2b(data, digest_size=16).digest()


def build_time() -> datetime:
    """Now, to the second, or SOURCE_DATE_EPOCH for reproducible builds."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.strip().isdigit():
        return datetime.fromtimestamp(int(epoch), tz=UTC)
    return datetime.now(UTC).replace(microsecond=0)
