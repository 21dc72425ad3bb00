"""Chunked, gzipped sitemap files and the index that lists them, published safely.

Entries stream straight into a gzip stream: the writer holds one formatted
entry at a time plus a small record per finished chunk, never a whole chunk or
the whole site.

Where a chunk ends is decided by the URLs themselves (content-defined
chunking): a chunk ends after a URL whose hash falls in a 1-in-M bucket, or
before it would pass a limit. So adding, removing or editing one page changes
the one chunk it falls in, and every other chunk comes out byte-identical.

Publishing never touches a file the current index lists: an unchanged chunk
keeps its file (recognised by its bytes), a changed one is written under a
number the current index does not use, each file is fsynced and renamed into
place, and the index is replaced last, atomically. Files the new index no
longer lists are removed after that. A crawler, or a run killed at any point,
sees either the old set or the new set, whole.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import html
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from zlib import crc32

from .config import Chunking, LastmodFormat
from .entry import Entry, Row, escape_xml, row_of
from .faults import Faults
from .skips import Skip, SkipReason

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
INDEX_NAME = "sitemap.xml"
_EXTRA_INDEX_NAME = "sitemap-index-{}.xml"
_OWN_FILE = re.compile(r"^sitemap-(?:(?:[a-z0-9_-]+-)?[1-9][0-9]*\.xml\.gz|index-[1-9][0-9]*\.xml)$")
_CHUNK_FILE = re.compile(r"^sitemap-(?:([a-z0-9_-]+)-)?([1-9][0-9]*)\.xml\.gz$")
_TEMP_FILE = re.compile(r"^\.sitemap.*\.tmp$")
_INDEX_LOC = re.compile(rb"<loc>([^<]*)</loc>")

_XML_DECL = b'<?xml version="1.0" encoding="UTF-8"?>\n'
_URLSET_OPEN = _XML_DECL + f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">\n'.encode()
_URLSET_CLOSE = b"</urlset>\n"
_INDEX_OPEN = _XML_DECL + f'<sitemapindex xmlns="{SITEMAP_NS}">\n'.encode()
_INDEX_CLOSE = b"</sitemapindex>\n"
_GZIP_LEVEL = 6  # level 9 costs twice the time for ~1% smaller files
_GZIP_BUFFER = 131_072


@dataclass(frozen=True, slots=True)
class SitemapFile:
    """A chunk as published: where it is, its URL, and what the index says of it."""

    path: Path
    url: str
    urls: int
    size: int  # uncompressed bytes
    lastmod: str | None  # the newest lastmod inside, as written
    changed: bool = True  # written by this run, rather than kept byte-identical


@dataclass(frozen=True, slots=True)
class WriteResult:
    """Every file one build published, chunks in index order, the main index first."""

    sitemaps: tuple[SitemapFile, ...]
    indexes: tuple[Path, ...]
    removed: int = 0  # chunk files of the previous set that the new one no longer lists

    @property
    def changed(self) -> int:
        return sum(1 for s in self.sitemaps if s.changed)


def entry_room(max_bytes: int) -> int:
    """The largest ``<url>`` element, in bytes, that fits in a sitemap of `max_bytes`."""
    return max_bytes - len(_URLSET_OPEN) - len(_URLSET_CLOSE)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _HashingFile:
    """A file opened for writing that hashes what goes through it."""

    def __init__(self, path: Path) -> None:
        self.raw: BinaryIO = open(path, "wb")  # closed by the owner
        self.digest = hashlib.blake2b(digest_size=20)

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()


def file_digest(path: Path) -> bytes | None:
    """The same digest `_HashingFile` computes, of a file on disk; None if unreadable."""
    digest = hashlib.blake2b(digest_size=20)
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.digest()


class _Chunk:
    """One sitemap being streamed into gzip, under a temporary name."""

    def __init__(self, tmp: Path, faults: Faults) -> None:
        faults.step()
        self.tmp = tmp
        self.file = _HashingFile(tmp)
        try:
            self.gz = gzip.GzipFile(filename="", mode="wb", fileobj=self.file, mtime=0, compresslevel=_GZIP_LEVEL)
            self.gz.write(_URLSET_OPEN)
        except BaseException:  # not yet the caller's to abort: remove the file here
            _discard(self.file.raw, tmp)
            raise
        self.size = len(_URLSET_OPEN)
        self.urls = 0
        self.lastmod_key: float | None = None
        self.lastmod: str | None = None
        self.buffer: list[bytes] = []
        self.buffered = 0

    def _flush(self) -> None:
        self.gz.write(b"".join(self.buffer))
        self.buffer.clear()
        self.buffered = 0

    def add(self, xml: bytes, size: int, lastmod_key: float | None, lastmod_text: str | None) -> None:
        # Buffered: one gzip write per 128 KiB, not per entry (GzipFile.write costs a
        # Python call and a crc32 update each time).
        self.buffer.append(xml)
        self.buffered += size
        if self.buffered >= _GZIP_BUFFER:
            self._flush()
        self.size += size
        self.urls += 1
        if lastmod_key is not None and (self.lastmod_key is None or lastmod_key > self.lastmod_key):
            self.lastmod_key, self.lastmod = lastmod_key, lastmod_text

    def finish(self, faults: Faults) -> bytes:
        """Close and fsync the temporary file; return its digest."""
        self._flush()
        self.gz.write(_URLSET_CLOSE)
        self.size += len(_URLSET_CLOSE)
        self.gz.close()
        self.file.flush()
        faults.step()
        os.fsync(self.file.raw.fileno())
        self.file.raw.close()
        return self.file.digest.digest()

    def abort(self) -> None:
        """Close and remove the temporary file; never raises for the write errors (a full
        disk) that made the caller abort, so the rest of its clean-up still runs."""
        with contextlib.suppress(OSError):
            self.gz.close()  # writes the gzip trailer: may fail again
        _discard(self.file.raw, self.tmp)


def _discard(raw: BinaryIO, tmp: Path) -> None:
    """Close (a failing flush still closes the descriptor) and remove a temporary file."""
    with contextlib.suppress(OSError):
        raw.close()
    tmp.unlink(missing_ok=True)


def _chunk_name(section: str, number: int) -> str:
    return f"sitemap-{section}-{number}.xml.gz" if section else f"sitemap-{number}.xml.gz"


def index_name(number: int) -> str:
    """``sitemap.xml`` for the first index, ``sitemap-index-N.xml`` after it."""
    return INDEX_NAME if number == 1 else _EXTRA_INDEX_NAME.format(number)


def read_published(out_dir: Path) -> list[str]:
    """The chunk file names the published index files list, in order.

    Read leniently: anything unreadable simply counts as not published, which
    only means this run will not reuse those files.
    """
    names: list[str] = []
    number = 1
    while True:
        path = out_dir / index_name(number)
        try:
            data = path.read_bytes()
        except OSError:
            break
        for raw in _INDEX_LOC.findall(data):
            name = html.unescape(raw.decode("utf-8", "replace")).rstrip("/").rpartition("/")[2]
            if _CHUNK_FILE.match(name):
                names.append(name)
        number += 1
    return names


class _Publisher:
    """Decides each finished chunk's file name without touching published files."""

    def __init__(self, out_dir: Path, faults: Faults) -> None:
        self.out_dir = out_dir
        self.faults = faults
        published = read_published(out_dir)
        # digest -> (file name, section): what an identical new chunk may keep.
        self.by_digest: dict[bytes, tuple[str, str]] = {}
        for name in published:
            digest = file_digest(out_dir / name)
            match = _CHUNK_FILE.match(name)
            if digest is not None and match is not None:
                self.by_digest[digest] = (name, match.group(1) or "")
        self.taken: set[str] = set(published)
        self.next_number: dict[str, int] = {}
        self.created: list[Path] = []  # new files not yet listed by any index

    def _fresh_name(self, section: str) -> str:
        number = self.next_number.get(section, 1)
        while _chunk_name(section, number) in self.taken:
            number += 1
        self.next_number[section] = number + 1
        name = _chunk_name(section, number)
        self.taken.add(name)
        return name

    def place(self, chunk: _Chunk, digest: bytes, section: str) -> tuple[Path, bool]:
        """Keep the identical published file, or rename the new one to a fresh name."""
        kept = self.by_digest.pop(digest, None)
        if kept is not None and kept[1] == section:
            self.faults.step()
            chunk.tmp.unlink()
            return self.out_dir / kept[0], False
        name = self._fresh_name(section)
        self.faults.step()
        os.replace(chunk.tmp, self.out_dir / name)
        self.created.append(self.out_dir / name)
        return self.out_dir / name, True

    def discard_created(self) -> None:
        """After a failure: remove the new files no index lists (a SIGKILL leaves them to the next run)."""
        for path in self.created:
            path.unlink(missing_ok=True)


def _write_index(path: Path, sitemaps: Iterable[SitemapFile], faults: Faults) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    faults.step()
    try:
        with open(tmp, "wb") as out:
            out.write(_INDEX_OPEN)
            for sitemap in sitemaps:
                line = f"<sitemap><loc>{escape_xml(sitemap.url)}</loc>"
                if sitemap.lastmod is not None:
                    line += f"<lastmod>{sitemap.lastmod}</lastmod>"
                out.write((line + "</sitemap>\n").encode("utf-8"))
            out.write(_INDEX_CLOSE)
            out.flush()
            faults.step()
            os.fsync(out.fileno())
        faults.step()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_sitemaps(
    entries: Iterable[Entry],
    out_dir: Path,
    *,
    base_url: str,
    lastmod_format: LastmodFormat = LastmodFormat.DATETIME,
    max_urls: int = 50_000,
    max_bytes: int = 10_485_760,
    max_sitemaps_per_index: int = 1_000,
    chunking: Chunking = Chunking.STABLE,
    sections: Sequence[str] = (),
    on_skip: Callable[[Skip], None] | None = None,
) -> WriteResult:
    """Stream `entries` into chunks in `out_dir`, then publish the index files.

    Writes nothing at all when `entries` is empty: a sitemap must list at
    least one URL, so the caller decides what an empty site means. The caller
    must hold the output directory's lock (see `build`).
    """
    return write_rows(
        (row_of(entry, lastmod_format) for entry in entries),
        out_dir,
        base_url=base_url,
        max_urls=max_urls,
        max_bytes=max_bytes,
        max_sitemaps_per_index=max_sitemaps_per_index,
        chunking=chunking,
        sections=sections,
        on_skip=on_skip,
    )


def write_rows(
    rows: Iterable[Row],
    out_dir: Path,
    *,
    base_url: str,
    max_urls: int = 50_000,
    max_bytes: int = 10_485_760,
    max_sitemaps_per_index: int = 1_000,
    chunking: Chunking = Chunking.STABLE,
    sections: Sequence[str] = (),
    on_skip: Callable[[Skip], None] | None = None,
) -> WriteResult:
    """`write_sitemaps` for rows already formatted (the build's fast path)."""
    skip = on_skip or (lambda _: None)
    faults = Faults()
    _remove_leftovers(out_dir, faults)
    publisher = _Publisher(out_dir, faults)
    room = entry_room(max_bytes)
    every = max(1, max_urls // 5) if chunking is Chunking.STABLE else 0
    order = ["", *sections]
    done: dict[str, list[SitemapFile]] = {s: [] for s in order}
    open_chunks: dict[str, _Chunk] = {}
    temp_number = 0

    def close(section: str) -> None:
        chunk = open_chunks[section]  # still there if finishing fails: the handler below removes it
        digest = chunk.finish(faults)
        path, changed = publisher.place(chunk, digest, section)
        del open_chunks[section]
        done[section].append(SitemapFile(path, base_url + path.name, chunk.urls, chunk.size, chunk.lastmod, changed))

    try:
        for loc, xml, lastmod_key, lastmod_text, section in rows:
            size = len(xml)
            if size > room:
                skip(Skip(loc, SkipReason.ENTRY_TOO_LARGE, f"{size:,} bytes"))
                continue
            chunk = open_chunks.get(section)
            if chunk is not None and (chunk.urls >= max_urls or chunk.size + size + len(_URLSET_CLOSE) > max_bytes):
                close(section)
                chunk = None
            if chunk is None:
                temp_number += 1
                chunk = open_chunks[section] = _Chunk(out_dir / f".sitemap-new-{temp_number}.xml.gz.tmp", faults)
            chunk.add(xml, size, lastmod_key, lastmod_text)
            # A content-defined cut point: about one URL in `every`, decided by the URL alone.
            if every and (every == 1 or crc32(loc.encode("utf-8")) % every == 0):
                close(section)
        for section in order:
            if section in open_chunks:
                close(section)
    except BaseException:
        for chunk in open_chunks.values():
            chunk.abort()
        publisher.discard_created()
        raise
    return _publish([s for section in order for s in done[section]], out_dir, max_sitemaps_per_index, faults)


def _remove_leftovers(out_dir: Path, faults: Faults) -> None:
    """Remove the temporary files of a run that was killed."""
    for leftover in out_dir.iterdir():
        if _TEMP_FILE.match(leftover.name):
            faults.step()
            leftover.unlink(missing_ok=True)


def _publish(written: list[SitemapFile], out_dir: Path, max_sitemaps_per_index: int, faults: Faults) -> WriteResult:
    """Write the index files over the chunks in place, then remove what they no longer list."""
    if not written:
        return WriteResult((), ())
    groups = [written[i : i + max_sitemaps_per_index] for i in range(0, len(written), max_sitemaps_per_index)]
    indexes = [out_dir / index_name(n) for n in range(1, len(groups) + 1)]
    faults.step()
    _fsync_dir(out_dir)  # every chunk's name is durable before an index points at it
    # Extra indexes first, the main one last: it is what crawlers are told about.
    for path, group in reversed(list(zip(indexes, groups, strict=True))):
        _write_index(path, group, faults)
    faults.step()
    _fsync_dir(out_dir)
    keep = {p.name for p in indexes} | {s.path.name for s in written}
    removed = _remove_stale(out_dir, keep, faults)
    return WriteResult(tuple(written), tuple(indexes), removed)


def _remove_stale(out_dir: Path, keep: set[str], faults: Faults) -> int:
    """Delete chunk and extra index files the new index no longer lists."""
    with os.scandir(out_dir) as it:
        stale = sorted(e.name for e in it if _OWN_FILE.match(e.name) and e.name not in keep)
    for name in stale:
        faults.step()
        os.unlink(out_dir / name)
    return sum(1 for name in stale if _CHUNK_FILE.match(name))
