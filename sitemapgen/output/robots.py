"""The docroot's robots.txt: its ``Sitemap:`` lines (its ``Disallow`` rules are `pipeline.robots`).

Only our own lines are touched: a ``Sitemap:`` line pointing at one of this
build's index URLs is kept, one pointing at an index name of ours under the
same base URL that this build no longer writes is removed, and missing ones are
appended. Every other byte of the file is kept as it was, line ends included.

The file is the site's, not ours: a robots.txt that is a symlink (or anything
but a regular file) is never written through or replaced, only named in a
warning, and the new version is written to a temporary file created
exclusively, so nothing planted under that name is followed or truncated.
"""

from __future__ import annotations

import enum
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from sitemapgen._types import Warn
from sitemapgen.errors import EnvironmentFailure, SitemapgenError, os_failure
from sitemapgen.protocol import ROBOTS_FILE
from sitemapgen.util.safeio import read_regular, write_beside

_SITEMAP_LINE = re.compile(rb"^[ \t]*sitemap[ \t]*:[ \t]*(\S+)[ \t]*$", re.IGNORECASE)
_OUR_INDEX = re.compile(r"^(?:sitemap\.xml|sitemap-index-[1-9][0-9]*\.xml)$")


_MAX_ROBOTS = 8 << 20  # far above the 500 KiB crawlers read


class RobotsOutcome(enum.Enum):
    """What became of the docroot's robots.txt."""

    CREATED = "created"  # there was none: one was written
    UPDATED = "updated"  # its Sitemap: lines were changed
    UNCHANGED = "unchanged"  # it named exactly our indexes already
    MISSING = "missing"  # there was none, and none was to be created
    NOT_A_FILE = "not a file"  # a symlink or something else: left as it is (a warning said so)


def update_robots_txt(
    docroot: Path,
    base_url: str,
    index_urls: Sequence[str],
    *,
    create: bool,
    on_warning: Warn | None = None,
) -> RobotsOutcome:
    """Make robots.txt name exactly our index URLs; say what became of it.

    Without `create`, a missing robots.txt is left missing.
    """
    path = docroot / ROBOTS_FILE
    try:
        return _update(path, base_url, index_urls, create, on_warning)
    except _Appeared:
        # Made between this run's look and its write (by the site's build, or a run into
        # another output): the site's file now, edited as any other.
        return _update(path, base_url, index_urls, create, on_warning)


class _Appeared(EnvironmentFailure):
    """A robots.txt appeared where there was none when this run looked: never written over."""


def _update(
    path: Path, base_url: str, index_urls: Sequence[str], create: bool, on_warning: Warn | None
) -> RobotsOutcome:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise os_failure(path, "read", e) from e
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        if on_warning is not None:
            on_warning(f"{path}: is {what}, so it was left as it is (sitemapgen never writes through a link)")
        return RobotsOutcome.NOT_A_FILE
    if st is None and not create:
        return RobotsOutcome.MISSING
    data = b"" if st is None else _read(path)
    result = rewritten(data, base_url, index_urls)
    others = other_sitemaps(result, base_url, index_urls)
    if others and on_warning is not None:
        on_warning(
            f"{path}: also names {', '.join(others)}, which sitemapgen did not write (a generator's sitemap?"
            " then remove the line: sitemapgen edits only its own)"
        )
    if result == data and st is not None:
        return RobotsOutcome.UNCHANGED
    _replace(path, result, new=st is None)
    return RobotsOutcome.CREATED if st is None else RobotsOutcome.UPDATED


def _read(path: Path) -> bytes:
    try:
        data = read_regular(path, limit=_MAX_ROBOTS + 1, follow_symlinks=False)
    except OSError as e:
        raise os_failure(path, "read", e) from e
    if len(data) > _MAX_ROBOTS:
        raise SitemapgenError(f"{path}: larger than {_MAX_ROBOTS:,} bytes; not a robots.txt to edit")
    return data


def rewritten(data: bytes, base_url: str, index_urls: Sequence[str]) -> bytes:
    """`data` with exactly one ``Sitemap:`` line for each of our index URLs, and every other byte kept."""
    lines = data.splitlines(keepends=True)
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    wanted = [url.encode("ascii") for url in index_urls]
    present: set[bytes] = set()
    kept: list[bytes] = []
    for line in lines:
        match = _SITEMAP_LINE.match(line.rstrip(b"\r\n"))
        if match:
            url = match.group(1)
            text = url.decode("utf-8", "replace")
            ours = text.startswith(base_url) and _OUR_INDEX.match(text[len(base_url) :])
            if url in wanted:
                if url in present:
                    continue  # a second copy of our own line
                present.add(url)
            elif ours:
                continue  # an index this build no longer writes
        kept.append(line)
    missing = [url for url in wanted if url not in present]
    if kept and not kept[-1].endswith((b"\n", b"\r")) and missing:
        kept[-1] += newline
    if missing and kept and kept[-1].strip():
        kept.append(newline)  # a blank line before our group, as robots.txt groups are written
    kept.extend(b"Sitemap: " + url + newline for url in missing)
    return b"".join(kept)


def other_sitemaps(data: bytes, base_url: str, index_urls: Sequence[str]) -> list[str]:
    """The ``Sitemap:`` URLs of robots.txt `data` under `base_url` that are not our indexes."""
    found = []
    for line in data.splitlines():
        match = _SITEMAP_LINE.match(line)
        if match:
            url = match.group(1).decode("utf-8", "replace")
            if url.startswith(base_url) and url not in index_urls:
                found.append(url)
    return found


def _replace(path: Path, data: bytes, *, new: bool) -> None:
    """Replace `path` with `data` atomically, through a temporary file of a name no one has;
    where there was none (`new`), never over one that has appeared since (`_Appeared`)."""
    try:
        write_beside(path, data, over=not new)
    except FileExistsError as e:
        if not new:
            raise os_failure(path, "write", e) from e
        raise _Appeared(f"{path}: cannot write: {e.strerror or e}") from None
    except OSError as e:
        raise os_failure(path, "write", e) from e
