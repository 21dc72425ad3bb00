"""Sitemap files the previous index listed and the current one does not: kept for one build more.

A crawler (or a browser under ``mkdocs serve --dirty``) that read the previous
index may still fetch the files it lists. So a build that stops listing a
sitemap file does not remove it at once: it writes the file's name and digest
in `RETIRED_NAME`, and the next build removes it, provided no index lists it
and its bytes are still the ones written. Two identical builds in a row leave
the same set of files: the second removes what the first retired and retires
nothing (and removes the record).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path

from sitemapgen.output.chunks import temp_name
from sitemapgen.output.outdir import Journal
from sitemapgen.protocol import CHUNK_FILE
from sitemapgen.util.safeio import create_exclusive, read_regular

RETIRED_NAME = ".sitemapgen-retired"
_HEAD = (
    "sitemapgen retired 1: sitemap files the previous index listed and the current one does not;"
    " the next build removes them\n"
)
_LIMIT = 16 << 20


def read_retired(out: Path, listed: Collection[str]) -> dict[str, bytes]:
    """name -> digest of the sitemap files the record names that no index lists now; {} where
    there is no record, or one sitemapgen did not write (then nothing it names is removed)."""
    try:
        text = read_regular(out / RETIRED_NAME, limit=_LIMIT, follow_symlinks=False).decode("ascii")
    except (OSError, UnicodeDecodeError):
        return {}
    if not text.startswith(_HEAD):
        return {}
    found: dict[str, bytes] = {}
    for line in text[len(_HEAD) :].splitlines():
        kind, _, rest = line.partition(" ")
        name, _, digest = rest.partition(" ")
        if kind == "old" and CHUNK_FILE.match(name) and name not in listed:
            try:
                found[name] = bytes.fromhex(digest)
            except ValueError:
                continue
    return found


def write_retired(out: Path, retired: Mapping[str, bytes], journal: Journal) -> None:
    """Make the record name exactly `retired` (name -> digest), or remove it where that is empty."""
    path = out / RETIRED_NAME
    if not retired:
        path.unlink(missing_ok=True)
        return
    tmp = temp_name(out, RETIRED_NAME.lstrip("."), journal)
    try:
        with open(create_exclusive(tmp, 0o644), "w", encoding="ascii") as f:
            f.write(_HEAD + "".join(f"old {name} {digest.hex()}\n" for name, digest in sorted(retired.items())))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
