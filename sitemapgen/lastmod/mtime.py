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

    def odd_dates(self, future: bool) -> str:
        if future:
            why = "their files were written on a machine whose clock was ahead (or touched with a later date)"
        else:
            why = "their files' mtimes were reset (a Nix store sets 1 second past 1970, some archives 0)"
        return f"{why}; date them by their history instead: --lastmod git,mtime in a git checkout, or --lastmod content"
