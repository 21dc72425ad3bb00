"""A listed page's images (config `images`): found in its body (`pages.images`), less what
the site's robots.txt keeps Google's image crawler from, at most 1,000, and no more than its
``<url>`` element has room for in a sitemap of the configured size."""

from __future__ import annotations

import dataclasses

from sitemapgen._types import Warn
from sitemapgen.config.settings import Config
from sitemapgen.entry import URL_OPEN_WITH_IMAGES, Entry, entry_room, escape_xml, format_entry
from sitemapgen.pages.images import read_page_images
from sitemapgen.pages.walk import Page
from sitemapgen.pipeline.robots import RobotsDisallow
from sitemapgen.protocol import MAX_IMAGES_PER_URL
from sitemapgen.skips import display

#: The room an entry's lastmod may still need when it is dated later (a 'content' lastmod).
_LASTMOD_ROOM = len("<lastmod>2004-10-26T08:56:39+00:00</lastmod>")


class PageImages:
    """Per-build state (the robots.txt rules, the room of a ``<url>``) and each page's images."""

    def __init__(self, config: Config) -> None:
        self.robots = RobotsDisallow(config)
        self.room = entry_room(config.limits.max_bytes)
        self.config = config

    def of(self, page: Page, page_url: str, fd: int | None, warn: Warn) -> tuple[str, ...]:
        """The images to list for `page`, served at `page_url` (normalized); `fd` the page, open, or None."""
        shown = display(page.relpath)
        try:
            found, problem = read_page_images(page.path, page_url, fd=fd)
        except OSError as e:
            warn(f"{shown}: cannot read its images ({e.strerror or e}); listed without them")
            return ()
        if problem is not None:
            warn(f"{shown}: {problem}")
        allowed = [url for url in found if self.robots.allows_image(url)]
        if len(allowed) > MAX_IMAGES_PER_URL:
            warn(
                f"{shown}: shows {len(allowed):,} images; listed the first {MAX_IMAGES_PER_URL:,},"
                " the most one <url> may list"
            )
            del allowed[MAX_IMAGES_PER_URL:]
        return tuple(allowed)

    def fitted(self, relpath: str, entry: Entry, warn: Warn) -> Entry:
        """`entry`, less the images at its end that would make its ``<url>`` too large for a
        sitemap of `max_bytes_per_sitemap` (the page itself matters more than its images)."""
        size = len(format_entry(entry, self.config.lastmod_format))
        over = size + (_LASTMOD_ROOM if entry.lastmod is None else 0) - self.room
        if over <= 0:
            return entry
        kept = len(entry.images)
        while kept and over > 0:
            kept -= 1
            over -= len(f"<image:image><image:loc>{escape_xml(entry.images[kept])}</image:loc></image:image>".encode())
        if over - (len(URL_OPEN_WITH_IMAGES) - len("<url><loc>")) > 0:
            return dataclasses.replace(entry, images=())  # too large without them: left out for its size
        warn(
            f"{display(relpath)}: listed {kept:,} of its {len(entry.images):,} images: a <url> with more"
            f" would not fit in a sitemap of max_bytes_per_sitemap ({self.config.max_bytes_per_sitemap:,} bytes)"
        )
        return dataclasses.replace(entry, images=entry.images[:kept])
