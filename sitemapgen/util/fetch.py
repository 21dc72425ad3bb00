"""HTTP for the few commands that talk to the live site: GET with a size cap, POST JSON.

The standard library's `urllib.request` is enough: one request at a time, a
timeout on every one, no cookies, no proxies beyond the environment's. A body
is read to a cap and no further, and a gzip body (sent as such, or a ``.gz``
file) is inflated to the same cap, so a huge answer or a gzip bomb costs the
cap, not the answer's size. Failures are one line for the user
(`FetchError`), naming the URL; a 404 is an answer, not a failure, since the
callers treat "not there" as a fact (a first deploy).
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from typing import BinaryIO
from urllib.parse import urlsplit

from sitemapgen._version import __version__
from sitemapgen.errors import SitemapgenError
from sitemapgen.util.gunzip import GzipCorrupt, GzipError, GzipTooLarge, gunzip, is_gzip

#: Seconds to wait for a connection or for the next bytes of an answer.
TIMEOUT = 20.0
USER_AGENT = f"sitemapgen/{__version__} (+https://pypi.org/project/static-sitemapgen/)"


class FetchError(SitemapgenError):
    """A URL that could not be read: the message names it and says why."""


class Unreachable(FetchError):
    """A URL the network or its server failed to answer: no connection, no answer in time, a
    connection lost, or a server error (HTTP 5xx), rather than an answer about the URL."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What a server said: the status, its headers and the body (read to a cap)."""

    status: int
    headers: Message
    body: bytes


def is_url(text: str) -> bool:
    return urlsplit(text).scheme in ("http", "https")


def _read_capped(stream: object, limit: int, url: str) -> bytes:
    read = getattr(stream, "read")  # noqa: B009 - an HTTPResponse or an HTTPError, both file-like
    data: bytes = read(limit + 1)
    if len(data) > limit:
        raise FetchError(f"{url}: larger than {limit:,} bytes; not read")
    return data


def inflate(data: bytes, limit: int, where: str) -> bytes:
    """`data` gunzipped if it is gzip (every member), to at most `limit` bytes; else as it is."""
    if not is_gzip(data):
        return data
    try:
        return gunzip((data,), limit)
    except GzipError as e:
        if not is_gzip(data[e.start : e.start + 2]):  # never the first member: `data` begins as gzip
            why = "not gzip after its first member"
        elif isinstance(e, GzipTooLarge):
            why = f"larger than {limit:,} bytes uncompressed; not read"
        elif isinstance(e, GzipCorrupt):
            why = f"broken gzip ({e})"
        else:
            why = "truncated gzip"
        raise FetchError(f"{where}: {why}") from None


@contextlib.contextmanager
def _failures(url: str, timeout: float) -> Iterator[None]:
    """Every way a request can fail, as one `FetchError` line naming `url` (HTTP answers are not failures)."""
    try:
        yield
    except urllib.error.HTTPError:
        raise
    except urllib.error.URLError as e:
        raise Unreachable(f"{url}: cannot connect: {getattr(e.reason, 'strerror', None) or e.reason}") from None
    except TimeoutError:
        raise Unreachable(f"{url}: no answer within {timeout:g} s") from None
    except OSError as e:  # a reset connection
        raise Unreachable(f"{url}: cannot read: {e.strerror or e}") from None
    except ValueError as e:  # a malformed answer or URL
        raise FetchError(f"{url}: cannot read: {e}") from None


def _request(url: str, *, data: bytes | None, headers: dict[str, str], limit: int, timeout: float) -> Answer:
    request = urllib.request.Request(url, data=data, headers={"User-Agent": USER_AGENT, **headers})
    with _failures(url, timeout):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return Answer(response.status, response.headers, _read_capped(response, limit, url))
        except urllib.error.HTTPError as e:
            with e:
                return Answer(e.code, e.headers, _read_capped(e, min(limit, 65_536), url))


def _status(url: str, status: int) -> FetchError:
    """An answer other than 200 (or 404 and 410, which are answers): the server's failure for a 5xx."""
    return (Unreachable if status >= 500 else FetchError)(f"{url}: answered HTTP {status}")


def get(url: str, *, limit: int, timeout: float = TIMEOUT) -> bytes | None:
    """The body at `url`, inflated if gzip; None for a 404 or 410. Any other failure is a `FetchError`."""
    answer = _request(url, data=None, headers={"Accept-Encoding": "gzip"}, limit=limit, timeout=timeout)
    if answer.status in (404, 410):
        return None
    if answer.status != 200:
        raise _status(url, answer.status)
    return inflate(answer.body, limit, url)


@contextlib.contextmanager
def stream(url: str, *, timeout: float = TIMEOUT) -> Iterator[BinaryIO | None]:
    """The body at `url` as a stream, exactly as sent (no Accept-Encoding); None for a 404 or 410."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with _failures(url, timeout):
        try:
            response = urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as e:
            e.close()
            if e.code not in (404, 410):
                raise _status(url, e.code) from None
            response = None
    if response is None:
        yield None
        return
    with response:
        if response.status != 200:
            raise _status(url, response.status)
        yield response


def post_json(url: str, body: object, *, timeout: float = TIMEOUT) -> Answer:
    """POST `body` as JSON; every answer is returned (the caller reads the status)."""
    data = json.dumps(body, separators=(",", ":")).encode("utf-8")
    headers = {"Content-Type": "application/json; charset=utf-8"}
    return _request(url, data=data, headers=headers, limit=65_536, timeout=timeout)
