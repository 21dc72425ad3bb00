"""The docroot's robots.txt ``Disallow`` rules, as a per-path rule: what Googlebot may not
crawl is not listed (its ``Sitemap:`` lines are `output.robots`)."""

from __future__ import annotations

import re
from pathlib import Path

from protego import Protego

from sitemapgen.config.settings import Config
from sitemapgen.errors import ConfigError
from sitemapgen.hrefs import normalize_url
from sitemapgen.protocol import ROBOTS_FILE
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.urls import at_host_root, page_url
from sitemapgen.util.safeio import NotRegularFile, read_regular

#: What Google reads of a robots.txt (RFC 9309 asks crawlers to read at least 500 KiB).
ROBOTS_READ = 512 * 1024
#: Whose rules decide: Googlebot's group, else the ``*`` group (RFC 9309 group matching).
ROBOTS_AGENT = "Googlebot"
#: Whose rules decide for an image: Googlebot-Image's group, else Googlebot's, else ``*``.
IMAGE_AGENT = "Googlebot-Image"


class RobotsDisallow:
    """A per-path rule (see `pathrules`): a page the docroot's robots.txt disallows for
    Googlebot is left out. A search engine cannot crawl it, so listing it only earns a
    "Submitted URL blocked by robots.txt" error.

    Matching is RFC 9309's, by protego (longest match wins, ``Allow`` beats an equal
    ``Disallow``, ``*`` and ``$``), on the URL the page is listed under. Directories are
    never pruned: an ``Allow`` deeper down may reopen one. The robots.txt counts only
    when the base URL is the host's root, where crawlers read it; a missing one allows
    everything, and one that cannot be read is an error, as a ``.sitemapignore`` is: its
    rules are not guessed at.
    """

    def __init__(self, config: Config) -> None:
        self.parser: Protego | None = None
        self.base_url = config.base_url
        self.origin = normalize_url(config.base_url)  # the host's root, when the rules count
        self.style = config.url_style
        if not at_host_root(config.base_url):
            return
        path = Path(config.docroot) / ROBOTS_FILE
        try:
            data = read_regular(path, limit=ROBOTS_READ)
        except (FileNotFoundError, NotRegularFile):
            return  # a FIFO or a device is nothing a server serves: no rules (see `update_robots_txt`)
        except OSError as e:
            raise ConfigError("", f"cannot read: {e.strerror or e}", source=str(path)) from e
        text = data.decode("utf-8", "replace")
        if re.search(r"(?im)^[ \t]*disallow[ \t]*:[ \t]*\S", text):  # else nothing is disallowed
            self.parser = Protego.parse(text)

    @property
    def by_name(self) -> bool:
        return self.parser is None

    def check(self, relpath: str) -> Skip | None:
        if self.parser is None:
            return None
        url = page_url(self.base_url, relpath, self.style)
        if self.parser.can_fetch(url, ROBOTS_AGENT):
            return None
        return Skip(relpath, SkipReason.ROBOTS_DISALLOWED, f"for {ROBOTS_AGENT}")

    def check_dir(self, relpath: str) -> Skip | None:
        return None

    def allows_image(self, url: str) -> bool:
        """Whether Google's image crawler may fetch `url` (absolute, normalized): always for
        a URL of another origin (a CDN), whose own robots.txt decides, unread here."""
        if self.parser is None or not url.startswith(self.origin):
            return True
        return bool(self.parser.can_fetch(url, IMAGE_AGENT))
