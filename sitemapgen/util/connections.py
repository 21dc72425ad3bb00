"""urllib3's connections as `fetch` uses them: each request watched for its deadline, and every
way one can fail said in the user's words.

A request's timeout covers all of it, connect to last byte: urllib3's timeouts bound each wait
for the network, not the whole, so a server that drips its headers or its body a byte at a time
would hold a request for as long as it likes. A watchdog thread (one a client, until it ends)
shuts the socket of a request past its deadline; the connection classes of the
pools show it their socket as each answer begins.
"""

from __future__ import annotations

import contextlib
import heapq
import http.client
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sitemapgen.errors import SitemapgenError

if TYPE_CHECKING:
    import urllib3


class FetchError(SitemapgenError):
    """A URL that could not be read: the message names it and says why."""


class Unreachable(FetchError):
    """A URL the network or its server failed to answer: no connection, no answer in time, a
    connection lost, or a server error (HTTP 5xx), rather than an answer about the URL."""


class CannotConnect(Unreachable):
    """No connection at all: no such host, refused, no route, TLS failed."""


class TooLarge(FetchError):
    """A body over the cap: read to one byte past it, no further."""


@dataclass(eq=False)
class _Watch:
    owner: Watchdog
    deadline: float
    sock: socket.socket | None = None
    expired: bool = False
    done: bool = False


#: The request each thread is making now, for the connection that sends it (`attach`).
_CURRENT = threading.local()


@dataclass
class Watchdog:
    """Shuts the socket of a request that passed its deadline (see the module's docstring): one
    thread, from the first request watched until `close`, which a client calls as it ends, so no
    thread of ours outlives it (a build forks its workers after reading the previous deploy)."""

    cond: threading.Condition = field(default_factory=threading.Condition)
    heap: list[tuple[float, int, _Watch]] = field(default_factory=list)
    count: Iterator[int] = field(default_factory=itertools.count)
    thread: threading.Thread | None = None
    closed: bool = False
    aborted: bool = False

    @contextlib.contextmanager
    def watching(self, deadline: float) -> Iterator[_Watch]:
        """The request this thread makes in the block, watched until `deadline` (monotonic)."""
        watch = _Watch(self, deadline)
        with self.cond:
            watch.expired = self.aborted
            heapq.heappush(self.heap, (deadline, next(self.count), watch))
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="sitemapgen-deadlines", daemon=True)
                self.thread.start()
            self.cond.notify()
        _CURRENT.watch = watch
        try:
            yield watch
        finally:
            _CURRENT.watch = None
            with self.cond:
                watch.done = True

    def abort(self) -> None:
        """End every request watched now, and each one after, at once (Ctrl-C): their sockets
        are shut, so no thread waits out a timeout before the run can stop."""
        with self.cond:
            self.aborted = True
            for _, _, watch in self.heap:
                watch.expired = True
                if watch.sock is not None:
                    _shut(watch.sock)

    def close(self) -> None:
        """Stop the thread, and wait for it."""
        with self.cond:
            self.closed = True
            self.cond.notify()
            thread, self.thread = self.thread, None
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        with self.cond:
            while not self.closed:
                while self.heap and self.heap[0][2].done:
                    heapq.heappop(self.heap)
                if not self.heap:
                    self.cond.wait()
                    continue
                wait = self.heap[0][0] - time.monotonic()
                if wait > 0:
                    self.cond.wait(wait)
                    continue
                watch = heapq.heappop(self.heap)[2]
                watch.expired = True
                if watch.sock is not None:
                    _shut(watch.sock)


def attach(sock: socket.socket | None) -> None:
    """The socket of the request this thread is making now, to shut at its deadline."""
    watch: _Watch | None = getattr(_CURRENT, "watch", None)
    if watch is None or sock is None:
        return
    with watch.owner.cond:
        watch.sock = sock
        if watch.expired:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def pool_classes() -> dict[str, type[urllib3.HTTPConnectionPool]]:
    """urllib3's pools, whose connections show their socket (`attach`) as each answer begins."""
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class Watched(HTTPConnection):
        def getresponse(self) -> urllib3.response.HTTPResponse:  # type: ignore[override]
            attach(self.sock)
            return super().getresponse()

    class WatchedTls(HTTPSConnection):
        def getresponse(self) -> urllib3.response.HTTPResponse:  # type: ignore[override]
            attach(self.sock)
            return super().getresponse()

    class Pool(HTTPConnectionPool):
        ConnectionCls = Watched

    class TlsPool(HTTPSConnectionPool):
        ConnectionCls = WatchedTls

    return {"http": Pool, "https": TlsPool}


def failure(error: BaseException, timeout: float, answered: bool) -> FetchError:
    """A urllib3 or socket failure in the user's words (without the URL, added by the caller)."""
    from urllib3 import exceptions as x

    if isinstance(error, x.NameResolutionError):
        return CannotConnect("cannot connect: no such host")
    if isinstance(error, x.NewConnectionError):
        cause = error.__cause__
        return CannotConnect(f"cannot connect: {getattr(cause, 'strerror', None) or cause or error}")
    if isinstance(error, x.ConnectTimeoutError):
        return CannotConnect(f"cannot connect: no connection within {timeout:g} s")
    if isinstance(error, x.SSLError):
        return CannotConnect(f"cannot connect: TLS failed: {error.__cause__ or error}")
    if isinstance(error, x.ReadTimeoutError | TimeoutError):
        return Unreachable(f"no answer within {timeout:g} s" if not answered else f"no more of it within {timeout:g} s")
    if isinstance(error, x.LocationValueError | x.LocationParseError | ValueError):
        return FetchError(f"cannot read: not a URL ({error})")
    return Unreachable(f"cannot read: {_cause(error)}")


#: What broke a connection, in words, by the exception http.client or the socket raised.
_CAUSES: tuple[tuple[type[BaseException], str], ...] = (
    (http.client.LineTooLong, "a header line longer than 65,536 bytes"),
    (http.client.RemoteDisconnected, "the server closed the connection without answering"),
    (http.client.IncompleteRead, "the answer ended before its end"),
    (ConnectionResetError, "connection reset"),
)


def _cause(error: BaseException) -> str:
    """What lies under urllib3's ProtocolError ("Connection broken: ..."), in words."""
    from urllib3.exceptions import ProtocolError

    while isinstance(error, ProtocolError) and len(error.args) > 1 and isinstance(error.args[1], BaseException):
        error = error.args[1]
    for kind, words in _CAUSES:
        if isinstance(error, kind):
            return words
    if isinstance(error, OSError):
        return str(error.strerror or error)
    return str(error)
