"""Where a page's ``<lastmod>`` comes from: a chain of sources, first answer wins.

mtime is the protocol FAQ's own answer, but a CI checkout or a full rebuild
gives every file a new mtime, and crawlers learn to ignore a lastmod that
always changes. So the user can put truer sources before it: the page's own
meta tags, the last git commit that touched the page (or its source), or a
content hash remembered across builds.

The sources are one table, `SOURCES`: a `LastmodSource` name and a `Source`
class. Adding a source is a new enum member, its class, and its entry; the
config, the CLI help and the chain take it from there (a test checks that the
enum and the table name the same sources).
"""

from __future__ import annotations

import functools
import os
import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.config.words import LastmodSource
from sitemapgen.lastmod.git import GitDates, read_git_dates
from sitemapgen.lastmod.store import ContentStore, build_time, content_digest
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Page
from sitemapgen.skips import display

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config
    from sitemapgen.deploy.previous import Previous


_W3C = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$",
    re.IGNORECASE,
)


def mtime_lastmod(mtime_ns: int) -> datetime | None:
    """The mtime in UTC, truncated to the second as `date -r` does."""
    return _utc_second(mtime_ns // 1_000_000_000)


@functools.lru_cache(maxsize=4096)
def _utc_second(seconds: int) -> datetime | None:
    # A build writes its pages within a few seconds: most share a handful of mtimes.
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


_MAX_OFFSET = timedelta(hours=14)


def parse_datetime(text: str) -> datetime | None:
    """A W3C Datetime / ISO 8601 or HTTP date, as an aware datetime; None if unreadable.

    A date alone is midnight UTC; a time without an offset is taken as UTC,
    since a sitemap's lastmod must carry one.
    """
    text = text.strip()
    match = _W3C.match(text)
    try:
        if match:
            year, month, day, hour, minute, second, offset = match.groups()
            if hour is None:
                return datetime.combine(date(int(year), int(month), int(day)), time(), tzinfo=UTC)
            tz: tzinfo = UTC
            if offset and offset.upper() != "Z":
                tz = datetime.strptime(offset.replace(":", ""), "%z").tzinfo or UTC
                if abs(tz.utcoffset(None) or timedelta()) > _MAX_OFFSET:
                    return None  # W3C Datetime (and xsd:dateTime) allow at most +/-14:00
            return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), tzinfo=tz)
        parsed = parsedate_to_datetime(text)
    except (ValueError, TypeError, IndexError):
        return None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed if abs(parsed.utcoffset() or timedelta()) <= _MAX_OFFSET else None


class Source:
    """One lastmod source, opened once per build (in the main process, before workers fork).

    `date` runs for each page, in a worker: a datetime is the answer, None
    passes to the next source, and bytes are a key the main process turns into
    a date with `finish` (the content store lives there, in one transaction).
    """

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        """Open what the source needs; `warn` is for build-wide warnings, said once.

        `previous` is the previous deploy, when the build was given one.
        """

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | bytes | None:
        """The page's lastmod, None for "ask the next source", or a key for `finish`."""
        raise NotImplementedError

    def finish(self, loc: str, key: bytes) -> datetime:
        """The lastmod for a key `date` gave (main process only)."""
        raise NotImplementedError(f"{type(self).__name__} gives no keys")

    def commit(self) -> None:
        """The build was published: keep what this source learned."""

    def abort(self) -> None:
        """The build failed or was a dry run: forget it."""


class MtimeLastmod(Source):
    """The file's mtime in UTC, truncated to the second, as `date -r` prints it."""

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | None:
        return mtime_lastmod(page.mtime_ns)


class MetaLastmod(Source):
    """The head's modified-time meta (``article:modified_time`` and its kin)."""

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | None:
        if head is None or head.modified is None:
            return None
        value = parse_datetime(head.modified)
        if value is None:
            warn(f"{display(page.relpath)}: unreadable modified-time meta {head.modified!r}")
        return value


class GitLastmod(Source):
    """The last commit that touched the page, or the source file `[[git_sources]]` maps it to."""

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.git: GitDates | None = read_git_dates(config.docroot, config.git_date)
        self.prefix = ""
        self.rewrites = [(re.compile(g.match), g.sources) for g in config.git_sources]
        if self.git is None:
            warn(f"lastmod 'git': {config.docroot} is not in a git work tree; using the next source")
            return
        prefix = os.path.relpath(os.path.realpath(config.docroot), os.path.realpath(self.git.root))
        self.prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
        if self.git.shallow:
            warn(
                "lastmod 'git': this is a shallow clone; files last changed before its oldest commit"
                f" ({len(self.git.shallow_paths):,} paths) get the next source's lastmod, not a made-up date."
                " Fetch the full history (e.g. actions/checkout with fetch-depth: 0)"
            )

    def paths_of(self, relpath: str) -> list[str]:
        """The paths in the repository whose history may date the page at `relpath`, in
        order: the first rule that matches gives its candidates; no rule, the page's own."""
        for pattern, sources in self.rewrites:
            if pattern.search(relpath):
                return [pattern.sub(source, relpath, count=1) for source in sources]
        return [self.prefix + relpath]

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | None:
        """The date of the first candidate git knows; None (the next source) when git knows
        none, or the first it knows was last changed before a shallow clone's history."""
        git = self.git
        if git is None:
            return None
        for path in self.paths_of(page.relpath):
            when = git.dates.get(path)
            if when is not None:
                return when
            if path in git.shallow_paths:
                return None
        return None


class ContentLastmod(Source):
    """When the page's content (less `content_ignore`, within `content_select`) was first seen.

    Remembered by the previous deploy's manifest, when the build was given one
    that has it (a fresh CI checkout has nothing else), else by the local
    content store. With a previous deploy and no local store, none is started.
    """

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.ignore = [re.compile(p.encode("utf-8")) for p in config.content_ignore]
        self.select = config.content_select
        self.build_time = build_time()
        self.previous = previous if previous is not None and previous.has_manifest else None
        no_store = previous is not None and not config.state_path.exists()
        self.store = (
            None
            if no_store
            else ContentStore(config.state_path, build_time=self.build_time, on_warning=warn, readonly=dry_run)
        )

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> bytes | None:
        try:
            return content_digest(page.path, self.ignore, self.select)
        except OSError as e:
            warn(f"{display(page.relpath)}: cannot read for lastmod 'content': {e.strerror or e}")
            return None

    def finish(self, loc: str, key: bytes) -> datetime:
        stored = self.store.lastmod(loc, key) if self.store is not None else self.build_time
        if self.previous is None:
            return stored
        kept = self.previous.kept_lastmod(loc, key)  # the live site is the truth: new there is new
        return kept if kept is not None else self.build_time

    def commit(self) -> None:
        if self.store is not None:
            self.store.commit()

    def abort(self) -> None:
        if self.store is not None:
            self.store.abort()


#: Every lastmod source, by the name a chain uses.
SOURCES: dict[LastmodSource, type[Source]] = {
    LastmodSource.MTIME: MtimeLastmod,
    LastmodSource.GIT: GitLastmod,
    LastmodSource.META: MetaLastmod,
    LastmodSource.CONTENT: ContentLastmod,
}


class LastmodChain:
    """The configured sources, in order: the first with an answer dates the page."""

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.sources = [(name, SOURCES[name](config, warn, dry_run, previous)) for name in config.lastmod]
        if previous is not None and not {LastmodSource.CONTENT, LastmodSource.GIT} & set(config.lastmod):
            chain = ",".join(source.value for source in config.lastmod)
            warn(
                f"--previous: lastmod {chain!r} does not name 'content', so no lastmod carries over from the"
                " previous deploy (a fresh checkout's mtimes are the checkout's): add it, e.g. --lastmod content"
            )

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> tuple[datetime | bytes | None, str | None]:
        """The first answer and the name of its source (a str: it crosses from workers)."""
        for name, source in self.sources:
            value = source.date(page, head, warn)
            if value is not None:
                return value, name._value_  # .value without the descriptor call: this runs per page
        return None, None

    def finish(self, source: str, loc: str, key: bytes) -> datetime:
        """The date for a key that source `source` gave (main process only)."""
        for name, instance in self.sources:
            if name.value == source:
                return instance.finish(loc, key)
        raise KeyError(source)

    def commit(self) -> None:
        for _, source in self.sources:
            source.commit()

    def abort(self) -> None:
        for _, source in self.sources:
            source.abort()
