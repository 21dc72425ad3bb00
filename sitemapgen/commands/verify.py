"""Read a live site as a search engine's crawler does, and report what it would report.

`verify` conducts; the crawler's steps are `live`'s: robots.txt first (RFC 9309), then the
sitemaps its ``Sitemap:`` lines name (or the one given), each checked by `validate` as a file on
disk would be, then every listed page (a sample past `SAMPLE`), its cluster of alternates, and
with `against` the deployed files against the build's. What it finds is data (`live.report`):
the caller decides how to show it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from sitemapgen.config.declare import Flag, declare
from sitemapgen.errors import ConfigError, EnvironmentFailure
from sitemapgen.live.report import NOTES, PROBLEMS, Report

if TYPE_CHECKING:  # HTTP and robots.txt load with the command, not with this module (the CLI's start)
    from concurrent.futures import Future

    from sitemapgen.live.pages import Checked
    from sitemapgen.live.robots import LiveRobots
    from sitemapgen.live.sitemaps import Listed, Sitemaps
    from sitemapgen.util.fetch import Client

#: Pages checked unless told otherwise: all of them up to this many, else a sample this size.
SAMPLE = 10_000
CONCURRENCY = 4
TIMEOUT = 30.0
CRAWLER = "Googlebot"
_SITEMAP_SUFFIXES = (".xml", ".xml.gz", ".txt")


@dataclass(frozen=True, slots=True)
class Crawl:
    """How to read the site: which pages (`sample` of them, or `all_pages`), how many requests
    at once, how long each may take, whose robots.txt group and noindex count, and the build
    to compare with. Each is declared with its flag (`config.declare`), as a build's settings are."""

    sample: int = field(
        default=SAMPLE,
        metadata=declare(
            "Check every listed page up to N, past that a sample of N (the same for the same sitemaps)."
            f" [default: {SAMPLE}]",
            flag=Flag("--sample", int, "N"),
        ),
    )
    all_pages: bool = field(
        default=False,
        metadata=declare("Check every listed page, however many (wins over --sample).", flag=Flag("--all", "switch")),
    )
    concurrency: int = field(
        default=CONCURRENCY,
        metadata=declare(f"Requests in flight at most. [default: {CONCURRENCY}]", flag=Flag("--concurrency", int, "N")),
    )
    timeout: float = field(
        default=TIMEOUT,
        metadata=declare(
            f"The longest one request may take, connect to last byte. [default: {TIMEOUT:g}]",
            flag=Flag("--timeout", float, "SECONDS"),
        ),
    )
    crawler: str = field(
        default=CRAWLER,
        metadata=declare(
            f"Whose robots.txt group and X-Robots-Tag count (else *'s). [default: {CRAWLER}]",
            flag=Flag("--crawler", str, "NAME"),
        ),
    )
    against: Path | None = field(
        default=None,
        metadata=declare(
            "The build that was deployed (its output directory): the host must serve its files byte for byte.",
            flag=Flag("--against", Path, "DIR"),
        ),
    )

    def checked(self) -> Crawl:
        """These settings, or a `ConfigError` naming the one that cannot be used."""
        if self.sample < 1:
            raise ConfigError("sample", f"must be 1 or more, got {self.sample}")
        if not 1 <= self.concurrency <= 64:
            raise ConfigError("concurrency", f"must be 1 to 64, got {self.concurrency}")
        if not 0 < self.timeout <= 3600:
            raise ConfigError("timeout", f"must be more than 0 and at most 3600 seconds, got {self.timeout:g}")
        if not self.crawler.strip() or any(ch in self.crawler for ch in ":/ \t\r\n"):
            raise ConfigError("crawler", f"must be a user-agent token such as Googlebot, got {self.crawler!r}")
        return self


def verify(url: str, crawl: Crawl = Crawl(), *, on_progress: Callable[[int, int], None] | None = None) -> Report:
    """What a crawler finds reading the site at `url` (a site's root, or a sitemap or index:
    a path ending in .xml, .xml.gz or .txt). Bad input is a `ConfigError` (``url``, or a
    setting of `crawl`) or, for `against`, a `SitemapgenError`, raised before any request; a
    site of which nothing at all can be read (its first request cannot connect: refused, no such
    host, TLS failed) an `EnvironmentFailure`.
    `on_progress` hears (pages checked, pages to check) as the pages are read."""
    from sitemapgen.live.against import Deployed, compare
    from sitemapgen.live.robots import origin_of, read_robots
    from sitemapgen.live.sitemaps import Sitemaps
    from sitemapgen.util.fetch import CannotConnect, Client

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError("url", f"must be an http:// or https:// URL, got {url!r}")
    crawl = crawl.checked()
    _one_heap()
    deployed = Deployed(crawl.against) if crawl.against is not None else None
    report = Report()
    origin = origin_of(url)
    with Client(connections=crawl.concurrency, timeout=crawl.timeout) as client:
        try:
            robots = read_robots(client, origin, report)
        except CannotConnect as e:
            raise EnvironmentFailure(f"{e}: nothing of the site could be read") from None
        with tempfile.TemporaryDirectory(prefix="sitemapgen-verify-") as work:
            sitemaps = Sitemaps(client, report, Path(work), crawl.concurrency)
            _read_sitemaps(sitemaps, url, robots, report)
            _give_back()
            _validated(sitemaps, report)
            _pages(client, sitemaps, robots, crawl, report, on_progress=on_progress)
            if deployed is not None:
                compare(client, deployed, sitemaps.copies, report)
    order = {kind: n for n, kind in enumerate((*PROBLEMS, *NOTES))}
    report.problems.sort(key=lambda f: (order[f.kind], f.url, f.message))
    report.notes.sort(key=lambda f: (order[f.kind], f.url, f.message))
    return report


def _read_sitemaps(sitemaps: Sitemaps, url: str, robots: LiveRobots, report: Report) -> None:
    """The sitemap named, or those robots.txt names on this host, or sitemap.xml under `url`."""
    from sitemapgen.live.robots import Access, origin_of

    origin = origin_of(url)
    listed = [line for line in robots.sitemaps if origin_of(line) == origin]
    for line in robots.sitemaps:
        if origin_of(line) != origin:
            report.note(line, "robots-sitemap-elsewhere", "robots.txt names it, on another host: not read")
    if urlsplit(url).path.endswith(_SITEMAP_SUFFIXES):
        if url not in robots.sitemaps and robots.access is not Access.NOTHING:
            _no_line(report, robots, url)
        sitemaps.read(url)
        return
    if listed:
        for line in listed:
            sitemaps.read(line)
        return
    guess = urljoin(url if url.endswith("/") else url + "/", "sitemap.xml")
    report.note(guess, "sitemap-guessed", "robots.txt names no sitemap on this host: this URL was tried")
    root = sitemaps.read(guess)
    if root.path is None and report.problems and report.problems[-1].kind == "sitemap-not-found":
        report.problems.pop()
        report.problem(guess, "no-sitemap", "robots.txt has no Sitemap: line, and there is no sitemap.xml here")
    elif robots.access is not Access.NOTHING:
        _no_line(report, robots, guess)


def _one_heap() -> None:
    """Have every thread allocate from one heap (glibc's arenas: one a thread by default), so
    that what the fetching threads free is `_give_back`'s to hand back and theirs to reuse: the
    peak is lower and steadier (docs/performance.md, verify). Set before the first thread
    allocates; nothing where the C library has no ``mallopt``."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_ARENA_MAX, 1)


#: glibc's mallopt() parameter for the most heaps (arenas) threads may allocate from.
_M_ARENA_MAX = -8


def _give_back() -> None:
    """Hand back to the system the memory the sitemaps' parse trees freed, before the pages are
    read: glibc keeps what lxml freed for itself, and the pages' threads would not reuse it
    (how much: docs/performance.md, verify). Nothing where the C library has no
    ``malloc_trim``."""
    import ctypes
    import gc

    gc.collect()
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def _no_line(report: Report, robots: LiveRobots, url: str) -> None:
    """robots.txt names no sitemap at `url`: the note gives the line to add."""
    report.note(robots.url, "robots-no-sitemap-line", f"names no sitemap at {url}: add the line 'Sitemap: {url}'")


def _validated(sitemaps: Sitemaps, report: Report) -> None:
    """`validate` over the copies of each root, its problems said of the URLs they concern."""
    from sitemapgen.commands.validate import validate
    from sitemapgen.deploy.source import directory

    work = str(sitemaps.work)
    for root in sitemaps.roots:
        if root.path is None or any(url == root.url and form == "text" for url, _, form in sitemaps.urlsets):
            continue
        found = validate([root.path], base_url=directory(root.url))
        for problem in found.problems:
            if work in problem.message:  # a file that could not be fetched: said when it was not
                continue
            where = sitemaps.urls.get(problem.path, root.url)
            line = f"line {problem.line}: " if problem.line else ""
            off = "location rule" in problem.message or "a sitemap lists one host" in problem.message
            report.problem(where, "off-site" if off else "sitemap-invalid", f"{line}{problem.message}")
        for note in found.notes:
            report.note(sitemaps.urls.get(note.path, root.url), "sitemap-note", note.message)


def _pages(
    client: Client,
    sitemaps: Sitemaps,
    robots: LiveRobots,
    crawl: Crawl,
    report: Report,
    *,
    on_progress: Callable[[int, int], None] | None,
) -> None:
    """Each listed page (or the sample), then each page's cluster of alternates."""
    from sitemapgen.hrefs import normalize_url
    from sitemapgen.live.pages import Answers, PageChecker, Seen, cluster_problems, elsewhere
    from sitemapgen.live.robots import Access, origin_of
    from sitemapgen.live.sitemaps import Listed, Listing, sample

    site = origin_of(robots.url) + "/"
    with Listing(sitemaps.listed()) as listing:
        _give_back()  # the sitemaps' bytes and trees, parsed for the last time
        total = report.listed = listing.count
        if robots.access is Access.NOTHING:
            if total:
                report.note(
                    robots.url, "not-crawled", f"{total:,} listed pages not read: a crawler stops at robots.txt"
                )
            return
        items: Iterable[Listed] = listing
        if not crawl.all_pages:
            items = sample(iter(listing), crawl.sample)[0]
            if total > crawl.sample:
                report.note(site, "sampled", f"{total:,} URLs are listed; a sample of {crawl.sample:,} was checked")
        checker = PageChecker(client, robots, crawl.crawler)
        answers = Answers()
        done = 0
        for item, checked in _crawl(checker.check, items, crawl.concurrency, client.abort):
            _take(report, checked)
            answers.add(normalize_url(item.url), checked.seen)
            report.checked += checked.fetched
            done += 1
            if on_progress is not None:
                on_progress(done, total if crawl.all_pages else min(total, crawl.sample))

    def alternates(urls: list[str]) -> dict[str, Seen]:
        more: dict[str, Seen] = {}
        unlisted = (Listed(u, None, -1) for u in urls)
        for item, checked in _crawl(checker.check, unlisted, crawl.concurrency, client.abort):
            more[item.url] = checked.seen
            report.checked += checked.fetched
        return more

    for finding in cluster_problems(answers, alternates, origin_of(robots.url)):
        report.problem(finding.url, finding.kind, finding.message)
    others = elsewhere(answers, origin_of(robots.url))
    if others:
        report.note(site, "hreflang-elsewhere", f"{others:,} hreflang links name other hosts: not checked")


def _take(report: Report, checked: Checked) -> None:
    report.problems.extend(checked.problems)
    report.notes.extend(checked.notes)


def _crawl(
    check: Callable[[Listed], Checked], items: Iterable[Listed], concurrency: int, abort: Callable[[], None]
) -> Iterator[tuple[Listed, Checked]]:
    """`check` of each item, `concurrency` at a time, as they finish; never more than a few
    items ahead of the answers, however many there are. Stopped early (Ctrl-C, SIGTERM), it
    `abort`s the requests in flight rather than wait for them."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="sitemapgen-verify")
    pending: dict[Future[Checked], Listed] = {}
    try:
        for item in items:
            pending[pool.submit(check, item)] = item
            if len(pending) >= concurrency * 4:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield pending.pop(future), future.result()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield pending.pop(future), future.result()
    except BaseException:  # Ctrl-C, SIGTERM, or the caller stopped: no request left to run its course
        abort()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
