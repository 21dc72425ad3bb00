"""Lastmod source 'meta': the date the page's own head gives, or its generator's metadata (a plugin's)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.lastmod.base import Source, parse_datetime
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Page
from sitemapgen.skips import display

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config
    from sitemapgen.deploy.previous import Previous


class MetaLastmod(Source):
    """The date the generator's own metadata gives, where its plugin passes it (`SiteFacts.dates`:
    Pelican's ``modified``, else ``date``), else the head's modified-time meta
    (``article:modified_time`` and its kin)."""

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.given = config.site_facts.dates if config.site_facts else {}

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | None:
        given = self.given.get(page.relpath)
        if given is not None:
            return given
        if head is None or head.modified is None:
            return None
        value = parse_datetime(head.modified)
        if value is None:
            warn(f"{display(page.relpath)}: unreadable modified-time meta {head.modified!r}")
        return value

    def odd_dates(self, future: bool) -> str:
        return (
            "their heads' modified-time meta says so: correct the date where the generator takes it from"
            " (the pages' front matter), or take 'meta' out of lastmod"
        )

    def why_none(self) -> str:
        return (
            "no page's head gives a readable modified time (article:modified_time, last-modified or"
            " itemprop dateModified meta); take 'meta' out of lastmod if the generator writes none"
        )
