"""The previous deploy, as a source: what it listed, and the manifest that carries lastmods over.

In CI every checkout is fresh: mtimes are the checkout's and a local content
store is gone. What survives is what was deployed. So a build can read the
previous deploy (``--previous SOURCE``: the live index's URL, or a directory
or index file of an earlier output) and take from it two things:

- what it listed, URL -> lastmod, for the diff (`changes`) and the drop guard;
- its manifest (`MANIFEST_NAME`, published beside the sitemaps, never listed):
  URL -> content fingerprint and lastmod, so a page whose fingerprint is
  unchanged keeps its lastmod (lastmod source ``content``).

Files the previous index lists under the base URL are read relative to where
the index itself was read, so a mirror, a local server or a directory can
stand in for the live site. A first deploy (no index there: HTTP 404, or a
directory without one) is not an error: everything is new. Everything read is
kept in a temporary SQLite database, so a million URLs cost disk, not memory.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from datetime import datetime

from sitemapgen._types import Warn
from sitemapgen.deploy.manifest import MANIFEST_KEY, MANIFEST_LINE, MANIFEST_NAME, MANIFEST_VERSION
from sitemapgen.deploy.source import Place, SourceError, directory, entries
from sitemapgen.errors import EnvironmentFailure
from sitemapgen.protocol import MAX_BYTES_PER_SITEMAP, our_chunks
from sitemapgen.util.scratch import no_room


class PreviousError(SourceError):
    """The previous deploy could not be read: one line naming the file or URL."""


class PreviousUnreachable(PreviousError, EnvironmentFailure):
    """`PreviousError` where the machine or the network failed (no connection, a timeout, a
    server error, a disk's read error), not the deploy: the machine's failure (exit 3)."""


class Previous:
    """What the previous deploy listed (URL -> lastmod) and its manifest (URL -> fingerprint, lastmod)."""

    def __init__(self, where: str, base_url: str | None) -> None:
        self.where = where
        self.base_url = base_url
        self.found = False  # False: a first deploy, nothing there
        self.has_manifest = False
        self.unread: set[str] = set()  # other builds' sitemaps (include) its index lists, not read here
        self.db = sqlite3.connect("")  # a temporary database on disk, removed on close
        self.db.execute("CREATE TABLE listed (loc TEXT PRIMARY KEY, lastmod TEXT)")
        self.db.execute("CREATE TABLE manifest (loc TEXT PRIMARY KEY, fp BLOB NOT NULL, lastmod TEXT NOT NULL)")
        self.db.execute("CREATE TABLE included (loc TEXT PRIMARY KEY)")  # URLs of other builds' sitemaps

    def __len__(self) -> int:
        count: int = self.db.execute("SELECT count(*) FROM listed").fetchone()[0]
        return count

    def listed(self) -> Iterator[tuple[str, str | None]]:
        """Every URL the previous deploy listed and its lastmod, sorted by URL."""
        yield from self.db.execute("SELECT loc, lastmod FROM listed ORDER BY loc")

    def kept_lastmod(self, loc: str, fingerprint: bytes) -> datetime | None:
        """The lastmod the previous deploy gave `loc`, if its content fingerprint is unchanged."""
        row = self.db.execute("SELECT fp, lastmod FROM manifest WHERE loc = ?", (loc,)).fetchone()
        if row is None or row[0] != fingerprint:
            return None
        try:
            when = datetime.fromisoformat(row[1])
        except ValueError:
            return None  # not a date (a hand-edited manifest): the page counts as changed
        return when if when.tzinfo is not None else None

    def close(self) -> None:
        self.db.close()


def read_previous(
    source: str,
    base_url: str | None,
    *,
    warn: Warn,
    settings: str | None = None,
    manifest: bool = True,
    label: str = "--previous",
) -> Previous:
    """The previous deploy at `source`; `base_url` None takes the index's own directory.

    `settings` is this build's `fingerprint_settings`: a manifest made with
    others is not used (said once). Raises `PreviousError` for anything that
    is there but cannot be read (`PreviousUnreachable` where the machine or the network failed),
    its message ending with `label` in brackets: what the caller calls `source` (a build's
    ``--previous``, a diff's earlier deploy).
    """
    try:
        return _read_previous(source, base_url, warn, settings, manifest)
    except SourceError as e:
        raise (PreviousUnreachable if e.machine else PreviousError)(f"{e} ({label})", machine=e.machine) from None
    except sqlite3.Error as e:  # its temporary database, where the machine gives it no room
        raise EnvironmentFailure(f"{source}: {no_room('its URLs', e)} ({label})") from None


def _read_previous(source: str, base_url: str | None, warn: Warn, settings: str | None, manifest: bool) -> Previous:
    place = Place(source)
    previous = Previous(place.index_name, base_url)
    try:
        data = place.read_index()
        if data is None:
            return previous  # a first deploy
        previous.found = True
        kind, listed = entries(data, place.index_name)
        if kind == "urlset":
            _add_urls(previous, listed)
        else:
            locs = [loc for loc, _ in listed]
            others = _other_builds(locs)
            for loc in locs:
                base = previous.base_url or directory(loc)
                previous.base_url = base
                where = place.where(loc[len(base) :]) if loc.startswith(base) else place.on_the_host(base, loc)
                if where is None:
                    warn(f"{place.index_name}: lists {loc}, which is not under {base}; not read")
                    previous.unread.add(loc)
                    continue
                if loc.startswith(base):
                    sitemap = place.read_beside(loc[len(base) :], MAX_BYTES_PER_SITEMAP)
                else:  # another build's sitemap on the host, that our index lists (include)
                    sitemap = place.read_url(where, MAX_BYTES_PER_SITEMAP)
                if sitemap is None and place.index_path is not None and loc in others:
                    warn(
                        f"{place.index_name}: lists {loc}, another build's sitemap (include), not in this directory:"
                        " its URLs are not compared (the live site's URL, as the previous deploy, serves it)"
                    )
                    previous.unread.add(loc)
                    continue
                if sitemap is None:
                    raise PreviousError(f"{where}: not found, though {place.index_name} lists it")
                kind, urls = entries(sitemap, where)
                if kind != "urlset":
                    raise PreviousError(f"{where}: an index inside an index")
                _add_urls(previous, urls, included=loc in others)
        if manifest:
            _read_manifest(previous, place, settings, warn)
        return previous
    except BaseException:
        previous.close()
        raise


def _other_builds(locs: list[str]) -> set[str]:
    """Other builds' sitemaps (``include``) that an index of ours lists, `locs`: none unless its
    first entry is a chunk of ours, as a build lists it (`protocol.our_chunks`)."""
    ours = our_chunks(locs)
    if not ours or not ours[0]:
        return set()
    return {loc for loc, chunk in zip(locs, ours, strict=True) if not chunk}


def _add_urls(previous: Previous, entries: Iterator[tuple[str, str | None]], *, included: bool = False) -> None:
    """The URLs a sitemap listed; `included`: another build's, which the index included."""
    if not included:
        previous.db.executemany("INSERT OR REPLACE INTO listed VALUES (?, ?)", entries)  # streamed, not gathered
        return
    rows = list(entries)  # at most 50,000
    previous.db.executemany("INSERT OR REPLACE INTO listed VALUES (?, ?)", rows)
    previous.db.executemany("INSERT OR IGNORE INTO included VALUES (?)", ((loc,) for loc, _ in rows))


def _read_manifest(previous: Previous, place: Place, settings: str | None, warn: Warn) -> None:
    where = place.where(MANIFEST_NAME)
    with place.open_beside(MANIFEST_NAME) as raw:
        if raw is None:
            warn(
                f"{where}: the previous deploy has no manifest, so no lastmod carries over from it this time"
                " (this build publishes one)"
            )
            return
        try:
            with gzip.GzipFile(filename="", mode="rb", fileobj=raw) as lines:
                _manifest_lines(previous, lines, where, settings, warn)
        except (OSError, EOFError, zlib.error) as e:  # not gzip, truncated, a connection lost
            raise PreviousError(f"{where}: not a readable manifest: {e}") from None


def _manifest_row(line: bytes) -> tuple[str, bytes, str]:
    """One manifest line as (URL, fingerprint, lastmod); ValueError if it is not one."""
    if len(line) > MANIFEST_LINE:
        raise ValueError(f"a line longer than {MANIFEST_LINE:,} bytes")
    loc, fp, lastmod = json.loads(line)
    if not isinstance(loc, str) or not isinstance(lastmod, str):
        raise ValueError("a line is not [URL, fingerprint, lastmod]")
    return loc, bytes.fromhex(fp), lastmod


def _manifest_lines(previous: Previous, lines: Iterable[bytes], where: str, settings: str | None, warn: Warn) -> None:
    """Every line of a manifest into `previous` (each checked), unless its settings are not this build's."""
    lines = iter(lines)
    try:
        header = json.loads(next(lines))
        if not isinstance(header, dict) or header.get(MANIFEST_KEY) != MANIFEST_VERSION:
            raise ValueError("not a sitemapgen manifest of this version")
        if settings is not None and header.get("content") != settings:
            warn(
                f"{where}: made with other content_ignore or content_select settings, so every page's"
                " content counts as changed this time"
            )
            return
        previous.db.executemany("INSERT OR REPLACE INTO manifest VALUES (?, ?, ?)", map(_manifest_row, lines))
    except (ValueError, TypeError, StopIteration) as e:
        raise PreviousError(f"{where}: not a readable manifest: {e}") from None
    previous.has_manifest = True
