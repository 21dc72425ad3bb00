"""A loopback HTTP server of the tests' own that can give every hostile answer a crawler meets.

`sitemapgen verify` reads a live site as a search engine's crawler does (robots.txt, sitemaps,
pages); its tests need the answers real sites give on a bad day: a 503 then a 200, a server that
says nothing, resets the connection, never ends a body, drips it a byte at a time, never ends its
headers or sends one of 1 MiB. ``serving(routes, docroot=...)`` starts one on 127.0.0.1 with a
free port, answers each path by its `Route` (the rest from `docroot`, as a static host would), and
records every request in `FaultServer.seen`. When the ``with`` block ends it stops within a
second or two, whatever its connections are doing: every loop checks a stop event, every open
client socket is shut down and every thread joined (bounded), so no test leaves a thread behind.
"""

from __future__ import annotations

import contextlib
import http
import itertools
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

BEHAVIOURS = ("normal", "silent", "reset", "endless", "drip", "drip-headers", "huge-header", "close")
MAX_HEAD = 64 * 1024  # the request line and headers; longer gets 431
POLL = 0.1  # how often a blocked read or write looks at the stop event (seconds)
JOIN = 1.5  # how long stopping waits for the threads, in all (seconds)
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".txt": "text/plain",
}
NOT_FOUND_BODY = b"<!doctype html><title>404 Not Found</title><h1>Not Found</h1>\n"


@dataclass
class Route:
    """How the server answers one path. `behaviour`:

    - "normal": the status, `headers` as given (plus Content-Length unless they set it or
      Transfer-Encoding), `body`; the connection stays open (HTTP/1.1 keep-alive).
    - "close": the same with Connection: close, and the connection closed after it.
    - "silent": reads the request and never answers, until the client or the server gives up.
    - "reset": reads the request and closes with an RST (SO_LINGER 0).
    - "endless": the head without Content-Length, Connection: close, then `body` (or "a")
      repeated for as long as the client reads.
    - "drip": the head at once, then the body one byte every `delay` seconds.
    - "drip-headers": the status line, then "X-Drip: aaa..." one byte every 0.2 s, forever.
    - "huge-header": as "normal" with a 1 MiB header line (X-Huge: aaa...) before the others.

    `delay` waits before answering, except for "drip". With a `sequence`, the n-th request to
    the path is answered by its n-th route (the last one again past its end); this route's own
    fields are then unused.
    """

    status: int = 200
    headers: dict[str, str] | list[tuple[str, str]] = field(default_factory=dict)
    body: bytes = b""
    delay: float = 0.0
    behaviour: str = "normal"
    sequence: list[Route] | None = None

    def __post_init__(self) -> None:
        # Here rather than in the server's thread, where a typo would only end a connection.
        if self.behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown behaviour {self.behaviour!r}; one of {BEHAVIOURS}")
        if self.sequence == []:
            raise ValueError("an empty sequence answers nothing")


@dataclass
class Seen:
    """One request as the server read it: the path with its query, header names in lower case
    (a repeated header's values joined with ", ")."""

    method: str
    path: str
    headers: dict[str, str]


def _pairs(headers: dict[str, str] | list[tuple[str, str]]) -> list[tuple[str, str]]:
    return list(headers.items()) if isinstance(headers, dict) else list(headers)


def _has(pairs: list[tuple[str, str]], *names: str) -> bool:
    return any(name.lower() in names for name, _ in pairs)


def _status_line(status: int) -> bytes:
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:  # a status no standard names: hostile servers send those too
        phrase = "Unknown"
    return f"HTTP/1.1 {status} {phrase}\r\n".encode("latin-1")


def _fields(pairs: list[tuple[str, str]]) -> bytes:
    return "".join(f"{name}: {value}\r\n" for name, value in pairs).encode("latin-1") + b"\r\n"


def _parse(head: bytes) -> tuple[Seen, str] | None:
    """The request line and headers of one request, and its HTTP version; None when they are not HTTP."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            return None
        name, value = name.strip().lower(), value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return Seen(parts[0], parts[1], headers), parts[2]


class FaultServer:
    """The running server: where it listens, what it was asked, and how hard. Its counters and
    `seen` are updated under a lock by the connections' threads; read them once the answers the
    test waits for have arrived (a request is in `seen` before its answer is sent)."""

    def __init__(self, routes: Mapping[str, Route] | None = None, *, docroot: Path | None = None) -> None:
        self._routes = dict(routes or {})
        self._docroot = docroot.resolve() if docroot is not None else None
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._open: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []
        self._in_flight = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(POLL / 2)
        port = self._listener.getsockname()[1]
        self.host = f"127.0.0.1:{port}"
        self.url = f"http://{self.host}/"
        self.seen: list[Seen] = []
        self.connections = 0
        self.peak_in_flight = 0
        self._accepter = threading.Thread(target=self._accept, name=f"faultserver:{port}", daemon=True)

    def paths(self) -> list[str]:
        """The paths requested so far, with their queries, in order."""
        with self._lock:
            return [seen.path for seen in self.seen]

    def set(self, path: str, route: Route) -> None:
        """Add or replace the route of `path` while serving; a sequence starts again at its first."""
        with self._lock:
            self._routes[path] = route
            self._counts.pop(path, None)

    def start(self) -> None:
        """Start accepting connections (`serving` does, and stops the server after its block)."""
        self._accepter.start()

    def stop(self) -> None:
        """Stop accepting, end every connection whatever it is doing, and wait for the threads."""
        self._stop.set()
        self._accepter.join(JOIN)
        self._listener.close()
        with self._lock:
            for conn in self._open:  # wakes a blocked read or write; the thread closes its socket
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
            threads = list(self._threads)
        deadline = time.monotonic() + JOIN
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:  # a thread that did not end in time: its socket is closed all the same
            for conn in self._open:
                conn.close()
            self._open.clear()

    # The connections.

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(POLL)
            thread = threading.Thread(target=self._connection, args=(conn,), name=self._accepter.name, daemon=True)
            with self._lock:
                self.connections += 1
                self._open.add(conn)
                self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            thread.start()

    def _connection(self, conn: socket.socket) -> None:
        """Answer the requests of one connection until either side ends it or the server stops."""
        buffer = bytearray()
        try:
            while not self._stop.is_set() and (buffer or self._fill(conn, buffer)):
                with self._flight():  # from the request's first byte to the answer's last
                    if not self._answer(conn, buffer):
                        break
        except OSError:  # the client went away, reset, or the server is stopping
            pass
        finally:
            with self._lock:
                self._open.discard(conn)
            conn.close()

    @contextlib.contextmanager
    def _flight(self) -> Iterator[None]:
        with self._lock:
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1

    def _fill(self, conn: socket.socket, buffer: bytearray) -> bool:
        """Read what has come into `buffer`; False once the client has closed its side."""
        while not self._stop.is_set():
            try:
                data = conn.recv(65536)
            except TimeoutError:
                continue
            buffer += data
            return bool(data)
        return False

    def _send(self, conn: socket.socket, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self._stop.is_set():
                raise ConnectionAbortedError("the server is stopping")
            try:
                view = view[conn.send(view) :]
            except TimeoutError:  # the client reads slowly, or not at all
                continue

    def _answer(self, conn: socket.socket, buffer: bytearray) -> bool:
        """Read one request from `buffer` (and the socket) and answer it; True to keep the connection."""
        while (end := buffer.find(b"\r\n\r\n")) < 0:
            if len(buffer) > MAX_HEAD:
                return self._refuse(conn, 431)
            if not self._fill(conn, buffer):
                return False
        parsed = _parse(bytes(buffer[:end]))
        del buffer[: end + 4]
        if parsed is None:
            return self._refuse(conn, 400)
        request, version = parsed
        with self._lock:
            self.seen.append(request)
        if request.method not in ("GET", "HEAD"):
            return self._refuse(conn, 405, ("Allow", "GET, HEAD"))
        route = self._route(urlsplit(request.path).path)
        if route.behaviour != "drip" and route.delay > 0 and self._stop.wait(route.delay):
            return False
        behaviour: Callable[[socket.socket, Route, bool], bool] = getattr(self, "_" + route.behaviour.replace("-", "_"))
        keep = behaviour(conn, route, request.method == "HEAD")
        # A request body is ignored, not read: the connection cannot go on after one.
        has_body = request.headers.get("content-length", "0") != "0" or "transfer-encoding" in request.headers
        closing = version != "HTTP/1.1" or request.headers.get("connection", "").lower() == "close"
        return keep and not has_body and not closing

    def _refuse(self, conn: socket.socket, status: int, *pairs: tuple[str, str]) -> bool:
        """An empty answer to a request the server does not serve, closing the connection."""
        self._send(conn, _status_line(status) + _fields([*pairs, ("Content-Length", "0"), ("Connection", "close")]))
        return False

    def _route(self, path: str) -> Route:
        with self._lock:
            route = self._routes.get(path)
            if route is not None and route.sequence:
                count = self._counts[path] = self._counts.get(path, -1) + 1
                route = route.sequence[min(count, len(route.sequence) - 1)]
        return route if route is not None else self._static(path)

    def _static(self, path: str) -> Route:
        """A file of the docroot, as a static host serves it: a directory by its index.html."""
        missing = Route(404, {"Content-Type": TYPES[".html"]}, NOT_FOUND_BODY)
        relative = unquote(path).lstrip("/")
        if self._docroot is None or "\0" in relative:
            return missing
        target = (self._docroot / relative).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_relative_to(self._docroot) or not target.is_file():
            return missing
        return Route(
            headers={"Content-Type": TYPES.get(target.suffix, "application/octet-stream")}, body=target.read_bytes()
        )

    # The behaviours: each answers one request and says whether the connection may go on.

    def _normal(self, conn: socket.socket, route: Route, head_only: bool, prefix: bytes = b"") -> bool:
        pairs = _pairs(route.headers)
        if not _has(pairs, "content-length", "transfer-encoding"):
            pairs.append(("Content-Length", str(len(route.body))))
        self._send(conn, _status_line(route.status) + prefix + _fields(pairs) + (b"" if head_only else route.body))
        return ("connection", "close") not in ((name.lower(), value.lower()) for name, value in pairs)

    def _close(self, conn: socket.socket, route: Route, head_only: bool) -> bool:
        pairs = _pairs(route.headers)
        closing = pairs if _has(pairs, "connection") else [*pairs, ("Connection", "close")]
        self._normal(conn, Route(route.status, closing, route.body), head_only)
        return False

    def _silent(self, conn: socket.socket, route: Route, head_only: bool) -> bool:
        scrap = bytearray()
        while self._fill(conn, scrap):  # until the client closes or the server stops
            scrap.clear()
        return False

    def _reset(self, conn: socket.socket, route: Route, head_only: bool) -> bool:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        return False  # closing it now sends the RST

    def _endless(self, conn: socket.socket, route: Route, head_only: bool) -> bool:
        pairs = [(name, value) for name, value in _pairs(route.headers) if name.lower() != "content-length"]
        self._send(conn, _status_line(route.status) + _fields([*pairs, ("Connection", "close")]))
        unit = route.body or b"a"
        chunk = unit * max(1, 65536 // len(unit))
        while not head_only:  # _send raises once the client is gone or the server stops
            self._send(conn, chunk)
        return False

    def _drip(self, conn: socket.socket, route: Route, head_only: bool) -> bool:
        keep = self._normal(conn, route, True)  # the head, with the whole body's length
        for byte in b"" if head_only else route.body:
            if self._stop.wait(route.delay):
                return False
            self._send(conn, bytes([byte]))
        return keep

    def _drip_headers(self, conn: socket.socket, route: Route, head_only: bool) -> bool:
        self._send(conn, _status_line(route.status))
        for byte in itertools.chain(b"X-Drip: ", itertools.repeat(ord("a"))):  # a header line without end
            self._send(conn, bytes([byte]))
            if self._stop.wait(0.2):
                return False
        return False  # never reached: the loop ends by the stop event or by the client going away

    def _huge_header(self, conn: socket.socket, route: Route, head_only: bool) -> bool:
        return self._normal(conn, route, head_only, prefix=b"X-Huge: " + b"a" * (1 << 20) + b"\r\n")


@contextlib.contextmanager
def serving(routes: Mapping[str, Route] | None = None, *, docroot: Path | None = None) -> Iterator[FaultServer]:
    """A `FaultServer` on a free loopback port for the ``with`` block, stopped at its end."""
    server = FaultServer(routes, docroot=docroot)
    server.start()
    try:
        yield server
    finally:
        server.stop()
