"""What every lastmod source is (`Source`), and the date reading they share: an mtime as
`date -r` prints it, and a W3C Datetime or HTTP date."""

from __future__ import annotations

import functools
import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Page

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

#: Before this, a lastmod is taken for a clock's or an archive's (mtime 0 or 1, a reset clock),
#: not for a page's: the web is younger.
PLAUSIBLE_SINCE = datetime(1990, 1, 1, tzinfo=UTC)
#: How far past this machine's clock a lastmod may be before it counts as in the future: a date
#: alone, or a local time written without its offset (taken as UTC), runs up to 14 hours ahead.
FUTURE_SLACK = timedelta(days=1)


def implausible(when: datetime, now: datetime) -> str | None:
    """Why a lastmod cannot be true: ``"before 1990"``, ``"in the future"`` (more than
    `FUTURE_SLACK` after `now`), or None when it can."""
    if when < PLAUSIBLE_SINCE:
        return f"before {PLAUSIBLE_SINCE.year}"
    if when > now + FUTURE_SLACK:
        return "in the future"
    return None


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

    def date_document(self, page: Page, warn: Warn) -> datetime | bytes | None:
        """`date` for a document (see `pipeline.documents`): a file with no head, never read as HTML."""
        return self.date(page, None, warn)

    def finish(self, loc: str, key: bytes) -> datetime:
        """The lastmod for a key `date` gave (main process only)."""
        raise NotImplementedError(f"{type(self).__name__} gives no keys")

    def odd_dates(self, future: bool) -> str:
        """Why this source gave lastmods before 1990 (or in the future, `future`), and what to
        do, for the warning that counts them (main process, after the build)."""
        return ""

    def said(self, when: float) -> bool:
        """Whether this source said, as it opened, why lastmod `when` (POSIX time) cannot be true (a
        SOURCE_DATE_EPOCH it dates new content with): its pages are not counted again."""
        return False

    def why_none(self) -> str | None:
        """Why this source dated none of the pages it was asked about, and what to do, for the
        warning that says so (main process, after the build): "" when it cannot tell, None
        when it said so already, as it opened."""
        return ""

    def commit(self) -> None:
        """The build was published: keep what this source learned."""

    def abort(self) -> None:
        """The build failed or was a dry run: forget it."""
