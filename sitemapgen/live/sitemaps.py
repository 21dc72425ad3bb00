"""The live sitemaps, fetched as a crawler fetches them, and the URLs they list.

Each sitemap or index is fetched once, no redirect followed (a redirect is the problem), its
content coding removed, and must answer 200 with a sitemap, not an HTML page. What it holds is
copied into a working directory in the layout the host serves it in (an index's sitemaps below
its folder), so that `validate` checks the copies exactly as it checks files on disk: one set
of checks for the protocol, wherever the sitemaps come from. Only files below an index's own
folder on its host are fetched; anything else it lists breaks the location rule, which
`validate` reports, and is never requested. A body is read to the protocol's 50 MiB (after
its content coding, and again after its own gzip) and no further.
"""

from __future__ import annotations

import hashlib
import heapq
import pickle
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import unquote, urljoin, urlsplit

from sitemapgen.deploy.source import SourceError, directory, entries
from sitemapgen.live.report import Report
from sitemapgen.protocol import MAX_BYTES_PER_SITEMAP, MAX_URLS_PER_SITEMAP
from sitemapgen.util.fetch import Answer, Client, FetchError, TooLarge, Unreachable, inflate
from sitemapgen.util.gunzip import is_gzip
from sitemapgen.util.scratch import pickled

#: Tries of a sitemap that answers 429 or 503 (the client honours Retry-After).
TRIES = 3
#: How deep indexes are followed (an index that lists an index that lists sitemaps).
MAX_DEPTH = 3
_HTML_MARKS = (b"<!doctype html", b"<html", b"<head", b"<body")
T = TypeVar("T")
#: URLs a batch of the listing's file.
_BATCH = 1_000
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-~")


@dataclass(frozen=True, slots=True)
class Listed:
    """A URL a sitemap lists, its lastmod, and its place in the listing (for the order)."""

    url: str
    lastmod: str | None
    seq: int


@dataclass
class Root:
    """A sitemap or index named by robots.txt or the user, and what was read below it."""

    url: str
    top: Path  # the copy of the folder it is served from
    path: Path | None = None  # its copy; None if it could not be read


@dataclass
class Sitemaps:
    """Every sitemap read, its copy, and the URLs they list (see the module's docstring)."""

    client: Client
    report: Report
    work: Path
    concurrency: int = 4
    roots: list[Root] = field(default_factory=list)
    #: Each copy's URL (to say validate's problems about the URL, not the copy).
    urls: dict[Path, str] = field(default_factory=dict)
    #: Each URL's copy, as served (for --against).
    copies: dict[str, Path] = field(default_factory=dict)
    #: The sitemaps that list pages, in the order read: (URL, copy, "xml" or "text").
    urlsets: list[tuple[str, Path, str]] = field(default_factory=list)

    def read(self, url: str) -> Root:
        """Fetch the sitemap or index at `url` and, for an index, every sitemap below its folder."""
        top = self.work / str(len(self.roots))
        last = urlsplit(url).path.rpartition("/")[2]
        name = last if last and set(last) <= _SAFE else "sitemap.xml"
        root = Root(url, top)
        self.roots.append(root)
        root.path = self._keep(url, top / name, self._fetch(url), 0)
        return root

    def _keep(self, url: str, copy: Path, answer: Answer | None, depth: int) -> Path | None:
        """A sitemap fetched kept as `copy` if it is one a crawler can read; for an index, what
        it lists below its folder fetched `concurrency` at a time and kept in the index's order,
        so that the same site is read the same way whatever answers first. Only the fetching
        is done in the threads: what a sitemap inflates to is made here, in the main thread,
        whose memory the system gets back (`verify`'s `_give_back`), not in theirs."""
        fetched = (
            None if answer is None else self._sitemap_body(url, answer.body, answer.headers.get("Content-Type", ""))
        )
        if fetched is None:
            return None
        data, plain = fetched
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(data)
        self.urls[copy] = url
        self.copies[url] = copy
        self.report.sitemaps += 1
        if url.endswith(".txt") and not plain.lstrip().startswith(b"<"):
            self.urlsets.append((url, copy, "text"))
            return copy
        try:
            kind, listed = entries(plain, url)
        except SourceError:
            return copy  # not a sitemap: validate says why
        if kind == "urlset":
            self.urlsets.append((url, copy, "xml"))
        elif depth < MAX_DEPTH:
            folder = directory(url)
            below: dict[str, Path] = {}
            for loc, _ in listed:
                inside = _below(loc, folder)
                if inside is not None and loc not in self.copies:
                    below.setdefault(loc, copy.parent.joinpath(*inside))
            with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                fetched_below = _in_order(pool, self._fetch, below, self.concurrency)
                for (loc, child), result in zip(below.items(), fetched_below, strict=True):
                    self._keep(loc, child, result, depth + 1)
        return copy

    def _fetch(self, url: str) -> Answer | None:
        """The sitemap's answer, if it is 200 (its body as served, content coding removed);
        None, and a problem, if not."""
        report = self.report
        try:
            answer = self.client.request(url, limit=MAX_BYTES_PER_SITEMAP, tries=TRIES)
        except TooLarge as e:
            report.problem(url, "sitemap-unreadable", f"{_words(e, url)} (a sitemap may be 50 MiB at most)")
            return None
        except Unreachable as e:
            report.problem(url, "sitemap-unreachable", _words(e, url))
            return None
        except FetchError as e:
            report.problem(url, "sitemap-unreadable", _words(e, url))
            return None
        status = answer.status
        if 300 <= status < 400:
            target = urljoin(url, answer.headers.get("Location", ""))
            report.problem(
                url,
                "sitemap-redirect",
                f"answers HTTP {status}, a redirect to {target}: crawlers do not follow it for a sitemap;"
                " list the final URL instead, or serve the file here",
            )
        elif status in (404, 410):
            report.problem(url, "sitemap-not-found", f"answers HTTP {status}: not deployed, or at another URL")
        elif status >= 500:
            report.problem(url, "sitemap-unreachable", f"answers HTTP {status}")
        elif status != 200:
            report.problem(url, "sitemap-status", f"answers HTTP {status}")
        else:
            return answer
        return None

    def _sitemap_body(self, url: str, body: bytes, content_type: str) -> tuple[bytes, bytes] | None:
        try:
            plain = inflate(body, MAX_BYTES_PER_SITEMAP, url) if is_gzip(body) else body
        except FetchError as e:
            self.report.problem(url, "sitemap-unreadable", _words(e, url))
            return None
        start = plain[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
        if start.startswith(_HTML_MARKS) or (not start.startswith(b"<?xml") and "html" in content_type.lower()):
            self.report.problem(
                url,
                "sitemap-html",
                f"answers 200 with an HTML page ({content_type or 'no Content-Type'}), not a sitemap:"
                " the host serves its fallback page (an SPA's index.html, a soft 404) where the file is missing",
            )
            return None
        return body, plain

    def listed(self) -> Iterator[Listed]:
        """Every URL the sitemaps list below their own folders, once, in the order they list them."""
        seen: set[bytes] = set()
        seq = 0
        for url, copy, form in self.urlsets:
            folder = directory(url)
            for loc, lastmod in _locs(url, copy, form, self.report):
                key = hashlib.blake2b(loc.encode("utf-8", "surrogatepass"), digest_size=12).digest()
                if key in seen or not _in_folder(loc, folder):
                    continue
                seen.add(key)
                yield Listed(loc, lastmod, seq)
                seq += 1


class Listing:
    """The URLs the sitemaps list (`Sitemaps.listed`), read from them once into an unnamed
    temporary file, in batches, and read back as the pages are checked: the sitemaps are parsed
    once, and their bytes and parse trees are gone before the first page is fetched, so that
    the many small things the pages' threads make do not land among them."""

    def __init__(self, listed: Iterable[Listed]) -> None:
        self.file = tempfile.TemporaryFile()
        self.count = 0
        batch: list[tuple[str, str | None]] = []
        for item in listed:
            batch.append((item.url, item.lastmod))
            self.count += 1
            if len(batch) == _BATCH:
                pickle.dump(batch, self.file, protocol=pickle.HIGHEST_PROTOCOL)
                batch = []
        pickle.dump(batch, self.file, protocol=pickle.HIGHEST_PROTOCOL)

    def __iter__(self) -> Iterator[Listed]:
        self.file.seek(0)
        seq = 0
        for batch in pickled(self.file):
            for url, lastmod in batch:
                yield Listed(url, lastmod, seq)
                seq += 1

    def __enter__(self) -> Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()


def _in_order(pool: ThreadPoolExecutor, fetch: Callable[[str], T], urls: Iterable[str], ahead: int) -> Iterator[T]:
    """`fetch` of each URL, in their order, at most `ahead` fetched and not yet taken: a big index's
    sitemaps are not all held at once."""
    pending: deque[Future[T]] = deque()
    for url in urls:
        pending.append(pool.submit(fetch, url))
        if len(pending) > ahead:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def _locs(url: str, copy: Path, form: str, report: Report) -> Iterator[tuple[str, str | None]]:
    data = copy.read_bytes()
    try:
        plain = inflate(data, MAX_BYTES_PER_SITEMAP, url) if is_gzip(data) else data
    except FetchError:
        return
    if form == "text":
        yield from _text_locs(url, plain, report)
        return
    try:
        _, listed = entries(plain, url)
        yield from listed
    except SourceError:
        return  # validate says what is wrong with it


def _text_locs(url: str, plain: bytes, report: Report) -> Iterator[tuple[str, str | None]]:
    """A text sitemap's URLs (one a line, UTF-8), with what the protocol asks of one."""
    folder = directory(url)
    lines = [line.strip() for line in plain.decode("utf-8", "replace").splitlines() if line.strip()]
    if len(lines) > MAX_URLS_PER_SITEMAP:
        report.problem(url, "sitemap-invalid", f"{len(lines):,} URLs; a sitemap may list at most 50,000")
    for line in lines:
        if not _in_folder(line, folder):
            report.problem(url, "off-site", f"lists {line}, which is not below {folder} (location rule); not fetched")
            continue
        yield line, None


def _in_folder(url: str, folder: str) -> bool:
    """Whether `url` lies in `folder` (same scheme and host, in any case; below its path, no dot
    segment leading out of it): where the location rule lets a sitemap there list it."""
    if not url.startswith(folder):
        target, base = urlsplit(url), urlsplit(folder)
        if (target.scheme.lower(), target.netloc.lower()) != (base.scheme.lower(), base.netloc.lower()):
            return False
        if not target.path.startswith(base.path):
            return False
    path = urlsplit(url).path[len(urlsplit(folder).path) :]
    return not any(unquote(segment) in (".", "..") for segment in path.split("/"))


def _below(url: str, folder: str) -> list[str] | None:
    """The path segments of `url` below `folder` (same scheme and host), each a plain name a copy
    can be written under; None if it is not below it, or names no file so plainly."""
    if not url.startswith(folder) or urlsplit(url).query or "#" in url:
        return None
    segments = [unquote(s) for s in url[len(folder) :].split("/")]
    if not segments or any(s in ("", ".", "..") or "/" in s or "\\" in s or "\0" in s for s in segments):
        return None
    return segments


def _words(error: FetchError, url: str) -> str:
    """A fetch error's message without the URL it starts with (the finding names it)."""
    return str(error).removeprefix(f"{url}: ")


def sample(listed: Iterator[Listed], size: int) -> tuple[list[Listed], int]:
    """`size` of the URLs, the same for the same sitemaps: those whose hash is smallest, which
    draws them evenly across every sitemap; in the order they are listed. Returns them and how
    many there were in all. Memory holds `size` URLs, not all of them."""
    heap: list[tuple[int, int, Listed]] = []
    total = 0
    for item in listed:
        total += 1
        rank = -int.from_bytes(hashlib.blake2b(item.url.encode("utf-8", "surrogatepass"), digest_size=8).digest())
        if len(heap) < size:
            heapq.heappush(heap, (rank, item.seq, item))
        elif rank > heap[0][0]:
            heapq.heapreplace(heap, (rank, item.seq, item))
    return sorted((item for _, _, item in heap), key=lambda item: item.seq), total
