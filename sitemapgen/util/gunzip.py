"""Gzip inflated within a bound, every member checked to its CRC and length trailer: for the
previous deploy's sitemaps (`fetch.inflate`) and for `validate`. No HTTP here, so `validate`
does not import urllib3 to read a local file."""

from __future__ import annotations

import zlib
from collections.abc import Iterable

_GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(data: bytes) -> bool:
    """Whether `data` begins as gzip does (its magic number)."""
    return data.startswith(_GZIP_MAGIC)


class GzipError(ValueError):
    """Gzip that was not inflated to its end, and how far it got: `member`, the member it
    stopped in (counted from 1), which begins at byte `start` of the data."""

    def __init__(self, message: str, member: int, start: int) -> None:
        super().__init__(message)
        self.member = member
        self.start = start


class GzipTooLarge(GzipError):
    """The data inflates to more than the limit (it was inflated to one byte past it, no further)."""


class GzipTruncated(GzipError):
    """The data ends before a member's CRC and length trailer."""


class GzipCorrupt(GzipError):
    """zlib refused a member (its message is this one's): a bad header, block, CRC-32 or length."""


def gunzip(chunks: Iterable[bytes], limit: int) -> bytes:
    """Every gzip member of the data, each checked to its CRC and length, to at most `limit` bytes.

    `chunks` is the data in pieces as they are read (or all of it in one), so
    a file need not be held whole. What follows a member must be another
    member: trailing garbage, even zeros, is corrupt, as a strict client (Go's
    gzip reader) finds it. Nothing is inflated past `limit` + 1 bytes, so a
    bomb costs the limit, and the pieces are joined only when all is read.
    """
    pieces: list[bytes] = []
    size = read = start = 0  # bytes inflated; bytes taken from `chunks`; where this member begins
    member = 1
    inflater = zlib.decompressobj(wbits=31)  # gzip framing: zlib checks the CRC-32 and ISIZE trailer
    data = b""
    source = iter(chunks)
    try:
        while True:
            if inflater.eof:
                data = inflater.unused_data
                if not data:
                    data = next(source, b"")
                    read += len(data)
                    if not data:
                        return b"".join(pieces)
                start = read - len(data)
                member += 1
                inflater = zlib.decompressobj(wbits=31)
            elif not data:
                data = next(source, b"")
                if not data:
                    raise GzipTruncated(f"member {member} ends before its CRC and length trailer", member, start)
                read += len(data)
            piece = inflater.decompress(data, limit + 1 - size)  # never more than one byte past the limit
            size += len(piece)
            if size > limit:
                raise GzipTooLarge(f"larger than {limit:,} bytes uncompressed", member, start)
            pieces.append(piece)
            data = inflater.unconsumed_tail
    except zlib.error as e:
        raise GzipCorrupt(str(e), member, start) from e
