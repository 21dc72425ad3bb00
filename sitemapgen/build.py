"""The pipeline: walk -> URL -> head -> lastmod -> rules -> writer, and the library entry points.

Every check that can fail on bad input runs before the first byte is written,
so an error leaves the output directory exactly as it was. One `_Pipeline`
decides each page's fate; `build`, `iter_entries` and `explain` all ask it,
so what `explain` says is what `build` does.
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from .config import Config
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
from .rules import RuleSet
from .urls import MAX_URL_LENGTH, is_page_name, page_url
from .walk import DEFAULT_EXCLUDE, Page, Skip, SkipReason, exclusion_spec, iter_pages, page_at, read_ignore_file
from .writer import Entry, WriteResult, write_sitemaps

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
    """A path as the user would type it, with undecodable bytes shown escaped."""
    return relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass(frozen=True, slots=True)
class Decision:
    """A page's fate: an entry to write, or the reason it is left out."""

    entry: Entry | None
    skip: Skip | None = None
    lastmod_source: LastmodSource | None = None
    head: HeadFacts | None = None


class _Pipeline:
    """Per-build state (rules, git dates, content store) and the per-page decision."""

    def __init__(self, config: Config, *, warn: Warn, dry_run: bool) -> None:
        self.config = config
        self.warn = warn
        self.patterns = [
            *DEFAULT_EXCLUDE,
            *config.exclude,
            *(read_ignore_file(config.docroot) if config.sitemapignore else []),
        ]
        self.spec = exclusion_spec(self.patterns[len(DEFAULT_EXCLUDE) :])
        self.rules = RuleSet(config.rules)
        self.ignore = [re.compile(p.encode("utf-8")) for p in config.content_ignore]
        self.base_host = urlsplit(config.base_url).netloc
        self.git: GitDates | None = None
        self.git_prefix = ""
        self.git_sources = [(re.compile(g.match), g.source) for g in config.git_sources]
        self.store: ContentStore | None = None
        self.sources_used: Counter[str] = Counter()
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

    def _lastmod(self, page: Page, loc: str, head: HeadFacts | None) -> tuple[datetime | None, LastmodSource | None]:
        for source in self.config.lastmod:
            value: datetime | None = None
            if source is LastmodSource.MTIME:
                value = mtime_lastmod(page.mtime_ns)
            elif source is LastmodSource.META:
                if head is not None and head.modified is not None:
                    value = parse_datetime(head.modified)
                    if value is None:
                        self.warn(f"{display(page.relpath)}: unreadable modified-time meta {head.modified!r}")
            elif source is LastmodSource.GIT:
                if self.git is not None:
                    value = self.git.dates.get(self.git_path(page.relpath))
            elif source is LastmodSource.CONTENT and self.store is not None:
                try:
                    value = self.store.lastmod(loc, content_digest(page.path, self.ignore))
                except OSError as e:
                    self.warn(f"{display(page.relpath)}: cannot read for lastmod 'content': {e.strerror or e}")
            if value is not None:
                return value, source
        return None, None

    def decide(self, page: Page) -> Decision:
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
                self.warn(f"{display(page.relpath)}: {head.problem}")
            skip = self._head_skip(page, loc, head)
            if skip is not None:
                return Decision(None, skip, head=head)
        lastmod, source = self._lastmod(page, loc, head)
        facts = self.rules.facts_for(page.relpath)
        alternates = head.alternates if head is not None and config.hreflang else ()
        entry = Entry(loc, lastmod, facts.changefreq, facts.priority, alternates)
        return Decision(entry, None, source, head)

    def _head_skip(self, page: Page, loc: str, head: HeadFacts) -> Skip | None:
        config = self.config
        if config.check_noindex and head.noindex:
            return Skip(page.relpath, SkipReason.NOINDEX)
        own = normalize_url(loc)
        if config.check_redirects and head.refresh is not None and head.refresh != own:
            return Skip(page.relpath, SkipReason.REDIRECT, f"to {head.refresh}")
        if config.check_canonical and head.canonical is not None and head.canonical != own:
            if urlsplit(head.canonical).netloc != urlsplit(own).netloc:
                self.warn(f"{display(page.relpath)}: cross-host canonical {head.canonical}; listed anyway")
                return None
            return Skip(page.relpath, SkipReason.CANONICAL, f"to {head.canonical}")
        return None

    def entries(self, on_skip: Callable[[Skip], None]) -> Iterator[Entry]:
        directory: str | None = None
        seen: set[str] = set()
        for page in iter_pages(self.config.docroot, exclude=self.spec, on_skip=on_skip):
            decision = self.decide(page)
            if decision.entry is None:
                assert decision.skip is not None
                on_skip(decision.skip)
                continue
            # Two files can only share a URL within one directory (index.html and
            # index.htm, or a.html and a.htm without extensions), so the set of
            # URLs seen is kept per directory and memory stays flat.
            here = page.relpath.rpartition("/")[0]
            if here != directory:
                directory, seen = here, set()
            if decision.entry.loc in seen:
                on_skip(Skip(page.relpath, SkipReason.DUPLICATE_URL, decision.entry.loc))
                continue
            seen.add(decision.entry.loc)
            if decision.lastmod_source is not None:
                self.sources_used[decision.lastmod_source.value] += 1
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


def build(config: Config, *, on_warning: Warn | None = None) -> BuildResult:
    """Write the sitemaps and index for `config`; the library's entry point.

    Raises `SitemapgenError` for bad input before anything is written. Files
    that cannot be listed are counted in the result and, where the user
    should look at them, reported through `on_warning` (default: logging).
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
        if item.reason.warns:
            detail = f" ({item.detail})" if item.detail else ""
            counted_warn(f"{display(item.relpath)}: skipped, {item.reason.singular}{detail}")

    pipeline = _Pipeline(config, warn=counted_warn, dry_run=False)
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = write_sitemaps(
            pipeline.entries(on_skip),
            out,
            base_url=config.base_url,
            lastmod_format=config.lastmod_format,
            max_urls=config.max_urls_per_sitemap,
            max_bytes=config.max_bytes_per_sitemap,
            max_sitemaps_per_index=config.max_sitemaps_per_index,
            on_skip=on_skip,
        )
    except BaseException:
        pipeline.abort()
        raise
    if not written.sitemaps:
        pipeline.abort()
        if created:
            out.rmdir()
        order = list(SkipReason)
        why = ", ".join(r.counted(n) for r, n in sorted(skipped.items(), key=lambda kv: order.index(kv[0])))
        raise SitemapgenError(
            f"no pages to list under {config.docroot} ({why or 'no .html or .htm files'}); nothing written"
        )
    pipeline.commit()
    listed = sum(s.urls for s in written.sitemaps)
    order = list(SkipReason)
    return BuildResult(
        listed,
        dict(sorted(skipped.items(), key=lambda kv: order.index(kv[0]))),
        written,
        warnings,
        dict(pipeline.sources_used.most_common()),
    )


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
