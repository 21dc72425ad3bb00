"""HTTP reads against a loopback server that answers badly: caps, gzip bombs, errors, silence."""

from __future__ import annotations

import contextlib
import gzip
import http.server
import sys
import threading
import time
import zlib
from collections.abc import Iterator

import pytest

from sitemapgen.util import fetch

PAGES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/ok": (200, {}, b"hello"),
    "/gz": (200, {"Content-Encoding": "gzip"}, gzip.compress(b"hello")),
    "/big": (200, {}, b"x" * 2_000),
    "/bomb": (200, {}, zlib.compress(bytes(10_000_000), 9, wbits=31)),
    "/missing": (404, {}, b"no"),
    "/broken": (500, {}, b"oops"),
}


@contextlib.contextmanager
def _server() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/slow":
                time.sleep(0.6)
            status, headers, body = PAGES.get(self.path, (200, {}, b"late"))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            # A client that stops reading at its cap (the bomb, the big page) closes the connection
            # while the handler still writes: that is the test, not an error. Its handler thread
            # may end after the test, where its traceback would be printed uncaptured (seen with
            # the tests on every CPU).
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)  # type: ignore[arg-type]

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.mark.parametrize(
    ("path", "limit", "expected"),
    [
        pytest.param("/ok", 100, b"hello", id="ok"),
        pytest.param("/gz", 100, b"hello", id="gzip-sent-as-such"),
        pytest.param("/missing", 100, None, id="404-is-an-answer"),
    ],
)
def test_get(path: str, limit: int, expected: bytes | None) -> None:
    with _server() as base:
        assert fetch.get(base + path, limit=limit) == expected


@pytest.mark.parametrize(
    ("path", "limit", "timeout", "message"),
    [
        pytest.param("/big", 1_000, 10, "larger than 1,000 bytes; not read", id="over-the-cap"),
        # 10 MB of zeros in about 10 KB: inflated only to the cap
        pytest.param("/bomb", 100_000, 10, "larger than 100,000 bytes uncompressed; not read", id="gzip-bomb"),
        pytest.param("/broken", 1_000, 10, "answered HTTP 500", id="500"),
        # Only the silent server is waited for briefly: on a busy machine (the suite's workers
        # beside it) 0.2 s was once too short for the gzip bomb's answer.
        pytest.param("/slow", 1_000, 0.2, "no answer within 0.2 s", id="silence"),
    ],
)
def test_get_fails_in_one_line_naming_the_url(path: str, limit: int, timeout: float, message: str) -> None:
    with _server() as base, pytest.raises(fetch.FetchError) as failure:
        fetch.get(base + path, limit=limit, timeout=timeout)
    assert str(failure.value) == f"{base}{path}: {message}"


def test_nothing_listening_is_one_line() -> None:
    with _server() as base:
        pass
    with pytest.raises(fetch.FetchError, match=r": cannot connect: Connection refused$"):
        fetch.get(base + "/ok", limit=100)


_MEMBER = gzip.compress(b"hello", mtime=0)


@pytest.mark.parametrize(
    ("data", "limit", "expected"),
    [
        pytest.param(b"hello", 5, b"hello", id="not-gzip-as-it-is"),
        pytest.param(_MEMBER + _MEMBER, 10, b"hellohello", id="two-members"),
        pytest.param(
            zlib.compress(bytes(1_000), 9, wbits=31), 999, "larger than 999 bytes uncompressed; not read", id="over"
        ),
        pytest.param(_MEMBER[:-8], 100, "truncated gzip", id="cut"),
        pytest.param(_MEMBER + _MEMBER[:-1], 100, "truncated gzip", id="second-member-cut"),
        pytest.param(_MEMBER + b"\x1f\x8b", 100, "truncated gzip", id="second-member-only-its-magic"),
        pytest.param(_MEMBER + b"\n", 100, "not gzip after its first member", id="one-byte-after"),
        pytest.param(_MEMBER + b"\x1f", 100, "not gzip after its first member", id="half-a-magic-after"),
        pytest.param(_MEMBER + bytes(8), 100, "not gzip after its first member", id="zeros-after"),
        pytest.param(
            _MEMBER[:-8] + bytes([_MEMBER[-8] ^ 1]) + _MEMBER[-7:],
            100,
            "broken gzip (Error -3 while decompressing data: incorrect data check)",
            id="bad-crc",
        ),
    ],
)
def test_inflate(data: bytes, limit: int, expected: bytes | str) -> None:
    """Every member, to the limit; what is wrong said in one line naming where the data came from."""
    if isinstance(expected, bytes):
        assert fetch.inflate(data, limit, "W") == expected
    else:
        with pytest.raises(fetch.FetchError) as failure:
            fetch.inflate(data, limit, "W")
        assert str(failure.value) == f"W: {expected}"


def test_a_request_takes_the_timeout_at_most_connect_to_last_byte() -> None:
    """A body dripped a byte at a time keeps every read within its own timeout, never the whole:
    the client's deadline covers all of it. And a client's requests in flight are bounded."""
    from concurrent.futures import ThreadPoolExecutor

    from ..faultserver import Route, serving

    drip = Route(200, {}, b"x" * 1_000, behaviour="drip", delay=0.02)
    with serving({"/drip": drip}) as server:
        with pytest.raises(fetch.Unreachable, match=r"/drip: not answered in full within 0\.3 s$"):
            fetch.get(server.url + "drip", limit=10_000, timeout=0.3)
    with serving({"/ok": Route(200, {}, b"ok", delay=0.1)}) as server:
        with fetch.Client(connections=2, timeout=5) as client, ThreadPoolExecutor(6) as pool:
            bodies = list(pool.map(lambda _: client.request(server.url + "ok", limit=10).body, range(6)))
        assert bodies == [b"ok"] * 6
        assert server.peak_in_flight == 2  # never more requests at once than connections
        assert server.connections == 2  # kept alive


def test_no_thread_outlives_a_client() -> None:
    """A build forks its workers right after reading the previous deploy: a thread of ours still
    alive then would be forked with it."""
    import threading

    with _server() as base:
        assert fetch.get(base + "/ok", limit=100) == b"hello"
        assert [t.name for t in threading.enumerate() if t.name.startswith("sitemapgen")] == []
