"""Each listed page, fetched as a crawler fetches it, and judged as `build` judges a file.

One GET a page, no redirect followed, read to the end of its head and no further (at most the
head bytes `build` reads). The head is read by `build`'s own reader (`pages.head.facts_of_head`),
so a live page and its file are judged by one decision path: noindex, a canonical that names
another URL, a meta refresh. The answer's ``X-Robots-Tag`` is read for the crawler (its own
``googlebot: noindex`` counts, another crawler's does not), as the static hosts' rules are.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urljoin

from sitemapgen.config.words import DEFAULT_MAX_BYTES
from sitemapgen.hosts.base import says_noindex
from sitemapgen.hrefs import normalize_url
from sitemapgen.lastmod.base import parse_datetime
from sitemapgen.live.report import Finding
from sitemapgen.live.robots import LiveRobots, origin_of
from sitemapgen.live.sitemaps import Listed
from sitemapgen.pages.head import facts_of_head, head_end
from sitemapgen.util.fetch import Answer, Client, FetchError

#: Tries of a page that answers 429 or 503 (the client honours Retry-After).
TRIES = 3
#: How far a lastmod may run ahead of the page's Last-Modified before it is worth a note.
SLACK = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Seen:
    """What a page answered, for its cluster's check: `why` it cannot be an alternate (None when
    it answered 200 and may be indexed), the alternates its head names, normalized."""

    why: str | None
    alternates: tuple[tuple[str, str], ...] = ()


#: What most pages answer: 200, indexable, no alternates (one object for all, kept per page).
_INDEXABLE = Seen(None)


@dataclass(frozen=True, slots=True)
class Checked:
    """One page's findings (problems, notes), what it answered, and whether it was fetched (a
    page robots.txt disallows is not)."""

    problems: tuple[Finding, ...]
    notes: tuple[Finding, ...]
    seen: Seen
    fetched: bool = True


class PageChecker:
    """Checks one page at a time, from any thread (what it keeps, the canonicals asked, is locked)."""

    def __init__(self, client: Client, robots: LiveRobots, crawler: str) -> None:
        self.client = client
        self.robots = robots
        self.crawler = crawler
        self.agents = frozenset({crawler.lower()})
        self.lock = threading.Lock()
        self.canonicals: dict[str, str] = {}  # each canonical target asked: its status, or why none

    def check(self, item: Listed) -> Checked:
        url = item.url
        if not self.robots.allows(url, self.crawler):
            why = f"robots.txt disallows it for {self.crawler}: a crawler never reads it"
            return Checked((Finding(url, "page-blocked", why),), (), Seen("robots.txt disallows it"), fetched=False)
        reading = _HeadReading()
        try:
            answer = self.client.request(url, limit=DEFAULT_MAX_BYTES, enough=reading.enough, tries=TRIES)
        except FetchError as e:
            failure = str(e).removeprefix(f"{url}: ")
            return Checked((Finding(url, "page-unreachable", failure),), (), Seen(failure))
        problem = _status_problem(url, answer)
        if problem is not None:
            return Checked((problem,), (), Seen(problem.message))
        problems: list[Finding] = []
        for value in answer.all("X-Robots-Tag"):
            if says_noindex(value, self.agents):
                problems.append(Finding(url, "page-noindex", f"answers with X-Robots-Tag: {value}"))
        notes = _lastmod_note(url, item.lastmod, answer.headers.get("Last-Modified"))
        alternates: tuple[tuple[str, str], ...] = ()
        if _is_html(answer.headers.get("Content-Type", "")):
            facts = facts_of_head(
                answer.body, url, DEFAULT_MAX_BYTES, complete=answer.complete or reading.ended, ended=reading.ended
            )
            own = normalize_url(url)
            if facts.noindex:
                problems.append(Finding(url, "page-noindex", "its head says noindex (a robots or googlebot meta tag)"))
            if facts.refresh is not None and facts.refresh != own:
                problems.append(Finding(url, "page-refresh", f"its head redirects to {facts.refresh} (meta refresh)"))
            if facts.canonical is not None and facts.canonical != own:
                problems.extend(self._canonical(url, facts.canonical))
            alternates = tuple((sys.intern(a.hreflang), sys.intern(a.href)) for a in facts.alternates)
        if not problems and not alternates:
            return Checked((), notes, _INDEXABLE)
        return Checked(tuple(problems), notes, Seen(problems[0].message if problems else None, alternates))

    def _canonical(self, url: str, canonical: str) -> tuple[Finding, ...]:
        """A canonical naming another URL is a problem where that URL answers 200, as `build`
        judges it on disk; one that answers no page is ignored by search engines (the page is
        indexed at its own URL), so it is not one. Each target is asked once a run."""
        if origin_of(canonical) != origin_of(url):
            return (Finding(url, "page-canonical", f"names {canonical}, on another host, as its canonical URL"),)
        with self.lock:
            status = self.canonicals.get(canonical)
        if status is None:
            try:
                status = str(self.client.request(canonical, limit=1, enough=_at_once, tries=TRIES).status)
            except FetchError as e:
                status = str(e).removeprefix(f"{canonical}: ")
            with self.lock:
                self.canonicals[canonical] = status
        if status == "200":
            return (Finding(url, "page-canonical", f"names {canonical} as its canonical URL"),)
        return ()


def _at_once(data: bytes) -> int:
    """`Client.request`'s `enough` when only the status counts: no byte of the body is kept."""
    return 0


class _HeadReading:
    """`Client.request`'s `enough` for a page: the body up to its head's end, found as it comes."""

    def __init__(self) -> None:
        self.ended = False
        self.looked = 0

    def enough(self, data: bytes) -> int | None:
        end = head_end(data, self.looked)
        self.looked = len(data)
        if end is not None:
            self.ended = True
        return end


def _status_problem(url: str, answer: Answer) -> Finding | None:
    status = answer.status
    if status == 200:
        return None
    if 300 <= status < 400:
        target = urljoin(url, answer.headers.get("Location", ""))
        return Finding(url, "page-redirect", f"answers HTTP {status}, a redirect to {target}: list that URL instead")
    if status in (404, 410):
        return Finding(url, "page-not-found", f"answers HTTP {status}")
    if status >= 500 or status == 429:
        return Finding(url, "page-unreachable", f"answers HTTP {status}")
    return Finding(url, "page-status", f"answers HTTP {status}")


def _is_html(content_type: str) -> bool:
    """Whether a page's head is worth reading: HTML, or a server that does not say."""
    kind = content_type.partition(";")[0].strip().lower()
    return not kind or "html" in kind


def _lastmod_note(url: str, lastmod: str | None, served: str | None) -> tuple[Finding, ...]:
    if not lastmod or not served:
        return ()
    when, modified = parse_datetime(lastmod), parse_datetime(served)  # W3C Datetime; HTTP date
    if when is None or modified is None or when <= modified + SLACK:
        return ()
    return (
        Finding(
            url,
            "lastmod-after-served",
            f"lastmod {lastmod} is more than a day after its Last-Modified ({served}): a build-time date?",
        ),
    )


class Answers:
    """What each page fetched answered, for the clusters' check, in little memory: most pages
    answer 200, may be indexed and name no alternate, and are kept as a hash of their URL; the
    others by URL, their alternates' URLs the same string objects as the pages' (interned)."""

    def __init__(self) -> None:
        self.fine: set[int] = set()
        self.named: dict[str, Seen] = {}

    def add(self, url: str, seen: Seen) -> None:
        if seen is _INDEXABLE:
            self.fine.add(hash(url))
        else:
            self.named[sys.intern(url)] = seen

    def get(self, url: str) -> Seen | None:
        return _INDEXABLE if hash(url) in self.fine else self.named.get(url)


def cluster_problems(answers: Answers, fetch: Callable[[list[str]], dict[str, Seen]], origin: str) -> Iterator[Finding]:
    """For each page that names alternates: each alternate on its host answers 200, may be
    indexed, and names the page back (as `build` checks on disk). Alternates not yet fetched are
    fetched once (`fetch`); those on other hosts are not (an ``hreflang-elsewhere`` note)."""
    prefix = origin + "/"
    named = answers.named
    missing = sorted(
        {
            href
            for s in named.values()
            for _, href in s.alternates
            if href.startswith(prefix) and answers.get(href) is None
        }
    )
    for url, seen in fetch(missing).items() if missing else ():
        answers.add(url, seen)
    for url, s in named.items():
        for lang, href in s.alternates:
            if href == url or not href.startswith(prefix):
                continue
            other = answers.get(href)
            assert other is not None  # fetched above
            if other.why is not None:
                yield Finding(url, "hreflang", f"names {href} ({lang}) as an alternate, which {_which(other.why)}")
            elif url not in {back for _, back in other.alternates}:
                yield Finding(url, "hreflang", f"names {href} ({lang}) as an alternate, which does not name it back")


def _which(why: str) -> str:
    return why if why.startswith(("answers", "names", "its head", "robots.txt")) else f"cannot be read: {why}"


def elsewhere(answers: Answers, origin: str) -> int:
    """How many alternates the pages name on other hosts (not checked)."""
    prefix = origin + "/"
    return sum(1 for s in answers.named.values() for _, href in s.alternates if not href.startswith(prefix))
