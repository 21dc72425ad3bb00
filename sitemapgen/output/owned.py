"""Extra outputs a build writes beside the index that cannot carry a mark of ours (``sitemap.txt``,
``llms.txt``): each kind of them proved ours by a record of its own (`Kind.record`), which names
each file a build wrote and the digest of its bytes.

A file at one of a kind's names is replaced or removed only while the record names it with the
digest of the bytes it has now; any other (someone's own, or ours edited since) is refused, before
anything is written (`OwnedFiles.check`). Publishing: each file is written under a temporary name
the journal knows and fsynced (`Writing`); the record then names the old digests and the new ones
together, and the files are renamed into place (the first name last), all before the index, so a
failure before the renames publishes nothing new and a run killed at any point leaves files the
record proves ours (`OwnedFiles.place`). After the index, the record keeps the new digests only
(`OwnedFiles.settle`). A file the build stops writing (the option turned off, or fewer files
needed) is kept one build, as written, then removed if its bytes are still the ones written, as
``sitemap.xsl`` is. `output.text` and `output.llms` say what goes in each.
"""

from __future__ import annotations

import contextlib
import hashlib
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
from sitemapgen.util.faults import Faults
from sitemapgen.util.safeio import create_exclusive, read_regular, replace_durably

_RECORD_LIMIT = 1 << 20
_BUFFER = 131_072


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of owned output: its record's name and first line, the names its files may have,
    the option that writes it, and how a notice names one of them."""

    record: str  # ".sitemapgen-text"
    head: str  # the record's first line, with its newline
    names: re.Pattern[str]  # the names of its files
    option: str  # "text_sitemap"
    what: str  # "a text sitemap"


@dataclass(frozen=True, slots=True)
class TextFile:
    """An owned file as published: where it is, how many URLs it lists, and whether this run wrote
    it (rather than kept the identical file)."""

    path: Path
    urls: int
    changed: bool


@dataclass(slots=True)
class Record:
    """What a record says: name -> the digests its file may have, for the files the last build
    wrote (`live`) and those it kept without writing them (`kept`)."""

    live: dict[str, set[bytes]] = field(default_factory=dict)
    kept: dict[str, set[bytes]] = field(default_factory=dict)

    def digests(self, name: str) -> set[bytes]:
        return self.live.get(name, set()) | self.kept.get(name, set())


def read_record(out: Path, kind: Kind) -> Record:
    """`kind`'s record in `out`; an empty one where there is none, or one sitemapgen did not write."""
    record = Record()
    try:
        text = read_regular(out / kind.record, limit=_RECORD_LIMIT, follow_symlinks=False).decode("ascii")
    except (OSError, UnicodeDecodeError):
        return record
    if not text.startswith(kind.head):
        return record
    for line in text[len(kind.head) :].splitlines():
        state, name, digest = (line.split(" ") + ["", ""])[:3]
        if state in ("live", "kept") and kind.names.match(name):
            with contextlib.suppress(ValueError):
                (record.live if state == "live" else record.kept).setdefault(name, set()).add(bytes.fromhex(digest))
    return record


def _record_lines(
    kind: Kind, live: Mapping[str, Iterable[bytes]], kept: Mapping[str, Iterable[bytes]]
) -> Iterator[bytes]:
    yield kind.head.encode("ascii")
    for state, files in (("live", live), ("kept", kept)):
        for name in sorted(files):
            for digest in sorted(files[name]):
                yield f"{state} {name} {digest.hex()}\n".encode("ascii")


class Writing:
    """One owned file being written under a temporary name, hashed as it goes."""

    def __init__(self, name: str, tmp: Path, faults: Faults) -> None:
        faults.step()
        self.name, self.tmp = name, tmp
        self.raw: BinaryIO = open(create_exclusive(tmp, 0o644), "wb")
        self.hash = hashlib.blake2b(digest_size=20)
        self.buffer: list[bytes] = []
        self.buffered = self.size = self.urls = 0
        self.digest = b""

    def add(self, line: bytes, urls: int = 1) -> None:
        """Write `line`, which lists `urls` URLs."""
        self.buffer.append(line)
        self.buffered += len(line)
        self.size += len(line)
        self.urls += urls
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
class OwnedFiles:
    """The owned files of one kind in one build: known to be ours to replace (`check`), placed
    before the index (`place`), the record settled after it (`settle`). Where the option is off
    and no record says an earlier build wrote some, each step does nothing (`idle`): a build
    without them reads one missing record, no more."""

    kind: Kind
    out: Path
    on: bool
    record: Record
    files: list[TextFile] = field(default_factory=list)
    digests: dict[str, bytes] = field(default_factory=dict)  # name -> digest, of what this build publishes

    @classmethod
    def prepare(cls, kind: Kind, out: Path, *, on: bool, first: str) -> OwnedFiles:
        """The files of `kind` `out` is to get (none where `on` is false); an error, before
        anything is written, where a file at `first` is there and not ours to replace."""
        owned = cls(kind, out, on, read_record(out, kind))
        if on:
            owned.check(first)
        return owned

    @property
    def idle(self) -> bool:
        """Off, and no file of an earlier build's to keep or remove: nothing to do."""
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
        option = self.kind.option
        raise SitemapgenError(
            f"{path}: exists and sitemapgen did not write it (or it was edited since; its record is"
            f" {self.kind.record}), so {option} = true would replace it: move it away, or leave {option} off"
        )

    def start(self, name: str, journal: Journal, faults: Faults) -> Writing:
        """A new file at `name` (refused where one is there that is not ours), being written."""
        self.check(name)
        return Writing(name, temp_name(self.out, name, journal), faults)

    def place(self, written: list[Writing], journal: Journal, faults: Faults) -> None:
        """Rename the files `written` (finished) into place, the first last; the record names old
        and new digests meanwhile."""
        try:
            self.digests = {w.name: w.digest for w in written}
            live = {name: self.record.digests(name) | {digest} for name, digest in self.digests.items()}
            self._write_record({**self.record.live, **live}, self.record.kept, journal, faults)
            for w in reversed(written):  # the extra files first, the first one last
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
                    warn(Notice(f"{path}: removed ({self.kind.what} no build has written since the one before)"))
        live = {name: {digest} for name, digest in self.digests.items()}
        self._write_record(live, kept, journal, faults)

    def _write_record(
        self, live: Mapping[str, Iterable[bytes]], kept: Mapping[str, Iterable[bytes]], journal: Journal, faults: Faults
    ) -> None:
        path = self.out / self.kind.record
        if not (live or kept):
            faults.step()
            path.unlink(missing_ok=True)
            return
        tmp = temp_name(self.out, self.kind.record.lstrip("."), journal)
        replace_durably(tmp, path, _record_lines(self.kind, live, kept), faults.step)
