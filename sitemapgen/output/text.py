"""The text sitemap (``text_sitemap = true``): ``sitemap.txt`` beside the index, one URL a line.

Its lines are exactly the URLs of the XML sitemaps in the index's order (the sections, then
each one's chunks): it is written from the chunks themselves, read back one at a time once they
are all in place, so memory holds one line, never the site. UTF-8, a URL and a newline per line;
past `max_urls` URLs or 50 MiB (`MAX_TEXT_BYTES`, the protocol's bound of a text sitemap) the
next file is ``sitemap-2.txt``, then ``sitemap-3.txt``, ... robots.txt names the XML index only.

A text file is nothing but its URLs (a search engine reads every line as one), so it cannot carry
a mark of ours as ``sitemap.xsl`` does. What proves a text sitemap ours is a record the build
keeps beside ``.sitemapgen-retired``: `RECORD_NAME`, naming each text file it wrote and the
digest of its bytes. A file at one of these names is replaced or removed only while the record
names it with the digest of the bytes it has now; any other (someone's own ``sitemap.txt``, or
ours edited since) is refused, before anything is written.

Publishing: every file is written under a temporary name the journal knows and fsynced; the
record then names the old digests and the new ones together, and the files are renamed into
place (the extra ones first, ``sitemap.txt`` last), all before the index, so a failure before
the renames publishes nothing new and a run killed at any point leaves files the record proves
ours. After the index, the record keeps the new digests only (`TextSitemaps.settle`). A file the
build stops writing (the option turned off, or fewer files needed) is kept one build, as written,
then removed if its bytes are still the ones written, as ``sitemap.xsl`` is.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import html
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from sitemapgen._types import Notice, Warn
from sitemapgen.errors import SitemapgenError
from sitemapgen.output.chunks import temp_name
from sitemapgen.output.outdir import Journal
from sitemapgen.output.published import file_digest
from sitemapgen.protocol import LOC, MAX_BYTES_PER_SITEMAP
from sitemapgen.util.faults import Faults
from sitemapgen.util.safeio import create_exclusive, read_regular, replace_durably

TEXT_NAME = "sitemap.txt"
#: A text sitemap's name: ``sitemap.txt``, then ``sitemap-2.txt``, ...
TEXT_FILE = re.compile(r"^sitemap(?:-(?:[2-9]|[1-9][0-9]+))?\.txt$")
#: The protocol's bound of a text sitemap, in bytes (its URLs' bound is `max_urls`, 50,000 at most).
MAX_TEXT_BYTES = MAX_BYTES_PER_SITEMAP
RECORD_NAME = ".sitemapgen-text"
_HEAD = (
    "sitemapgen text 1: the text sitemaps a build wrote here, each with the digest of its bytes"
    " ('kept': no longer written, removed by the next build); one that no longer has them is not sitemapgen's\n"
)
_RECORD_LIMIT = 1 << 20
_BUFFER = 131_072


def text_name(number: int) -> str:
    """``sitemap.txt`` for the first text sitemap, ``sitemap-N.txt`` after it."""
    return TEXT_NAME if number == 1 else f"sitemap-{number}.txt"


@dataclass(frozen=True, slots=True)
class TextFile:
    """A text sitemap as published: where it is, how many URLs it has, and whether this run wrote it
    (rather than kept the identical file)."""

    path: Path
    urls: int
    changed: bool


@dataclass(slots=True)
class _Record:
    """What the record says: name -> the digests its file may have, for the files the last build
    wrote (`live`) and those it kept without writing them (`kept`)."""

    live: dict[str, set[bytes]] = field(default_factory=dict)
    kept: dict[str, set[bytes]] = field(default_factory=dict)

    def digests(self, name: str) -> set[bytes]:
        return self.live.get(name, set()) | self.kept.get(name, set())


def _read_record(out: Path) -> _Record:
    """The record in `out`; an empty one where there is none, or one sitemapgen did not write."""
    record = _Record()
    try:
        text = read_regular(out / RECORD_NAME, limit=_RECORD_LIMIT, follow_symlinks=False).decode("ascii")
    except (OSError, UnicodeDecodeError):
        return record
    if not text.startswith(_HEAD):
        return record
    for line in text[len(_HEAD) :].splitlines():
        kind, name, digest = (line.split(" ") + ["", ""])[:3]
        if kind in ("live", "kept") and TEXT_FILE.match(name):
            with contextlib.suppress(ValueError):
                (record.live if kind == "live" else record.kept).setdefault(name, set()).add(bytes.fromhex(digest))
    return record


def _record_lines(live: Mapping[str, Iterable[bytes]], kept: Mapping[str, Iterable[bytes]]) -> Iterator[bytes]:
    yield _HEAD.encode("ascii")
    for kind, files in (("live", live), ("kept", kept)):
        for name in sorted(files):
            for digest in sorted(files[name]):
                yield f"{kind} {name} {digest.hex()}\n".encode("ascii")


def _locs(chunk: Path) -> Iterator[bytes]:
    """The URLs of one of our sitemap files, in order, each a line: its ``<url>``s' ``<loc>``s
    (an image's ``<image:loc>`` is not one), unescaped, one entry a line as the writer writes them."""
    with gzip.open(chunk, "rb") as f:
        for line in f:
            match = LOC.search(line)
            if match is not None:
                loc = match[1].decode("utf-8")
                yield (html.unescape(loc) if "&" in loc else loc).encode("utf-8") + b"\n"


class _Writing:
    """One text sitemap being written under a temporary name, hashed as it goes."""

    def __init__(self, name: str, tmp: Path, faults: Faults) -> None:
        faults.step()
        self.name, self.tmp = name, tmp
        self.raw: BinaryIO = open(create_exclusive(tmp, 0o644), "wb")
        self.hash = hashlib.blake2b(digest_size=20)
        self.buffer: list[bytes] = []
        self.buffered = self.size = self.urls = 0
        self.digest = b""

    def add(self, line: bytes) -> None:
        self.buffer.append(line)
        self.buffered += len(line)
        self.size += len(line)
        self.urls += 1
        if self.buffered >= _BUFFER:
            self._flush()

    def _flush(self) -> None:
        data = b"".join(self.buffer)
        self.buffer.clear()
        self.buffered = 0
        self.hash.update(data)
        self.raw.write(data)

    def finish(self, faults: Faults) -> None:
        self._flush()
        self.raw.flush()
        faults.step()
        os.fsync(self.raw.fileno())
        self.raw.close()
        self.digest = self.hash.digest()

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.raw.close()
        self.tmp.unlink(missing_ok=True)


@dataclass(slots=True)
class TextSitemaps:
    """The text sitemaps of one build: known to be ours to replace (`prepare`), written from the
    chunks and renamed into place before the index (`publish`), the record settled after it
    (`settle`). Where text_sitemap is off and no record says an earlier build wrote some, each
    step does nothing (`idle`): a build without them reads one missing record, no more."""

    out: Path
    on: bool
    max_urls: int
    record: _Record
    files: list[TextFile] = field(default_factory=list)
    digests: dict[str, bytes] = field(default_factory=dict)  # name -> digest, of what this build publishes

    @classmethod
    def prepare(cls, out: Path, *, on: bool, max_urls: int) -> TextSitemaps:
        """The text sitemaps `out` is to get (none where `on` is false); an error, before anything
        is written, where a ``sitemap.txt`` there is not ours to replace."""
        texts = cls(out, on, max_urls, _read_record(out))
        if on:
            texts.check(TEXT_NAME)
        return texts

    @property
    def idle(self) -> bool:
        """Off, and no text sitemap of an earlier build's to keep or remove: nothing to do."""
        return not (self.on or self.record.live or self.record.kept)

    def check(self, name: str) -> None:
        """An error where a file at `name` is there and is not ours, as the record says."""
        path = self.out / name
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
        if stat.S_ISREG(st.st_mode) and file_digest(path) in self.record.digests(name):
            return
        raise SitemapgenError(
            f"{path}: exists and sitemapgen did not write it (or it was edited since; its record is {RECORD_NAME}),"
            " so text_sitemap = true would replace it: move it away, or leave text_sitemap off"
        )

    def publish(self, chunks: Iterable[Path], journal: Journal, faults: Faults) -> None:
        """Write the text sitemaps from `chunks` (every sitemap file of ours, in the index's order)
        and rename them into place; the record names old and new digests meanwhile."""
        if not self.on:
            return
        written = self._write(chunks, journal, faults)
        try:
            self.digests = {w.name: w.digest for w in written}
            live = {name: self.record.digests(name) | {digest} for name, digest in self.digests.items()}
            self._write_record({**self.record.live, **live}, self.record.kept, journal, faults)
            for w in reversed(written):  # the extra files first, sitemap.txt last
                path = self.out / w.name
                changed = file_digest(path) != w.digest
                faults.step()
                if changed:
                    os.replace(w.tmp, path)
                else:
                    w.tmp.unlink()
                self.files.insert(0, TextFile(path, w.urls, changed))
        finally:
            for w in written:
                w.tmp.unlink(missing_ok=True)

    def _write(self, chunks: Iterable[Path], journal: Journal, faults: Faults) -> list[_Writing]:
        written: list[_Writing] = []
        current: _Writing | None = None
        try:
            for chunk in chunks:
                for line in _locs(chunk):
                    if current is None or current.urls >= self.max_urls or current.size + len(line) > MAX_TEXT_BYTES:
                        if current is not None:
                            current.finish(faults)
                        name = text_name(len(written) + 1)
                        self.check(name)
                        current = _Writing(name, temp_name(self.out, name, journal), faults)
                        written.append(current)
                    current.add(line)
            if current is not None:
                current.finish(faults)
        except BaseException:
            for w in written:
                w.discard()
            raise
        return written

    def settle(self, journal: Journal, faults: Faults, warn: Warn) -> None:
        """After the index: the record names what this build published; a file the previous
        build wrote and this one did not is kept, as written, for one build; one already kept
        is removed now, if its bytes are still the ones written."""
        if self.idle:
            return
        kept: dict[str, set[bytes]] = {}
        for name, digests in self.record.live.items():
            digest = file_digest(self.out / name)
            if name not in self.digests and digest in digests:
                kept[name] = {digest} if digest is not None else set()
        for name, digests in sorted(self.record.kept.items()):
            if name in self.digests or name in kept:
                continue
            path = self.out / name
            faults.step()
            if file_digest(path) in digests:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    warn(Notice(f"{path}: removed (a text sitemap no build has written since the one before)"))
        live = {name: {digest} for name, digest in self.digests.items()}
        self._write_record(live, kept, journal, faults)

    def _write_record(
        self, live: Mapping[str, Iterable[bytes]], kept: Mapping[str, Iterable[bytes]], journal: Journal, faults: Faults
    ) -> None:
        path = self.out / RECORD_NAME
        if not (live or kept):
            faults.step()
            path.unlink(missing_ok=True)
            return
        tmp = temp_name(self.out, RECORD_NAME.lstrip("."), journal)
        replace_durably(tmp, path, _record_lines(live, kept), faults.step)
