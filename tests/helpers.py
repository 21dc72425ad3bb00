"""What the tests share: docroots from dicts, reading output back, a real static server."""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import select
import shutil
import socket
import sqlite3
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.parse
import urllib.request
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import bs4
import pytest
from lxml import etree

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}


Files = Mapping[str, str | bytes] | Mapping[bytes, str | bytes] | Mapping[str | bytes, str | bytes]


def c_compiler() -> str | None:
    """The C compiler this Python builds extensions with (sysconfig's CC), if it is here: where it
    is, the install builds the compiled head scanner (sitemapgen/pages/_scan.c)."""
    command = (sysconfig.get_config_var("CC") or "cc").split()
    return shutil.which(command[0]) if command else None


def make_tree(root: Path, files: Files) -> Path:
    """Create `files` ({relative path: content}) under `root`; bytes paths keep raw names."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = os.path.join(os.fsencode(root), rel) if isinstance(rel, bytes) else os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        with open(path, "wb") as f:
            f.write(data)
    return root


def html(title: str = "page") -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{title}</body></html>\n"


@cache
def schema(name: str) -> etree.XMLSchema:
    """One of the XSDs shipped in the package (not ../shared: a fresh clone has only the repo)."""
    path = resources.files("sitemapgen") / "schemas" / name
    with resources.as_file(path) as p:
        return etree.XMLSchema(etree.parse(str(p)))


def read_xml(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def parse_valid(path: Path, *xsds: str) -> etree._Element:
    """Parse a sitemap or index file and assert it is valid against each of `xsds`."""
    data = read_xml(path)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>'), data[:60]
    root = etree.fromstring(data)
    for xsd in xsds:
        validator = schema(xsd)
        assert validator.validate(root), f"{path.name} against {xsd}: {validator.error_log}"
    return root


@dataclass(frozen=True)
class Url:
    loc: str
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    alternates: tuple[tuple[str, str], ...] = ()


def _text(el: etree._Element, tag: str) -> str | None:
    found = el.find(f"sm:{tag}", NS)
    return None if found is None else found.text


_SM = "{" + NS["sm"] + "}"
_XHTML_LINK = "{" + NS["xhtml"] + "}link"


def _url_of(element: etree._Element) -> Url:
    """One ``<url>``, its children read in one pass: fast enough for 50,000-entry sitemaps."""
    fields: dict[str, str | None] = {}
    alternates: list[tuple[str, str]] = []
    for child in element:
        if child.tag == _XHTML_LINK:
            alternates.append((child.get("hreflang") or "", child.get("href") or ""))
        elif isinstance(child.tag, str):  # not a comment
            fields.setdefault(child.tag.removeprefix(_SM), child.text)
    return Url(
        fields.get("loc") or "",
        fields.get("lastmod"),
        fields.get("changefreq"),
        fields.get("priority"),
        tuple(alternates),
    )


def read_chunk(path: Path) -> list[Url]:
    """A sitemap's entries; valid against the extensions wrapper, and sitemap.xsd alone if it has none."""
    data = read_xml(path)
    plain = b"<xhtml:link" not in data
    root = parse_valid(path, "sitemap-with-extensions.xsd", *(["sitemap.xsd"] if plain else []))
    return [_url_of(u) for u in root.iterchildren(_SM + "url")]


def read_index(path: Path) -> list[tuple[str, str | None]]:
    root = parse_valid(path, "siteindex.xsd")
    return [(_text(s, "loc") or "", _text(s, "lastmod")) for s in root.findall("sm:sitemap", NS)]


def index_paths(out: Path) -> list[Path]:
    """The main index and every extra one, in order."""
    paths = [out / "sitemap.xml"]
    n = 2
    while (out / f"sitemap-index-{n}.xml").exists():
        paths.append(out / f"sitemap-index-{n}.xml")
        n += 1
    return paths


def published(out: Path, base_url: str) -> list[Url]:
    """Every URL the published indexes reach, validating each file on the way."""
    urls: list[Url] = []
    for index in index_paths(out):
        for loc, _ in read_index(index):
            assert loc.startswith(base_url), loc
            urls.extend(read_chunk(out / loc[len(base_url) :]))
    return urls


def locs(out: Path, base_url: str) -> list[str]:
    return [u.loc for u in published(out, base_url)]


def is_cut_point(loc: str, every: int = 10_000) -> bool:
    """Whether stable chunking ends a sitemap after `loc` (short of a limit): decided by the URL alone.

    About one URL in `every`, which is the URL limit / 5: 10,000 at the protocol's 50,000.
    """
    return zlib.crc32(loc.encode("utf-8")) % every == 0


def output_files(out: Path) -> dict[str, bytes]:
    """The sitemap files in `out` by name, for byte-for-byte comparisons."""
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name.startswith("sitemap")}


def _free_port() -> int:
    """A port free now (for a server that must be told its port: `mkdocs serve`, sphinx-autobuild)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def static_server(directory: Path) -> Iterator[str]:
    """Serve `directory` with `python -m http.server`, the plainest static server; yield its URL.

    The server takes a port the system gives it (port 0) and says which: a port chosen here and
    handed to it could be taken by another test's server in between, whose answers this test
    would then read."""
    cmd = [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(directory)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        said = proc.stdout.readline() if ready else ""
        port = re.search(r" port (\d+) ", said)  # "Serving HTTP on 127.0.0.1 port 40123 (http://...) ..."
        if port is None:
            raise RuntimeError(f"http.server did not start: {said!r}")
        yield f"http://127.0.0.1:{port.group(1)}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        body: bytes = response.read()
        return body


def wait_until_watched(pid: int, path: Path, seconds: float = 60) -> None:
    """Until process `pid` holds an inotify watch on `path`: a watcher (Pelican's, sphinx-autobuild's)
    prints that it is ready before its watch is up, and an edit made in between goes unseen for good.
    Linux tells it in /proc; elsewhere this is a pause."""
    fdinfo = Path(f"/proc/{pid}/fdinfo")
    if not fdinfo.is_dir():
        time.sleep(2)
        return
    watch = f" ino:{path.stat().st_ino:x} "  # an "inotify wd:" line; the fd's own line is "ino:\t"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for info in fdinfo.iterdir():
            with contextlib.suppress(OSError):  # an fd closed as it was read
                if watch in info.read_text():
                    return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not watch {path} in {seconds} s")


def head(*tags: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title>{''.join(tags)}</head><body>body</body></html>\n"


HEAD_SITE: dict[str | bytes, str | bytes] = {
    "index.html": head('<link rel="canonical" href="https://example.com/">'),
    "ok.html": head('<link rel="canonical" href="ok.html">'),
    "hidden.html": head('<meta name="robots" content="noindex, follow">'),
    "bot.html": head("<meta name=GOOGLEBOT content=none>"),
    "dupe.html": head('<link rel="canonical" href="/ok.html">'),
    "elsewhere.html": head('<link rel="canonical" href="https://other.example/x">'),
    "old/index.html": head('<meta http-equiv="refresh" content="0; url=https://example.com/new/">'),
    "junk.html": "\x00\x01\x02<<<<meta name=robots",
    "en/index.html": head(
        '<link rel="alternate" hreflang="en" href="/en/">',
        '<link rel="alternate" hreflang="de" href="/de/">',
        '<link rel="alternate" hreflang="x-default" href="/en/">',
    ),
    "de/index.html": head(  # names en/ back, so the cluster holds
        '<link rel="alternate" hreflang="en" href="/en/">',
        '<link rel="alternate" hreflang="de" href="/de/">',
        '<link rel="alternate" hreflang="x-default" href="/en/">',
    ),
}


NOBODY = 65534


def run_unprivileged(argv: list[str], reach: list[Path]) -> tuple[int, str]:
    """`sitemapgen ARGV` in a forked child as a user meets file modes: as nobody when the tests
    run as root (root ignores modes), else as the current user. Every directory on the way to
    each of `reach` is opened for it to pass through (only test temporaries are touched).
    Returns (exit code, stderr and stdout)."""
    from sitemapgen.cli.program import main

    if os.geteuid() == 0:
        for target in reach:
            for directory in [target, *target.parents]:
                if directory == Path("/"):
                    break
                os.chmod(directory, os.stat(directory).st_mode | 0o005)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's coverage is not collected
        code = 99
        try:
            os.close(read)
            if os.geteuid() == 0:
                # Import what the command will, while the interpreter's own files (which may
                # sit under /root) can still be read.
                sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
                main([argv[0], "--help"])
                import sitemapgen.commands.check
                import sitemapgen.deploy.changes
                import sitemapgen.deploy.indexnow
                import sitemapgen.deploy.previous  # noqa: F401

                with tempfile.TemporaryDirectory() as scratch:  # validate loads its schemas lazily
                    sample = Path(scratch, "s.xml")
                    sample.write_text(
                        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                        "<url><loc>https://example.com/</loc></url></urlset>"
                    )
                    main(["validate", str(sample)])

                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            sys.stdout = sys.stderr = open(write, "w", encoding="utf-8")
            code = main(argv)
        except BaseException:
            import traceback

            traceback.print_exc()  # into the pipe: the test shows it
        finally:
            sys.stdout.flush()
            os._exit(code)
    os.close(write)
    with open(read, encoding="utf-8") as output:
        text = output.read()
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status), text


def error_line(err: str) -> str:
    """The one line of error stderr holds (asserted: exactly one, and nothing else), without "error: "."""
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    return err[len("error: ") : -1]


def git(repo: Path, *args: str, date: str | None = None, author_date: str | None = None) -> str:
    """Run git in `repo` as a fixed author; `date` sets both times, `author_date` the author's alone."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    if author_date:
        env["GIT_AUTHOR_DATE"] = author_date
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout


@dataclass
class Endpoint:
    """A local IndexNow endpoint: answers each POST with the next scripted (status, headers), then 200."""

    url: str
    script: list[tuple[int, dict[str, str]]]
    bodies: list[object]


@contextlib.contextmanager
def indexnow_endpoint(*answers: tuple[int, dict[str, str]]) -> Iterator[Endpoint]:
    """An HTTP server on loopback that answers as IndexNow documents (200, 202, 400, 403, 422, 429...)."""
    import http.server
    import json
    import threading

    endpoint = Endpoint("", list(answers), [])

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            status, headers = endpoint.script.pop(0) if endpoint.script else (200, {})
            if status in (200, 202):
                endpoint.bodies.append(body)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}/indexnow"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


#: Titles as authors write them (entities, markup-like text, non-ASCII, runs of white space,
#: quotes, right-to-left text, too long), each made unique with `{i}`.
AWKWARD_TITLES = (
    "Caf&eacute; &amp; cr&egrave;me no. {i}",
    "&lt;script&gt;alert({i})&lt;/script&gt; is text",
    "  Tabs\tand\n\n  newlines   {i}  ",
    "&quot;Quoted&quot; &#39;single&#39; &#x1F600; {i}",
    "日本語のページ {i}",
    "مرحبا بالعالم {i}",
    "Non&nbsp;breaking&#160;spaces {i}",
    "A long title {i} " + "that goes on and on " * 12,
)


def title_page(title: str | None, *, lang: str | None = None, links: str = "") -> str:
    """A page with `title` as its head says it (None: no ``<title>``) and `lang` on its html."""
    at = f' lang="{lang}"' if lang else ""
    said = "" if title is None else f"<title>{title}</title>"
    return f"<!DOCTYPE html><html{at}><head><meta charset=utf-8>{said}{links}</head><body>page</body></html>\n"


def labelled_site(per_section: int) -> dict[str, str]:
    """A site whose pages all differ in title: a home page (lang en), a section with an index
    page (docs/) and one without (blog/), `per_section` pages in each, an hreflang cluster in
    intl/ (en, fr, ja, and x-default), and a page with no title, one with an empty title and one
    with a non-ASCII name."""
    cluster = "".join(
        f'<link rel="alternate" hreflang="{lang}" href="https://example.com/intl/{page}.html">'
        for lang, page in (("en", "en"), ("fr", "fr"), ("ja", "ja"), ("x-default", "en"))
    )
    files = {
        "index.html": title_page("Home &amp; Garden &mdash; Caf&eacute;", lang="en"),
        "docs/index.html": title_page("Documentation &lt;all of it&gt;", lang="en"),
        "docs/café.html": title_page("Caf&eacute;, named in UTF-8", lang="en"),
        "docs/untitled.html": title_page(None, lang="en"),
        "docs/empty-title.html": title_page(" \n ", lang="en"),
        "intl/en.html": title_page("In English", lang="en", links=cluster),
        "intl/fr.html": title_page("En fran&ccedil;ais", lang="fr", links=cluster),
        "intl/ja.html": title_page("日本語で", lang="ja", links=cluster),
        "about.html": title_page("About &amp; contact", lang="en"),
    }
    for i in range(per_section):
        awkward = AWKWARD_TITLES[i % len(AWKWARD_TITLES)].format(i=i)
        files[f"docs/guide-{i:04}.html"] = title_page(awkward, lang="en")
        files[f"blog/post-{i:04}.html"] = title_page(f"Post: {awkward}")
    return files


def file_of(root: Path, url: str, base_url: str) -> Path:
    """The file under `root` that answers `url` (a folder's URL: its index.html)."""
    rel = urllib.parse.unquote(url.removeprefix(base_url))
    return root / (rel + "index.html" if rel == "" or rel.endswith("/") else rel)


def shown_title(path: Path, url: str) -> str:
    """What a listing of the page at `path` shows for it: its ``<title>`` as beautifulsoup4 reads
    it, white space collapsed and cut at 200 characters with "…" (issue 41); `url` where it has none."""
    soup = bs4.BeautifulSoup(path.read_bytes(), "html.parser")
    text = " ".join(soup.title.get_text().split()) if soup.title else ""
    if not text:
        return url
    return text if len(text) <= 200 else text[:199].rstrip() + "\u2026"


def refuse_sqlite(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every SQLite database opened from now on stops each of its statements ("interrupted", an
    `sqlite3.OperationalError`), as a full disk stops one."""
    connect = sqlite3.connect

    def refusing(database: str, *, check_same_thread: bool = True) -> sqlite3.Connection:
        db = connect(database, check_same_thread=check_same_thread)
        db.set_progress_handler(lambda: 1, 1)
        return db

    monkeypatch.setattr(sqlite3, "connect", refusing)
