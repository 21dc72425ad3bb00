"""HTTP for the commands that talk to the live site (`verify`, the previous deploy, `include`,
IndexNow), on urllib3.

urllib3 rather than hand-written `urllib.request`: it keeps connections alive in a pool of a
bounded size (``block=True``: never more connections than asked for), sets connect and read
timeouts, sends no cookies and follows nothing unless told to; it is what requests and pip
stand on, and is released every few months. HTTP/2 is left out: urllib3's is still marked
experimental, and httpx, the other client that has it, has not been released since 2024.

Every request is bounded. `Client.request` allows a whole request, connect to last byte,
`timeout` seconds: a watchdog shuts the socket of a request past its deadline, so a server
that drips its headers or its body a byte at a time costs the timeout, not a hang. A body is
read to a cap and no further; a body sent gzip (``Content-Encoding``) is inflated as it is
read, to the same cap, so a huge answer or a gzip bomb costs the cap, not its size; a header
line over 64 KiB or more than 100 headers end the request (http.client's bounds). Redirects are
never followed here: the caller decides. Failures are one line for the user (`FetchError`),
naming the URL; an HTTP status is an answer, not a failure.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import urlsplit

from sitemapgen._version import __version__
from sitemapgen.util.connections import (
    CannotConnect,
    FetchError,
    TooLarge,
    Unreachable,
    Watchdog,
    failure,
    pool_classes,
)
from sitemapgen.util.gunzip import GzipCorrupt, GzipError, GzipTooLarge, gunzip, is_gzip

if TYPE_CHECKING:
    import urllib3

__all__ = [
    "TIMEOUT",
    "USER_AGENT",
    "Answer",
    "CannotConnect",
    "Client",
    "FetchError",
    "TooLarge",
    "Unreachable",
    "get",
    "inflate",
    "is_url",
    "post_json",
    "retry_after",
    "stream",
]

#: Seconds a request may take, connect to last byte, unless the caller says otherwise.
TIMEOUT = 20.0
USER_AGENT = f"sitemapgen/{__version__} (+https://pypi.org/project/static-sitemapgen/)"
#: Bytes read from the network at a time.
_STEP = 65_536
#: What is left of a body read only in part (a page's head) that is still read to the end, so
#: the connection can serve the next request; past it, the connection is closed instead.
_DRAIN = 65_536


@dataclass(frozen=True, slots=True)
class Answer:
    """What a server said: the status, its headers (any case) and the body, read to a cap and
    without its content coding. `complete`: the whole body was read (not only up to where the
    caller had `enough`)."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    complete: bool = True

    def all(self, name: str) -> list[str]:
        """Every value of the header `name` (X-Robots-Tag may come several times)."""
        getlist = getattr(self.headers, "getlist", None)
        if getlist is not None:
            return list(getlist(name))
        value = self.headers.get(name)
        return [] if value is None else [value]


def is_url(text: str) -> bool:
    return urlsplit(text).scheme in ("http", "https")


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


class _Body:
    """The body's bytes without their content coding, to `limit` (one byte past: too large)."""

    def __init__(self, coding: str, limit: int) -> None:
        coding = coding.strip().lower()
        if coding in ("", "identity"):
            self.inflater = None
        elif coding in ("gzip", "x-gzip", "deflate"):
            self.inflater = zlib.decompressobj(wbits=31 if coding != "deflate" else 47)
        else:
            raise FetchError(f"sent in a content coding it was not asked for ({coding})")
        self.coded = self.inflater is not None
        self.limit = limit
        self.size = 0
        self.pieces: list[bytes] = []

    def add(self, raw: bytes) -> None:
        data = raw
        if self.inflater is not None:
            try:
                data = self.inflater.decompress(raw, self.limit + 1 - self.size)
            except zlib.error as e:
                raise FetchError(f"broken gzip content coding ({e})") from None
        self.size += len(data)
        self.pieces.append(data)
        if self.size > self.limit:
            raise TooLarge(f"larger than {self.limit:,} bytes{' uncompressed' if self.coded else ''}; not read")

    def end(self) -> bytes:
        if self.inflater is not None and not self.inflater.eof:
            raise FetchError("truncated gzip content coding")
        return b"".join(self.pieces)


class Client:
    """Requests to live sites for one run: at most `connections` in flight (on any host) and as
    many kept alive, each within `timeout` seconds. Use it in a ``with`` block."""

    def __init__(self, *, connections: int = 1, timeout: float = TIMEOUT) -> None:
        import urllib3

        self.timeout = timeout
        self.sleep: Callable[[float], None] = time.sleep
        self._slots = threading.BoundedSemaphore(connections)
        self._watchdog = Watchdog()
        self._pools = urllib3.PoolManager(num_pools=16, maxsize=connections, block=True, retries=False)
        self._pools.pool_classes_by_scheme = pool_classes()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pools.clear()
        self._watchdog.close()

    def abort(self) -> None:
        """End the requests in flight, from another thread, at once, and each one made after."""
        self._watchdog.abort()

    def request(
        self,
        url: str,
        *,
        limit: int,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        enough: Callable[[bytes], int | None] | None = None,
        tries: int = 1,
    ) -> Answer:
        """One request, no redirect followed, the whole of it within the timeout. The body is read
        to `limit` bytes (past that, `TooLarge`), or, with `enough`, until `enough(body so far)`
        gives where to cut it (or `limit` is reached: then it is cut there, not refused). An
        answer 429 or 503 is tried again, up to `tries` times in all, after its Retry-After
        (at most `MAX_WAIT` seconds), holding no connection while it waits."""
        for attempt in range(1, tries + 1):
            answer = self._once(url, limit=limit, method=method, body=body, headers=headers, enough=enough)
            if answer.status not in (429, 503) or attempt == tries:
                return answer
            self.sleep(retry_after(answer.headers, attempt))
        raise AssertionError("tries < 1")

    def _once(
        self,
        url: str,
        *,
        limit: int,
        method: str,
        body: bytes | None,
        headers: Mapping[str, str] | None,
        enough: Callable[[bytes], int | None] | None,
    ) -> Answer:
        import urllib3

        sent = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip", **(headers or {})}
        with self._slots:
            deadline = time.monotonic() + self.timeout
            answered = False
            with self._watchdog.watching(deadline) as watch:
                try:
                    left = max(deadline - time.monotonic(), 0.001)
                    response = self._pools.request(
                        method,
                        url,
                        body=body,
                        headers=sent,
                        redirect=False,
                        retries=False,
                        preload_content=False,
                        decode_content=False,
                        timeout=urllib3.Timeout(connect=left, read=left),
                    )
                    answered = True
                    try:
                        data, complete = self._read(response, limit, enough)
                    except BaseException:
                        response.close()
                        raise
                    finally:
                        response.release_conn()
                    if watch.expired:  # cut short by the watchdog, but what came looked whole
                        raise TimeoutError
                except FetchError as e:
                    raise type(e)(f"{url}: {e}") from None
                except (urllib3.exceptions.HTTPError, OSError, http.client.HTTPException, ValueError) as e:
                    if watch.expired:
                        late = "not answered in full" if answered else "no answer"
                        raise Unreachable(f"{url}: {late} within {self.timeout:g} s") from None
                    why = failure(e, self.timeout, answered)
                    raise type(why)(f"{url}: {why}") from None
        return Answer(response.status, response.headers, data, complete)

    @staticmethod
    def _read(
        response: urllib3.BaseHTTPResponse, limit: int, enough: Callable[[bytes], int | None] | None
    ) -> tuple[bytes, bool]:
        taken = _Body(response.headers.get("Content-Encoding", ""), limit if enough is None else limit + _STEP * 4)
        cut: int | None = None
        while True:
            raw = response.read1(_STEP)
            if not raw:
                break
            taken.add(raw)
            if enough is not None:
                so_far = b"".join(taken.pieces)
                taken.pieces = [so_far]
                cut = enough(so_far)
                if cut is None and len(so_far) >= limit:
                    cut = limit
                if cut is not None:
                    break
        if cut is None:
            return taken.end(), True
        left = response.length_remaining
        if left is not None and left <= _DRAIN and not taken.coded:
            response.drain_conn()
        else:
            response.close()
        return taken.pieces[0][:cut], False


#: The longest wait a Retry-After is honoured for, in seconds.
MAX_WAIT = 30.0


def retry_after(headers: Mapping[str, str] | None, attempt: int, cap: float = MAX_WAIT) -> float:
    """Seconds to wait before try `attempt` + 1: the answer's Retry-After (seconds, or an HTTP
    date) if it gives one, else 2 ** (`attempt` - 1); never more than `cap`."""
    value = headers.get("Retry-After") if headers is not None else None
    wait = float(2 ** (attempt - 1))
    if value:
        value = value.strip()
        if value.isdigit():
            wait = float(value)
        else:
            try:
                wait = parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError):
                pass
    return min(max(wait, 0.0), cap)


def _status(url: str, status: int) -> FetchError:
    """An answer other than 200 (or 404 and 410, which are answers): the server's failure for a 5xx."""
    return (Unreachable if status >= 500 else FetchError)(f"{url}: answered HTTP {status}")


def get(url: str, *, limit: int, timeout: float = TIMEOUT) -> bytes | None:
    """The body at `url`, inflated if gzip; None for a 404 or 410. Any other failure is a `FetchError`."""
    with Client(timeout=timeout) as client:
        answer = client.request(url, limit=limit)
    if answer.status in (404, 410):
        return None
    if answer.status != 200:
        raise _status(url, answer.status)
    return inflate(answer.body, limit, url)


@contextlib.contextmanager
def stream(url: str, *, timeout: float = TIMEOUT) -> Iterator[BinaryIO | None]:
    """The body at `url` as a stream, exactly as sent (no Accept-Encoding); None for a 404 or 410.
    Each read waits at most `timeout` seconds (a stream has no deadline as a whole)."""
    import urllib3

    pools = urllib3.PoolManager(retries=False)
    try:
        response = pools.request(
            "GET",
            url,
            headers={"User-Agent": USER_AGENT},
            redirect=False,
            retries=False,
            preload_content=False,
            decode_content=False,
            timeout=urllib3.Timeout(connect=timeout, read=timeout),
        )
    except (urllib3.exceptions.HTTPError, OSError, ValueError) as e:
        pools.clear()
        why = failure(e, timeout, False)
        raise type(why)(f"{url}: {why}") from None
    try:
        if response.status in (404, 410):
            yield None
            return
        if response.status != 200:
            raise _status(url, response.status)
        yield _Stream(response, url, timeout)  # type: ignore[misc]
    finally:
        response.release_conn()
        pools.clear()


class _Stream:
    """A response as a file to read; a failure while reading is an OSError naming the URL, as a
    file's would be."""

    def __init__(self, response: urllib3.BaseHTTPResponse, url: str, timeout: float) -> None:
        self.response, self.url, self.timeout = response, url, timeout

    def read(self, size: int = -1) -> bytes:
        import urllib3

        try:
            return self.response.read(None if size < 0 else size)
        except (urllib3.exceptions.HTTPError, OSError) as e:
            raise OSError(f"{self.url}: {failure(e, self.timeout, True)}") from None

    def readable(self) -> bool:
        return True


def post_json(url: str, body: object, *, timeout: float = TIMEOUT) -> Answer:
    """POST `body` as JSON; every answer is returned (the caller reads the status)."""
    data = json.dumps(body, separators=(",", ":")).encode("utf-8")
    headers = {"Content-Type": "application/json; charset=utf-8"}
    with Client(timeout=timeout) as client:
        return client.request(url, method="POST", body=data, headers=headers, limit=65_536)
