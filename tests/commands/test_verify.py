"""`verify` against real HTTP servers: a site `build` wrote, served by the tests' own
fault-injecting server (`tests.faultserver`), each problem a crawler meets made to happen there
once, and a healthy site that must give exit 0 and no problem; the same site served by
`python -m http.server`."""

from __future__ import annotations

import contextlib
import gzip
import json
import shutil
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitemapgen.output.published import read_published

from ..conftest import CliRunner, Run
from ..faultserver import FaultServer, Route, serving
from ..helpers import error_line, static_server


def _page(title: str, *tags: str) -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title>{''.join(tags)}</head><body>{title}</body></html>\n"


#: The site, by file: each page has its own title; en/ and de/ name each other (hreflang).
def _files(base: str) -> dict[str, str]:
    cluster = (
        f'<link rel="alternate" hreflang="en" href="{base}en/">',
        f'<link rel="alternate" hreflang="de" href="{base}de/">',
    )
    return {
        "index.html": _page("Home"),
        "about.html": _page("About"),
        "contact.html": _page("Contact"),
        "docs/index.html": _page("Docs"),
        "docs/guide.html": _page("Guide", f'<link rel="canonical" href="{base}docs/guide.html">'),
        "en/index.html": _page("English", *cluster),
        "de/index.html": _page("Deutsch", *cluster),
    }


#: The URL paths the build lists for `_files`.
LISTED = ["/", "/about.html", "/contact.html", "/de/", "/docs/", "/docs/guide.html", "/en/"]


@dataclass
class Site:
    server: FaultServer
    docroot: Path
    cli: CliRunner

    @property
    def url(self) -> str:
        return self.server.url

    def verify(self, *args: str | Path) -> Run:
        return self.cli("verify", *args)

    def report(self, *args: str | Path) -> tuple[int, dict[str, object]]:
        run = self.cli("verify", *args, "--json")
        return run.code, json.loads(run.out)

    def kinds(self, *args: str | Path) -> dict[str, list[str]]:
        """{kind: [url, ...]} of the problems `verify URL ARGS` finds."""
        code, report = self.report(self.url, *args)
        found: dict[str, list[str]] = {}
        for problem in report["problems"]:  # type: ignore[attr-defined]
            found.setdefault(problem["kind"], []).append(problem["url"].removeprefix(self.url[:-1]))
        assert code == (1 if found else 0), report
        return found

    def rebuild(self, *args: str) -> None:
        run = self.cli("build", self.docroot, "--base-url", self.url, "--robots-txt", "create", "--quiet", *args)
        assert run.code == 0, run.err

    def chunk(self) -> str:
        return "/sitemap-1.xml.gz"


#: Runs `sitemapgen ARGS` (its stdout as ours) and prints its exit code and peak RSS (KiB) on
#: stderr. The tests' own process is large, and a child's peak as the kernel counts it is at
#: least the size of the process it was forked from: forked from this small one, it is its own.
_LAUNCH = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "sitemapgen", *sys.argv[1:]])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, file=sys.stderr)
"""


def _measured(*args: str) -> tuple[int, dict[str, object], int]:
    """`sitemapgen verify ARGS --json` as a process of its own: its exit code, its report, and
    its peak resident memory in bytes (the kernel's count: what the machine gave it)."""
    import subprocess
    import sys

    argv = [sys.executable, "-c", _LAUNCH, "verify", *args, "--json"]
    done = subprocess.run(argv, capture_output=True, check=True)
    code, kib = done.stderr.split()[-2:]
    return int(code), json.loads(done.stdout), int(kib) * 1024


#: What `verify` itself needs, with Python, lxml and urllib3 loaded (about 50 MiB on Python
#: 3.11 to 3.13), and a margin: a first run on a new venv compiles their bytecode too.
BASELINE = 96 << 20


@contextlib.contextmanager
def _site(tmp_path: Path, cli: CliRunner, files: dict[str, str] | None = None) -> Iterator[Site]:
    docroot = tmp_path / "site"
    docroot.mkdir()
    with serving(docroot=docroot) as server:
        for name, text in (files or _files(server.url)).items():
            (docroot / name).parent.mkdir(parents=True, exist_ok=True)
            (docroot / name).write_text(text, encoding="utf-8")
        site = Site(server, docroot, cli)
        site.rebuild()
        yield site


@pytest.fixture
def site(tmp_path: Path, cli: CliRunner) -> Iterator[Site]:
    with _site(tmp_path, cli) as made:
        yield made


def test_a_healthy_site_is_exit_0_and_no_problem(site: Site) -> None:
    code, report = site.report(site.url)
    assert code == 0
    assert report["problems"] == []
    assert (report["listed"], report["checked"], report["sitemaps"]) == (len(LISTED), len(LISTED), 2)
    paths = site.server.paths()
    assert paths[:3] == ["/robots.txt", "/sitemap.xml", site.chunk()]
    assert sorted(paths[3:]) == LISTED  # one GET a page, none twice
    for seen in site.server.seen:
        assert seen.method == "GET"
        assert seen.headers["user-agent"].startswith("sitemapgen/")
        assert "cookie" not in seen.headers


def test_the_summary_and_the_closing_line(site: Site) -> None:
    site.server.set("/about.html", Route(404))
    run = site.verify(site.url)
    assert run.code == 1
    assert run.out.splitlines() == [
        "page-not-found (1): a listed URL answers 404 or 410",
        f"  {site.url}about.html: answers HTTP 404",
    ]
    assert run.err.splitlines()[-1] == "sitemapgen: read 2 sitemaps listing 7 URLs, fetched 7 pages: 1 problem"


def test_a_site_served_by_python_http_server(tmp_path: Path, cli: CliRunner) -> None:
    docroot = tmp_path / "site"
    docroot.mkdir()
    with static_server(docroot) as url:
        for name, text in _files(url).items():
            (docroot / name).parent.mkdir(parents=True, exist_ok=True)
            (docroot / name).write_text(text, encoding="utf-8")
        assert cli("build", docroot, "--base-url", url, "--robots-txt", "create", "--quiet").code == 0
        run = cli("verify", url, "--json")
    assert run.code == 0, run.out
    assert json.loads(run.out)["checked"] == len(LISTED)


# --- robots.txt -----------------------------------------------------------------------------------


def test_robots_txt_answering_5xx_stops_the_crawler(site: Site) -> None:
    site.server.set("/robots.txt", Route(503, {"Retry-After": "0"}))
    code, report = site.report(site.url)
    assert code == 1
    assert [(p["kind"], p["url"]) for p in report["problems"]] == [("robots-unreachable", site.url + "robots.txt")]  # type: ignore[attr-defined]
    assert report["problems"][0]["message"] == (  # type: ignore[index]
        "answers HTTP 503: a crawler takes the whole site as disallowed and reads nothing more (RFC 9309, 2.3.1.4)"
    )
    assert [n["kind"] for n in report["notes"]] == ["sitemap-guessed", "not-crawled"]  # type: ignore[attr-defined]
    assert site.server.paths().count("/robots.txt") == 3  # tried three times, as a 503 asks
    assert not set(site.server.paths()) & set(LISTED)  # no page read


def test_robots_txt_that_never_answers_is_unreachable_too(site: Site) -> None:
    site.server.set("/robots.txt", Route(behaviour="silent"))
    code, report = site.report(site.url, "--timeout", "0.5")
    assert code == 1
    problems: list[dict[str, str]] = report["problems"]  # type: ignore[assignment]
    [problem] = problems
    assert problem["kind"] == "robots-unreachable"
    assert problem["message"].startswith("no answer within 0.5 s: a crawler takes the whole site as disallowed")


def test_robots_txt_answering_404_allows_everything(site: Site) -> None:
    (site.docroot / "robots.txt").unlink()
    code, report = site.report(site.url)
    assert code == 0
    notes = {n["kind"]: n["message"] for n in report["notes"]}  # type: ignore[attr-defined]
    assert notes["robots-no-sitemap-line"].endswith(f"add the line 'Sitemap: {site.url}sitemap.xml'")
    assert "sitemap-guessed" in notes


def test_robots_txt_redirects_are_followed_to_five_hops(site: Site) -> None:
    text = (site.docroot / "robots.txt").read_text()
    site.server.set("/robots.txt", Route(301, {"Location": "/r1"}))
    for hop in range(1, 5):
        site.server.set(f"/r{hop}", Route(302, {"Location": f"/r{hop + 1}"}))
    site.server.set("/r5", Route(200, {"Content-Type": "text/plain"}, text.encode()))
    assert site.kinds() == {}
    site.server.set("/r5", Route(302, {"Location": "/robots.txt"}))  # a loop: six hops and counting
    code, report = site.report(site.url)
    assert code == 0
    assert any("more than 5 redirects" in n["message"] for n in report["notes"])  # type: ignore[attr-defined]
    assert site.server.paths().count("/r5") == 2  # once a run: the loop was left


def test_a_page_robots_txt_disallows_is_never_fetched(site: Site) -> None:
    (site.docroot / "robots.txt").write_text(
        "User-agent: *\nDisallow: /contact\n\nUser-agent: googlebot\nDisallow: /about\n\n"
        f"Sitemap: {site.url}sitemap.xml\n"
    )
    assert site.kinds() == {"page-blocked": ["/about.html"]}  # Googlebot's group, not *'s
    assert "/about.html" not in site.server.paths()
    assert site.report(site.url)[1]["checked"] == len(LISTED) - 1  # fetched: not the page disallowed
    assert site.kinds("--crawler", "bingbot") == {"page-blocked": ["/contact.html"]}


# --- sitemaps -------------------------------------------------------------------------------------

SPA = b"<!DOCTYPE html><html><head><title>App</title></head><body><div id=root></div></body></html>"


@pytest.mark.parametrize(
    ("path", "route", "kind"),
    [
        pytest.param("/sitemap.xml", Route(200, {"Content-Type": "text/html"}, SPA), "sitemap-html", id="spa-fallback"),
        pytest.param(
            "/sitemap-1.xml.gz", Route(200, {"Content-Type": "text/html"}, SPA), "sitemap-html", id="soft-404"
        ),
        pytest.param("/sitemap-1.xml.gz", Route(404), "sitemap-not-found", id="chunk-not-deployed"),
        pytest.param("/sitemap.xml", Route(500), "sitemap-unreachable", id="500"),
        pytest.param("/sitemap-1.xml.gz", Route(behaviour="reset"), "sitemap-unreachable", id="reset"),
        pytest.param("/sitemap-1.xml.gz", Route(403), "sitemap-status", id="403"),
        pytest.param(
            "/sitemap-1.xml.gz", Route(200, {}, b"\x1f\x8b\x08\x00garbage"), "sitemap-unreadable", id="bad-gzip"
        ),
    ],
)
def test_a_sitemap_a_crawler_cannot_read(site: Site, path: str, route: Route, kind: str) -> None:
    site.server.set(path, route)
    assert site.kinds() == {kind: [path]}


def test_a_sitemap_redirect_is_reported_with_its_target_and_not_followed(site: Site) -> None:
    site.server.set("/sitemap.xml", Route(301, {"Location": "/moved/sitemap.xml"}))
    code, report = site.report(site.url)
    assert code == 1
    problem = report["problems"][0]  # type: ignore[index]
    assert (problem["kind"], problem["url"]) == ("sitemap-redirect", site.url + "sitemap.xml")
    assert f"a redirect to {site.url}moved/sitemap.xml" in problem["message"]
    assert "/moved/sitemap.xml" not in site.server.paths()


def test_gzip_as_served_either_way(site: Site) -> None:
    """A .xml.gz sent with Content-Encoding: gzip, and an index sent gzip-coded: both read."""
    chunk = (site.docroot / "sitemap-1.xml.gz").read_bytes()
    site.server.set(site.chunk(), Route(200, {"Content-Encoding": "gzip", "Content-Type": "application/xml"}, chunk))
    index = gzip.compress((site.docroot / "sitemap.xml").read_bytes())
    site.server.set("/sitemap.xml", Route(200, {"Content-Encoding": "gzip", "Content-Type": "application/xml"}, index))
    assert site.kinds() == {}


def test_what_validate_finds_is_said_of_the_sitemaps_url(site: Site) -> None:
    bad = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        b"<url><loc>" + site.url.encode() + b"about.html</loc><lastmod>yesterday</lastmod></url>\n</urlset>\n"
    )
    site.server.set(site.chunk(), Route(200, {"Content-Type": "application/xml"}, gzip.compress(bad)))
    code, report = site.report(site.url)
    problems = [(p["kind"], p["url"], p["message"]) for p in report["problems"]]  # type: ignore[attr-defined]
    assert code == 1
    assert problems == [
        ("sitemap-invalid", site.url + "sitemap-1.xml.gz", problems[0][2]),
    ]
    assert problems[0][2].startswith("line 3: ")
    assert "lastmod" in problems[0][2]


def test_a_url_on_another_host_is_a_problem_and_never_fetched(site: Site) -> None:
    with serving() as elsewhere:
        listed = f"<url><loc>{elsewhere.url}secret</loc></url><url><loc>{site.url}about.html</loc></url>"
        xml = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{listed}</urlset>'
        site.server.set(site.chunk(), Route(200, {}, gzip.compress(xml.encode())))
        found = site.kinds()
        assert elsewhere.seen == []
    assert found == {"off-site": [site.chunk()]}


def test_a_gzip_bomb_costs_the_cap_not_its_size(site: Site) -> None:
    """1 GiB of zeros in 1 MB: inflated to the protocol's 50 MiB and one byte, no further, as a
    chunk (its own gzip) and as a chunk sent with HTTP's content coding."""
    bomb = zlib.compress(bytes(1 << 30), 9, wbits=31)
    for headers in ({"Content-Type": "application/gzip"}, {"Content-Encoding": "gzip"}):
        site.server.set(site.chunk(), Route(200, headers, bomb))
        code, report, peak = _measured(site.url)
        assert code == 1
        problems: list[dict[str, str]] = report["problems"]  # type: ignore[assignment]
        assert [(p["kind"], p["url"]) for p in problems] == [("sitemap-unreadable", site.url + site.chunk()[1:])]
        assert peak < BASELINE + 2 * 52_428_800  # the cap, and a little: never the GiB


def test_an_endless_sitemap_is_read_to_the_cap(site: Site) -> None:
    site.server.set("/sitemap.xml", Route(behaviour="endless", body=b"<" * 65_536))
    code, report, peak = _measured(site.url)
    assert peak < BASELINE + 2 * 52_428_800  # the cap read, once: the body is never joined past it
    assert code == 1
    problem = report["problems"][0]  # type: ignore[index]
    assert problem["kind"] == "sitemap-unreadable"
    assert "larger than 52,428,800 bytes" in problem["message"]


def test_no_sitemap_at_all(site: Site) -> None:
    (site.docroot / "robots.txt").unlink()
    (site.docroot / "sitemap.xml").unlink()
    assert site.kinds() == {"no-sitemap": ["/sitemap.xml"]}


def test_a_sitemap_named_that_robots_txt_does_not_name(site: Site) -> None:
    (site.docroot / "robots.txt").write_text("User-agent: *\nDisallow:\n")
    code, report = site.report(site.url + "sitemap.xml")
    assert code == 0
    assert [n["kind"] for n in report["notes"]] == ["robots-no-sitemap-line"]  # type: ignore[attr-defined]


def test_a_text_sitemap(site: Site) -> None:
    lines = f"{site.url}about.html\n{site.url}docs/\n\nhttps://example.org/elsewhere\n{site.url}gone.html\n"
    site.server.set("/sitemap.txt", Route(200, {"Content-Type": "text/plain"}, lines.encode()))
    code, report = site.report(site.url + "sitemap.txt")
    found = sorted((p["kind"], p["url"]) for p in report["problems"])  # type: ignore[attr-defined]
    assert code == 1
    assert found == [("off-site", site.url + "sitemap.txt"), ("page-not-found", site.url + "gone.html")]
    assert report["checked"] == 3
    assert "https://example.org/elsewhere" in report["problems"][0]["message"]  # type: ignore[index]


# --- pages ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "kind"),
    [
        pytest.param(Route(404), "page-not-found", id="404"),
        pytest.param(Route(410), "page-not-found", id="410"),
        pytest.param(Route(301, {"Location": "/contact.html"}), "page-redirect", id="redirect"),
        pytest.param(Route(500), "page-unreachable", id="500"),
        pytest.param(Route(behaviour="reset"), "page-unreachable", id="reset"),
        pytest.param(Route(401), "page-status", id="401"),
        pytest.param(Route(200, {"X-Robots-Tag": "noindex"}, SPA), "page-noindex", id="x-robots-tag"),
        pytest.param(Route(200, {"X-Robots-Tag": "googlebot: noindex"}, SPA), "page-noindex", id="googlebot-prefix"),
        pytest.param(
            Route(200, [("X-Robots-Tag", "max-snippet: 20"), ("X-Robots-Tag", "NONE")], SPA),
            "page-noindex",
            id="second-header",
        ),
        pytest.param(Route(200, {}, _page("A", '<meta name="robots" content="noindex">').encode()), "page-noindex"),
        pytest.param(
            Route(200, {}, _page("A", '<meta http-equiv="refresh" content="0; url=/">').encode()), "page-refresh"
        ),
        pytest.param(
            Route(200, {}, _page("A", '<link rel="canonical" href="/contact.html">').encode()), "page-canonical"
        ),
        pytest.param(
            Route(200, {}, _page("A", '<link rel="canonical" href="https://example.org/">').encode()),
            "page-canonical",
            id="canonical-other-host",
        ),
    ],
)
def test_a_page_a_crawler_would_report(site: Site, route: Route, kind: str) -> None:
    site.server.set("/about.html", route)
    assert site.kinds() == {kind: ["/about.html"]}


@pytest.mark.parametrize(
    "route",
    [
        pytest.param(Route(200, {"X-Robots-Tag": "bingbot: noindex"}, SPA), id="another-crawlers-noindex"),
        pytest.param(Route(200, {"X-Robots-Tag": "nofollow"}, SPA), id="nofollow"),
        pytest.param(
            Route(200, {}, _page("A", '<link rel="canonical" href="/nowhere.html">').encode()), id="canonical-404"
        ),
        pytest.param(Route(200, {"Content-Type": "application/pdf"}, b"%PDF-1.7 noindex"), id="a-document"),
        pytest.param(Route(200, {"Content-Encoding": "gzip"}, gzip.compress(_page("A").encode())), id="gzip-coded"),
        pytest.param(Route(behaviour="endless", body=b"<p>" * 1000), id="endless-without-a-head"),
    ],
)
def test_a_page_a_crawler_would_not_report(site: Site, route: Route) -> None:
    site.server.set("/about.html", route)
    assert site.kinds() == {}


def test_the_crawler_chosen_is_the_one_whose_noindex_counts(site: Site) -> None:
    site.server.set("/about.html", Route(200, {"X-Robots-Tag": "bingbot: noindex"}, SPA))
    assert site.kinds("--crawler", "bingbot") == {"page-noindex": ["/about.html"]}


def test_503_with_retry_after_is_honoured_and_tried_again(site: Site) -> None:
    page = (site.docroot / "about.html").read_bytes()
    site.server.set("/about.html", Route(sequence=[Route(503, {"Retry-After": "1"}), Route(200, {}, page)]))
    assert site.kinds() == {}
    assert site.server.paths().count("/about.html") == 2
    site.server.set("/about.html", Route(429, {"Retry-After": "0"}))  # for good: three tries, then a problem
    assert site.kinds() == {"page-unreachable": ["/about.html"]}
    assert site.server.paths().count("/about.html") == 2 + 3


def test_a_lastmod_after_the_pages_last_modified_is_a_note_not_a_problem(site: Site) -> None:
    page = (site.docroot / "about.html").read_bytes()
    site.server.set("/about.html", Route(200, {"Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"}, page))
    code, report = site.report(site.url)
    assert code == 0
    assert [n["url"] for n in report["notes"] if n["kind"] == "lastmod-after-served"] == [site.url + "about.html"]  # type: ignore[attr-defined]


def test_an_hreflang_alternate_that_does_not_name_the_page_back(site: Site) -> None:
    site.server.set("/de/", Route(200, {}, _page("Deutsch").encode()))
    assert site.kinds() == {"hreflang": ["/en/"]}
    site.server.set("/de/", Route(404))
    assert site.kinds() == {"hreflang": ["/en/"], "page-not-found": ["/de/"]}


def test_an_alternate_not_listed_is_fetched_once(site: Site) -> None:
    files = _files(site.url)
    (site.docroot / "en" / "index.html").write_text(
        files["en/index.html"].replace("</head>", f'<link rel="alternate" hreflang="fr" href="{site.url}fr/"></head>')
    )
    assert site.kinds() == {"hreflang": ["/en/"]}  # fr/ answers 404
    assert site.server.paths().count("/fr/") == 1


# --- hostile servers: each costs the timeout or a cap, never a hang or the memory of its answer ---


@pytest.mark.parametrize(
    ("route", "words"),
    [
        pytest.param(Route(behaviour="silent"), "no answer within 0.5 s", id="never-answers"),
        pytest.param(Route(behaviour="drip-headers"), "within 0.5 s", id="endless-headers"),
        pytest.param(
            Route(200, {}, b"<html><head>" + b" " * 100, behaviour="drip", delay=0.05), "in full within 0.5 s"
        ),
        pytest.param(Route(behaviour="huge-header"), "a header line longer than 65,536 bytes", id="huge-header"),
        pytest.param(Route(behaviour="reset"), "connection reset", id="reset"),
    ],
)
def test_a_hostile_page_is_one_problem_within_the_timeout(site: Site, route: Route, words: str) -> None:
    site.server.set("/about.html", route)
    code, report, peak = _measured(site.url, "--timeout", "0.5")
    assert peak < BASELINE  # a head's worth: not the 1 MiB header, nor an endless body
    assert code == 1
    problems: list[dict[str, str]] = report["problems"]  # type: ignore[assignment]
    [problem] = problems
    assert (problem["kind"], problem["url"]) == ("page-unreachable", site.url + "about.html")
    assert words in problem["message"]


# --- a good citizen ---------------------------------------------------------------------------


def test_concurrency_bounds_the_requests_in_flight_and_connections_are_kept(site: Site) -> None:
    for path in LISTED:
        site.server.set(path, Route(200, {}, _page(path).encode(), delay=0.1))
    assert site.kinds("--concurrency", "2") == {}
    assert site.server.peak_in_flight == 2
    assert site.server.connections <= 3  # two kept alive, robots.txt's may have been one more


def test_a_sample_is_the_same_for_the_same_sitemaps(tmp_path: Path, cli: CliRunner) -> None:
    files = {f"p{n:03}.html": _page(f"Page {n}") for n in range(40)}
    with _site(tmp_path, cli, files) as site:
        code, report = site.report(site.url, "--sample", "10")
        again = site.report(site.url, "--sample", "10")[1]
        pages = [path for path in site.server.paths() if path.startswith("/p")]  # the sitemaps' chunks vary
        first, second = sorted(pages[:10]), sorted(pages[10:])
        everything = site.report(site.url, "--sample", "10", "--all")[1]
    assert code == 0
    assert (report["listed"], report["checked"], again["checked"], everything["checked"]) == (40, 10, 10, 40)
    assert first == second
    assert [n["kind"] for n in report["notes"]] == ["sampled"]  # type: ignore[attr-defined]


# --- against the build ----------------------------------------------------------------------------


def test_against_the_build_names_what_the_deploy_missed_or_a_cdn_kept(site: Site, tmp_path: Path) -> None:
    out = tmp_path / "deployed"
    shutil.copytree(site.docroot, out)
    assert site.verify(site.url, "--against", out).code == 0
    old_index = (site.docroot / "sitemap.xml").read_bytes()
    (out / "contact.html").unlink()
    assert (
        site.cli("build", out, "--base-url", site.url, "--max-urls-per-sitemap", "3", "--quiet").code == 0
    )  # more chunks
    found = site.kinds("--against", out)
    chunks = read_published(out)
    assert len(chunks) > 1
    assert "/sitemap.xml" in found["deploy-differs"]  # the old index, still served
    assert sorted(found["deploy-missing"]) == sorted(f"/{name}" for name in chunks if name != "sitemap-1.xml.gz")
    assert (site.docroot / "sitemap.xml").read_bytes() == old_index


def test_against_the_indexnow_key_file_the_build_wrote(site: Site, tmp_path: Path) -> None:
    out = tmp_path / "deployed"
    shutil.copytree(site.docroot, out)
    assert site.cli("build", out, "--base-url", site.url, "--indexnow-key", "abcdef0123456789", "--quiet").code == 0
    shutil.copy(out / "sitemap.xml", site.docroot / "sitemap.xml")
    shutil.copy(out / "sitemap-1.xml.gz", site.docroot / "sitemap-1.xml.gz")
    assert site.kinds("--against", out) == {"indexnow-key": ["/abcdef0123456789.txt"]}
    shutil.copy(out / "abcdef0123456789.txt", site.docroot)
    assert site.kinds("--against", out) == {}


# --- exit codes -------------------------------------------------------------------------------


def test_nothing_to_read_at_all_is_exit_3_in_one_line(cli: CliRunner) -> None:
    with serving() as server:
        url = server.url
    run = cli("verify", url)
    assert run.code == 3
    assert (
        error_line(run.err) == f"{url}robots.txt: cannot connect: Connection refused: nothing of the site could be read"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["ftp://example.com/"], "URL: must be an http:// or https:// URL, got 'ftp://example.com/'"),
        pytest.param(["example.com"], "URL: must be an http:// or https:// URL, got 'example.com'"),
        pytest.param(["https://example.com/", "--sample", "0"], "--sample: must be 1 or more, got 0"),
        pytest.param(["https://example.com/", "--concurrency", "0"], "--concurrency: must be 1 to 64, got 0"),
        pytest.param(
            ["https://example.com/", "--timeout", "0"], "--timeout: must be more than 0 and at most 3600 seconds, got 0"
        ),
        pytest.param(
            ["https://example.com/", "--crawler", "a b"],
            "--crawler: must be a user-agent token such as Googlebot, got 'a b'",
        ),
    ],
)
def test_bad_input_is_exit_2_in_one_line_before_any_request(cli: CliRunner, args: list[str], message: str) -> None:
    run = cli("verify", *args)
    assert run.code == 2
    assert error_line(run.err) == message


def test_an_against_that_is_not_a_build_is_exit_2(site: Site, tmp_path: Path) -> None:
    run = site.verify(site.url, "--against", tmp_path / "nowhere")
    assert (run.code, error_line(run.err)) == (
        2,
        f"{tmp_path / 'nowhere'}: not a directory (--against takes the build's output directory)",
    )
    (tmp_path / "empty").mkdir()
    run = site.verify(site.url, "--against", tmp_path / "empty")
    assert run.code == 2
    assert site.server.seen == []


def test_github_annotations_and_the_job_summary(site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    site.server.set("/about.html", Route(404))
    run = site.verify(site.url)
    assert run.code == 1
    errors = [line for line in run.out.splitlines() if line.startswith("::error")]
    assert errors == [f"::error title=sitemapgen verify: page-not-found::{site.url}about.html: answers HTTP 404"]
    text = summary.read_text()
    assert "| problems | 1 |" in text
    assert "| page-not-found: a listed URL answers 404 or 410 | 1 |" in text


def test_every_kind_is_documented_in_its_order() -> None:
    import re

    from sitemapgen.live.report import NOTES, PROBLEMS

    text = (Path(__file__).parents[2] / "docs" / "verify.md").read_text(encoding="utf-8")
    assert re.findall(r"^\| `([a-z-]+)` \|", text, re.MULTILINE) == [*PROBLEMS, *NOTES]


@pytest.mark.parametrize(("signum", "code", "said"), [(2, 130, "interrupted"), (15, 143, "terminated")])
def test_a_signal_ends_the_requests_in_flight_not_after_their_timeout(signum: int, code: int, said: str) -> None:
    """Ctrl-C (or SIGTERM) while every page holds its request open: the run stops at once,
    one word on stderr, no traceback; not after the 60 s each request may take."""
    import subprocess
    import sys
    import time

    with serving() as server:
        urls = "".join(f"<url><loc>{server.url}p{n}.html</loc></url>" for n in range(20))
        xml = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
        server.set("/sitemap.xml", Route(200, {}, xml.encode()))
        for n in range(20):
            server.set(f"/p{n}.html", Route(behaviour="silent"))
        argv = [sys.executable, "-m", "sitemapgen", "verify", server.url + "sitemap.xml", "--timeout", "60"]
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
            while sum(path.startswith("/p") for path in server.paths()) < 4:  # four requests in flight
                time.sleep(0.02)
            child.send_signal(signum)
            out, err = child.communicate(timeout=30)  # raises if the run waits for its requests
    assert (child.returncode, out, err) == (code, b"", f"{said}\n".encode())
