"""One chunk being written, and the publisher that gives each finished chunk its file name.

A chunk (`Chunk`) streams its entries into gzip under a temporary name, hashing
the bytes as they go; once finished and fsynced, the publisher (`Publisher`)
either keeps the identical file already published (recognised by its digest)
or links the new one into place under a number no file in the directory has.
Nothing here touches a file the current index lists; `writer` decides when the
index files are written over the chunks (`write_indexes`, the main one last).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from sitemapgen.entry import URLSET_CLOSE, URLSET_OPEN, escape_xml
from sitemapgen.output.outdir import Journal
from sitemapgen.output.published import INDEX_CLOSE, file_digest, our_indexes, read_published
from sitemapgen.protocol import CHUNK_FILE
from sitemapgen.util.faults import Faults
from sitemapgen.util.safeio import create_exclusive, link_into_place, replace_durably

IndexEntry = tuple[str, str | None]  # a sitemap's URL and lastmod, as an index lists it

_GZIP_LEVEL = 6  # level 9 costs twice the time for ~1% smaller files
_GZIP_BUFFER = 131_072


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


class _Aside:
    """A chunk's gzip work (compression, its checksum, the digest, the writes) in a thread of
    its own, while the caller goes on making the next entries: the same bytes, in the same
    order, as if written in the caller's thread. Made only once no worker process will be
    forked (see `Chunk`). An error of the thread's (a full disk) is the caller's at its next
    write, or when it closes."""

    def __init__(self, gz: gzip.GzipFile) -> None:
        self._gz = gz
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=_ASIDE_AHEAD)
        self._error: BaseException | None = None
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="sitemapgen-gzip", daemon=True)
        self._thread.start()  # RuntimeError where no thread can start: the caller writes itself

    def _run(self) -> None:
        while (data := self._queue.get()) is not None:
            if self._error is None and not self._stopped:
                try:
                    self._gz.write(data)
                except BaseException as e:
                    self._error = e

    def write(self, data: bytes) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(data)

    def close(self) -> None:
        """Wait for the writes queued; raise the thread's error, if any."""
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        """Drop the writes queued, and wait for the one under way: the file is the caller's
        again. Never raises (the caller is cleaning up after an error)."""
        self._stopped = True
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()
        self._queue.put(None)
        self._thread.join()


_ASIDE_AHEAD = 4  # buffers queued for the gzip thread: a few, 128 KiB each


class Chunk:
    """One sitemap being streamed into gzip, under a temporary name.

    With `aside`, gzip works in a thread of its own (`_Aside`), beside the caller: for the
    chunks written once the pages are all decided (a build with hreflang links writes most
    of its sitemaps then, on one CPU, see `pipeline.hreflang`). Never while worker processes
    may yet be forked: a thread then would keep the build in one process (`util.parallel`).
    """

    def __init__(self, tmp: Path, faults: Faults, opening: bytes = URLSET_OPEN, *, aside: bool = False) -> None:
        faults.step()
        self.tmp = tmp
        self.file = _HashingFile(tmp)
        try:
            self.gz = gzip.GzipFile(filename="", mode="wb", fileobj=self.file, mtime=0, compresslevel=_GZIP_LEVEL)
            self.gz.write(opening)
        except BaseException:  # not yet the caller's to abort: remove the file here
            _discard(self.file.raw, tmp)
            raise
        self.size = len(opening)
        self.urls = 0
        self.lastmod_key: float | None = None
        self.lastmod: str | None = None
        self.buffer: list[bytes] = []
        self.buffered = 0
        self.aside: _Aside | None = None
        if aside:
            with contextlib.suppress(RuntimeError):  # no thread can start: gzip works here
                self.aside = _Aside(self.gz)

    def hand_over(self) -> None:
        """The writer is done adding: what is buffered goes to the gzip thread now (aside only),
        whose work on it goes on while the writer fills the next chunk (see `Closing`)."""
        if self.aside is not None:
            self._flush()

    def _flush(self) -> None:
        if not self.buffer:  # handed over already, or nothing added: no empty write (nor a thread's turn)
            return
        data = b"".join(self.buffer)
        self.buffer.clear()
        self.buffered = 0
        if self.aside is not None:
            self.aside.write(data)
        else:
            self.gz.write(data)

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

    def add_many(self, xmls: list[bytes], size: int, newest_key: float, newest_text: str) -> None:
        """`add` for each of `xmls` (`size` bytes in all), the newest of whose lastmods is given."""
        self.buffer += xmls
        self.buffered += size
        if self.buffered >= _GZIP_BUFFER:
            self._flush()
        self.size += size
        self.urls += len(xmls)
        if self.lastmod_key is None or newest_key > self.lastmod_key:
            self.lastmod_key, self.lastmod = newest_key, newest_text

    def finish(self, faults: Faults) -> bytes:
        """Close and fsync the temporary file; return its digest."""
        self._flush()
        if self.aside is not None:
            self.aside.close()
            self.aside = None
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
        if self.aside is not None:
            self.aside.stop()
        with contextlib.suppress(OSError):
            self.gz.close()  # writes the gzip trailer: may fail again
        _discard(self.file.raw, self.tmp)


class Closing:
    """The chunks the writer has closed, finished (`Chunk.finish`) and placed (`Publisher.place`)
    in the order closed, each then handed to `placed`. A chunk compressed aside is finished only
    once the next one closes: its thread compresses its last part while the writer fills the
    next, and two threads may then work at once. Any other is finished when it closes."""

    def __init__(self, publisher: Publisher, placed: Callable[[str, Chunk, Path, bool], None]) -> None:
        self.publisher = publisher
        self.placed = placed
        self.queue: deque[tuple[str, Chunk]] = deque()

    def close(self, section: str, chunk: Chunk) -> None:
        self.queue.append((section, chunk))  # first: `abort` removes it if handing over fails
        chunk.hand_over()
        while len(self.queue) > (chunk.aside is not None):
            self._finish_first()

    def finish(self) -> None:
        """Finish and place every chunk closed."""
        while self.queue:
            self._finish_first()

    def _finish_first(self) -> None:
        section, chunk = self.queue[0]  # still there if finishing fails: `abort` removes it
        digest = chunk.finish(self.publisher.faults)
        path, changed = self.publisher.place(chunk, digest, section)
        self.queue.popleft()
        self.placed(section, chunk, path, changed)

    def abort(self) -> None:
        """After a failure: abort every chunk closed and not yet placed."""
        for _, chunk in self.queue:
            chunk.abort()
        self.queue.clear()


def _discard(raw: BinaryIO, tmp: Path) -> None:
    """Close (a failing flush still closes the descriptor) and remove a temporary file."""
    with contextlib.suppress(OSError):
        raw.close()
    tmp.unlink(missing_ok=True)


def _chunk_name(section: str, number: int) -> str:
    return f"sitemap-{section}-{number}.xml.gz" if section else f"sitemap-{number}.xml.gz"


class Publisher:
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
            match = CHUNK_FILE.match(name)
            if digest is not None and match is not None:
                self.digests[name] = digest
                self.by_digest[digest] = (name, match.group(1) or "")
        self.taken: set[str] = set(self.published)
        self.next_number: dict[str, int] = {}
        self.created: list[Path] = []  # new files not yet listed by any index
        self.listed_new = False  # once the main index lists the new files, they are not ours to discard
        self.retired: dict[str, bytes] = {}  # name -> digest: unlisted by the previous build, removed by this one
        self.sheet: bool | None = None  # stylesheet = true: whether sitemap.xsl is there as written (None: off)

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

    def place(self, chunk: Chunk, digest: bytes, section: str) -> tuple[Path, bool]:
        """Keep the identical published file, or link the new one in under a fresh name."""
        kept = self.by_digest.pop(digest, None)
        if kept is not None and kept[1] == section:
            self.faults.step()
            chunk.tmp.unlink()
            return self.out_dir / kept[0], False
        name = self._fresh_name(section)
        self.journal.placed(name, digest)
        self.faults.step()
        link_into_place(chunk.tmp, self.out_dir / name)
        self.created.append(self.out_dir / name)
        return self.out_dir / name, True

    def discard_created(self) -> None:
        """After a failure: remove the new files no index lists (after a SIGKILL, the journal does)."""
        if self.listed_new:
            return
        for path in self.created:
            path.unlink(missing_ok=True)


def temp_name(out_dir: Path, stem: str, journal: Journal) -> Path:
    """A temporary name no file has yet (one left alone by an earlier run may hold the first),
    written down in the journal before it is created."""
    number = 1
    while True:
        name = f".{stem}.tmp" if number == 1 else f".{stem}.{number}.tmp"
        if not os.path.lexists(out_dir / name):
            journal.temporary(name)
            return out_dir / name
        number += 1


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_index(path: Path, sitemaps: Iterable[IndexEntry], faults: Faults, journal: Journal, opening: bytes) -> None:
    tmp = temp_name(path.parent, path.name, journal)
    replace_durably(tmp, path, _index_lines(sitemaps, opening), faults.step)


def _index_lines(sitemaps: Iterable[IndexEntry], opening: bytes) -> Iterator[bytes]:
    yield opening
    for url, lastmod in sitemaps:
        line = f"<sitemap><loc>{escape_xml(url)}</loc>"
        if lastmod is not None:
            line += f"<lastmod>{lastmod}</lastmod>"
        yield (line + "</sitemap>\n").encode("utf-8")
    yield INDEX_CLOSE


def write_indexes(publisher: Publisher, indexes: list[Path], groups: list[list[IndexEntry]], opening: bytes) -> None:
    """Publish: write each index file over its group of chunks, every name durable first."""
    out_dir, faults, journal = publisher.out_dir, publisher.faults, publisher.journal
    faults.step()
    _fsync_dir(out_dir)  # every chunk's name is durable before an index points at it
    # Extra indexes first, the main one last: it is what crawlers are told about.
    for path, group in reversed(list(zip(indexes, groups, strict=True))):
        _write_index(path, group, faults, journal, opening)
    publisher.listed_new = True
    faults.step()
    _fsync_dir(out_dir)
