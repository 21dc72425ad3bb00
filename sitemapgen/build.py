"""The pipeline: walk -> URL -> head -> lastmod -> rules -> writer, and the library entry points.

Every check that can fail on bad input runs before the first byte is written,
so an error leaves the output directory exactly as it was. One `_Pipeline`
decides each page's fate; `build`, `iter_entries` and `explain` all ask it,
so what `explain` says is what `build` does.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import multiprocessing
import os
import re
import signal
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import pathspec

from .config import Config, RobotsTxt
from .errors import DocrootError, SitemapgenError
from .head import HeadFacts, normalize_url, read_head
from .lastmod import (
    ContentStore,
    GitDates,
    LastmodSource,
    build_time,
    content_digest,
    mtime_lastmod,
    parse_datetime,
    read_git_dates,
)
from .robots import update_robots_txt
from .rules import RuleSet
from .urls import MAX_URL_LENGTH, is_page_name, page_url
from .walk import (
    DEFAULT_EXCLUDE,
    Candidate,
    Page,
    Skip,
    SkipReason,
    Walk,
    exclusion_spec,
    page_at,
    read_ignore_file,
)
from .writer import Entry, Row, WriteResult, row_of, write_rows

logger = logging.getLogger("sitemapgen")

Warn = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build listed, passed over and wrote."""

    listed: int
    skipped: Mapping[SkipReason, int]
    written: WriteResult
    warnings: int = 0
    lastmod_sources: Mapping[str, int] = field(default_factory=dict)
    robots_txt_updated: bool = False

    def as_json(self) -> dict[str, object]:
        """The summary as plain data, for `--json`."""
        return {
            "listed": self.listed,
            "skipped": {reason.name.lower(): n for reason, n in self.skipped.items()},
            "warnings": self.warnings,
            "lastmod_sources": dict(self.lastmod_sources),
            "sitemaps": [
                {"path": str(s.path), "url": s.url, "urls": s.urls, "bytes": s.size, "changed": s.changed}
                for s in self.written.sitemaps
            ],
            "changed": self.written.changed,
            "removed": self.written.removed,
            "indexes": [str(p) for p in self.written.indexes],
            "robots_txt_updated": self.robots_txt_updated,
        }

    def summary(self) -> str:
        """The one line the CLI prints on stderr."""
        files = self.written.sitemaps
        text = (
            f"listed {self.listed:,} page{'s' * (self.listed != 1)} in {len(files):,} sitemap{'s' * (len(files) != 1)}"
        )
        if self.skipped:
            text += "; skipped " + ", ".join(reason.counted(n) for reason, n in self.skipped.items())
        if len(self.lastmod_sources) > 1:
            text += "; lastmod from " + ", ".join(f"{n:,} {name}" for name, n in self.lastmod_sources.items())
        if self.written.changed != len(files) or self.written.removed:
            text += f"; {self.written.changed:,} of {len(files):,} sitemap{'s' * (len(files) != 1)} changed"
            if self.written.removed:
                text += f", {self.written.removed:,} removed"
        indexes = self.written.indexes
        if len(indexes) == 1:
            text += f"; wrote {indexes[0]}"
            text += (
                f" and {files[0].path}" if len(files) == 1 else f" and {files[0].path.name} .. {files[-1].path.name}"
            )
        else:
            text += (
                f"; wrote {len(indexes):,} index files, {indexes[0]} .. {indexes[-1].name}, since an index lists"
                f" at most 1,000 sitemaps: submit each (or name each in robots.txt)"
            )
        if self.robots_txt_updated:
            text += "; updated robots.txt"
        return text


def _check_output(config: Config) -> Path:
    """Refuse an output directory the protocol's location rule would break."""
    out = config.output_dir
    if out.exists() and not out.is_dir():
        raise DocrootError(f"--out: not a directory: {out}")
    real_out = os.path.realpath(out)
    real_root = os.path.realpath(config.docroot)
    if real_out != real_root and real_out.startswith(real_root.rstrip(os.sep) + os.sep):
        raise DocrootError(
            f"--out: {out} is inside the docroot, so its sitemaps would be served below the base URL,"
            " where the protocol's location rule lets them list only the pages under their own folder;"
            " write them to the docroot itself or outside it"
        )
    return out


def _check_docroot(config: Config) -> None:
    if not config.docroot.is_dir():
        what = "not found" if not config.docroot.exists() else "not a directory"
        raise DocrootError(f"docroot {what}: {config.docroot}")


def display(relpath: str) -> str:
    """A path as the user would type it, on one line: undecodable bytes and control
    characters (a newline is a legal file name character) shown as escapes."""
    text = relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def skip_warning(item: Skip) -> str | None:
    """The warning a skip deserves, or None for the ones the user asked for (patterns, noindex...)."""
    if not item.reason.warns:
        return None
    detail = f" ({display(item.detail)})" if item.detail else ""
    return f"{display(item.relpath)}: skipped, {item.reason.singular}{detail}"


@dataclass(frozen=True, slots=True)
class Decision:
    """A page's fate: an entry to write, or the reason it is left out."""

    entry: Entry | None
    skip: Skip | None = None
    lastmod_source: LastmodSource | None = None
    digest: bytes | None = None  # lastmod 'content': the store, in the main process, dates it


@dataclass(frozen=True, slots=True)
class _Outcome:
    """A page's outcome when it is anything but plainly listed (see `_Event`)."""

    skip: Skip | None = None
    warnings: tuple[str, ...] = ()
    row: Row | None = None
    source: str | None = None
    entry: Entry | None = None  # lastmod 'content': dated by the store, in the main process
    digest: bytes | None = None


#: What walking and processing give, in walk order: (row, lastmod source) for a
#: page listed with nothing to say (nearly all: a plain tuple, the cheapest
#: thing to send back from a worker), an `_Outcome` for any other page, or a
#: `Skip` from the walk itself.
_Event = tuple[Row, str | None] | _Outcome | Skip
_BATCH = 512  # pages per task sent to a worker: large enough that pickling is noise
_POOL_AFTER = 2_048  # pages processed inline before workers are started
_AHEAD = 4  # batches in flight per worker: enough that none waits while this process writes
_WORKER: _Pipeline | None = None  # the pipeline forked workers inherit


def _worker_init() -> None:
    """Ctrl-C reaches the whole process group: the main process handles it, and
    shuts the workers down; they must not each print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(batch: list[Candidate]) -> list[_Event]:
    """A worker's task: process a batch of candidates with the inherited pipeline."""
    assert _WORKER is not None
    process = _WORKER.process
    return [process(candidate) for candidate in batch]


#: A batch: its candidates, and the walk's skips among them as (position, skip).
_Batch = tuple[list[Candidate], list[tuple[int, Skip]]]


class _Pipeline:
    """Per-build state (rules, git dates, content store) and the per-page decision."""

    def __init__(self, config: Config, *, warn: Warn, dry_run: bool) -> None:
        self.config = config
        self.warn = warn
        self.root = os.path.join(config.docroot, "")  # with a trailing separator, to prefix relpaths
        self.real_root = os.path.realpath(config.docroot)
        # A page URL is the base URL and an encoded path that normalize_url leaves as it
        # is, so its normal form is the base URL's and the same path (tested in test_head).
        self.own_base = normalize_url(config.base_url)
        # Workers are forked, to inherit this pipeline; without fork (Windows), no workers.
        forks = "fork" in multiprocessing.get_all_start_methods()
        self.jobs = (config.jobs or os.cpu_count() or 1) if forks else 1
        self.patterns = [
            *DEFAULT_EXCLUDE,
            *config.exclude,
            *(read_ignore_file(config.docroot) if config.sitemapignore else []),
        ]
        self.spec = exclusion_spec(self.patterns[len(DEFAULT_EXCLUDE) :])
        # For the walk: None when only the defaults apply, which it checks faster itself.
        self.walk_spec = self.spec if len(self.patterns) > len(DEFAULT_EXCLUDE) else None
        self.rules = RuleSet(config.rules)
        self.ignore = [re.compile(p.encode("utf-8")) for p in config.content_ignore]
        self.git: GitDates | None = None
        self.git_prefix = ""
        self.git_sources = [(re.compile(g.match), g.source) for g in config.git_sources]
        self.store: ContentStore | None = None
        self.sources_used: Counter[str] = Counter()
        self.sections = [
            (pathspec.GitIgnoreSpec.from_lines([section.pattern]), section.name)
            for section in reversed(config.sitemaps)
        ]
        chain = config.lastmod
        if LastmodSource.GIT in chain:
            self._open_git()
        if LastmodSource.CONTENT in chain:
            self.store = ContentStore(config.state_path, build_time=build_time(), on_warning=warn, readonly=dry_run)

    def _open_git(self) -> None:
        self.git = read_git_dates(self.config.docroot)
        if self.git is None:
            self.warn(f"lastmod 'git': {self.config.docroot} is not in a git work tree; using the next source")
            return
        real_root = os.path.realpath(self.config.docroot)
        prefix = os.path.relpath(real_root, os.path.realpath(self.git.root))
        self.git_prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
        if self.git.shallow:
            self.warn(
                "lastmod 'git': this is a shallow clone; files last changed before its oldest commit"
                f" ({len(self.git.shallow_paths):,} paths) get the next source's lastmod, not a made-up date."
                " Fetch the full history (e.g. actions/checkout with fetch-depth: 0)"
            )

    def git_path(self, relpath: str) -> str:
        """The path in the repository whose history dates the page at `relpath`."""
        for pattern, source in self.git_sources:
            if pattern.search(relpath):
                return pattern.sub(source, relpath, count=1)
        return self.git_prefix + relpath

    def _lastmod(
        self, page: Page, head: HeadFacts | None, warn: Warn
    ) -> tuple[datetime | None, LastmodSource | None, bytes | None]:
        """The lastmod and its source; for 'content', the digest the store will date."""
        for source in self.config.lastmod:
            value: datetime | None = None
            if source is LastmodSource.MTIME:
                value = mtime_lastmod(page.mtime_ns)
            elif source is LastmodSource.META:
                if head is not None and head.modified is not None:
                    value = parse_datetime(head.modified)
                    if value is None:
                        warn(f"{display(page.relpath)}: unreadable modified-time meta {head.modified!r}")
            elif source is LastmodSource.GIT:
                if self.git is not None:
                    value = self.git.dates.get(self.git_path(page.relpath))
            elif source is LastmodSource.CONTENT:
                try:
                    return None, source, content_digest(page.path, self.ignore)
                except OSError as e:
                    warn(f"{display(page.relpath)}: cannot read for lastmod 'content': {e.strerror or e}")
            if value is not None:
                return value, source, None
        return None, None, None

    def dated(self, entry: Entry, digest: bytes) -> Entry:
        """`entry` with the content store's lastmod (main process only: it owns the store)."""
        lastmod = self.store.lastmod(entry.loc, digest) if self.store is not None else None
        return replace(entry, lastmod=lastmod)

    def decide(self, page: Page, warn: Warn | None = None) -> Decision:
        warn = warn or self.warn
        config = self.config
        loc = page_url(config.base_url, page.relpath, config.url_style)
        if len(loc) > MAX_URL_LENGTH:
            return Decision(None, Skip(page.relpath, SkipReason.URL_TOO_LONG, f"{len(loc):,} characters"))
        head: HeadFacts | None = None
        if config.read_heads:
            try:
                head = read_head(page.path, loc, config.head_max_bytes)
            except OSError as e:
                return Decision(None, Skip(page.relpath, SkipReason.UNREADABLE, e.strerror or str(e)))
            if head.problem:
                warn(f"{display(page.relpath)}: {head.problem}")
            skip = self._head_skip(page, loc, head, warn)
            if skip is not None:
                return Decision(None, skip)
        lastmod, source, digest = self._lastmod(page, head, warn)
        facts = self.rules.facts_for(page.relpath)
        alternates = head.alternates if head is not None and config.hreflang else ()
        section = (
            next((name for spec, name in self.sections if spec.match_file(page.relpath)), "") if self.sections else ""
        )
        entry = Entry(loc, lastmod, facts.changefreq, facts.priority, alternates, section)
        return Decision(entry, None, source, digest)

    def process(self, candidate: Candidate) -> tuple[Row, str | None] | _Outcome:
        """One candidate's outcome as plain data, cheap to send from a worker process."""
        relpath, is_link = candidate
        skips: list[Skip] = []
        page = page_at(self.root + relpath, relpath, is_link=is_link, real_root=self.real_root, on_skip=skips.append)
        if page is None:
            return _Outcome(skip=skips[0])
        warnings: list[str] = []
        decision = self.decide(page, warnings.append)
        # _value_ is .value without the descriptor call (this runs per page)
        source = decision.lastmod_source._value_ if decision.lastmod_source is not None else None
        if decision.entry is None:
            return _Outcome(skip=decision.skip, warnings=tuple(warnings))
        if decision.digest is not None:
            return _Outcome(warnings=tuple(warnings), source=source, entry=decision.entry, digest=decision.digest)
        row = row_of(decision.entry, self.config.lastmod_format)
        if warnings:
            return _Outcome(warnings=tuple(warnings), row=row, source=source)
        return row, source

    def _walk(self, on_skip: Callable[[Skip], None] | None = None) -> Walk:
        return Walk(self.config.docroot, exclude=self.walk_spec, on_skip=on_skip, url_style=self.config.url_style)

    def _batches(self, on_progress: Callable[[int], None] | None) -> Iterator[_Batch]:
        """The walk in batches of candidates, each with the walk's skips among them."""
        skips: list[tuple[int, Skip]] = []
        batch: list[Candidate] = []
        count = 0
        walk = self._walk(on_skip=lambda skip: skips.append((len(batch), skip)))
        for candidate in walk.candidates():
            batch.append(candidate)
            if len(batch) == _BATCH or len(skips) >= _BATCH:
                count += len(batch)
                if on_progress is not None:
                    on_progress(count)
                yield batch, skips
                batch, skips = [], []
        if batch or skips:
            yield batch, skips

    def _processed(self, on_progress: Callable[[int], None] | None) -> Iterator[tuple[list[_Event], _Batch]]:
        """Every batch with its candidates' outcomes, in walk order: inline at first,
        then from worker processes.

        Only the walk's directory listings are read in this process; the
        per-page work (stat, head, lastmod, formatting) is done by `jobs`
        forked workers, sent batches in walk order, at most `_AHEAD` each in flight,
        and taken back in the order sent: output stays deterministic and memory
        flat. A small site never pays for starting workers.
        """
        global _WORKER
        batches = self._batches(on_progress)
        inline = 0
        for batch in batches:
            yield [self.process(c) for c in batch[0]], batch
            inline += len(batch[0])
            if self.jobs > 1 and inline >= _POOL_AFTER:
                break
        else:
            return
        _WORKER = self  # inherited by the forked workers
        pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init)
        pending: deque[tuple[_Batch, Future[list[_Event]]]] = deque()
        try:
            for batch in batches:
                pending.append((batch, pool.submit(_work, batch[0])))
                while len(pending) >= _AHEAD * self.jobs:
                    done, future = pending.popleft()
                    yield future.result(), done
            while pending:
                done, future = pending.popleft()
                yield future.result(), done
        except BrokenProcessPool as e:
            raise SitemapgenError(
                "a worker process died (out of memory?); nothing new was published. Try again, or with --jobs 1"
            ) from e
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            _WORKER = None

    def rows(self, on_skip: Callable[[Skip], None], on_progress: Callable[[int], None] | None = None) -> Iterator[Row]:
        """The rows to write, in walk order (what `build` writes)."""
        sources = self.sources_used
        fmt = self.config.lastmod_format
        for events, (_, walk_skips) in self._processed(on_progress):
            if walk_skips:  # put the walk's skips back among the pages, in walk order
                merged: list[_Event] = []
                done = 0
                for at, skip in walk_skips:
                    merged += events[done:at]
                    merged.append(skip)
                    done = max(done, at)
                events = merged + events[done:]
            for event in events:
                if type(event) is tuple:
                    row, source = event
                elif type(event) is Skip:
                    on_skip(event)
                    continue
                else:
                    assert isinstance(event, _Outcome)
                    for message in event.warnings:
                        self.warn(message)
                    if event.skip is not None:
                        on_skip(event.skip)
                        continue
                    source = event.source
                    if event.entry is not None:
                        assert event.digest is not None
                        row = row_of(self.dated(event.entry, event.digest), fmt)
                    else:
                        assert event.row is not None
                        row = event.row
                if source is not None:
                    sources[source] += 1
                yield row

    def _head_skip(self, page: Page, loc: str, head: HeadFacts, warn: Warn) -> Skip | None:
        config = self.config
        if config.check_noindex and head.noindex:
            return Skip(page.relpath, SkipReason.NOINDEX)
        if head.refresh is None and head.canonical is None:
            return None
        own = self.own_base + loc[len(config.base_url) :]  # normalize_url(loc), without the work
        if config.check_redirects and head.refresh is not None and head.refresh != own:
            return Skip(page.relpath, SkipReason.REDIRECT, f"to {head.refresh}")
        if config.check_canonical and head.canonical is not None and head.canonical != own:
            if urlsplit(head.canonical).netloc != urlsplit(own).netloc:
                warn(f"{display(page.relpath)}: cross-host canonical {head.canonical}; listed anyway")
                return None
            return Skip(page.relpath, SkipReason.CANONICAL, f"to {head.canonical}")
        return None

    def decisions(self, on_skip: Callable[[Skip], None]) -> Iterator[tuple[Page, Decision]]:
        """Each listed page with its decision, in walk order (in process)."""
        for relpath, is_link in self._walk(on_skip=on_skip).candidates():
            page = page_at(self.root + relpath, relpath, is_link=is_link, real_root=self.real_root, on_skip=on_skip)
            if page is None:
                continue
            decision = self.decide(page)
            if decision.entry is None:
                assert decision.skip is not None
                on_skip(decision.skip)
                continue
            if decision.digest is not None:
                decision = replace(decision, entry=self.dated(decision.entry, decision.digest), digest=None)
            yield page, decision

    def entries(self, on_skip: Callable[[Skip], None]) -> Iterator[Entry]:
        for _, decision in self.decisions(on_skip):
            assert decision.entry is not None
            yield decision.entry

    def commit(self) -> None:
        if self.store is not None:
            self.store.commit()

    def abort(self) -> None:
        if self.store is not None:
            self.store.abort()


def iter_entries(
    config: Config, *, on_skip: Callable[[Skip], None] | None = None, on_warning: Warn | None = None
) -> Iterator[Entry]:
    """Every sitemap entry of the docroot, in walk order, without writing anything."""
    _check_docroot(config)
    pipeline = _Pipeline(config, warn=on_warning or logger.warning, dry_run=True)
    try:
        yield from pipeline.entries(on_skip or (lambda _: None))
    finally:
        pipeline.abort()


@contextlib.contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold an exclusive lock on the output directory, or fail at once.

    The lock is on the directory itself (flock), so no lock file is left to be
    deployed, and the kernel releases it when a run dies, even by SIGKILL.
    """
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SitemapgenError(
                f"another sitemapgen run is writing to {out}; try again when it has finished"
            ) from None
        yield
    finally:
        os.close(fd)


def _remove_if_empty(directory: Path) -> None:
    """Undo creating an output directory that a failed run left empty."""
    with contextlib.suppress(OSError):
        directory.rmdir()


def _sorted_skips(skipped: Counter[SkipReason]) -> dict[SkipReason, int]:
    order = list(SkipReason)
    return dict(sorted(skipped.items(), key=lambda kv: order.index(kv[0])))


def build(
    config: Config,
    *,
    on_warning: Warn | None = None,
    on_progress: Callable[[int], None] | None = None,
    dry_run: bool = False,
) -> BuildResult:
    """Write the sitemaps and index for `config`; the library's entry point.

    Raises `SitemapgenError` for bad input before anything is written. Files
    that cannot be listed are counted in the result and, where the user
    should look at them, reported through `on_warning` (default: logging).
    `on_progress` hears the number of pages walked so far, every few hundred. With
    `dry_run` the content store is only read (what `check` uses).
    """
    warn = on_warning or logger.warning
    _check_docroot(config)
    out = _check_output(config)
    skipped: Counter[SkipReason] = Counter()
    warnings = 0

    def counted_warn(message: str) -> None:
        nonlocal warnings
        warnings += 1
        warn(message)

    def on_skip(item: Skip) -> None:
        skipped[item.reason] += 1
        message = skip_warning(item)
        if message is not None:
            counted_warn(message)

    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    with output_lock(out):
        pipeline: _Pipeline | None = None
        try:
            # Inside the try: a bad .sitemapignore or an unusable store must not leave
            # behind the output directory this run created.
            pipeline = _Pipeline(config, warn=counted_warn, dry_run=dry_run)
            written = write_rows(
                pipeline.rows(on_skip, on_progress),
                out,
                base_url=config.base_url,
                max_urls=config.max_urls_per_sitemap,
                max_bytes=config.max_bytes_per_sitemap,
                max_sitemaps_per_index=config.max_sitemaps_per_index,
                chunking=config.chunking,
                sections=[section.name for section in config.sitemaps],
                on_skip=on_skip,
            )
        except BaseException:
            if pipeline is not None:
                pipeline.abort()
            if created:
                _remove_if_empty(out)
            raise
        if not written.sitemaps:
            pipeline.abort()
        else:
            pipeline.commit()
    if not written.sitemaps:
        if created:
            _remove_if_empty(out)
        why = ", ".join(r.counted(n) for r, n in _sorted_skips(skipped).items())
        raise SitemapgenError(
            f"no pages to list under {config.docroot} ({why or 'no .html or .htm files'}); nothing written"
        )
    robots = False
    if config.robots_txt is not RobotsTxt.OFF and not dry_run:
        index_urls = [config.base_url + path.name for path in written.indexes]
        robots = update_robots_txt(
            config.docroot, config.base_url, index_urls, create=config.robots_txt is RobotsTxt.CREATE
        )
    listed = sum(s.urls for s in written.sitemaps)
    return BuildResult(
        listed, _sorted_skips(skipped), written, warnings, dict(pipeline.sources_used.most_common()), robots
    )


@dataclass(frozen=True, slots=True)
class Listing:
    """A page that would be listed: its entry, source file and lastmod source."""

    relpath: str
    entry: Entry
    lastmod_source: LastmodSource | None


def iter_listing(config: Config, *, on_warning: Warn | None = None) -> Iterator[Listing]:
    """What `build` would list, page by page, without writing anything.

    Files it passes over that deserve a warning in `build` get one here too.
    """
    _check_docroot(config)
    warn = on_warning or logger.warning

    def on_skip(item: Skip) -> None:
        message = skip_warning(item)
        if message is not None:
            warn(message)

    pipeline = _Pipeline(config, warn=warn, dry_run=True)
    try:
        for page, decision in pipeline.decisions(on_skip):
            assert decision.entry is not None
            yield Listing(page.relpath, decision.entry, decision.lastmod_source)
    finally:
        pipeline.abort()


def build_elsewhere(config: Config, out: Path, *, on_warning: Warn | None = None) -> BuildResult:
    """Build into `out` instead of the configured output, changing no state (for `check`)."""
    return build(replace(config, out_dir=out), on_warning=on_warning, dry_run=True)


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why one file is or is not in the sitemap, in words for the user."""

    relpath: str
    listed: bool
    lines: tuple[str, ...]


def _relpath_in(config: Config, path: str) -> str:
    """`path` (relative to the docroot, or any path to a file in it) as a docroot relpath."""
    candidate = Path(path)
    if candidate.is_absolute() or candidate.exists():
        try:
            return os.path.relpath(os.path.abspath(candidate), os.path.abspath(config.docroot)).replace(os.sep, "/")
        except ValueError:
            pass
    return path.lstrip("/")


def explain(config: Config, path: str) -> Explanation:
    """Say why the page at `path` is or is not listed, as `build` would decide."""
    _check_docroot(config)
    relpath = _relpath_in(config, path)
    full = os.path.join(config.docroot, relpath)
    shown = display(relpath)

    def no(reason: str) -> Explanation:
        return Explanation(relpath, False, (f"{shown}: not listed: {reason}",))

    if relpath.startswith("../") or relpath == "..":
        return no("outside the docroot")
    if not os.path.lexists(full):
        return no("no such file in the docroot")
    if not is_page_name(relpath):
        return no("not an HTML page (only .html and .htm files are listed)")
    pipeline = _Pipeline(config, warn=lambda _: None, dry_run=True)
    try:
        parts = relpath.split("/")
        for depth in range(1, len(parts)):
            ancestor = "/".join(parts[:depth])
            if os.path.islink(os.path.join(config.docroot, ancestor)):
                return no(f"inside {ancestor}/, a directory symlink, which is not followed")
            check = pipeline.spec.check_file(ancestor + "/")
            if check.include and check.index is not None:
                return no(f"directory {ancestor}/ excluded by pattern {pipeline.patterns[check.index]!r}")
        check = pipeline.spec.check_file(relpath)
        if check.include and check.index is not None:
            return no(f"excluded by pattern {pipeline.patterns[check.index]!r}")
        skips: list[Skip] = []
        # List the page's directory as the walk does: of two files with one URL, it lists the first.
        directory = relpath.rpartition("/")[0]
        pipeline._walk(skips.append).list_directory(directory + "/" if directory else "")
        for item in skips:
            if item.relpath == relpath and item.reason is SkipReason.DUPLICATE_URL:
                return no(f"{item.reason.singular} ({display(item.detail)})")
        skips.clear()
        real_root = os.path.realpath(config.docroot)
        page = page_at(full, relpath, is_link=os.path.islink(full), real_root=real_root, on_skip=skips.append)
        if page is None:
            return no(skips[0].reason.singular)
        decision = pipeline.decide(page)
    finally:
        pipeline.abort()
    if decision.entry is None:
        assert decision.skip is not None
        detail = f" ({decision.skip.detail})" if decision.skip.detail else ""
        return no(decision.skip.reason.singular + detail)
    entry = decision.entry
    lines = [f"{shown}: listed as {entry.loc}"]
    if entry.lastmod is not None and decision.lastmod_source is not None:
        lines.append(f"  lastmod {entry.lastmod.isoformat(timespec='seconds')} (from {decision.lastmod_source.value})")
    for name, value in (("priority", entry.priority), ("changefreq", entry.changefreq)):
        if value is not None:
            shown_value = value.value if hasattr(value, "value") else value
            lines.append(f"  {name} {shown_value} (from [[rules]])")
    for alternate in entry.alternates:
        lines.append(f"  hreflang {alternate.hreflang}: {alternate.href}")
    return Explanation(relpath, True, tuple(lines))
