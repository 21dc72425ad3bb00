"""The directory lister: one directory's entries that the walk (`walk.py`) may need, as small
bytes objects that sort in walk order; by the compiled module where it is built (`_scan.listing`,
from ``readdir`` alone), else by `os.scandir`.

Its own module, so that listing a folder needs nothing of the head scanner's.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable

from sitemapgen.pages.compiled import load
from sitemapgen.urls import INDEX_NAMES, PAGE_SUFFIXES

#: The kinds of a listing's entries (its last byte): a subdirectory, a page-named file, a symlink
#: with a page's name, another symlink, and an entry whose type could not be read.
DIR, PAGE, PAGE_LINK, OTHER_LINK, BROKEN = range(5)

#: index.html before index.htm, as static servers look for them, so that of two
#: files with one URL the one a server would serve is the one listed.
_INDEX_RANK = {name: rank for rank, name in enumerate(INDEX_NAMES)}
_OTHER_RANK = len(INDEX_NAMES)

FS_ENCODING = sys.getfilesystemencoding()
FS_ERRORS = sys.getfilesystemencodeerrors()
_FS_UTF8 = codecs.lookup(FS_ENCODING).name == "utf-8"

#: Where a page-named file's suffix starts, at the latest: the longest suffix from the end.
_SUFFIX_START = -max(map(len, PAGE_SUFFIXES))

_scan = load()
#: `listing` of a directory (its bytes) without documents, by the compiled module, or None (see
#: `_scan.c`); None where it is not built, or the platform has no `readdir` (Windows). (Tests set
#: it to None to list in Python.)
COMPILED: Callable[[bytes], list[bytes] | None] | None = None
#: `_scan.walk(root, pending, prune, stems, limit)`: candidates, (relpath, is_link), and last, it
#: may be, the relpath (bytes) of a directory handed back.
CompiledWalk = Callable[
    [bytes, list[bytes], Callable[[str], object], bytes | None, int], list[tuple[str, bool] | bytes]
]
#: `_scan.walk`, which walks many directories in one call as `walk.Walk.candidates` walks them (see
#: `_scan.c`), where it lists them and a name is decoded as that walk decodes it; else None.
#: (Tests set it to None to walk in Python.)
WALK: CompiledWalk | None = None
if _scan is not None and hasattr(_scan, "listing"):
    # Told the names and kinds above, which the C spells nowhere: a page suffix or an index name
    # added to `urls` is one edit.
    _scan.configure_listing(INDEX_NAMES, PAGE_SUFFIXES, (DIR, PAGE, PAGE_LINK, OTHER_LINK))
    COMPILED = _scan.listing
    if _FS_UTF8 and FS_ERRORS == "surrogateescape":
        WALK = _scan.walk


def listing(directory: str, document: Callable[[str], bool] | None = None) -> tuple[list[bytes], dict[str, OSError]]:
    """A directory's subdirectories, page-named files and symlinks, in no order; assets dropped,
    but for the files `document` accepts (by name), which are kept as pages are.

    Each entry is one bytes object, rank + raw name + NUL + kind, so that sorting
    them sorts by (index rank, raw name bytes): a NUL is in no file name, so a
    name sorts before every longer name it begins. An entry whose type cannot be
    read is of kind `BROKEN`, and its error is in the dict under its name.

    Where the compiled module is built, it lists the directory (`_scan.listing`: the same
    entries, from `readdir` alone), unless an entry's type is not in the listing (some network
    file systems): then, as without it, `os.scandir` and a stat of that entry. It tests the
    names' suffixes on their raw bytes: so only where the file system's encoding is UTF-8, in
    which only ASCII bytes spell ASCII letters.
    """
    compiled = COMPILED
    if compiled is not None and document is None and _FS_UTF8:
        found = compiled(directory.encode(FS_ENCODING, FS_ERRORS))
        if found is not None:
            return found, {}
    fs_encoding, fs_errors = FS_ENCODING, FS_ERRORS
    rank = _INDEX_RANK.get
    listed: list[bytes] = []
    errors: dict[str, OSError] = {}
    with os.scandir(directory) as it:
        for entry in it:
            name = entry.name
            kind: int
            try:
                if entry.is_dir(follow_symlinks=False):
                    kind = DIR
                elif name[_SUFFIX_START:].lower().endswith(PAGE_SUFFIXES):  # is_page_name, on the end alone
                    kind = PAGE_LINK if entry.is_symlink() else PAGE
                elif document is not None and document(name):
                    kind = PAGE_LINK if entry.is_symlink() else PAGE
                elif entry.is_symlink():
                    kind = OTHER_LINK
                else:
                    continue  # an asset
            except OSError as e:
                errors[name] = e
                kind = BROKEN
            listed.append(b"%c%b\0%c" % (rank(name, _OTHER_RANK), name.encode(fs_encoding, fs_errors), kind))
    return listed, errors
