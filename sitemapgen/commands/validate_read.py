"""Reading a file for `validate`, wherever it came from: guarded, so no file can make it wait,
read outside a directory, hold more than the protocol's limit, or expand an entity.

A file is read, or inflated if it is gzip, only to the protocol's size limit plus one byte,
and every gzip member is checked to its CRC and length trailer (`sitemapgen.util.gunzip`).
A FIFO or a directory is refused without waiting on it (`sitemapgen.util.safeio`). A file an
index lists is opened only if it really is below the index's directory. Entity declarations
and external DTDs are found in the parsed tree, so the parser need expand, read or fetch nothing.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from lxml import etree

from sitemapgen.util.gunzip import GzipCorrupt, GzipTooLarge, GzipTruncated, gunzip, is_gzip
from sitemapgen.util.safeio import NotRegularFile, open_regular_below, open_regular_stat

#: Bytes of a gzip file read at a time: the file is never held whole, and what it inflates to
#: is bounded by the limit.
_CHUNK = 1 << 10
_ZLIB_REASONS = {
    "incorrect data check": "its CRC-32 does not match its data",
    "incorrect length check": "its length trailer does not match its data",
    "incorrect header check": "not a gzip member",
}
NO_ENTITIES = "entity declarations are not allowed (nothing was expanded, read or fetched)"
NO_EXTERNAL_DTD = "an external DTD is not allowed (it was not fetched)"


class Unreadable(Exception):
    """Why a file's content cannot be checked; becomes a Problem, never leaves `validate`."""


class Escapes(Exception):
    """A listed file resolves (through a symlink) outside the directory it must be in."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


def _reader(fd: int) -> io.BufferedReader:
    """`fd`, a regular file opened without waiting, as a blocking buffered reader."""
    try:
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "rb")


def _not_a_file(error: NotRegularFile) -> Unreadable:
    return Unreadable(f"not a file: it is {error.kind}")


def open_file(path: Path) -> io.BufferedReader:
    """`path` opened for reading if it is a regular file; a FIFO is refused, never waited on."""
    try:
        fd, _ = open_regular_stat(path)
    except NotRegularFile as e:
        raise _not_a_file(e) from None
    return _reader(fd)


def open_below(directory: Path, parts: Sequence[str]) -> io.BufferedReader:
    """The file `directory`/`parts` opened for reading, only if it really is below `directory`.

    A symlink inside the directory is followed (a deploy may link its files)
    as long as it resolves below it. The resolved path is then opened one
    component at a time, following no link, so a link swapped in after the
    check is refused instead of followed out.
    """
    top = os.path.realpath(directory)
    target = os.path.realpath(os.path.join(top, *parts))
    if target != top and os.path.commonpath((top, target)) != top:
        raise Escapes(target)
    try:
        fd, _ = open_regular_below(top, os.path.relpath(target, top).split(os.sep))
    except NotRegularFile as e:
        raise _not_a_file(e) from None
    return _reader(fd)


def identity(f: io.BufferedReader) -> tuple[int, int]:
    """Which file this is, whatever the path (symlinks, hard links) that led to it."""
    st = os.fstat(f.fileno())
    return st.st_dev, st.st_ino


def read_limited(f: io.BufferedReader, limit: int) -> bytes:
    """The content, gunzipped if it is gzip; `Unreadable` as soon as it passes `limit` bytes.

    A plain file is read to `limit` + 1 bytes at most, a gzip file inflated to
    `limit` + 1 bytes at most, so neither a huge file nor a gzip bomb is held
    in memory.
    """
    if is_gzip(f.peek(2)):
        return _gunzip(f, limit)
    data = f.read(limit + 1)
    if len(data) > limit:
        raise _too_large(limit)
    return data


def _too_large(limit: int) -> Unreadable:
    return Unreadable(f"larger than {limit:,} bytes uncompressed")


def _gunzip(f: io.BufferedReader, limit: int) -> bytes:
    """Every gzip member of `f`, read a little at a time; what is wrong with it said as `validate` says it."""
    try:
        return gunzip(iter(partial(f.read, _CHUNK), b""), limit)
    except GzipTooLarge:
        raise _too_large(limit) from None
    except GzipTruncated as e:
        raise Unreadable(f"truncated gzip: member {e.member} ends before its CRC and length trailer") from None
    except GzipCorrupt as e:
        reason = str(e).rpartition(": ")[2]  # "Error -3 while decompressing data: incorrect data check"
        raise Unreadable(f"corrupt gzip: member {e.member}: {_ZLIB_REASONS.get(reason, reason)}") from e


def is_entity_expansion(error: etree._LogEntry) -> bool:
    """Whether libxml2 stopped because entities expanded past its limits (billion laughs).

    Its other resource limits (a token over 10,000,000 bytes) are a plain
    syntax error, so the message is read too.
    """
    if error.type == etree.ErrorTypes.ERR_ENTITY_LOOP:
        return True
    return error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT and "entity" in error.message.lower()


def unsafe_dtd(root: etree._Element) -> str | None:
    """Why the document's DTD is refused, or None: it may not declare entities or load anything.

    The parser expanded, read and fetched nothing; this makes the attempt a
    problem rather than something passed over (or an XSD validator's crash on
    an unexpanded entity).
    """
    docinfo = root.getroottree().docinfo
    if docinfo.system_url or docinfo.public_id:
        return NO_EXTERNAL_DTD
    if docinfo.internalDTD is not None and any(True for _ in docinfo.internalDTD.iterentities()):
        return NO_ENTITIES
    return None
