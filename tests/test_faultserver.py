"""The fault server the `verify` tests stand on: each hostile answer happens as its route says, and
the server stops at once whatever its connections are doing."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .faultserver import FaultServer, Route, serving

ROBOTS = b"User-agent: *\nDisallow: /private/\n"


@pytest.fixture
def client() -> Iterator[list[http.client.HTTPConnection]]:
    """Connections a test opens (appended here), closed after it whatever it asserted."""
    opened: list[http.client.HTTPConnection] = []
    yield opened
    for conn in opened:
        conn.close()


def _connect(
    server: FaultServer, opened: list[http.client.HTTPConnection], timeout: float = 5
) -> http.client.HTTPConnection:
    conn = http.client.HTTPConnection(server.host, timeout=timeout)
    opened.append(conn)
    return conn


def _address(server: FaultServer) -> tuple[str, int]:
    host, port = server.host.split(":")
    return host, int(port)


def _get(conn: http.client.HTTPConnection, path: str) -> tuple[int, http.client.HTTPMessage, bytes]:
    conn.request("GET", path)
    response = conn.getresponse()
    return response.status, response.headers, response.read()


def test_a_route_is_answered_and_the_connection_kept(client: list[http.client.HTTPConnection]) -> None:
    routes = {"/robots.txt": Route(headers={"Content-Type": "text/plain"}, body=ROBOTS)}
    with serving(routes) as server:
        conn = _connect(server, client)
        status, headers, body = _get(conn, "/robots.txt")
        assert (status, headers["Content-Type"], headers["Content-Length"], body) == (
            200,
            "text/plain",
            str(len(ROBOTS)),
            ROBOTS,
        )
        assert _get(conn, "/robots.txt?again=1")[2] == ROBOTS
        assert server.connections == 1
        assert server.paths() == ["/robots.txt", "/robots.txt?again=1"]
        assert server.seen[0].headers["host"] == server.host


def test_a_sequence_answers_503_then_200_and_its_last_one_after(client: list[http.client.HTTPConnection]) -> None:
    busy = Route(503, {"Retry-After": "1"}, b"busy")
    routes = {"/sitemap.xml": Route(sequence=[busy, Route(body=b"<urlset/>")])}
    with serving(routes) as server:
        conn = _connect(server, client)
        answers = [_get(conn, "/sitemap.xml") for _ in range(3)]
    assert [(status, headers.get("Retry-After"), body) for status, headers, body in answers] == [
        (503, "1", b"busy"),
        (200, None, b"<urlset/>"),
        (200, None, b"<urlset/>"),
    ]


def test_reset_resets_the_reader() -> None:
    with serving({"/": Route(behaviour="reset")}) as server, socket.create_connection(_address(server)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        with pytest.raises(ConnectionResetError):
            sock.recv(1024)


def test_silent_times_the_client_out_and_still_stops_at_once(client: list[http.client.HTTPConnection]) -> None:
    with serving({"/": Route(behaviour="silent")}) as server:
        with pytest.raises(TimeoutError):
            _get(_connect(server, client, timeout=0.3), "/")
        held = _connect(server, client)  # a second one, still waiting when the server stops
        held.request("GET", "/")
        while server.paths() != ["/", "/"]:
            time.sleep(0.01)
    # Stopped, not waited out: stopping joins its threads for 1.5 s at most, and none is left.
    with pytest.raises(http.client.RemoteDisconnected):
        held.getresponse()
    assert [t for t in threading.enumerate() if t.name.startswith("faultserver:")] == []


@pytest.mark.parametrize("behaviour", ["silent", "endless", "drip", "drip-headers"])
def test_a_held_connection_ends_when_the_server_stops(behaviour: str) -> None:
    """Whatever a connection is doing, leaving the ``with`` block ends it and its thread."""
    with serving({"/": Route(body=b"abc", delay=60, behaviour=behaviour)}) as server:
        sock = socket.create_connection(_address(server), timeout=5)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        while server.paths() != ["/"]:
            time.sleep(0.01)
    with sock:
        while sock.recv(1 << 20):  # what was sent before the stop, then the end
            pass
    assert [t for t in threading.enumerate() if t.name.startswith("faultserver:")] == []


def test_endless_sends_more_than_a_megabyte(client: list[http.client.HTTPConnection]) -> None:
    with serving({"/sitemap.xml": Route(body=b"<url>", behaviour="endless")}) as server:
        conn = _connect(server, client)
        conn.request("GET", "/sitemap.xml")
        response = conn.getresponse()
        assert (response.status, response.headers["Content-Length"], response.headers["Connection"]) == (
            200,
            None,
            "close",
        )
        received = 0
        while received <= 1_000_000:
            received += len(response.read(65536))
        # Left open while the server stops.


@pytest.mark.parametrize(
    ("path", "status", "kind", "body"),
    [
        ("/", 200, "text/html; charset=utf-8", b"<h1>home</h1>"),
        ("/a/", 200, "text/html; charset=utf-8", b"<h1>a</h1>"),
        ("/a", 200, "text/html; charset=utf-8", b"<h1>a</h1>"),
        ("/sitemap.xml", 200, "application/xml", b"<urlset/>"),
        ("/robots.txt", 200, "text/plain", ROBOTS),
        ("/missing/", 404, "text/html; charset=utf-8", None),
        ("/../outside.txt", 404, "text/html; charset=utf-8", None),
    ],
    ids=["root", "directory", "directory-without-slash", "xml", "txt", "missing", "outside"],
)
def test_the_docroot_is_served_as_a_static_host_does(
    tmp_path: Path, client: list[http.client.HTTPConnection], path: str, status: int, kind: str, body: bytes | None
) -> None:
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "index.html").write_bytes(b"<h1>home</h1>")
    (site / "a" / "index.html").write_bytes(b"<h1>a</h1>")
    (site / "sitemap.xml").write_bytes(b"<urlset/>")
    (site / "robots.txt").write_bytes(ROBOTS)
    (tmp_path / "outside.txt").write_bytes(b"secret")
    with serving(docroot=site) as server:
        got_status, headers, got_body = _get(_connect(server, client), path)
    assert (got_status, headers["Content-Type"]) == (status, kind)
    assert got_body == body if body is not None else b"Not Found" in got_body


def test_peak_in_flight_counts_concurrent_requests(client: list[http.client.HTTPConnection]) -> None:
    with serving({"/slow": Route(body=b"ok", delay=0.3)}) as server:
        conns = [_connect(server, client) for _ in range(3)]
        with ThreadPoolExecutor(3) as pool:
            bodies = list(pool.map(lambda conn: _get(conn, "/slow")[2], conns))
        assert (bodies, server.connections, server.peak_in_flight) == ([b"ok"] * 3, 3, 3)
