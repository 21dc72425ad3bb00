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
number no file in the directory has, each file is fsynced and linked into
place, and the index is replaced last, atomically. Files the new index no
longer lists are removed after that. A crawler, or a run killed at any point,
sees either the old set or the new set, whole.

Only what this tool can prove it wrote is ever removed: the files an index of
ours lists (an index is ours when it has our writer's exact layout), and what
the journal (`outdir.Journal`) of a killed run names. A file that merely looks
like ours (a hand-made ``sitemap-news-1.xml.gz``) is left alone, and named.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import html
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from zlib import crc32

from sitemapgen._types import Warn
from sitemapgen.config.words import Chunking, LastmodFormat
from sitemapgen.entry import URLSET_CLOSE, URLSET_OPEN, XML_DECL, Entry, Row, entry_room, escape_xml, row_of
from sitemapgen.errors import SitemapgenError
from sitemapgen.output.generators import SITEMAP_NAME, listed_by, notice
from sitemapgen.output.outdir import Journal
from sitemapgen.protocol import DEFAULT_BYTES_PER_SITEMAP, DEFAULT_SITEMAPS_PER_INDEX, INDEX_NAME, LOC, SITEMAP_NS
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.util.faults import Faults
from sitemapgen.util.safeio import create_exclusive, open_regular, read_regular

_EXTRA_INDEX_NAME = "sitemap-index-{}.xml"
_OWN_FILE = re.compile(r"^sitemap-(?:(?:[a-z0-9_-]+-)?[1-9][0-9]*\.xml\.gz|index-[1-9][0-9]*\.xml)$")
_CHUNK_FILE = re.compile(r"^sitemap-(?:([a-z0-9_-]+)-)?([1-9][0-9]*)\.xml\.gz$")
_TEMP_FILE = re.compile(r"^\.sitemap.*\.tmp$")
#: The body of an index as `_write_index` writes it, and nothing else.
_OUR_INDEX_BODY = re.compile(rb"(?:<sitemap><loc>[^<]*</loc>(?:<lastmod>[^<]*</lastmod>)?</sitemap>\n)+")
_INDEX_LIMIT = 16 << 20  # an index of 1,000 entries is ~150 KB

_INDEX_OPEN = XML_DECL + f'<sitemapindex xmlns="{SITEMAP_NS}">\n'.encode()
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


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _HashingFile:
    """A file opened for writing that hashes what goes through it."""

    def __init__(self, path: Path) -> None:
        self.raw: BinaryIO = open(create_exclusive(path), "wb")  # closed by the owner
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
        with open(open_regular(path, follow_symlinks=False), "rb") as f:
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
            self.gz.write(URLSET_OPEN)
        except BaseException:  # not yet the caller's to abort: remove the file here
            _discard(self.file.raw, tmp)
            raise
        self.size = len(URLSET_OPEN)
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
        self.gz.write(URLSET_CLOSE)
        self.size += len(URLSET_CLOSE)
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


def _our_index(path: Path) -> bytes | None:
    """The bytes of the index file at `path` if it has our writer's exact layout, else None."""
    try:
        data = read_regular(path, limit=_INDEX_LIMIT + 1, follow_symlinks=False)
    except OSError:
        return None
    body = data[len(_INDEX_OPEN) : -len(_INDEX_CLOSE)]
    if not (data.startswith(_INDEX_OPEN) and data.endswith(_INDEX_CLOSE) and _OUR_INDEX_BODY.fullmatch(body)):
        return None
    return data


def our_indexes(out_dir: Path) -> list[tuple[Path, bytes]]:
    """The index files of ours in `out_dir`, in order: ``sitemap.xml``, ``sitemap-index-2.xml``, …
    as far as they go on unbroken."""
    found: list[tuple[Path, bytes]] = []
    while True:
        path = out_dir / index_name(len(found) + 1)
        data = _our_index(path)
        if data is None:
            return found
        found.append((path, data))


def read_published(out_dir: Path) -> list[str]:
    """The chunk file names our published index files list, in order.

    Read leniently: anything unreadable, or an index another tool wrote, simply
    lists nothing, which only means this run will neither reuse nor remove
    those files.
    """
    names: list[str] = []
    for _, data in our_indexes(out_dir):
        for raw in LOC.findall(data):
            name = html.unescape(raw.decode("utf-8", "replace")).rstrip("/").rpartition("/")[2]
            if _CHUNK_FILE.match(name):
                names.append(name)
    return names


class _Publisher:
    """Decides each finished chunk's file name without touching published files or anyone else's."""

    def __init__(self, out_dir: Path, faults: Faults, journal: Journal) -> None:
        self.out_dir = out_dir
        self.faults = faults
        self.journal = journal
        self.previous_indexes = [path for path, _ in our_indexes(out_dir)]
        self.published = read_published(out_dir)
        self.digests: dict[str, bytes] = {}
        # digest -> (file name, section): what an identical new chunk may keep.
        self.by_digest: dict[bytes, tuple[str, str]] = {}
        for name in self.published:
            digest = file_digest(out_dir / name)
            match = _CHUNK_FILE.match(name)
            if digest is not None and match is not None:
                self.digests[name] = digest
                self.by_digest[digest] = (name, match.group(1) or "")
        self.taken: set[str] = set(self.published)
        self.next_number: dict[str, int] = {}
        self.created: list[Path] = []  # new files not yet listed by any index
        self.listed_new = False  # once the main index lists the new files, they are not ours to discard

    def _fresh_name(self, section: str) -> str:
        """The first number of the section that no file in the directory has, ours or not."""
        number = self.next_number.get(section, 1)
        while _chunk_name(section, number) in self.taken or os.path.lexists(
            self.out_dir / _chunk_name(section, number)
        ):
            number += 1
        self.next_number[section] = number + 1
        name = _chunk_name(section, number)
        self.taken.add(name)
        return name

    def place(self, chunk: _Chunk, digest: bytes, section: str) -> tuple[Path, bool]:
        """Keep the identical published file, or link the new one in under a fresh name."""
        kept = self.by_digest.pop(digest, None)
        if kept is not None and kept[1] == section:
            self.faults.step()
            chunk.tmp.unlink()
            return self.out_dir / kept[0], False
        name = self._fresh_name(section)
        self.journal.placed(name, digest)
        self.faults.step()
        _link_into_place(chunk.tmp, self.out_dir / name)
        self.created.append(self.out_dir / name)
        return self.out_dir / name, True

    def discard_created(self) -> None:
        """After a failure: remove the new files no index lists (after a SIGKILL, the journal does)."""
        if self.listed_new:
            return
        for path in self.created:
            path.unlink(missing_ok=True)


def _link_into_place(tmp: Path, final: Path) -> None:
    """Give the finished file `tmp` the name `final`, which must not exist: a hard link fails
    rather than replace anything; where there are none (some mounts), a checked rename."""
    try:
        os.link(tmp, final, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(final):
            raise FileExistsError(17, "File exists", str(final)) from None
        os.replace(tmp, final)
        return
    tmp.unlink()


def _temp_name(out_dir: Path, stem: str, journal: Journal) -> Path:
    """A temporary name no file has yet (one left alone by an earlier run may hold the first),
    written down in the journal before it is created."""
    number = 1
    while True:
        name = f".{stem}.tmp" if number == 1 else f".{stem}.{number}.tmp"
        if not os.path.lexists(out_dir / name):
            journal.temporary(name)
            return out_dir / name
        number += 1


def _write_index(path: Path, sitemaps: Iterable[SitemapFile], faults: Faults, journal: Journal) -> None:
    tmp = _temp_name(path.parent, path.name, journal)
    faults.step()
    try:
        with open(create_exclusive(tmp), "wb") as out:
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
    max_bytes: int = DEFAULT_BYTES_PER_SITEMAP,
    max_sitemaps_per_index: int = DEFAULT_SITEMAPS_PER_INDEX,
    chunking: Chunking = Chunking.STABLE,
    sections: Sequence[str] = (),
    on_skip: Callable[[Skip], None] | None = None,
    on_warning: Warn | None = None,
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
        on_warning=on_warning,
    )


def write_rows(
    rows: Iterable[Row],
    out_dir: Path,
    *,
    base_url: str,
    max_urls: int = 50_000,
    max_bytes: int = DEFAULT_BYTES_PER_SITEMAP,
    max_sitemaps_per_index: int = DEFAULT_SITEMAPS_PER_INDEX,
    chunking: Chunking = Chunking.STABLE,
    sections: Sequence[str] = (),
    on_skip: Callable[[Skip], None] | None = None,
    on_warning: Warn | None = None,
    before_publish: Callable[[], None] | None = None,
) -> WriteResult:
    """`write_sitemaps` for rows already formatted (the build's fast path).

    `before_publish` runs once every new chunk is on disk and before any index
    changes (the build commits its content store there): if it fails, nothing
    is published.
    """
    skip = on_skip or (lambda _: None)
    warn = on_warning or (lambda _: None)
    faults = Faults()
    Journal.recover(out_dir, set(read_published(out_dir)), file_digest, warn)
    names = _file_names(out_dir)  # listed once, after an interrupted run's leftovers are gone
    _check_main_index(out_dir, base_url, warn, names)
    journal = Journal(out_dir)
    try:
        publisher = _Publisher(out_dir, faults, journal)
        _name_lookalikes(out_dir, publisher, warn, names)
        return _write(
            rows,
            publisher,
            base_url,
            max_urls,
            max_bytes,
            max_sitemaps_per_index,
            chunking,
            sections,
            skip,
            before_publish,
        )
    finally:
        journal.close()


def _write(
    rows: Iterable[Row],
    publisher: _Publisher,
    base_url: str,
    max_urls: int,
    max_bytes: int,
    max_sitemaps_per_index: int,
    chunking: Chunking,
    sections: Sequence[str],
    skip: Callable[[Skip], None],
    before_publish: Callable[[], None] | None,
) -> WriteResult:
    out_dir, faults, journal = publisher.out_dir, publisher.faults, publisher.journal
    room = entry_room(max_bytes)
    every = max(1, max_urls // 5) if chunking is Chunking.STABLE else 0
    order = ["", *sections]
    done: dict[str, list[SitemapFile]] = {s: [] for s in order}
    open_chunks: dict[str, _Chunk] = {}

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
            if chunk is not None and (chunk.urls >= max_urls or chunk.size + size + len(URLSET_CLOSE) > max_bytes):
                close(section)
                chunk = None
            if chunk is None:
                chunk = open_chunks[section] = _Chunk(_temp_name(out_dir, "sitemap-new.xml.gz", journal), faults)
            chunk.add(xml, size, lastmod_key, lastmod_text)
            # A content-defined cut point: about one URL in `every`, decided by the URL alone.
            if every and (every == 1 or crc32(loc.encode("utf-8")) % every == 0):
                close(section)
        for section in order:
            if section in open_chunks:
                close(section)
        written = [s for section in order for s in done[section]]
        if written and before_publish is not None:
            before_publish()
        return _publish(written, publisher, max_sitemaps_per_index)
    except BaseException:
        for chunk in open_chunks.values():
            chunk.abort()
        publisher.discard_created()
        raise


def _file_names(out_dir: Path) -> list[tuple[str, bool]]:
    """Every name in `out_dir`, sorted, and whether it is a file (symlinks followed, as `DirEntry.is_file`)."""
    with os.scandir(out_dir) as it:
        return sorted((e.name, e.is_file()) for e in it)


def _check_main_index(out_dir: Path, base_url: str, warn: Warn, names: list[tuple[str, bool]]) -> None:
    """Refuse to replace a main index that is not a file; say so when it is someone else's,
    and name the other sitemaps that stay beside ours (see `generators`)."""
    path = out_dir / INDEX_NAME
    replaced = False
    others: list[str] = []
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
            raise SitemapgenError(f"{path}: is {what}; sitemapgen replaces only a file it wrote there: move it away")
        if _our_index(path) is None:
            replaced = True
            others = listed_by(path, out_dir, base_url)
    others += [
        name
        for name, is_file in names
        if is_file and SITEMAP_NAME.match(name) and name != INDEX_NAME and not _OWN_FILE.match(name)
    ]
    message = notice(out_dir, replaced, list(dict.fromkeys(others)))
    if message is not None:
        warn(message)


def _name_lookalikes(out_dir: Path, publisher: _Publisher, warn: Warn, names: list[tuple[str, bool]]) -> None:
    """Name the files that look like ours but that no index or journal of ours accounts for."""
    ours = set(publisher.published) | {path.name for path in publisher.previous_indexes}
    strays = [
        name
        for name, _ in names
        if name.startswith(("sitemap-", ".sitemap"))
        and (_OWN_FILE.match(name) or _TEMP_FILE.match(name))
        and name not in ours
    ]
    if strays:
        shown = ", ".join(strays[:5]) + (f" and {len(strays) - 5} more" if len(strays) > 5 else "")
        warn(
            f"{out_dir}: left alone, though named like sitemapgen's files (no index of ours lists them,"
            f" so they are not ours to remove): {shown}"
        )


def _publish(written: list[SitemapFile], publisher: _Publisher, max_sitemaps_per_index: int) -> WriteResult:
    """Write the index files over the chunks in place, then remove what they no longer list."""
    if not written:
        return WriteResult((), ())
    out_dir, faults, journal = publisher.out_dir, publisher.faults, publisher.journal
    groups = [written[i : i + max_sitemaps_per_index] for i in range(0, len(written), max_sitemaps_per_index)]
    indexes = [out_dir / index_name(n) for n in range(1, len(groups) + 1)]
    previous = {path.name for path in publisher.previous_indexes}
    for path in indexes[1:]:
        if path.name not in previous and os.path.lexists(path):
            raise SitemapgenError(f"{path}: exists and sitemapgen did not write it; move it away")
    keep = {p.name for p in indexes} | {s.path.name for s in written}
    stale = [name for name in publisher.published if name not in keep and name in publisher.digests]
    stale_indexes = [path.name for path in publisher.previous_indexes if path.name not in keep]
    for name in stale:
        journal.retiring(name, publisher.digests[name])
    for name in stale_indexes:
        journal.retiring(name, file_digest(out_dir / name) or b"")
    faults.step()
    _fsync_dir(out_dir)  # every chunk's name is durable before an index points at it
    # Extra indexes first, the main one last: it is what crawlers are told about.
    for path, group in reversed(list(zip(indexes, groups, strict=True))):
        _write_index(path, group, faults, journal)
    publisher.listed_new = True
    faults.step()
    _fsync_dir(out_dir)
    removed = 0
    for name in [*stale, *stale_indexes]:
        faults.step()
        if _remove_if_regular(out_dir / name):
            removed += name in stale
    return WriteResult(tuple(written), tuple(indexes), removed)


def _remove_if_regular(path: Path) -> bool:
    """Remove a file of ours that an index no longer lists, unless it has become something else."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        path.unlink()
    except FileNotFoundError:
        return False
    return True
