"""`sitemapgen validate`: any tool's sitemaps and indexes against the protocol."""

from __future__ import annotations

import contextlib
import errno
import gzip
import http.server
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapgen.commands import validate as validate_module
from sitemapgen.commands.validate import MAX_INDEX_DEPTH, Report, validate
from sitemapgen.commands.validate_urls import path_segments, resolved
from sitemapgen.errors import EnvironmentFailure
from sitemapgen.protocol import DEFAULT_BYTES_PER_SITEMAP, MAX_BYTES_PER_SITEMAP

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import html, make_tree, run_unprivileged

URLSET = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</urlset>\n'


def _url(loc: str, extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>\n"


def _problems(out: str, path: Path) -> list[tuple[int | None, str]]:
    """The `FILE:LINE: message` lines validate printed, as (line, message); each must name `path`."""
    problems: list[tuple[int | None, str]] = []
    for text in out.splitlines():
        assert text.startswith(f"{path}:"), text
        where, _, message = text.removeprefix(f"{path}:").partition(": ")
        if not where.isdigit():  # no line number: `FILE: message`
            where, message = "", text.removeprefix(f"{path}: ")
        problems.append((int(where) if where else None, message))
    return problems


def test_validate_accepts_what_build_writes(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "ü x.html": html(), "q&a.html": html()})
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "1").code == 0
    run = cli("validate", root / "sitemap.xml", "--base-url", BASE)
    assert (run.code, run.out, run.err) == (0, "", "4 files, 3 URLs: ok\n")


def test_validate_accepts_another_tools_plain_sitemap(tmp_path: Path, cli: CliRunner) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "   <url>\n      <loc>http://www.example.com/</loc>\n      <lastmod>2005-01-01</lastmod>\n"
        "      <changefreq>monthly</changefreq>\n      <priority>0.8</priority>\n   </url>\n"
        "   <url>\n      <loc>http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii</loc>\n"
        "      <changefreq>weekly</changefreq>\n   </url>\n</urlset>\n"
    )
    run = cli("validate", path)
    assert (run.code, run.out) == (0, "")
    assert run.err.endswith(", 2 URLs: ok\n"), run.err


# (content, the line every problem is reported on, what one of them says)
BROKEN = [
    pytest.param(URLSET.format(_url("https://example.com/a&b")), 3, "not well-formed XML", id="unescaped-ampersand"),
    pytest.param(
        URLSET.format(_url("https://example.com/it's")), 3, '"\'" in <loc> must be entity-escaped', id="raw-apostrophe"
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<priority>1.5</priority>")),
        3,
        "<priority> '1.5' is not a number from 0.0 to 1.0",
        id="priority-1.5",
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<changefreq>often</changefreq>")),
        3,
        "<changefreq> 'often' is not one of always, hourly, daily, weekly, monthly, yearly, never",
        id="changefreq",
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<lastmod>yesterday</lastmod>")),
        3,
        "<lastmod> 'yesterday' is not a date (2024-05-01) or a date and time (2024-05-01T09:30:00+00:00)",
        id="lastmod",
    ),
    pytest.param(URLSET.format(_url("https://example.com/a b")), 3, "must be percent-encoded", id="space"),
    pytest.param(URLSET.format(_url("https://example.com/über")), 3, "must be percent-encoded", id="non-ascii"),
    pytest.param(
        URLSET.format(_url("https://example.com/100%")), 3, "'%' not followed by two hex digits", id="bad-percent"
    ),
    pytest.param(URLSET.format(_url("https://example.com/" + "a" * 2030)), 3, "fewer than 2,048", id="long-loc"),
    pytest.param(
        URLSET.format(_url("https://example.com/a") + _url("https://other.example/b")),
        4,
        "a sitemap lists one host",
        id="two-hosts",
    ),
    pytest.param(URLSET.format(_url("https://example.com/docs/a")), 3, "location rule", id="location-rule"),
    pytest.param(
        URLSET.format(_url("https://example.com/a") + _url("https://example.com/a")),
        4,
        "listed more than once",
        id="duplicate",
    ),
    pytest.param(
        URLSET.format(""),
        2,
        "<urlset> has no <url>",
        id="empty-urlset",
    ),
    pytest.param('<?xml version="1.0"?><rss/>', 1, "neither urlset nor sitemapindex", id="not-a-sitemap"),
]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        pytest.param("nothere.xml", "{tmp}/nothere.xml: no such file", id="missing"),
        pytest.param(
            "https://example.com/sitemap.xml",
            "https://example.com/sitemap.xml: validate reads files, not URLs: download it first"
            " (curl -O https://example.com/sitemap.xml)",
            id="url",
        ),
    ],
)
def test_validate_of_a_file_that_is_not_there_is_bad_input(
    tmp_path: Path, cli: CliRunner, name: str, said: str
) -> None:
    """A named file that is not there is the caller's mistake (exit 2, one line, before any file is
    read), not a problem of the sitemaps (exit 1), which a file an index lists and lacks is."""
    good = tmp_path / "good.xml"
    good.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/</loc></url></urlset>'
    )
    run = cli("validate", good, name if name.startswith("https:") else tmp_path / name)
    assert run.code == 2, run.err
    assert run.out == ""
    assert run.err == f"error: {said.format(tmp=tmp_path)}\n"


@pytest.mark.parametrize(("content", "line", "message"), BROKEN)
def test_validate_reports_each_rule(tmp_path: Path, cli: CliRunner, content: str, line: int, message: str) -> None:
    directory = tmp_path / "site" / "blog"
    directory.mkdir(parents=True)
    path = directory / "sitemap.xml"
    path.write_text(content)
    base = "https://example.com/blog/" if message == "location rule" else None
    run = cli("validate", path, *(["--base-url", base] if base else []))
    assert run.code == 1
    problems = _problems(run.out, path)
    assert {where for where, _ in problems} == {line}, run.out
    assert [text for _, text in problems if message in text], run.out
    assert re.search(rf": {len(problems)} problems?\n$", run.err), run.err  # the summary counts what was printed


def _too_many_urls(tmp_path: Path) -> Path:
    path = tmp_path / "many.xml.gz"
    path.write_bytes(
        gzip.compress(URLSET.format("".join(_url(f"https://example.com/{i}") for i in range(50_001))).encode())
    )
    return path


def _too_many_bytes(tmp_path: Path) -> Path:
    path = tmp_path / "big.xml"
    path.write_bytes(_exactly(MAX_BYTES_PER_SITEMAP + 1))
    return path


def _index_of_a_missing_file(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/missing.xml.gz</loc></sitemap>\n</sitemapindex>\n"
    )
    return path


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        pytest.param(_too_many_urls, ": 50,001 URLs; a sitemap may list at most 50,000", id="50001-urls"),
        pytest.param(_too_many_bytes, ": larger than 52,428,800 bytes uncompressed", id="over-52428800-bytes"),
        pytest.param(
            _index_of_a_missing_file,
            ":3: lists https://example.com/missing.xml.gz, but {dir}/missing.xml.gz does not exist",
            id="index-lists-a-missing-file",
        ),
    ],
)
def test_validate_limits_and_index_entries(
    tmp_path: Path, cli: CliRunner, make: Callable[[Path], Path], problem: str
) -> None:
    path = make(tmp_path)
    run = cli("validate", path)
    assert run.code == 1
    assert run.out == f"{path}{problem.format(dir=tmp_path)}\n"  # that problem and no other


# --- Reading files that may come from anywhere (issue 10, point 8) ---------------------------

INDEX = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</sitemapindex>\n'
GOOD = URLSET.format(_url("https://example.com/a") + _url("https://example.com/b"))
_MEMBER = gzip.compress(GOOD.encode(), mtime=0)
_TRUNCATED = "truncated gzip: member {} ends before its CRC and length trailer"


def _index(*locs: str) -> str:
    return INDEX.format("".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs))


def _flip(data: bytes, at: int) -> bytes:
    """`data` with one bit of the byte at `at` flipped."""
    changed = bytearray(data)
    changed[at] ^= 1
    return bytes(changed)


def _messages(report: Report, root: Path) -> list[str]:
    """The problems as printed, with `root` written as {d}."""
    return [str(problem).replace(str(root), "{d}") for problem in report.problems]


@contextlib.contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Fail instead of hanging: SIGALRM interrupts a blocking open (of a FIFO, say) in this thread."""

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            _MEMBER + b"\x1f\x8bgarbage", "corrupt gzip: member 2: unknown compression method", id="garbage-member"
        ),
        pytest.param(_MEMBER + b"junk", "corrupt gzip: member 2: not a gzip member", id="trailing-garbage"),
        pytest.param(_MEMBER + bytes(8), "corrupt gzip: member 2: not a gzip member", id="trailing-zeros"),
        pytest.param(_MEMBER[:-8], _TRUNCATED.format(1), id="cut-before-trailer"),
        pytest.param(_MEMBER[:-3], _TRUNCATED.format(1), id="cut-in-trailer"),
        pytest.param(_MEMBER + _MEMBER[:-1], _TRUNCATED.format(2), id="second-member-cut"),
        pytest.param(_flip(_MEMBER, -8), "corrupt gzip: member 1: its CRC-32 does not match its data", id="bad-crc"),
        pytest.param(
            _flip(_MEMBER, -4), "corrupt gzip: member 1: its length trailer does not match its data", id="bad-length"
        ),
        pytest.param(
            _MEMBER + _flip(_MEMBER, -8), "corrupt gzip: member 2: its CRC-32 does not match its data", id="bad-crc-2"
        ),
    ],
)
def test_validate_checks_every_gzip_member_to_its_trailer(
    tmp_path: Path, cli: CliRunner, data: bytes, message: str
) -> None:
    path = tmp_path / "sitemap.xml.gz"
    path.write_bytes(data)
    run = cli("validate", path)
    assert (run.code, run.out) == (1, f"{path}: {message}\n")


def test_validate_reports_a_gzip_cut_anywhere(tmp_path: Path) -> None:
    """Every strict prefix of a one-member gzip is reported, never read as a shorter sitemap."""
    path = tmp_path / "sitemap.xml.gz"
    for cut in range(len(_MEMBER)):
        path.write_bytes(_MEMBER[:cut])
        expected = [f"{path}:1: not XML"] if cut < 2 else [f"{path}: {_TRUNCATED.format(1)}"]  # < 2: no gzip magic
        assert [str(p) for p in validate([path]).problems] == expected, cut


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(0, len(GOOD)), max_size=5), level=st.integers(0, 9))
def test_validate_reads_a_sitemap_split_into_gzip_members(tmp_path: Path, cuts: list[int], level: int) -> None:
    data = GOOD.encode()
    bounds = sorted({0, *cuts, len(data)})
    path = tmp_path / "sitemap.xml.gz"
    path.write_bytes(b"".join(gzip.compress(data[a:b], level, mtime=0) for a, b in itertools.pairwise(bounds)))
    report = validate([path])
    assert (report.problems, report.files, report.urls) == ([], 1, 2)


def _exactly(size: int) -> bytes:
    """A valid sitemap of exactly `size` bytes, padded with comments (each under libxml2's token limit)."""
    data = GOOD.encode()
    comment = b"<!--" + b"x" * (1_048_576 - 8) + b"-->\n"
    count, rest = divmod(size - len(data), len(comment))
    return data + comment * count + b" " * rest


_OLDER = "; older consumers (the 2008 protocol) may refuse it"


@pytest.mark.parametrize(
    ("size", "problems", "notes"),
    [
        pytest.param(DEFAULT_BYTES_PER_SITEMAP, [], [], id="10485760"),
        pytest.param(
            DEFAULT_BYTES_PER_SITEMAP + 1,
            [],
            [f"10,485,761 bytes uncompressed, more than 10,485,760{_OLDER}"],
            id="10485761",
        ),
        pytest.param(
            MAX_BYTES_PER_SITEMAP, [], [f"52,428,800 bytes uncompressed, more than 10,485,760{_OLDER}"], id="52428800"
        ),
        pytest.param(MAX_BYTES_PER_SITEMAP + 1, ["larger than 52,428,800 bytes uncompressed"], [], id="52428801"),
    ],
)
@pytest.mark.parametrize(
    "encode",
    [
        pytest.param(lambda data: data, id="plain"),
        pytest.param(lambda data: gzip.compress(data, 1), id="gzip"),
        pytest.param(lambda data: gzip.compress(data[:100], 1) + gzip.compress(data[100:], 1), id="two-members"),
    ],
)
def test_validate_size_limits_are_exact(
    tmp_path: Path, encode: Callable[[bytes], bytes], size: int, problems: list[str], notes: list[str]
) -> None:
    """Past 10,485,760 bytes is a note (the current protocol allows 52,428,800), past 52,428,800 a problem."""
    path = tmp_path / "sitemap.xml"
    path.write_bytes(encode(_exactly(size)))
    report = validate([path])
    assert ([p.message for p in report.problems], [n.message for n in report.notes]) == (problems, notes)
    assert report.urls == (0 if problems else 2)


def _sitemaps(directory: Path, count: int) -> Path:
    """An index of `count` sitemaps, each a file beside it that lists one URL."""
    for i in range(count):
        (directory / f"s{i}.xml").write_text(URLSET.format(_url(f"https://example.com/{i}")))
    index = directory / "sitemap.xml"
    index.write_text(_index(*(f"https://example.com/s{i}.xml" for i in range(count))))
    return index


@pytest.mark.parametrize(
    ("count", "note"),
    [pytest.param(1_000, None, id="1000"), pytest.param(1_001, f"1,001 sitemaps, more than 1,000{_OLDER}", id="1001")],
)
def test_validate_notes_an_index_past_1000_sitemaps(
    tmp_path: Path, cli: CliRunner, count: int, note: str | None
) -> None:
    index = _sitemaps(tmp_path, count)
    run = cli("validate", index)
    assert (run.code, run.out) == (0, "")
    assert (f"note: {index}: {note}\n" in run.err) if note else ("note:" not in run.err)
    assert f"{count + 1:,} files, {count:,} URLs: ok" in run.err
    assert cli("validate", "--quiet", index).err == ""  # quiet: only what is wrong


def test_validate_refuses_an_index_past_50000_sitemaps(tmp_path: Path) -> None:
    index = tmp_path / "sitemap.xml"
    # Entries on no file: each is its own problem, found without touching the disk 50,001 times.
    index.write_text(_index(*(f"https://example.com/sub/s{i}.xml" for i in range(50_001))))
    messages = [p.message for p in validate([index], base_url="https://example.com/other/").problems]
    assert messages[0] == "50,001 sitemaps; an index may list at most 50,000"  # the whole file's, then by line
    assert all("location rule" in m for m in messages[1:])  # and no note: it is past the limit, not near it
    assert len(messages) == 50_002


_PEAK_RSS = """
import resource, sys
from pathlib import Path
from sitemapgen.commands.validate import validate

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB

before = peak()
for name in sys.argv[1:]:
    assert [p.message for p in validate([Path(name)]).problems] == ["larger than 52,428,800 bytes uncompressed"]
print(peak() - before)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux only")
def test_validate_reads_no_further_than_the_limit(tmp_path: Path) -> None:
    """A 256 MiB file and a gzip bomb inflating to 256 MiB cost about the 50 MiB limit, not 256.

    In a fresh process, so the high-water mark is this test's alone. The plain
    file is sparse and the bomb compresses zeros: both are quick to make.
    """
    size = 256 * 1_048_576
    plain = tmp_path / "big.xml"
    with plain.open("wb") as f:
        f.truncate(size)
    bomb = tmp_path / "bomb.xml.gz"
    deflate = zlib.compressobj(1, wbits=31)
    bomb.write_bytes(b"".join(deflate.compress(bytes(1_048_576)) for _ in range(size // 1_048_576)) + deflate.flush())
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # this checkout's sitemapgen
    run = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS, plain, bomb], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) < size // 3, f"peak RSS grew by {int(run.stdout):,} bytes"


def _fifo(path: Path) -> None:
    os.mkfifo(path)  # no writer: a blocking open would wait forever


def _unreadable(path: Path) -> None:
    path.write_text(GOOD)
    path.chmod(0)
    try:
        path.open("rb").close()
    except PermissionError:
        return
    pytest.skip("this process reads a file whatever its mode (root, or CAP_DAC_OVERRIDE)")


@pytest.mark.parametrize("listed", [False, True], ids=["named", "listed"])
@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(_fifo, "not a file: it is a FIFO", id="fifo"),
        pytest.param(Path.mkdir, "not a file: it is a directory", id="directory"),
        pytest.param(_unreadable, "cannot read: Permission denied", id="unreadable"),
    ],
)
def test_validate_refuses_what_it_cannot_read_without_waiting(
    tmp_path: Path, make: Callable[[Path], None], message: str, listed: bool
) -> None:
    """Through the library: the CLI's own argument check refuses an unreadable named file first (exit 2)."""
    path = tmp_path / "x.xml"
    make(path)
    if make is Path.mkdir and not listed:
        pytest.skip("a directory named is bad input: test_validate_of_a_directory_is_bad_input_with_its_index")
    if listed:
        (tmp_path / "sitemap.xml").write_text(_index("https://example.com/x.xml"))
    with _within(5):
        report = validate([tmp_path / "sitemap.xml" if listed else path])
    assert [str(p) for p in report.problems] == [f"{path}: {message}"]


def test_validate_cli_says_a_listed_fifo_is_a_problem(tmp_path: Path, cli: CliRunner) -> None:
    _fifo(tmp_path / "x.xml")
    (tmp_path / "sitemap.xml").write_text(_index("https://example.com/x.xml"))
    with _within(5):
        run = cli("validate", tmp_path / "sitemap.xml")
    assert (run.code, run.out) == (1, f"{tmp_path}/x.xml: not a file: it is a FIFO\n")
    assert run.err == "1 file, 0 URLs: 1 problem\n"


def test_validate_leaves_a_failing_disk_to_the_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EIO is not the file's fault: an EnvironmentFailure (exit 3), not a problem to fix in the file."""

    def failing(f: object, limit: int) -> bytes:
        raise OSError(errno.EIO, "Input/output error")

    path = tmp_path / "sitemap.xml"
    path.write_text(GOOD)
    monkeypatch.setattr(validate_module, "read_limited", failing)
    with pytest.raises(EnvironmentFailure, match=re.escape(f"{path}: cannot read: Input/output error")):
        validate([path])


class _Requests(list[str]):
    """The paths a local HTTP server was asked for; `url` is where it listens."""

    url = ""


@pytest.fixture
def http_requests() -> Iterator[_Requests]:
    """A local HTTP server that records every request, to prove nothing was fetched."""
    requests = _Requests()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            body = b'<!ENTITY x "fetched">'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)  # quick to shut down
    thread.start()
    requests.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


_ENTITIES = "entity declarations are not allowed (nothing was expanded, read or fetched)"
_LAUGHS = '<!ENTITY l0 "lol">' + "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
_URLSET_OPEN = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>'


@pytest.mark.parametrize(
    ("prolog", "reference", "message"),
    [
        pytest.param('<!DOCTYPE urlset [<!ENTITY x SYSTEM "file://{secret}">]>', "&x;", _ENTITIES, id="file-entity"),
        pytest.param('<!DOCTYPE urlset [<!ENTITY x SYSTEM "{server}/x">]>', "&x;", _ENTITIES, id="http-entity"),
        pytest.param('<!DOCTYPE urlset [<!ENTITY % p SYSTEM "{server}/p"> %p;]>', "&x;", _ENTITIES, id="parameter"),
        pytest.param(
            '<!DOCTYPE urlset SYSTEM "{server}/x.dtd">',
            "&x;",
            "an external DTD is not allowed (it was not fetched)",
            id="external-dtd",
        ),
        pytest.param('<!DOCTYPE urlset [<!ENTITY x "a">]>', "&x;", _ENTITIES, id="internal-entity"),
        pytest.param(f"<!DOCTYPE urlset [{_LAUGHS}]>", "&l9;", _ENTITIES, id="billion-laughs"),
        pytest.param(f'<!DOCTYPE urlset [<!ENTITY a "{"x" * 100_000}">]>', "&a;" * 50_000, _ENTITIES, id="quadratic"),
    ],
)
def test_validate_refuses_entities_and_fetches_nothing(
    tmp_path: Path, cli: CliRunner, http_requests: _Requests, prolog: str, reference: str, message: str
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-CONTENT")
    path = tmp_path / "sitemap.xml"
    declared = prolog.format(secret=secret, server=http_requests.url)
    path.write_text(
        f'<?xml version="1.0"?>\n{declared}\n{_URLSET_OPEN}https://example.com/{reference}</loc></url></urlset>\n'
    )
    run = cli("validate", path)
    assert (run.code, run.out) == (1, f"{path}: {message}\n")
    assert "SECRET" not in run.out + run.err
    assert http_requests == []


_BLOG = "https://example.com/blog/"
_INDEX_LINE = "{d}/blog/sitemap.xml:3: "
_OUTSIDE = (
    _INDEX_LINE + "loc '{url}' is outside https://example.com/blog/, where this file lives (location rule); not read"
)


def _not_read(why: str) -> str:
    return _INDEX_LINE + "lists {url}, whose path " + why + "; not read"


def _leads_out(local: str) -> str:
    return (
        _INDEX_LINE
        + f"lists {{url}}, but {{d}}/blog/{local} leads to {{d}}/private/x.xml, outside {{d}}/blog; not read"
    )


def _site_with_a_secret(root: Path) -> None:
    """blog/ (where the index is) with sitemaps, symlinks and a subdirectory; private/ beside it."""
    make_tree(
        root,
        {
            "private/x.xml": "SECRET, and not XML: a problem if it were read",
            "blog/ok.xml": URLSET.format(_url(_BLOG + "a")),
            "blog/en/sitemap.xml": URLSET.format(_url(_BLOG + "en/a")),
        },
    )
    (root / "blog" / "alias.xml").symlink_to("ok.xml")
    (root / "blog" / "out.xml").symlink_to("../private/x.xml")
    (root / "blog" / "abs.xml").symlink_to(root / "private" / "x.xml")
    (root / "blog" / "sub").symlink_to("../private")


# (the index's one entry, --base-url, the problems ({d}: the site, {url}: the entry), files read)
CONFINED = [
    pytest.param(_BLOG + "ok.xml", _BLOG, [], 2, id="beside"),
    pytest.param(_BLOG + "en/sitemap.xml", _BLOG, [], 2, id="in-a-subdirectory"),
    pytest.param(_BLOG + "alias.xml", _BLOG, [], 2, id="symlink-inside"),
    pytest.param(_BLOG + "ok.xml", None, [], 2, id="no-base-url"),
    pytest.param(_BLOG + "../private/x.xml", _BLOG, [_OUTSIDE], 1, id="dot-dot"),
    pytest.param(_BLOG + "%2e%2e/private/x.xml", _BLOG, [_OUTSIDE], 1, id="encoded-dot-dot"),
    pytest.param(_BLOG + ".%2E/private/x.xml", _BLOG, [_OUTSIDE], 1, id="half-encoded-dot-dot"),
    pytest.param("https://example.com//private/x.xml", _BLOG, [_OUTSIDE], 1, id="double-slash-at-root"),
    pytest.param(
        "https://evil.example/blog/x.xml",
        _BLOG,
        [_INDEX_LINE + "loc '{url}' is on host 'evil.example'; a sitemap lists one host ('example.com'); not read"],
        1,
        id="other-host",
    ),
    pytest.param(
        "file:///etc/passwd",
        _BLOG,
        [_INDEX_LINE + "loc '{url}' is not an absolute http(s) URL; not read"],
        1,
        id="file-url",
    ),
    pytest.param(
        _BLOG + "en/../ok.xml",
        _BLOG,
        [_not_read("has a '..' segment (percent-encoded or not)")],
        1,
        id="dot-dot-inside",
    ),
    pytest.param(
        _BLOG + "./ok.xml",
        _BLOG,
        [_not_read("has a '.' segment (percent-encoded or not)")],
        1,
        id="dot",
    ),
    pytest.param(
        _BLOG + "../private/x.xml",
        None,
        [_not_read("has a '..' segment (percent-encoded or not)")],
        1,
        id="dot-dot-no-base-url",
    ),
    pytest.param(
        _BLOG + "%2e%2e",
        None,
        [_not_read("has a '..' segment (percent-encoded or not)")],
        1,
        id="encoded-dot-dot-no-base-url",
    ),
    pytest.param(
        _BLOG + "..%2Fprivate%2Fx.xml",
        _BLOG,
        [_not_read("has '/' inside a segment (percent-encoded or not)")],
        1,
        id="encoded-slash",
    ),
    pytest.param(
        _BLOG + "..%5Cprivate%5Cx.xml",
        _BLOG,
        [_not_read("has '\\\\' inside a segment (percent-encoded or not)")],
        1,
        id="backslash",
    ),
    pytest.param(
        _BLOG + "ok.xml%00",
        _BLOG,
        [_not_read("has '\\x00' inside a segment (percent-encoded or not)")],
        1,
        id="nul",
    ),
    pytest.param(
        _BLOG + "/private/x.xml",
        _BLOG,
        [_not_read("has an empty segment ('//')")],
        1,
        id="double-slash",
    ),
    pytest.param(
        _BLOG + "en/",
        _BLOG,
        [_not_read("does not name a file")],
        1,
        id="a-directory-url",
    ),
    pytest.param(
        _BLOG + "out.xml",
        _BLOG,
        [_leads_out("out.xml")],
        1,
        id="symlink-out",
    ),
    pytest.param(
        _BLOG + "abs.xml",
        None,
        [_leads_out("abs.xml")],
        1,
        id="absolute-symlink-out",
    ),
    pytest.param(
        _BLOG + "sub/x.xml",
        _BLOG,
        [_leads_out("sub/x.xml")],
        1,
        id="symlinked-directory-out",
    ),
]


@pytest.mark.parametrize(("entry", "base", "problems", "files"), CONFINED)
def test_validate_reads_only_below_the_index(
    tmp_path: Path, entry: str, base: str | None, problems: list[str], files: int
) -> None:
    """An index can make validate read a file below its own directory, and nothing else."""
    root = tmp_path.resolve() / "site"
    _site_with_a_secret(root)
    index = root / "blog" / "sitemap.xml"
    index.write_text(_index(entry.replace("&", "&amp;")))
    report = validate([index], base_url=base)
    assert _messages(report, root) == [problem.replace("{url}", entry) for problem in problems]
    assert report.files == files


def _chain(root: Path, length: int) -> list[Path]:
    """i0.xml lists i1.xml, ... which lists a sitemap: `length` indexes deep."""
    for i in range(length):
        (root / f"i{i}.xml").write_text(_index(f"https://example.com/i{i + 1}.xml"))
    (root / f"i{length}.xml").write_text(GOOD)
    return [root / "i0.xml"]


def _indexes(**files: str) -> Callable[[Path], list[Path]]:
    """A maker: each keyword a file (`a` is a.xml) listing the others named in its value, in order,
    or the sitemap GOOD if its value is empty; validate is given the files named in `named`."""

    def make(root: Path) -> list[Path]:
        named = files.pop("named", "a").split()
        for name, lists in files.items():
            target = root / f"{name}.xml"
            if lists.startswith("->"):
                target.symlink_to(f"{lists[2:]}.xml")
            else:
                target.write_text(_index(*(f"https://example.com/{n}.xml" for n in lists.split())) if lists else GOOD)
        return [root / f"{name}.xml" for name in named]

    return make


# (the files, the problems ({d}: their directory), files read, URLs counted)
READ_ONCE = [
    pytest.param(
        _indexes(a="b", b="a"),
        ["{d}/b.xml:3: lists https://example.com/a.xml, which lists this index: a cycle; not read again"],
        2,
        0,
        id="two-indexes-list-each-other",
    ),
    pytest.param(
        _indexes(a="b", b="c", c="a"),
        ["{d}/c.xml:3: lists https://example.com/a.xml, which lists this index: a cycle; not read again"],
        3,
        0,
        id="three-index-cycle",
    ),
    pytest.param(_indexes(a="a"), ["{d}/a.xml:3: lists itself; not read again"], 1, 0, id="itself"),
    pytest.param(
        _indexes(a="s s", s=""),
        ["{d}/a.xml:4: lists https://example.com/s.xml again, as {d}/a.xml:3 did; read once"],
        2,
        2,
        id="twice-in-one-index",
    ),
    pytest.param(
        _indexes(a="b c", b="s", c="s", s=""),
        ["{d}/c.xml:3: lists https://example.com/s.xml again, as {d}/b.xml:3 did; read once"],
        4,
        2,
        id="in-two-indexes",
    ),
    pytest.param(
        _indexes(a="s t", s="", t="->s"),
        ["{d}/a.xml:4: lists https://example.com/t.xml again, as {d}/a.xml:3 did; read once"],
        2,
        2,
        id="and-through-a-symlink",
    ),
    pytest.param(_indexes(a="s", s="", named="a s"), [], 2, 2, id="named-after-its-index"),
    pytest.param(_indexes(a="s", s="", named="s a"), [], 2, 2, id="named-before-its-index"),
    pytest.param(_indexes(s="", named="s s"), [], 1, 2, id="named-twice"),
    pytest.param(lambda root: _chain(root, MAX_INDEX_DEPTH), [], MAX_INDEX_DEPTH + 1, 2, id="nested-to-the-limit"),
    pytest.param(
        lambda root: _chain(root, MAX_INDEX_DEPTH + 1),
        [
            f"{{d}}/i{MAX_INDEX_DEPTH}.xml:3: lists https://example.com/i{MAX_INDEX_DEPTH + 1}.xml,"
            f" below {MAX_INDEX_DEPTH} levels of indexes; not read"
        ],
        MAX_INDEX_DEPTH + 1,
        0,
        id="nested-too-deep",
    ),
]


@pytest.mark.parametrize(("make", "problems", "files", "urls"), READ_ONCE)
def test_validate_reads_each_file_once(
    tmp_path: Path, make: Callable[[Path], list[Path]], problems: list[str], files: int, urls: int
) -> None:
    """A file is known by what it is (device and inode), not by the path or URL that led to it."""
    report = validate(make(tmp_path))
    assert _messages(report, tmp_path) == problems
    assert (report.files, report.urls) == (files, urls)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", ".", "..", "%2e", "%2E%2e", ".%2e"]), max_size=8),
)
def test_paths_resolve_as_urljoin_resolves_them(segments: list[str]) -> None:
    """Dot segments, percent-encoded or not, resolve as RFC 3986 says (urljoin: the reference).

    No empty segments ('//'): urljoin drops them where RFC 3986 keeps them (an index
    entry with one is refused anyway).
    """
    path = "/" + "/".join(segments)
    expected = urlsplit(urljoin("https://example.com/x/", unquote(path))).path
    assert "/".join(resolved(path_segments("https://example.com" + path))) == expected


@pytest.mark.forks  # run_unprivileged forks this process
@pytest.mark.parametrize("listed", [False, True], ids=["named", "listed"])
def test_validate_cli_says_an_unreadable_file_is_a_problem(tmp_path: Path, listed: bool) -> None:
    """As an unprivileged user meets file modes (nobody, when the tests run as root)."""
    path = tmp_path / "x.xml"
    path.write_text(GOOD)
    path.chmod(0)
    if listed:
        (tmp_path / "sitemap.xml").write_text(_index("https://example.com/x.xml"))
    code, output = run_unprivileged(["validate", str(tmp_path / "sitemap.xml" if listed else path)], [tmp_path])
    assert code == 1, output
    assert f"{path}: cannot read: Permission denied\n" in output
    assert "Traceback" not in output


@pytest.mark.parametrize(
    ("base", "message"),
    [
        pytest.param("example.com", "must start with http:// or https://, got 'example.com'", id="no-scheme"),
        pytest.param("https://example.com/?a=1", "must not have a query or fragment, got", id="query"),
    ],
)
def test_validate_names_the_flag_the_user_typed(tmp_path: Path, cli: CliRunner, base: str, message: str) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(GOOD)
    run = cli("validate", path, "--base-url", base)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"error: --base-url: {message}"), run.err
    assert run.err.count("\n") == 1


def test_validate_notes_lastmods_in_the_future(tmp_path: Path, cli: CliRunner) -> None:
    """A lastmod of 2099 is a W3C date the protocol takes (not a problem: exit 0), but it cannot be
    true: one note a file, at the first, with how many more; one within a day of now is no note."""
    tomorrow = (datetime.now(UTC) + timedelta(hours=20)).isoformat(timespec="seconds")
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(
        URLSET.format(
            _url("https://example.com/a", "<lastmod>2020-01-01</lastmod>")
            + _url("https://example.com/b", "<lastmod>2099-01-01</lastmod>")
            + _url("https://example.com/c", f"<lastmod>{tomorrow}</lastmod>")
            + _url("https://example.com/d", "<lastmod>2098-05-05T10:00:00+14:00</lastmod>")
        )
    )
    index = tmp_path / "sitemap.xml"
    index.write_text(_index("https://example.com/s.xml").replace("</loc>", "</loc><lastmod>2100-01-01</lastmod>"))
    run = cli("validate", index)
    assert (run.code, run.out) == (0, "")
    assert run.err.splitlines() == [
        f"note: {index}:3: lastmod 2100-01-01 is in the future; search engines ignore a lastmod that cannot be true",
        f"note: {sitemap}:4: lastmod 2099-01-01 is in the future (and 1 more in this file); search engines ignore"
        " a lastmod that cannot be true",
        "2 files, 4 URLs: ok",
    ]
    assert cli("validate", "--quiet", index).err == ""


def test_a_host_is_one_host_in_any_case_on_mkdocs_own_sitemap(tmp_path: Path, cli: CliRunner) -> None:
    """MkDocs writes its sitemap's host as `site_url` spells it; `--base-url` may spell it in other
    capitals (RFC 3986 3.2.2: the same host), and a sitemap may mix the two."""
    pytest.importorskip("mkdocs")
    site_url, capitals = "https://python-markdown.github.io/docs/", "https://Python-Markdown.GitHub.io/docs/"
    files = {"mkdocs.yml": f"site_name: Case\nsite_url: {site_url}\n", "docs/index.md": "# Case\n"}
    make_tree(tmp_path, {**files, "docs/guide.md": "# Guide\n"})
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stderr
    sitemap = tmp_path / "site" / "sitemap.xml"
    assert f"<loc>{site_url}guide/</loc>" in sitemap.read_text(encoding="utf-8")
    run = cli("validate", sitemap, "--base-url", capitals)
    assert (run.code, run.out) == (0, ""), run.out
    mixed = sitemap.read_text(encoding="utf-8").replace(f"<loc>{site_url}guide/", f"<loc>{capitals}guide/")
    sitemap.write_text(mixed, encoding="utf-8")
    run = cli("validate", sitemap, "--base-url", site_url)
    assert (run.code, run.out) == (0, ""), run.out


def test_validate_of_a_directory_is_bad_input_with_its_index(tmp_path: Path, cli: CliRunner) -> None:
    """`validate DIR` is a mistake of the command line (exit 2, as a missing file is), with the
    index a build wrote there to name instead; on the output of a real generator (MkDocs)."""
    site = tmp_path / "site"
    shutil.copytree(Path(__file__).parents[1] / "realsites" / "mkdocs-material" / "site", site)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("build", site, "--base-url", "https://example.org/").code == 0  # the fixture's site_url
    run = cli("validate", site)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: {site}: a directory, not a sitemap (did you mean {site}/sitemap.xml?)\n"
    run = cli("validate", empty)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"error: {empty}: a directory, not a sitemap (give a sitemap or an index in it")


def test_check_of_a_docroot_that_is_not_there_is_bad_input(tmp_path: Path, cli: CliRunner) -> None:
    """As build, list and explain say it: exit 2, not "missing" (exit 1, a stale site)."""
    site = tmp_path / "site"
    shutil.copytree(Path(__file__).parents[1] / "realsites" / "mkdocs-material" / "site", site)
    for command in ("build", "check", "list", "explain"):
        run = cli(command, tmp_path / "sitee", "--base-url", BASE, *(["index.html"] if command == "explain" else []))
        assert (run.code, run.out) == (2, ""), command
        assert run.err == f"error: docroot not found: {tmp_path}/sitee\n", command
