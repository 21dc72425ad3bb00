"""The filesystem walk: which files under the docroot are pages.

The walk is a generator in a fixed order (pages of a directory before its
subdirectories, ``index.html`` first, the rest by raw name bytes), so the same
tree always gives the same output and nothing but the current directory's
listing is held in memory. Anything it passes over is reported through
`on_skip` as data rather than raised, so one odd file never stops a build.
"""

from __future__ import annotations

import enum
import operator
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from .errors import ConfigError, DocrootError
from .urls import INDEX_NAMES, PAGE_SUFFIXES, UrlStyle, url_name

#: Never listed unless a later pattern re-includes them (``!404.html``):
#: dot-files and dot-directories (``.git``, ``.well-known``) and error pages.
DEFAULT_EXCLUDE = (".*", "404.html")
IGNORE_FILE = ".sitemapignore"


@dataclass(frozen=True, slots=True)
class Page:
    """An HTML file that may be listed.

    `relpath` is relative to the docroot with ``/`` separators; bytes that are
    not UTF-8 are kept as surrogate escapes (``os.fsencode`` gives them back).
    """

    relpath: str
    path: str
    mtime_ns: int


class SkipReason(enum.Enum):
    """Why a file or directory was not listed; the value reads in a summary."""

    EXCLUDED = "excluded by pattern"
    EXCLUDED_DIR = "directories excluded by pattern"
    NOINDEX = "noindex"
    CANONICAL = "canonical elsewhere"
    REDIRECT = "redirects"
    DIR_SYMLINK = "directory symlinks not followed"
    SYMLINK_OUTSIDE = "symlinks to outside the docroot"
    BROKEN_SYMLINK = "broken symlinks"
    NOT_A_FILE = "not regular files"
    UNREADABLE = "unreadable"
    URL_TOO_LONG = "URLs of 2,048 characters or more"
    DUPLICATE_URL = "duplicate URLs"
    ENTRY_TOO_LARGE = "entries larger than a sitemap"

    @property
    def singular(self) -> str:
        """The reason for one file, as a warning or a count of 1 states it."""
        return _SINGULAR.get(self, self.value)

    def counted(self, n: int) -> str:
        """``3 broken symlinks``, ``1 broken symlink``."""
        return f"{n:,} {self.singular if n == 1 else self.value}"

    @property
    def warns(self) -> bool:
        """Whether the user should hear about each such file, not just a count."""
        return self not in _QUIET


#: Skips that are the user's own intent (patterns, noindex, canonical, redirect
#: stubs) are only counted; the others are problems worth a line each.
_QUIET = frozenset(
    {
        SkipReason.EXCLUDED,
        SkipReason.EXCLUDED_DIR,
        SkipReason.DIR_SYMLINK,
        SkipReason.NOINDEX,
        SkipReason.CANONICAL,
        SkipReason.REDIRECT,
    }
)

_SINGULAR = {
    SkipReason.REDIRECT: "redirect",
    SkipReason.EXCLUDED_DIR: "directory excluded by pattern",
    SkipReason.DIR_SYMLINK: "directory symlink not followed",
    SkipReason.SYMLINK_OUTSIDE: "symlink to outside the docroot",
    SkipReason.BROKEN_SYMLINK: "broken symlink",
    SkipReason.NOT_A_FILE: "not a regular file",
    SkipReason.URL_TOO_LONG: "URL of 2,048 characters or more",
    SkipReason.DUPLICATE_URL: "same URL as an earlier page",
    SkipReason.ENTRY_TOO_LARGE: "entry larger than max_bytes_per_sitemap allows",
}


@dataclass(frozen=True, slots=True)
class Skip:
    """A file or directory the walk passed over, and why."""

    relpath: str
    reason: SkipReason
    detail: str = ""


def read_ignore_file(docroot: Path) -> list[str]:
    """The patterns of the docroot's ``.sitemapignore``, checked line by line."""
    path = docroot / IGNORE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError("", f"cannot read: {e}", source=str(path)) from e
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except ValueError as e:
            raise ConfigError(f"line {number}", f"invalid pattern {line!r}: {e}", source=str(path)) from e
    return lines


def exclusion_spec(patterns: Iterable[str]) -> pathspec.GitIgnoreSpec:
    """One spec of the defaults followed by `patterns`, so later ones (``!x``) win."""
    return pathspec.GitIgnoreSpec.from_lines([*DEFAULT_EXCLUDE, *patterns])


#: index.html before index.htm, as static servers look for them, so that of two
#: files with one URL the one a server would serve is the one listed.
_INDEX_RANK = {name: rank for rank, name in enumerate(INDEX_NAMES)}


_FS_ENCODING = sys.getfilesystemencoding()
_FS_ERRORS = sys.getfilesystemencodeerrors()


def _default_excluded(name: str) -> bool:
    """DEFAULT_EXCLUDE for one path component, when no other pattern is in play.

    ".*" and "404.html" match any component, and a directory they match is not
    walked, so a path's own name is all that is left to check.
    """
    return name.startswith(".") or name == "404.html"


def inside(target: str, root: str) -> bool:
    """Whether the real path `target` is `root` or below it."""
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


#: A page-named file the walk found, before anything is read from it:
#: (relpath, whether it is a symlink). A plain tuple: batches of them cross
#: between processes, which do the `stat` themselves (see `page_at`).
Candidate = tuple[str, bool]


class Walk:
    """The walk: directory listings only, in walk order.

    With a `url_style`, of two names in a directory that share a URL under it
    (see `urls.url_name`), the second in walk order is skipped as a duplicate,
    before anything is read from either. Without one, both are candidates.
    """

    def __init__(
        self,
        docroot: Path,
        *,
        exclude: pathspec.GitIgnoreSpec | None = None,
        on_skip: Callable[[Skip], None] | None = None,
        url_style: UrlStyle | None = None,
    ) -> None:
        self.root = os.path.join(os.fspath(docroot), "")
        self._exclude = exclude  # None: the defaults alone, checked by name (most sites)
        self._skip = on_skip or (lambda _: None)
        self._url_style = url_style

    def candidates(self) -> Iterator[Candidate]:
        """Every candidate in walk order: a directory's pages, then its subdirectories'."""
        pending = [""]
        while pending:
            found, subdirs = self.list_directory(pending.pop())
            yield from found
            pending.extend(reversed(subdirs))

    def list_directory(self, prefix: str) -> tuple[list[Candidate], list[str]]:
        """One directory's candidates, and its subdirectories to walk, each in walk order.

        Written for speed (the one serial part of a build): entry types come from
        the directory listing (d_type) without a stat, assets are dropped before
        sorting, and with only the default excludes no pathspec is asked.
        """
        skip = self._skip
        fs_encoding, fs_errors = _FS_ENCODING, _FS_ERRORS
        rank = _INDEX_RANK.get
        listed: list[tuple[int, bytes, str, int, os.DirEntry[str] | OSError]] = []
        try:
            with os.scandir(self.root + prefix[:-1] if prefix else self.root) as it:
                for entry in it:
                    name = entry.name
                    kind: int
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            kind = _DIR
                        elif name[-5:].lower().endswith(PAGE_SUFFIXES):  # is_page_name, on the end alone
                            kind = _PAGE_LINK if entry.is_symlink() else _PAGE
                        elif entry.is_symlink():
                            kind = _OTHER_LINK
                        else:
                            continue  # an asset
                    except OSError as e:
                        listed.append((rank(name, 2), name.encode(fs_encoding, fs_errors), name, _BROKEN, e))
                        continue
                    listed.append((rank(name, 2), name.encode(fs_encoding, fs_errors), name, kind, entry))
        except OSError as e:
            skip(Skip(prefix.rstrip("/") or ".", SkipReason.UNREADABLE, e.strerror or str(e)))
            return [], []
        # index.html, then index.htm, then the rest by raw name bytes (unique in a directory)
        listed.sort(key=_RANK_AND_BYTES)
        exclude = self._exclude
        style = self._url_style
        found: list[Candidate] = []
        subdirs: list[str] = []
        urls: dict[str, str] = {}
        for _, _, name, kind, item in listed:
            relpath = prefix + name
            if kind == _DIR:
                if _default_excluded(name) if exclude is None else exclude.match_file(relpath + "/"):
                    skip(Skip(relpath + "/", SkipReason.EXCLUDED_DIR))
                else:
                    subdirs.append(relpath + "/")
                continue
            if isinstance(item, OSError):
                skip(Skip(relpath, SkipReason.UNREADABLE, item.strerror or str(item)))
                continue
            if kind == _OTHER_LINK:
                if os.path.isdir(item.path):
                    skip(Skip(relpath + "/", SkipReason.DIR_SYMLINK))
                continue
            if _default_excluded(name) if exclude is None else exclude.match_file(relpath):
                skip(Skip(relpath, SkipReason.EXCLUDED))
                continue
            # Only index names share a URL in the directory style; any two stems, extensionless.
            if style is UrlStyle.EXTENSIONLESS or (style is UrlStyle.DIRECTORY and name in _INDEX_RANK):
                first = urls.setdefault(url_name(name, style), relpath)
                if first != relpath:
                    skip(Skip(relpath, SkipReason.DUPLICATE_URL, first))
                    continue
            found.append((relpath, kind == _PAGE_LINK))
        return found, subdirs


_DIR, _PAGE, _PAGE_LINK, _OTHER_LINK, _BROKEN = range(5)


_RANK_AND_BYTES = operator.itemgetter(0, 1)


def iter_pages(
    docroot: Path,
    *,
    exclude: pathspec.GitIgnoreSpec | None = None,
    on_skip: Callable[[Skip], None] | None = None,
) -> Iterator[Page]:
    """Yield every page under `docroot` in a deterministic order.

    The walk's candidates and `page_at` in one: a file symlink is a page only
    when it resolves inside the docroot, so no path outside it can leak into a
    sitemap. `exclude` is the whole spec (defaults first, see
    `exclusion_spec`); None means the defaults alone. Directory symlinks are
    never followed, so a loop cannot hang the walk.
    """
    if not docroot.exists():
        raise DocrootError(f"docroot not found: {docroot}")
    if not docroot.is_dir():
        raise DocrootError(f"docroot is not a directory: {docroot}")
    skip = on_skip or (lambda _: None)
    walk = Walk(docroot, exclude=exclude, on_skip=skip)
    real_root = os.path.realpath(docroot)
    for relpath, is_link in walk.candidates():
        page = page_at(walk.root + relpath, relpath, is_link=is_link, real_root=real_root, on_skip=skip)
        if page is not None:
            yield page


def page_at(path: str, relpath: str, *, is_link: bool, real_root: str, on_skip: Callable[[Skip], None]) -> Page | None:
    """The `Page` for one file the walk (or `explain`) found, or None after `on_skip`."""
    if is_link:
        target = os.path.realpath(path)
        if not os.path.exists(path):
            on_skip(Skip(relpath, SkipReason.BROKEN_SYMLINK))
            return None
        if os.path.isdir(target):
            on_skip(Skip(relpath, SkipReason.DIR_SYMLINK))
            return None
        if not inside(target, real_root):
            on_skip(Skip(relpath, SkipReason.SYMLINK_OUTSIDE))
            return None
    try:
        st = os.stat(path)
    except OSError as e:
        on_skip(Skip(relpath, SkipReason.UNREADABLE, e.strerror or str(e)))
        return None
    if not stat.S_ISREG(st.st_mode):
        on_skip(Skip(relpath, SkipReason.NOT_A_FILE))
        return None
    return Page(relpath, path, st.st_mtime_ns)
