"""The filesystem walk: which files under the docroot are pages.

The walk is a generator in a fixed order (pages of a directory before its
subdirectories, ``index.html`` first, the rest by raw name bytes), so the same
tree always gives the same output and nothing but the current directory's
listing is held in memory. Anything it passes over is reported through
`on_skip` as data rather than raised, so one odd file never stops a build.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from sitemapgen.errors import ConfigError, DocrootError
from sitemapgen.pages import lister
from sitemapgen.pages.lister import BROKEN, DIR, FS_ENCODING, FS_ERRORS, OTHER_LINK, PAGE, PAGE_LINK, listing
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.urls import INDEX_NAMES, UrlStyle, url_name
from sitemapgen.util.safeio import read_regular

#: Never listed unless a later pattern re-includes them (``!404.html``):
#: dot-files and dot-directories (``.git``, ``.well-known``) and error pages.
DEFAULT_EXCLUDE = (".*", "404.html")
#: What every name `default_excluded` leaves out starts with: each of those, to its '*'.
EXCLUDED_STARTS = tuple(pattern.partition("*")[0] for pattern in DEFAULT_EXCLUDE)
IGNORE_FILE = ".sitemapignore"

#: The one page suffix under which no two names of a folder share a URL in the styles that drop
#: suffixes (see `_shareable`), as its raw bytes.
_OWN_SUFFIX = b".html"

#: The candidates `_scan.walk` gives a call (past them, it finishes the directory it is in), and
#: the directories it lists, at most.
_WALK_RUN = 2048


@dataclass(frozen=True, slots=True)
class Page:
    """An HTML file that may be listed.

    `relpath` is relative to the docroot with ``/`` separators; bytes that are
    not UTF-8 are kept as surrogate escapes (``os.fsencode`` gives them back).
    """

    relpath: str
    path: str
    mtime_ns: int


def read_ignore_file(docroot: Path) -> list[str]:
    """The patterns of the docroot's ``.sitemapignore``, checked line by line."""
    path = docroot / IGNORE_FILE
    try:
        text = read_regular(path).decode("utf-8")
    except FileNotFoundError:
        return []
    except OSError as e:
        raise ConfigError("", f"cannot read: {e.strerror or e}", source=str(path)) from e
    except UnicodeDecodeError as e:
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


def default_excluded(name: str) -> bool:
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

    Which directories are walked is `prune`'s to say (the per-path rules, see
    `pipeline/pathrules.py`): given ``a/b/`` it returns a `Skip` to leave it out, or
    None. Without it, the default excludes are checked by name. Files are not
    judged here: every page-named file is a candidate, and the per-path rules
    run on it with the rest of the page's decision.

    With `documents` (a relpath -> whether it is one), a file that is not a page but that
    it accepts is a candidate too (see `pipeline.documents`); without it, such files are
    assets, dropped from the listing unseen.

    With a `url_style`, of two names in a directory that share a URL under it
    (see `urls.url_name`), the second in walk order is skipped as a duplicate,
    before anything is read from either: a static server serves the first
    (``index.html`` before ``index.htm``) whatever else is decided about it.
    """

    def __init__(
        self,
        docroot: Path,
        *,
        prune: Callable[[str], Skip | None] | None = None,
        on_skip: Callable[[Skip], None] | None = None,
        url_style: UrlStyle | None = None,
        documents: Callable[[str], bool] | None = None,
    ) -> None:
        self.root = os.path.join(os.fspath(docroot), "")
        self._prune = prune or _prune_default
        self._skip = on_skip or (lambda _: None)
        self._url_style = url_style
        self._documents = documents

    def candidates(self, targets: Collection[str] | None = None) -> Iterator[Candidate]:
        """Every candidate in walk order: a directory's pages, then its subdirectories'.

        With `targets` (relpaths), only the directories on their way are listed,
        and only what concerns them is reported: the targets themselves, as
        candidates or skips, and the skips of directories above them. That is
        the walk as `build` sees it, for the few pages `explain` is asked about.
        """
        if targets is None:
            if self._documents is None and (run := lister.WALK) is not None:
                yield from self._compiled(run)
                return
            pending = [""]
            while pending:
                subdirs: list[str] = []
                yield from self.list_directory(pending.pop(), subdirs)
                pending.extend(reversed(subdirs))
            return
        wanted = set(targets)
        ancestors = {target[: i + 1] for target in wanted for i, ch in enumerate(target) if ch == "/"}
        report = self._skip

        def on_skip(skip: Skip) -> None:
            if skip.relpath in wanted or skip.relpath in ancestors:
                report(skip)

        pending = [""]
        while pending:
            subdirs = []
            found = self.list_directory(pending.pop(), subdirs, on_skip)
            yield from (candidate for candidate in found if candidate[0] in wanted)
            pending.extend(d for d in reversed(subdirs) if d in ancestors)

    def _compiled(self, run: lister.CompiledWalk) -> Iterator[Candidate]:
        """The whole walk by `_scan.walk` (`lister.WALK`), many directories a call, each directory
        it hands back listed by `list_directory`, which says what there is to say about it."""
        root = os.fsencode(self.root)
        pending = [b""]
        prune = self._prune
        stems = _OWN_SUFFIX if self._url_style in (UrlStyle.EXTENSIONLESS, UrlStyle.CLEAN) else None
        while pending:
            found = run(root, pending, prune, stems, _WALK_RUN)
            if found and type(last := found[-1]) is bytes:
                del found[-1]
                yield from found  # type: ignore[misc]  # the rest are candidates
                subdirs: list[str] = []
                yield from self.list_directory(os.fsdecode(last), subdirs)
                pending.extend(map(os.fsencode, reversed(subdirs)))
            else:
                yield from found  # type: ignore[misc]  # all candidates

    def list_directory(
        self, prefix: str, subdirs: list[str], on_skip: Callable[[Skip], None] | None = None
    ) -> Iterator[Candidate]:
        """One directory's candidates in walk order; its subdirectories to walk are appended
        to `subdirs`, in walk order, by the time the candidates run out.

        Written for speed (the one serial part of a build) and for memory (a
        directory may hold a million pages): entry types come from the listing
        (d_type) without a stat, assets are dropped before sorting, and each
        entry is held as one small bytes object until it is yielded.
        """
        skip = on_skip or self._skip
        directory = self.root + prefix[:-1] if prefix else self.root
        documents = self._documents
        try:
            listed, errors = listing(directory, None if documents is None else lambda name: documents(prefix + name))
        except OSError as e:
            skip(Skip(prefix or "./", SkipReason.UNREADABLE, e.strerror or str(e)))
            return
        # index.html, then index.htm, then the rest by raw name bytes: the rank byte leads.
        listed.sort(reverse=True)  # popped from the end: each entry is freed once yielded
        prune = self._prune
        style = self._url_style
        # Of the names that share a URL, at most one has a page suffix spelled ".html": the
        # others' URL names are all that need remembering (a few, however big the directory).
        shared = _shareable(listed, style)
        urls: dict[str, str] = {}
        fs_encoding, fs_errors = FS_ENCODING, FS_ERRORS
        while listed:
            item = listed.pop()
            kind = item[-1]
            name = item[1:-2].decode(fs_encoding, fs_errors)
            relpath = prefix + name
            if kind == DIR:
                pruned = prune(relpath + "/")
                if pruned is not None:
                    skip(pruned)
                else:
                    subdirs.append(relpath + "/")
                continue
            if kind == BROKEN:
                error = errors[name]
                skip(Skip(relpath, SkipReason.UNREADABLE, error.strerror or str(error)))
                continue
            if kind == OTHER_LINK:
                if os.path.isdir(os.path.join(directory, name)):
                    skip(Skip(relpath + "/", SkipReason.DIR_SYMLINK))
                continue
            if shared is not None:
                key = url_name(name, style) if style is not None else name
                if key in shared:
                    first = urls.setdefault(key, relpath)
                    if first != relpath:
                        skip(Skip(relpath, SkipReason.DUPLICATE_URL, first))
                        continue
            yield relpath, kind == PAGE_LINK


def _shareable(listed: list[bytes], style: UrlStyle | None) -> set[str] | None:
    """The URL names (see `urls.url_name`) that two page names of a listing may share, or None
    when no two can. Only index names share a URL in the directory style; in the extensionless
    one, names whose stems are the same, and then all but one of them have a suffix other than
    ".html" (".htm", ".HTML", ...): the stems of those are enough to look for."""
    if style is UrlStyle.DIRECTORY:
        # Only the two index names share one (""), and `listed` is sorted as `list_directory`
        # sorts it, index names last: most directories hold one, and no page's name is looked at.
        return {""} if len(listed) > 1 and listed[-2][0] < len(INDEX_NAMES) else None
    if style is not UrlStyle.EXTENSIONLESS and style is not UrlStyle.CLEAN:
        return None
    shared: set[str] = set()
    for item in listed:
        if item[-1] in (PAGE, PAGE_LINK) and not item.endswith(_OWN_SUFFIX + b"\0" + bytes([item[-1]])):
            shared.add(url_name(item[1:-2].decode(FS_ENCODING, FS_ERRORS), style))
    return shared or None


def _prune_default(relpath: str) -> Skip | None:
    """The default excludes for a directory (``a/b/``), by its name alone."""
    return Skip(relpath, SkipReason.EXCLUDED_DIR) if default_excluded(relpath[:-1].rpartition("/")[2]) else None


def iter_pages(
    docroot: Path,
    *,
    exclude: pathspec.GitIgnoreSpec | None = None,
    on_skip: Callable[[Skip], None] | None = None,
) -> Iterator[Page]:
    """Yield every page under `docroot` in a deterministic order.

    The walk's candidates, `exclude` and `page_at` in one: a file symlink is a
    page only when it resolves inside the docroot, so no path outside it can
    leak into a sitemap. `exclude` is the whole spec (defaults first, see
    `exclusion_spec`); None means the defaults alone. Directory symlinks are
    never followed, so a loop cannot hang the walk.
    """
    if not docroot.exists():
        raise DocrootError(f"docroot not found: {docroot}")
    if not docroot.is_dir():
        raise DocrootError(f"docroot is not a directory: {docroot}")
    skip = on_skip or (lambda _: None)
    spec = exclude

    def prune(relpath: str) -> Skip | None:
        if spec is None:
            return _prune_default(relpath)
        return Skip(relpath, SkipReason.EXCLUDED_DIR) if spec.match_file(relpath) else None

    walk = Walk(docroot, prune=prune, on_skip=skip)
    real_root = os.path.realpath(docroot)
    for relpath, is_link in walk.candidates():
        name = relpath.rpartition("/")[2]
        if default_excluded(name) if spec is None else spec.match_file(relpath):
            skip(Skip(relpath, SkipReason.EXCLUDED))
            continue
        page = page_at(walk.root + relpath, relpath, is_link=is_link, real_root=real_root, on_skip=skip)
        if page is not None:
            yield page


def page_at(path: str, relpath: str, *, is_link: bool, real_root: str, on_skip: Callable[[Skip], None]) -> Page | None:
    """The `Page` for one file the walk (or `explain`) found, or None after `on_skip`."""
    if is_link:
        target = os.path.realpath(path)
        try:
            os.stat(path)
        except OSError as e:
            on_skip(_unfollowable(path, relpath, e))
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


def _unfollowable(path: str, relpath: str, error: OSError) -> Skip:
    """Why a symlink the system cannot follow is skipped: a loop (``a.html -> b.html ->
    a.html``, or through a directory symlink), a chain longer than the system follows
    (ELOOP for both: Python's own resolution, which has no length limit, tells them apart),
    or a target that is not there."""
    if error.errno != errno.ELOOP:
        return Skip(relpath, SkipReason.BROKEN_SYMLINK)
    try:
        os.path.realpath(path, strict=True)
    except OSError:
        return Skip(relpath, SkipReason.SYMLINK_LOOP)
    return Skip(relpath, SkipReason.SYMLINK_TOO_DEEP, error.strerror or str(error))
