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

import contextlib
import gzip
import hashlib
import io
import json
import os
import sqlite3
import tempfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin

from .config import MAX_BYTES_PER_SITEMAP
from .errors import SitemapgenError
from .fetch import FetchError, get, inflate, is_url
from .safeio import create_exclusive, read_regular

if TYPE_CHECKING:
    from lxml import etree

Warn = Callable[[str], None]

#: The manifest's file name, beside the index. Not ``sitemap*``: no tool takes it for a sitemap.
MANIFEST_NAME = "sitemapgen-manifest.json.gz"
#: The first line's key, and the format's version.
_MANIFEST_KEY = "sitemapgen-manifest"
_MANIFEST_VERSION = 1
#: A manifest is one short line a page: 1 GiB uncompressed is millions of pages.
_MANIFEST_LIMIT = 1 << 30
_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
_BATCH = 5_000


class PreviousError(SitemapgenError):
    """The previous deploy could not be read: one line naming the file or URL."""


def fingerprint_settings(ignore: Sequence[str], select: Sequence[str]) -> str:
    """What a content fingerprint depends on besides the page: a manifest made with other
    settings fingerprints every page differently, so its lastmods cannot be carried over."""
    return hashlib.blake2b(json.dumps([list(ignore), list(select)]).encode(), digest_size=8).hexdigest()


class Previous:
    """What the previous deploy listed (URL -> lastmod) and its manifest (URL -> fingerprint, lastmod)."""

    def __init__(self, where: str, base_url: str | None) -> None:
        self.where = where
        self.base_url = base_url
        self.found = False  # False: a first deploy, nothing there
        self.has_manifest = False
        self.db = sqlite3.connect("")  # a temporary database on disk, removed on close
        self.db.execute("CREATE TABLE listed (loc TEXT PRIMARY KEY, lastmod TEXT)")
        self.db.execute("CREATE TABLE manifest (loc TEXT PRIMARY KEY, fp BLOB NOT NULL, lastmod TEXT NOT NULL)")

    def __len__(self) -> int:
        count: int = self.db.execute("SELECT count(*) FROM listed").fetchone()[0]
        return count

    def listed(self) -> Iterator[tuple[str, str | None]]:
        """Every URL the previous deploy listed and its lastmod, sorted by URL."""
        yield from self.db.execute("SELECT loc, lastmod FROM listed ORDER BY loc")

    def lastmod_of(self, loc: str) -> tuple[bool, str | None]:
        """Whether the previous deploy listed `loc`, and the lastmod it gave it."""
        row = self.db.execute("SELECT lastmod FROM listed WHERE loc = ?", (loc,)).fetchone()
        return (False, None) if row is None else (True, row[0])

    def kept_lastmod(self, loc: str, fingerprint: bytes) -> datetime | None:
        """The lastmod the previous deploy gave `loc`, if its content fingerprint is unchanged."""
        row = self.db.execute("SELECT fp, lastmod FROM manifest WHERE loc = ?", (loc,)).fetchone()
        if row is None or row[0] != fingerprint:
            return None
        return datetime.fromisoformat(row[1])

    def close(self) -> None:
        self.db.close()


class _Place:
    """Where the previous output is read from: a URL's directory or a local directory."""

    def __init__(self, source: str) -> None:
        self.source = source
        if is_url(source):
            self.index_url: str | None = source + "sitemap.xml" if source.endswith("/") else source
            self.index_path: Path | None = None
        else:
            path = Path(source)
            if not path.exists():
                raise PreviousError(f"{source}: no such file or directory (--previous)")
            self.index_url = None
            self.index_path = path / "sitemap.xml" if path.is_dir() else path

    @property
    def index_name(self) -> str:
        return self.index_url or str(self.index_path)

    def read_index(self) -> bytes | None:
        return self._read(self.index_url, self.index_path, MAX_BYTES_PER_SITEMAP)

    def read_beside(self, relative: str, limit: int) -> bytes | None:
        """A file below the index's directory, `relative` to it (percent-encoded, no dot segments)."""
        segments = relative.split("/")
        if relative.startswith("/") or any(unquote(s) in ("", ".", "..") or "/" in unquote(s) for s in segments):
            raise PreviousError(f"{self.index_name}: lists {relative!r}, which is not a file below it")
        if self.index_url is not None:
            return self._read(urljoin(self.index_url, relative), None, limit)
        assert self.index_path is not None
        return self._read(None, self.index_path.parent.joinpath(*(unquote(s) for s in segments)), limit)

    def where(self, relative: str) -> str:
        if self.index_url is not None:
            return urljoin(self.index_url, relative)
        assert self.index_path is not None
        return str(self.index_path.parent.joinpath(*(unquote(s) for s in relative.split("/"))))

    @staticmethod
    def _read(url: str | None, path: Path | None, limit: int) -> bytes | None:
        if url is not None:
            try:
                return get(url, limit=limit)
            except FetchError as e:
                raise PreviousError(f"{e} (--previous)") from None
        assert path is not None
        try:
            data = read_regular(path, limit=limit + 1)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise PreviousError(f"{path}: cannot read: {e.strerror or e} (--previous)") from None
        if len(data) > limit:
            raise PreviousError(f"{path}: larger than {limit:,} bytes; not read (--previous)")
        try:
            return inflate(data, limit, str(path))
        except FetchError as e:
            raise PreviousError(f"{e} (--previous)") from None


def _root(data: bytes, where: str) -> etree._Element:
    from lxml import etree  # imported only when a previous deploy is read

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        raise PreviousError(f"{where}: not a sitemap: {e.msg} (--previous)") from None
    if root.tag not in (f"{_NS}urlset", f"{_NS}sitemapindex"):
        raise PreviousError(f"{where}: not a sitemap or sitemap index (--previous)")
    return root


def _directory(url: str) -> str:
    return url[: url.rfind("/") + 1]


def read_previous(
    source: str, base_url: str | None, *, warn: Warn, settings: str | None = None, manifest: bool = True
) -> Previous:
    """The previous deploy at `source`; `base_url` None takes the index's own directory.

    `settings` is this build's `fingerprint_settings`: a manifest made with
    others is not used (said once). Raises `PreviousError` for anything that
    is there but cannot be read.
    """
    place = _Place(source)
    previous = Previous(place.index_name, base_url)
    try:
        data = place.read_index()
        if data is None:
            return previous  # a first deploy
        previous.found = True
        root = _root(data, place.index_name)
        if root.tag == f"{_NS}urlset":
            _add_urls(previous, root)
        else:
            for loc in _locs(root, "sitemap"):
                base = previous.base_url or _directory(loc)
                previous.base_url = base
                if not loc.startswith(base):
                    warn(f"{place.index_name}: lists {loc}, which is not under {base}; not read")
                    continue
                relative = loc[len(base) :]
                sitemap = place.read_beside(relative, MAX_BYTES_PER_SITEMAP)
                if sitemap is None:
                    raise PreviousError(
                        f"{place.where(relative)}: not found, though {place.index_name} lists it (--previous)"
                    )
                _add_urls(previous, _root(sitemap, place.where(relative)))
        if manifest:
            _read_manifest(previous, place, settings, warn)
        return previous
    except BaseException:
        previous.close()
        raise


def _locs(root: etree._Element, tag: str) -> Iterator[str]:
    for element in root.iterfind(f"{_NS}{tag}/{_NS}loc"):
        yield (element.text or "").strip()


def _add_urls(previous: Previous, root: etree._Element) -> None:
    rows: list[tuple[str, str | None]] = []
    for url in root.iterfind(f"{_NS}url"):
        loc = (url.findtext(f"{_NS}loc") or "").strip()
        lastmod = url.findtext(f"{_NS}lastmod")
        rows.append((loc, lastmod.strip() if lastmod is not None else None))
    previous.db.executemany("INSERT OR REPLACE INTO listed VALUES (?, ?)", rows)


def _read_manifest(previous: Previous, place: _Place, settings: str | None, warn: Warn) -> None:
    data = place.read_beside(MANIFEST_NAME, _MANIFEST_LIMIT)
    where = place.where(MANIFEST_NAME)
    if data is None:
        warn(
            f"{where}: the previous deploy has no manifest, so no lastmod carries over from it this time"
            " (this build publishes one)"
        )
        return
    lines = iter(io.BytesIO(data))
    try:
        header = json.loads(next(lines))
        if not isinstance(header, dict) or header.get(_MANIFEST_KEY) != _MANIFEST_VERSION:
            raise ValueError("not a sitemapgen manifest of this version")
        if settings is not None and header.get("content") != settings:
            warn(
                f"{where}: made with other content_ignore or content_select settings, so every page's"
                " content counts as changed this time"
            )
            return
        batch: list[tuple[str, bytes, str]] = []
        for line in lines:
            loc, fp, lastmod = json.loads(line)
            datetime.fromisoformat(lastmod)
            batch.append((loc, bytes.fromhex(fp), lastmod))
            if len(batch) == _BATCH:
                previous.db.executemany("INSERT OR REPLACE INTO manifest VALUES (?, ?, ?)", batch)
                batch.clear()
        previous.db.executemany("INSERT OR REPLACE INTO manifest VALUES (?, ?, ?)", batch)
    except (ValueError, TypeError, StopIteration) as e:
        raise PreviousError(f"{where}: not a readable manifest: {e} (--previous)") from None
    previous.has_manifest = True


class ManifestWriter:
    """This build's manifest, streamed to a temporary file as pages are dated, published beside the index.

    Deterministic: the pages in the order the build lists them, gzip without a
    timestamp. Only pages dated by their content have a line (others have no
    fingerprint to compare).
    """

    def __init__(self, base_url: str, settings: str) -> None:
        self.raw = tempfile.TemporaryFile()
        self.spool = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw, mtime=0)
        self.spool.write(self._line({_MANIFEST_KEY: _MANIFEST_VERSION, "base_url": base_url, "content": settings}))

    @staticmethod
    def _line(value: object) -> bytes:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"

    def add(self, loc: str, fingerprint: bytes, lastmod: str) -> None:
        self.spool.write(self._line([loc, fingerprint.hex(), lastmod]))

    def publish(self, out_dir: Path) -> None:
        """Put the manifest in `out_dir` under `MANIFEST_NAME`, replacing only a manifest of ours."""
        target = out_dir / MANIFEST_NAME
        if os.path.lexists(target) and not _is_manifest(target):
            raise SitemapgenError(f"{target}: exists and sitemapgen did not write it; move it away")
        raw = self.raw
        self.spool.close()
        tmp = out_dir / f".{MANIFEST_NAME}.{os.getpid()}.tmp"
        try:
            with open(create_exclusive(tmp), "wb") as out:
                raw.seek(0)
                while piece := raw.read(1 << 20):
                    out.write(piece)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        finally:
            raw.close()

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.spool.close()
        self.raw.close()


def _is_manifest(path: Path) -> bool:
    """Whether `path` is a regular file (not a symlink) that starts as our manifest does."""
    try:
        data = read_regular(path, limit=4096, follow_symlinks=False)
        head = zlib.decompressobj(wbits=31).decompress(data, 64)
    except (OSError, zlib.error):
        return False
    return head.startswith(f'{{"{_MANIFEST_KEY}":'.encode())
