"""Reading back a published set: our index files, the chunk files they list, and a file's digest.

Only what this tool can prove it wrote counts as ours: an index file is ours
when it has our writer's exact layout (`our_index`), and the chunk files ours
are the ones such an index lists in its own folder; the other builds' sitemaps it
lists beside them (``include``) are never ours. The writer (`writer`) reads the previous set
here before it publishes the next, and `check` compares a fresh build with it.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterator
from pathlib import Path

from sitemapgen.entry import XML_DECL
from sitemapgen.output.stylesheet import styled
from sitemapgen.protocol import CHUNK_FILE, INDEX_NAME, SITEMAP_NS, our_chunks
from sitemapgen.util.safeio import open_regular, read_regular

_EXTRA_INDEX_NAME = "sitemap-index-{}.xml"
_EXTRA_INDEX = re.compile(r"^sitemap-index-[1-9][0-9]*\.xml$")
#: A chunk's name: its section (none for the main series) and its number.
#: The body of an index as `chunks.write_indexes` writes it, and nothing else.
_OUR_INDEX_BODY = re.compile(rb"(?:<sitemap><loc>[^<]*</loc>(?:<lastmod>[^<]*</lastmod>)?</sitemap>\n)+")
_OUR_ENTRY = re.compile(rb"<sitemap><loc>([^<]*)</loc>(?:<lastmod>([^<]*)</lastmod>)?</sitemap>\n")
_INDEX_LIMIT = 16 << 20  # far above an index of 1,000 entries

INDEX_OPEN = XML_DECL + f'<sitemapindex xmlns="{SITEMAP_NS}">\n'.encode()
INDEX_CLOSE = b"</sitemapindex>\n"
#: The same opening naming the stylesheet (``stylesheet = true``).
STYLED_INDEX_OPEN = styled(INDEX_OPEN)


def file_digest(path: Path) -> bytes | None:
    """The same digest `chunks._HashingFile` computes, of a file on disk; None if unreadable."""
    digest = hashlib.blake2b(digest_size=20)
    try:
        with open(open_regular(path, follow_symlinks=False), "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.digest()


def own_name(name: str) -> bool:
    """Whether a file named `name` in the output directory would be one of ours: the index, an
    extra index or a chunk (another build's sitemap there must be named otherwise)."""
    return name == INDEX_NAME or CHUNK_FILE.match(name) is not None or _EXTRA_INDEX.match(name) is not None


def index_name(number: int) -> str:
    """``sitemap.xml`` for the first index, ``sitemap-index-N.xml`` after it."""
    return INDEX_NAME if number == 1 else _EXTRA_INDEX_NAME.format(number)


def our_index(path: Path) -> bytes | None:
    """The bytes of the index file at `path` if it has our writer's exact layout, else None."""
    try:
        data = read_regular(path, limit=_INDEX_LIMIT + 1, follow_symlinks=False)
    except OSError:
        return None
    opening = STYLED_INDEX_OPEN if data.startswith(STYLED_INDEX_OPEN) else INDEX_OPEN
    body = data[len(opening) : -len(INDEX_CLOSE)]
    if not (data.startswith(opening) and data.endswith(INDEX_CLOSE) and _OUR_INDEX_BODY.fullmatch(body)):
        return None
    return data


def our_indexes(out_dir: Path) -> list[tuple[Path, bytes]]:
    """The index files of ours in `out_dir`, in order: ``sitemap.xml``, ``sitemap-index-2.xml``, …
    as far as they go on unbroken."""
    found: list[tuple[Path, bytes]] = []
    while True:
        path = out_dir / index_name(len(found) + 1)
        data = our_index(path)
        if data is None:
            return found
        found.append((path, data))


def _entries(out_dir: Path) -> Iterator[tuple[str, str | None, bool]]:
    """Every entry of our published index files, in order: (loc, lastmod, whether it is one of our
    chunk files, as `protocol.our_chunks` tells; any other is another build's sitemap, never a
    file of ours)."""
    entries = [
        (
            html.unescape(match[1].decode("utf-8", "replace")),
            None if match[2] is None else match[2].decode("utf-8", "replace"),
        )
        for _, data in our_indexes(out_dir)
        for match in _OUR_ENTRY.finditer(data)
    ]
    for (loc, lastmod), ours in zip(entries, our_chunks([loc for loc, _ in entries]), strict=True):
        yield loc, lastmod, ours


def read_published(out_dir: Path) -> list[str]:
    """The chunk file names our published index files list, in order.

    Read leniently: anything unreadable, or an index another tool wrote, simply
    lists nothing, which only means this run will neither reuse nor remove
    those files.
    """
    return [loc.rstrip("/").rpartition("/")[2] for loc, _, ours in _entries(out_dir) if ours]


def published_others(out_dir: Path) -> list[tuple[str, str | None]]:
    """The other builds' sitemaps our published index files list after ours: (loc, lastmod).
    None unless the first entry is a chunk of ours, as a build lists it (an index written by
    hand in our layout lists no other build's sitemaps)."""
    entries = list(_entries(out_dir))
    if not entries or not entries[0][2]:
        return []
    return [(loc, lastmod) for loc, lastmod, ours in entries if not ours]
