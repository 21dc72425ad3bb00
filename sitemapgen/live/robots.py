"""The live robots.txt, read as RFC 9309 says a crawler reads it: at the host's root, redirects
followed up to five hops (to another host too, as the RFC allows robots.txt alone), at most
500 KiB of it; a 4xx means every URL is allowed, a 5xx or no answer means none is. Its groups
are matched for one crawler (its own group, else ``*``) by protego, as `build` matches the
docroot's, and its ``Sitemap:`` lines are where a crawler finds the sitemaps."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from protego import Protego

from sitemapgen.live.report import Report
from sitemapgen.pipeline.robots import ROBOTS_READ
from sitemapgen.util.fetch import CannotConnect, Client, FetchError

#: RFC 9309, 2.3.1.2: crawlers follow at least five consecutive redirects for robots.txt.
MAX_HOPS = 5
#: Tries of a robots.txt that answers 429 or 503 (the client honours Retry-After).
TRIES = 3


class Access(enum.Enum):
    """What robots.txt lets the crawler read."""

    RULES = "its rules"
    EVERYTHING = "everything (no robots.txt)"
    NOTHING = "nothing (robots.txt unreachable)"


@dataclass
class LiveRobots:
    """The robots.txt a crawler read: what it allows, and its ``Sitemap:`` lines."""

    url: str
    access: Access
    parser: Protego | None = None
    sitemaps: list[str] = field(default_factory=list)

    def allows(self, url: str, crawler: str) -> bool:
        if self.access is Access.NOTHING:
            return False
        return self.parser is None or bool(self.parser.can_fetch(url, crawler))


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def read_robots(client: Client, origin: str, report: Report) -> LiveRobots:
    """The robots.txt at `origin` (``https://host``), as a crawler reads it; what is wrong with it
    goes to `report`. A first request that cannot connect at all is raised (`CannotConnect`):
    then nothing of the site can be read; one that connects but is not answered in time, or
    whose connection is lost, is robots.txt unreachable, as a 5xx is."""
    url = robots_url = f"{origin}/robots.txt"
    for _hop in range(MAX_HOPS + 1):
        try:
            answer = client.request(url, limit=ROBOTS_READ, enough=_never, tries=TRIES)
        except CannotConnect:
            if url == robots_url:  # the first request: nothing of the site can be read
                raise
            return _unreachable(robots_url, report, f"redirects to {url}, which cannot be reached")
        except FetchError as e:
            why = str(e).removeprefix(f"{url}: ")
            return _unreachable(robots_url, report, why if url == robots_url else f"redirects to {url}: {why}")
        location = answer.headers.get("Location")
        if 300 <= answer.status < 400 and location:
            target = urljoin(url, location)
            if urlsplit(target).scheme not in ("http", "https"):
                report.note(robots_url, "robots-missing", f"redirects to {target}, not a web page: every URL allowed")
                return LiveRobots(robots_url, Access.EVERYTHING)
            url = target
            continue
        if answer.status >= 500 or answer.status == 429:
            where = "" if url == robots_url else f"redirects to {url}, which "
            return _unreachable(robots_url, report, f"{where}answers HTTP {answer.status}")
        if answer.status != 200:
            if answer.status != 404:  # a missing robots.txt is common and harmless: said only otherwise
                report.note(robots_url, "robots-missing", f"answered HTTP {answer.status}: every URL is allowed")
            return LiveRobots(robots_url, Access.EVERYTHING)
        parser = Protego.parse(answer.body.decode("utf-8", "replace"))
        return LiveRobots(robots_url, Access.RULES, parser, [line.strip() for line in parser.sitemaps])
    report.note(robots_url, "robots-missing", f"more than {MAX_HOPS} redirects: taken as missing, every URL allowed")
    return LiveRobots(robots_url, Access.EVERYTHING)


def _never(data: bytes) -> int | None:
    """robots.txt is read to its end, or cut at the cap (what the RFC asks a crawler to read)."""
    return None


def _unreachable(url: str, report: Report, why: str) -> LiveRobots:
    report.problem(
        url,
        "robots-unreachable",
        f"{why}: a crawler takes the whole site as disallowed and reads nothing more (RFC 9309, 2.3.1.4)",
    )
    return LiveRobots(url, Access.NOTHING)
