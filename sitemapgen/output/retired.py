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
import stat
from collections.abc import Collection, Mapping
from pathlib import Path

from sitemapgen.output.chunks import Publisher, temp_name
from sitemapgen.output.outdir import Journal
from sitemapgen.output.published import file_digest
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


def retire(publisher: Publisher, keep: set[str]) -> tuple[list[str], list[str]]:
    """The chunk files and the index files of the previous set that the new one does not
    `keep`, each written down in the journal before anything is published."""
    out_dir, journal = publisher.out_dir, publisher.journal
    stale = [name for name in publisher.published if name not in keep and name in publisher.digests]
    stale_indexes = [path.name for path in publisher.previous_indexes if path.name not in keep]
    for name in [*stale, *publisher.retired]:  # a killed run's next run removes them unless a record keeps them
        journal.retiring(name, publisher.digests.get(name) or publisher.retired[name])
    for name in stale_indexes:
        journal.retiring(name, file_digest(out_dir / name) or b"")
    return stale, stale_indexes


def remove_stale(publisher: Publisher, stale: dict[str, bytes], stale_indexes: list[str]) -> int:
    """Remove the chunk files no index lists now (name -> digest) and the index files the new
    set does not have; return how many chunk files went."""
    removed = 0
    for name, digest in stale.items():
        publisher.faults.step()
        removed += remove_if_regular(publisher.out_dir / name, digest)
    for name in stale_indexes:
        publisher.faults.step()
        remove_if_regular(publisher.out_dir / name)
    return removed


def remove_if_regular(path: Path, digest: bytes | None = None) -> bool:
    """Remove a file of ours that an index no longer lists, unless it has become something else
    (another kind of file, or other bytes than the `digest` written)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode) or (digest is not None and file_digest(path) != digest):
            return False
        path.unlink()
    except FileNotFoundError:
        return False
    return True
