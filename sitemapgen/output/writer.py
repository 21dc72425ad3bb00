"""Chunked, gzipped sitemap files and the index that lists them, published safely.

Entries stream straight into a gzip stream: the writer holds one formatted
entry at a time plus a small record per finished chunk, never a whole chunk or
the whole site.

Where a chunk ends is decided by the URLs themselves (content-defined
chunking): a chunk ends after a URL whose hash falls in a 1-in-M bucket, or
before it would pass a limit. So adding, removing or editing one page changes
the one chunk it falls in, and every other chunk comes out byte-identical.

Publishing never touches a file the current index lists: an unchanged chunk
keeps its file (recognised by its bytes), a changed one is written under a
number no file in the directory has, each file is fsynced and linked into
place, and the index is replaced last, atomically. Files the new index no
longer lists stay until the next build (`retired`), which removes them. A
crawler, or a run killed at any point, sees either the old set or the new set, whole.

Only what this tool can prove it wrote is ever removed: the files an index of
ours lists (an index is ours when it has our writer's exact layout), and what
the journal (`outdir.Journal`) of a killed run names. A file that merely looks
like ours (a hand-made ``sitemap-news-1.xml.gz``) is left alone, and named.

The chunk being written and the publisher that names it are in `chunks`;
reading a published set back (which files are ours) is in `published`.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from sitemapgen._types import Warn
from sitemapgen.config.limits import Limits
from sitemapgen.config.words import Chunking
from sitemapgen.entry import URLSET_OPEN, Block, Entry, Row, entry_room, row_of
from sitemapgen.errors import SitemapgenError
from sitemapgen.output.chunks import Chunk, Closing, IndexEntry, Publisher, temp_name, write_indexes
from sitemapgen.output.extras import Extras
from sitemapgen.output.filling import Filling
from sitemapgen.output.generators import SITEMAP_NAME, listed_by, notice, replaced
from sitemapgen.output.htmlmap import HtmlSitemap
from sitemapgen.output.llms import Labelled
from sitemapgen.output.outdir import Journal
from sitemapgen.output.owned import TextFile
from sitemapgen.output.published import INDEX_OPEN, file_digest, index_name, our_index, read_published
from sitemapgen.output.retired import RETIRED_NAME, read_retired, remove_stale, retire, write_retired
from sitemapgen.output.stylesheet import STYLESHEET_NAME, check_stylesheet, opening_for, publish_stylesheet
from sitemapgen.protocol import (
    DEFAULT_BYTES_PER_SITEMAP,
    DEFAULT_SITEMAPS_PER_INDEX,
    INDEX_NAME,
    MAX_URLS_PER_SITEMAP,
    LastmodFormat,
)
from sitemapgen.skips import Skip
from sitemapgen.util.faults import Faults

_OWN_FILE = re.compile(r"^sitemap-(?:(?:[a-z0-9_-]+-)?[1-9][0-9]*\.xml\.gz|index-[1-9][0-9]*\.xml)$")
_TEMP_FILE = re.compile(r"^\.sitemap.*\.tmp$")


@dataclass(frozen=True, slots=True)
class SitemapFile:
    """A chunk as published: where it is, its URL, and what the index says of it."""

    path: Path
    url: str
    urls: int
    size: int  # uncompressed bytes
    lastmod: str | None  # the newest lastmod inside, as written
    changed: bool = True  # written by this run, rather than kept byte-identical


@dataclass(frozen=True, slots=True)
class WriteResult:
    """Every file one build published, chunks in index order, the main index first."""

    sitemaps: tuple[SitemapFile, ...]
    indexes: tuple[Path, ...]
    removed: int = 0  # chunk files the index before the previous one listed, and no index since
    retired: int = 0  # chunk files the previous index listed and this one does not: kept until the next build
    replaced: str | None = None  # another tool's file this build replaced: "MkDocs' sitemap.xml"
    stylesheet: Path | None = None  # the sitemap.xsl every file names (stylesheet = true)
    stylesheet_written: bool = False  # by this run, rather than kept as it was
    text: tuple[TextFile, ...] = ()  # sitemap.txt, sitemap-2.txt, ... (text_sitemap = true)
    llms: tuple[TextFile, ...] = ()  # llms.txt (llms_txt = true)
    html: tuple[TextFile, ...] = ()  # sitemap.html, sitemap-2.html, ... (html_sitemap = true)
    llms_left_out: int = 0  # pages llms.txt leaves out to stay under its bound

    @property
    def changed(self) -> int:
        return sum(1 for s in self.sitemaps if s.changed)


def write_sitemaps(
    entries: Iterable[Entry],
    out_dir: Path,
    *,
    base_url: str,
    lastmod_format: LastmodFormat = LastmodFormat.DATETIME,
    max_urls: int = MAX_URLS_PER_SITEMAP,
    max_bytes: int = DEFAULT_BYTES_PER_SITEMAP,
    max_sitemaps_per_index: int = DEFAULT_SITEMAPS_PER_INDEX,
    chunking: Chunking = Chunking.STABLE,
    sections: Sequence[str] = (),
    on_skip: Callable[[Skip], None] | None = None,
    on_warning: Warn | None = None,
) -> WriteResult:
    """Stream `entries` into chunks in `out_dir`, then publish the index files.

    Writes nothing at all when `entries` is empty: a sitemap must list at
    least one URL, so the caller decides what an empty site means. The caller
    must hold the output directory's lock (see `build`).
    """
    return write_rows(
        (row_of(entry, lastmod_format) for entry in entries),
        out_dir,
        base_url=base_url,
        limits=Limits(max_urls, max_bytes, max_sitemaps_per_index, chunking, tuple(sections)),
        on_skip=on_skip,
        on_warning=on_warning,
    )


def write_rows(
    rows: Iterable[Row | Block],
    out_dir: Path,
    *,
    base_url: str,
    limits: Limits,
    on_skip: Callable[[Skip], None] | None = None,
    on_warning: Warn | None = None,
    before_publish: Callable[[], None] | None = None,
    stylesheet: bool = False,
    text_sitemap: bool = False,
    llms: Labelled | None = None,
    site_name: str | None = None,
    html: HtmlSitemap | None = None,
    others: Sequence[IndexEntry] = (),
    aside: Callable[[], bool] | None = None,
) -> WriteResult:
    """`write_sitemaps` for rows already formatted (the build's fast path; most in blocks), within `limits`.

    `before_publish` runs once every new chunk is on disk and before any index
    changes (the build commits its content store there): if it fails, nothing
    is published. With `stylesheet`, every file names ``sitemap.xsl`` (`output.stylesheet`); with
    `text_sitemap`, ``sitemap.txt`` lists the same URLs (`output.text`); with `llms` (the pages'
    titles and descriptions, filled as `rows` are read), ``llms.txt`` lists the same pages, headed
    by `site_name` (`output.llms`); with `html` (prepared), the HTML sitemap's pages list the
    rows and end them (`output.htmlmap`).
    `others` are other builds' sitemaps, (URL, lastmod), that the index lists after ours
    (``include``): never files of ours, never touched. `aside` says whether, from now on, no
    worker process will be forked: the chunks begun then are compressed in a thread of their
    own (see `chunks.Chunk`).
    """
    skip = on_skip or (lambda _: None)
    warn = on_warning or (lambda _: None)
    faults = Faults()
    listed = set(read_published(out_dir))
    retired = read_retired(out_dir, listed)
    Journal.recover(out_dir, listed | set(retired), file_digest, warn)
    names = _file_names(out_dir)  # listed once, after an interrupted run's leftovers are gone
    theirs, message = _check_main_index(out_dir, base_url, names, {url for url, _ in others})
    sheet = check_stylesheet(out_dir) if stylesheet else None  # None: off; True: ours, as this version writes it
    extras = Extras.prepare(
        out_dir, text_sitemap=text_sitemap, max_urls=limits.max_urls, labelled=llms, site_name=site_name, html=html
    )
    journal = Journal(out_dir)
    try:
        publisher = Publisher(out_dir, faults, journal)
        publisher.retired = retired
        publisher.sheet = sheet
        _name_lookalikes(out_dir, publisher, warn, names)
        result = _write(
            rows,
            publisher,
            base_url=base_url,
            limits=limits,
            skip=skip,
            before_publish=before_publish,
            warn=warn,
            others=others,
            aside=aside or _never,
            extras=extras,
        )
    finally:
        journal.close()
    if not result.sitemaps:
        return result  # nothing published, nothing replaced: nothing to say of the other tool's files
    if message is not None:
        warn(message)
    return replace(result, replaced=theirs)


def _write(
    rows: Iterable[Row | Block],
    publisher: Publisher,
    *,
    base_url: str,
    limits: Limits,
    skip: Callable[[Skip], None],
    before_publish: Callable[[], None] | None,
    warn: Warn,
    others: Sequence[IndexEntry],
    aside: Callable[[], bool],
    extras: Extras,
) -> WriteResult:
    opening = opening_for(URLSET_OPEN, publisher.sheet)
    order = ["", *limits.sections]
    done: dict[str, list[SitemapFile]] = {s: [] for s in order}
    closing = Closing(publisher, functools.partial(_placed, done=done, base_url=base_url))
    room = entry_room(limits.max_bytes) - len(opening) + len(URLSET_OPEN)
    filling = Filling(publisher, closing, limits=limits, opening=opening, room=room, skip=skip, aside=aside)
    try:
        for row in extras.around(rows, publisher.journal, publisher.faults, room=room):
            if isinstance(row, Block):
                filling.add_block(row)
            else:
                filling.add(row)
        filling.close_all(order)
        closing.finish()
        written = [s for section in order for s in done[section]]
        if written and before_publish is not None:
            before_publish()
        return _publish(written, publisher, limits.max_sitemaps_per_index, warn, others, extras=extras)
    except BaseException:
        filling.abort()
        extras.abort()
        closing.abort()
        publisher.discard_created()
        raise


def _placed(
    section: str, chunk: Chunk, path: Path, changed: bool, *, done: dict[str, list[SitemapFile]], base_url: str
) -> None:
    """A chunk is in place, at `path`: it joins its section's files."""
    done[section].append(SitemapFile(path, base_url + path.name, chunk.urls, chunk.size, chunk.lastmod, changed))


def _never() -> bool:
    return False


def _file_names(out_dir: Path) -> list[tuple[str, bool]]:
    """Every name in `out_dir`, sorted, and whether it is a file (symlinks followed, as `DirEntry.is_file`;
    one that cannot be followed, a loop, is not a file)."""
    with os.scandir(out_dir) as it:
        return sorted((e.name, _is_file(e)) for e in it)


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:  # a symlink loop (ELOOP), a name too long to follow: not a file of ours
        return False


def _check_main_index(
    out_dir: Path, base_url: str, names: list[tuple[str, bool]], included: set[str]
) -> tuple[str | None, str | None]:
    """Refuse to replace a main index that is not a file. Else whose ``sitemap.xml`` it is when
    it is another tool's (for the summary), and the warning naming the other sitemaps that
    would stay beside ours (see `generators`): read now, said once the build has published."""
    path = out_dir / INDEX_NAME
    theirs = None
    others: list[str] = []
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
            raise SitemapgenError(f"{path}: is {what}; sitemapgen replaces only a file it wrote there: move it away")
        if our_index(path) is None:
            theirs = replaced(out_dir)
            others = listed_by(path, out_dir, base_url)
    others += [
        name
        for name, is_file in names
        if is_file and SITEMAP_NAME.match(name) and name != INDEX_NAME and not _OWN_FILE.match(name)
        if base_url + name not in included  # another build's, listed in our index (include)
    ]
    return theirs, notice(out_dir, list(dict.fromkeys(others)))


def _name_lookalikes(out_dir: Path, publisher: Publisher, warn: Warn, names: list[tuple[str, bool]]) -> None:
    """Name the files that look like ours but that no index or journal of ours accounts for."""
    ours = set(publisher.published) | set(publisher.retired) | {path.name for path in publisher.previous_indexes}
    strays = [
        name
        for name, _ in names
        if name.startswith(("sitemap-", ".sitemap"))
        and (_OWN_FILE.match(name) or _TEMP_FILE.match(name))
        and name not in ours
    ]
    if strays:
        shown = ", ".join(strays[:5]) + (f" and {len(strays) - 5} more" if len(strays) > 5 else "")
        warn(
            f"{out_dir}: left alone, though named like sitemapgen's files (no index of ours lists them,"
            f" so they are not ours to remove): {shown}"
        )


def _publish(
    written: list[SitemapFile],
    publisher: Publisher,
    per_index: int,
    warn: Warn,
    others: Sequence[IndexEntry],
    *,
    extras: Extras,
) -> WriteResult:
    """Write the index files over the chunks in place (and `others` after them), the text sitemap
    and llms.txt just before; then keep the chunk files they no longer list until the next build (`retired`),
    and remove those the previous build kept so."""
    if not written:
        return WriteResult((), ())
    listed = [*((s.url, s.lastmod) for s in written), *others]
    groups = [listed[i : i + per_index] for i in range(0, len(listed), per_index)]
    indexes = _index_paths(publisher, len(groups))
    stale, stale_indexes = retire(publisher, {p.name for p in indexes} | {s.path.name for s in written})
    sheet, out_dir = publisher.sheet, publisher.out_dir
    extras.publish([s.path for s in written], publisher.journal, publisher.faults)  # may refuse: first
    if sheet is False:  # not there as this version writes it: published before the index that names it
        publish_stylesheet(out_dir, publisher.faults, temp_name(out_dir, STYLESHEET_NAME, publisher.journal))
    write_indexes(publisher, indexes, groups, opening_for(INDEX_OPEN, sheet))
    kept = {name: publisher.digests[name] for name in stale}
    publisher.faults.step()
    try:
        write_retired(publisher.out_dir, kept, publisher.journal)
    except OSError as e:
        record = publisher.out_dir / RETIRED_NAME
        if kept:
            warn(
                f"{record}: cannot write ({e.strerror or e}), so the sitemap files the new index no longer lists"
                " were removed at once, not kept until the next build; move it away"
            )
        else:
            warn(f"{record}: cannot remove ({e.strerror or e}); sitemapgen did not make it this way: move it away")
        kept = {}
    gone = {**publisher.retired, **{name: digest for name, digest in publisher.digests.items() if name in stale}}
    removed = remove_stale(publisher, {name: gone[name] for name in gone if name not in kept}, stale_indexes)
    extras.settle(publisher.journal, publisher.faults, warn)
    sheet_path = None if sheet is None else out_dir / STYLESHEET_NAME
    return WriteResult(
        tuple(written),
        tuple(indexes),
        removed,
        len(kept),
        None,
        sheet_path,
        sheet is False,
        tuple(extras.text.files),
        tuple(extras.llms.files),
        tuple(extras.html.files) if extras.html is not None else (),
        extras.llms.left_out,
    )


def _index_paths(publisher: Publisher, count: int) -> list[Path]:
    """The paths of `count` index files, the main one first; refused where one after it is
    a file sitemapgen did not write."""
    indexes = [publisher.out_dir / index_name(n) for n in range(1, count + 1)]
    previous = {path.name for path in publisher.previous_indexes}
    for path in indexes[1:]:
        if path.name not in previous and os.path.lexists(path):
            raise SitemapgenError(f"{path}: exists and sitemapgen did not write it; move it away")
    return indexes
