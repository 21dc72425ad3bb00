"""Chunked, gzipped sitemap files and the index that lists them.

Entries stream straight into a gzip stream: the writer holds one formatted
entry at a time plus a small record per finished chunk, never a whole chunk or
the whole site. Each chunk is cut before it would pass either protocol limit
(50,000 URLs, 10,485,760 uncompressed bytes, or the configured lower ones).

Files are written under a temporary dot-name, fsynced and renamed into place,
and the index goes last, so a crawler never sees a half-written file; chunk
files left over from a larger previous build are removed only after the new
index is in place.
"""

from __future__ import annotations

import functools
import gzip
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from .config import ChangeFreq, LastmodFormat
from .head import Alternate
from .walk import Skip, SkipReason

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
INDEX_NAME = "sitemap.xml"
_CHUNK_NAME = "sitemap-{}.xml.gz"
_EXTRA_INDEX_NAME = "sitemap-index-{}.xml"
_OWN_FILE = re.compile(r"^sitemap-(?:[1-9][0-9]*\.xml\.gz|index-[1-9][0-9]*\.xml)$")

_XML_DECL = b'<?xml version="1.0" encoding="UTF-8"?>\n'
_URLSET_OPEN = _XML_DECL + f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">\n'.encode()
_URLSET_CLOSE = b"</urlset>\n"
_INDEX_OPEN = _XML_DECL + f'<sitemapindex xmlns="{SITEMAP_NS}">\n'.encode()
_INDEX_CLOSE = b"</sitemapindex>\n"
_GZIP_LEVEL = 6  # level 9 costs twice the time for ~1% smaller files


@dataclass(frozen=True, slots=True)
class Entry:
    """One ``<url>`` of a sitemap.

    `loc` is absolute and already percent-encoded; XML escaping is the
    writer's job alone, so it can never happen twice. `lastmod` is aware.
    """

    loc: str
    lastmod: datetime | None = None
    changefreq: ChangeFreq | None = None
    priority: float | None = None
    alternates: tuple[Alternate, ...] = ()


@dataclass(frozen=True, slots=True)
class SitemapFile:
    """A chunk as written: where it is, its URL, and what the index says of it."""

    path: Path
    url: str
    urls: int
    size: int  # uncompressed bytes
    lastmod: datetime | None


@dataclass(frozen=True, slots=True)
class WriteResult:
    """Every file one build wrote, chunks in order, the main index first."""

    sitemaps: tuple[SitemapFile, ...]
    indexes: tuple[Path, ...]


def escape_xml(text: str) -> str:
    """Entity-escape the five characters the protocol names."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if "'" in text:
        text = text.replace("'", "&apos;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    return text


@functools.lru_cache(maxsize=256)
def format_priority(value: float) -> str:
    """The shortest exact decimal for `value`, never in exponent form.

    ``xsd:decimal`` has no exponent, so ``1e-05`` must be written ``0.00001``.
    """
    text = format(Decimal(repr(float(value))), "f")
    return text if "." in text else text + ".0"


def format_lastmod(value: datetime, fmt: LastmodFormat) -> str:
    """W3C Datetime as `date --iso-8601=seconds -u` prints it, or the date alone."""
    if fmt is LastmodFormat.DATE:
        return value.date().isoformat()
    return value.isoformat(timespec="seconds")


def format_entry(entry: Entry, fmt: LastmodFormat) -> bytes:
    """The ``<url>`` element for `entry`, one line, UTF-8."""
    parts = ["<url><loc>", escape_xml(entry.loc), "</loc>"]
    if entry.lastmod is not None:
        parts += ["<lastmod>", format_lastmod(entry.lastmod, fmt), "</lastmod>"]
    if entry.changefreq is not None:
        parts += ["<changefreq>", entry.changefreq.value, "</changefreq>"]
    if entry.priority is not None:
        parts += ["<priority>", format_priority(entry.priority), "</priority>"]
    for alternate in entry.alternates:
        parts += [
            '<xhtml:link rel="alternate" hreflang="',
            escape_xml(alternate.hreflang),
            '" href="',
            escape_xml(alternate.href),
            '"/>',
        ]
    parts.append("</url>\n")
    return "".join(parts).encode("utf-8")


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _AtomicFile:
    """A file written under a temporary dot-name and renamed into place on commit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp")
        self.raw: BinaryIO = open(self.tmp, "wb")  # noqa: SIM115 - closed in commit/abort

    def commit(self) -> None:
        self.raw.flush()
        os.fsync(self.raw.fileno())
        self.raw.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.raw.close()
        self.tmp.unlink(missing_ok=True)


class _Chunk:
    """One sitemap being streamed into gzip."""

    def __init__(self, path: Path, url: str) -> None:
        self.url = url
        self.file = _AtomicFile(path)
        self.gz = gzip.GzipFile(filename="", mode="wb", fileobj=self.file.raw, mtime=0, compresslevel=_GZIP_LEVEL)
        self.gz.write(_URLSET_OPEN)
        self.size = len(_URLSET_OPEN)
        self.urls = 0
        self.lastmod: datetime | None = None

    def add(self, data: bytes, lastmod: datetime | None) -> None:
        self.gz.write(data)
        self.size += len(data)
        self.urls += 1
        if lastmod is not None and (self.lastmod is None or lastmod > self.lastmod):
            self.lastmod = lastmod

    def commit(self) -> SitemapFile:
        self.gz.write(_URLSET_CLOSE)
        self.gz.close()
        self.file.commit()
        return SitemapFile(self.file.path, self.url, self.urls, self.size + len(_URLSET_CLOSE), self.lastmod)

    def abort(self) -> None:
        self.gz.close()
        self.file.abort()


def _write_index(path: Path, sitemaps: Iterable[SitemapFile], fmt: LastmodFormat) -> None:
    out = _AtomicFile(path)
    try:
        out.raw.write(_INDEX_OPEN)
        for sitemap in sitemaps:
            line = f"<sitemap><loc>{escape_xml(sitemap.url)}</loc>"
            if sitemap.lastmod is not None:
                line += f"<lastmod>{format_lastmod(sitemap.lastmod, fmt)}</lastmod>"
            out.raw.write((line + "</sitemap>\n").encode("utf-8"))
        out.raw.write(_INDEX_CLOSE)
        out.commit()
    except BaseException:
        out.abort()
        raise


def index_name(number: int) -> str:
    """``sitemap.xml`` for the first index, ``sitemap-index-N.xml`` after it."""
    return INDEX_NAME if number == 1 else _EXTRA_INDEX_NAME.format(number)


def write_sitemaps(
    entries: Iterable[Entry],
    out_dir: Path,
    *,
    base_url: str,
    lastmod_format: LastmodFormat = LastmodFormat.DATETIME,
    max_urls: int = 50_000,
    max_bytes: int = 10_485_760,
    max_sitemaps_per_index: int = 1_000,
    on_skip: Callable[[Skip], None] | None = None,
) -> WriteResult:
    """Stream `entries` into chunks in `out_dir`, then write the index files.

    Writes nothing at all when `entries` is empty: a sitemap must list at
    least one URL, so the caller decides what an empty site means.
    """
    skip = on_skip or (lambda _: None)
    room = max_bytes - len(_URLSET_OPEN) - len(_URLSET_CLOSE)
    written: list[SitemapFile] = []
    chunk: _Chunk | None = None
    try:
        for entry in entries:
            data = format_entry(entry, lastmod_format)
            if len(data) > room:
                skip(Skip(entry.loc, SkipReason.ENTRY_TOO_LARGE, f"{len(data):,} bytes"))
                continue
            if chunk is not None and (
                chunk.urls >= max_urls or chunk.size + len(data) > max_bytes - len(_URLSET_CLOSE)
            ):
                written.append(chunk.commit())
                chunk = None
            if chunk is None:
                name = _CHUNK_NAME.format(len(written) + 1)
                chunk = _Chunk(out_dir / name, base_url + name)
            chunk.add(data, entry.lastmod)
        if chunk is not None:
            written.append(chunk.commit())
            chunk = None
    except BaseException:
        if chunk is not None:
            chunk.abort()
        raise
    if not written:
        return WriteResult((), ())
    groups = [written[i : i + max_sitemaps_per_index] for i in range(0, len(written), max_sitemaps_per_index)]
    indexes = [out_dir / index_name(n) for n in range(1, len(groups) + 1)]
    # Extra indexes first, the main one last: it is what crawlers are told about.
    for path, group in reversed(list(zip(indexes, groups, strict=True))):
        _write_index(path, group, lastmod_format)
    _fsync_dir(out_dir)
    _remove_stale(out_dir, {p.name for p in indexes} | {s.path.name for s in written})
    return WriteResult(tuple(written), tuple(indexes))


def _remove_stale(out_dir: Path, keep: set[str]) -> None:
    """Delete chunk and extra index files an earlier, larger build left behind."""
    with os.scandir(out_dir) as it:
        stale = [e.path for e in it if _OWN_FILE.match(e.name) and e.name not in keep]
    for path in stale:
        os.unlink(path)
