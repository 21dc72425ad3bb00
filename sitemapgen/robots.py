"""The ``Sitemap:`` lines of the docroot's robots.txt.

Only our own lines are touched: a ``Sitemap:`` line pointing at one of this
build's index URLs is kept, one pointing at an index name of ours under the
same base URL that this build no longer writes is removed, and missing ones are
appended. Every other byte of the file is kept as it was, line ends included.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from .errors import SitemapgenError

ROBOTS_FILE = "robots.txt"
_SITEMAP_LINE = re.compile(rb"^[ \t]*sitemap[ \t]*:[ \t]*(\S+)[ \t]*$", re.IGNORECASE)
_OUR_INDEX = re.compile(r"^(?:sitemap\.xml|sitemap-index-[1-9][0-9]*\.xml)$")


def update_robots_txt(docroot: Path, base_url: str, index_urls: Sequence[str], *, create: bool) -> bool:
    """Make robots.txt name exactly our index URLs; True if the file changed.

    Without `create`, a missing robots.txt is left missing.
    """
    path = docroot / ROBOTS_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if not create:
            return False
        data = b""
    except OSError as e:
        raise SitemapgenError(f"{path}: cannot read: {e.strerror or e}") from e
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
    result = b"".join(kept)
    if result == data and path.exists():
        return False
    tmp = path.with_name(f".{ROBOTS_FILE}.tmp")
    tmp.write_bytes(result)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return True
