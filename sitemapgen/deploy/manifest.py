"""The manifest a build publishes beside its sitemaps: URL -> content fingerprint and lastmod.

It is what lets the next build, in a fresh CI checkout with new mtimes and no
local store, keep the lastmod of every page whose content did not change (see
`previous`, which reads it back from the live site). One JSON line a page
dated by its content, after a header line; gzip without a timestamp, so the
same pages give the same bytes. Never listed in an index or robots.txt, and
replaced only where the file there is one of ours.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path

from sitemapgen.errors import SitemapgenError
from sitemapgen.util.safeio import create_exclusive, read_regular

#: The manifest's file name, beside the index. Not ``sitemap*``: no tool takes it for a sitemap.
MANIFEST_NAME = "sitemapgen-manifest.json.gz"
#: The first line's key, and the format's version.
MANIFEST_KEY = "sitemapgen-manifest"
MANIFEST_VERSION = 1
#: A manifest line is a URL (under 2,048 characters), a fingerprint and a date: longer is not one.
MANIFEST_LINE = 16_384


def fingerprint_settings(ignore: Sequence[str], select: Sequence[str]) -> str:
    """What a content fingerprint depends on besides the page: a manifest made with other
    settings fingerprints every page differently, so its lastmods cannot be carried over."""
    return hashlib.blake2b(json.dumps([list(ignore), list(select)]).encode(), digest_size=8).hexdigest()


_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class ManifestWriter:
    """This build's manifest, streamed to a temporary file as pages are dated, published beside the index.

    Deterministic: the pages in the order the build lists them, gzip without a
    timestamp. Only pages dated by their content have a line (others have no
    fingerprint to compare).
    """

    def __init__(self, base_url: str, settings: str) -> None:
        self.raw = tempfile.TemporaryFile()
        self.spool = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw, mtime=0)
        self.spool.write(self._line({MANIFEST_KEY: MANIFEST_VERSION, "base_url": base_url, "content": settings}))
        self.lines: list[str] = []

    @staticmethod
    def _line(value: object) -> bytes:
        return _dumps(value).encode("utf-8") + b"\n"

    def add(self, loc: str, fingerprint: bytes, lastmod: str) -> None:
        # As json.dumps([loc, fp, lastmod]) writes it, a tenth of the cost; written a few
        # hundred lines at a time (a gzip write per line costs more than the line).
        self.lines.append(f'[{_dumps(loc)},"{fingerprint.hex()}","{lastmod}"]\n')
        if len(self.lines) == 512:
            self._flush()

    def _flush(self) -> None:
        self.spool.write("".join(self.lines).encode("utf-8"))
        self.lines.clear()

    def publish(self, out_dir: Path) -> None:
        """Put the manifest in `out_dir` under `MANIFEST_NAME`, replacing only a manifest of ours."""
        target = out_dir / MANIFEST_NAME
        if os.path.lexists(target) and not _is_manifest(target):
            raise SitemapgenError(f"{target}: exists and sitemapgen did not write it; move it away")
        raw = self.raw
        self._flush()
        self.spool.close()
        tmp = out_dir / f".{MANIFEST_NAME}.{os.getpid()}.tmp"
        try:
            fd = create_exclusive(tmp)  # fails, removing nothing, where a file of that name is someone's
        except BaseException:
            raw.close()
            raise
        try:
            with open(fd, "wb") as out:
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


def has_manifest(out_dir: Path) -> bool:
    """Whether `out_dir` holds a manifest of ours (which each build then keeps current)."""
    return _is_manifest(out_dir / MANIFEST_NAME)


def _is_manifest(path: Path) -> bool:
    """Whether `path` is a regular file (not a symlink) that starts as our manifest does."""
    try:
        data = read_regular(path, limit=4096, follow_symlinks=False)
        head = zlib.decompressobj(wbits=31).decompress(data, 64)
    except (OSError, zlib.error):
        return False
    return head.startswith(f'{{"{MANIFEST_KEY}":'.encode())
