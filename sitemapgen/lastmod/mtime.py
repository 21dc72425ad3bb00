"""Lastmod source 'mtime': the file's modification time, the protocol FAQ's own answer."""

from __future__ import annotations

from datetime import datetime

from sitemapgen._types import Warn
from sitemapgen.lastmod.base import Source, mtime_lastmod
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Page


class MtimeLastmod(Source):
    """The file's mtime in UTC, truncated to the second, as `date -r` prints it."""

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | None:
        return mtime_lastmod(page.mtime_ns)
