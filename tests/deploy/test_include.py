"""Other builds' sitemaps listed in our index (``include``), read from a real static server.

The site is one directory served on loopback (`python -m http.server`): our pages at its top,
and below them three other builds, each written by its own tool: a second sitemapgen build
(an index, listed as its chunks), a real ``mkdocs build`` (a plain sitemap.xml) and a hand-written
sitemap as another generator writes it (a urlset, no gzip), plus a hand-written index over a
plain and a gzipped sitemap. Our index is read back through lxml and the index XSD.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import CliRunner
from ..helpers import error_line, html, make_tree, read_chunk, read_index, read_xml, static_server

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
OTHERS = ["docs/", "mk/", "app/", "blog/"]


def urlset(*entries: tuple[str, str | None]) -> str:
    """A sitemap as another generator writes it: its own layout, spacing and declaration."""
    urls = "".join(
        f"  <url>\n    <loc>{loc}</loc>\n" + (f"    <lastmod>{lastmod}</lastmod>\n" if lastmod else "") + "  </url>\n"
        for loc, lastmod in entries
    )
    return f"<?xml version='1.0' encoding='utf-8'?>\n<urlset xmlns=\"{NS}\">\n{urls}</urlset>\n"


def sitemapindex(*locs: str) -> str:
    sitemaps = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="{NS}">{sitemaps}</sitemapindex>'


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """The site's directory, served on loopback: our pages, and the other builds' directories to fill."""
    root = make_tree(tmp_path / "live", {"index.html": html("home"), "about.html": html("about")})
    (root / "sitemapgen.toml").write_text(f"exclude = {OTHERS!r}\n".replace("'", '"'))
    with static_server(root) as url:
        yield root, url


def _mkdocs(tmp_path: Path, site_dir: Path, site_url: str) -> None:
    """A tiny MkDocs project built by the real `mkdocs build` into `site_dir`."""
    project = make_tree(tmp_path / "mkproject", {"docs/index.md": "# Home\n", "docs/guide.md": "# Guide\n"})
    (project / "mkdocs.yml").write_text(f"site_name: Tiny\nsite_url: {site_url}\nsite_dir: {site_dir}\n")
    argv = [sys.executable, "-m", "mkdocs", "build", "--quiet"]
    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr


def _fingerprints(root: Path, under: list[str]) -> dict[str, str]:
    """Every file below the other builds' directories, by content (and so by being there at all)."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in under
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


def _newest(path: Path) -> str | None:
    dates = [u.lastmod for u in read_chunk(path) if u.lastmod]
    return max(dates) if dates else None


def test_an_index_over_another_sitemapgen_build_mkdocs_and_hand_written_sitemaps(
    tmp_path: Path, cli: CliRunner, live: tuple[Path, str]
) -> None:
    root, url = live
    # A second build of this tool, of another docroot, published under /docs/: its index and chunk
    # names are the very names of ours, one folder down.
    docs = make_tree(root / "docs", {"index.html": html("docs"), "start.html": html("start")})
    assert cli("build", docs, "--base-url", url + "docs/").code == 0
    _mkdocs(tmp_path, root / "mk", url + "mk/")
    other: dict[str, str | bytes] = {
        "app/sitemap.xml": urlset((url + "app/", "2024-05-01"), (url + "app/login", None)),
        "blog/index.xml": sitemapindex(url + "blog/posts.xml", url + "blog/tags/tags.xml.gz"),
        "blog/posts.xml": urlset((url + "blog/one", "2023-01-02T10:00+02:00"), (url + "blog/two", "2023-01-01")),
        "blog/tags/tags.xml.gz": gzip.compress(urlset((url + "blog/tags/a", None)).encode()),
    }
    make_tree(root, other)
    includes = [
        ("--include", f"{root / 'docs' / 'sitemap.xml'}={url}docs/sitemap.xml"),  # from the local file
        ("--include", url + "mk/sitemap.xml"),
        ("--include", url + "app/sitemap.xml"),
        ("--include", url + "blog/index.xml"),
    ]
    config = ["--config", root / "sitemapgen.toml"]
    flags = ["--base-url", url, "--robots-txt", "create", *config, *(f for pair in includes for f in pair)]
    before = _fingerprints(root, OTHERS)

    run = cli("build", root, *flags)
    assert run.code == 0, run.err
    assert run.err.splitlines()[-1].startswith(
        "sitemapgen: listed 2 pages in 1 sitemap, and 9 URLs of 5 included sitemaps;"
    ), run.err
    index = read_index(root / "sitemap.xml")  # valid against siteindex.xsd
    docs_chunks = [loc for loc, _ in read_index(docs / "sitemap.xml")]
    assert [loc for loc, _ in index] == [
        url + "sitemap-1.xml.gz",
        *docs_chunks,  # the other build's index, listed as its sitemaps
        url + "mk/sitemap.xml",
        url + "app/sitemap.xml",
        url + "blog/posts.xml",  # the hand-written index, expanded
        url + "blog/tags/tags.xml.gz",
    ]
    lastmods = dict(index)
    assert lastmods[url + "mk/sitemap.xml"] == _newest(root / "mk" / "sitemap.xml") is not None
    assert lastmods[url + "app/sitemap.xml"] == "2024-05-01"
    assert lastmods[url + "blog/posts.xml"] == "2023-01-02T10:00:00+02:00"  # the newest, with its seconds
    assert lastmods[url + "blog/tags/tags.xml.gz"] is None  # none inside: none, never the build's time
    assert lastmods[docs_chunks[0]] == _newest(docs / docs_chunks[0].rpartition("/")[2])
    robots = (root / "robots.txt").read_text().splitlines()
    assert [line for line in robots if line.startswith("Sitemap:")] == [f"Sitemap: {url}sitemap.xml"]
    assert _fingerprints(root, OTHERS) == before  # nothing of theirs touched

    # Again, unchanged: our index is recognised as ours (its chunk kept, nothing retired), and the
    # other build's sitemap-1.xml.gz, listed in it, is not taken for ours.
    run = cli("build", root, *flags)
    assert run.code == 0, run.err
    assert f"kept {root / 'sitemap-1.xml.gz'} unchanged" in run.err
    assert run.err.count("\n") == 1, run.err  # the summary alone: nothing retired, removed or warned of
    assert read_index(root / "sitemap.xml") == index

    # Our pages change (a new page: a new chunk name) and the docs build adds a page: our index follows
    # both; our old chunk is kept until the next build, theirs are never touched.
    (root / "new.html").write_text(html("new"))
    make_tree(docs, {"more.html": html("more")})
    assert cli("build", docs, "--base-url", url + "docs/").code == 0
    before = _fingerprints(root, OTHERS)
    run = cli("build", root, *flags)
    assert run.code == 0, run.err
    assert "1 sitemap no longer listed kept until the next build" in run.err
    again = read_index(root / "sitemap.xml")
    assert again[0][0] == url + "sitemap-2.xml.gz"
    assert [loc for loc, _ in again[1:]] == [loc for loc, _ in read_index(docs / "sitemap.xml")] + [
        loc for loc, _ in index[1 + len(docs_chunks) :]
    ]
    # check agrees: the other build's sitemap-2.xml.gz, listed beside ours, is not one of ours gone missing.
    run = cli("check", root, *(f for f in flags if f not in ("--robots-txt", "create")))
    assert (run.code, run.out) == (0, "current: 1 sitemap, 3 pages, and 10 URLs of 5 included sitemaps\n")
    run = cli("build", root, *flags)
    assert "removed 1 sitemap no longer listed" in run.err
    assert not (root / "sitemap-1.xml.gz").exists()
    assert _fingerprints(root, OTHERS) == before
    assert (docs / "sitemap-1.xml.gz").is_file()


def _refused(cli: CliRunner, root: Path, url: str, *include: str) -> tuple[int, str]:
    config = ("--config", root / "sitemapgen.toml")
    run = cli("build", root, "--base-url", url, *config, *(f for i in include for f in ("--include", i)))
    assert not (root / "sitemap.xml").exists()
    assert not list(root.glob("sitemap-*"))
    assert len(run.err.splitlines()) == 1, run.err
    return run.code, error_line(run.err)


_BOMB = gzip.compress(b"<!-- " + b" " * 53_000_000 + b"-->", compresslevel=9)


@pytest.mark.parametrize(
    ("files", "include", "code", "said"),
    [
        pytest.param(
            {"x/sitemap.xml": urlset(("{url}x/a", None), ("{url}elsewhere", None))},
            "x/sitemap.xml",
            2,
            "{url}x/sitemap.xml: lists {url}elsewhere, outside its own folder {url}x/"
            " (a sitemap lists only URLs at or below where it is served) (include)",
            id="a-url-outside-its-folder",
        ),
        pytest.param(
            {"x/sitemap.xml": urlset(("{url}x/a", None), ("{url}x/../admin/b", None))},
            "x/sitemap.xml",
            2,
            "{url}x/sitemap.xml: lists {url}x/../admin/b, whose path has a '.' or '..' segment: resolved, it may lie"
            " outside its own folder {url}x/ (a sitemap lists each URL as it is served) (include)",
            id="a-dot-dot-segment",
        ),
        pytest.param(
            {"x/index.xml": sitemapindex("https://elsewhere.example/x/s.xml")},
            "x/index.xml",
            2,
            "{url}x/index.xml: lists https://elsewhere.example/x/s.xml, which is not on the base URL's scheme and host"
            " (an index lists its own site's sitemaps) (include)",
            id="an-index-listing-another-host",
        ),
        pytest.param(
            {"x/index.xml": sitemapindex("{url}x/inner.xml"), "x/inner.xml": sitemapindex("{url}x/s.xml")},
            "x/index.xml",
            2,
            "{url}x/inner.xml: an index inside an index (an index lists sitemaps only) (include)",
            id="an-index-inside-an-index",
        ),
        pytest.param(
            {"x/index.xml": sitemapindex("{url}x/s.xml", "{url}x/s.xml"), "x/s.xml": urlset(("{url}x/a", None))},
            "x/index.xml",
            2,
            "{url}x/index.xml: lists {url}x/s.xml, which the index lists already (include)",
            id="an-index-listing-a-sitemap-twice",
        ),
        pytest.param(
            {"x/index.xml": sitemapindex("s.xml")},
            "x/index.xml",
            2,
            "{url}x/index.xml: lists s.xml, which is not a URL (include)",
            id="an-index-listing-a-relative-reference",
        ),
        pytest.param(
            {"x/index.xml": sitemapindex()},
            "x/index.xml",
            2,
            "{url}x/index.xml: lists no sitemaps (an index lists one at least) (include)",
            id="an-empty-index",
        ),
        pytest.param({}, "x/gone.xml", 2, "{url}x/gone.xml: not found (include)", id="not-there"),
        pytest.param(
            {"x/sitemap.xml": "<html><body>Not found</body></html>"},
            "x/sitemap.xml",
            2,
            "{url}x/sitemap.xml: not a sitemap or sitemap index (include)",
            id="not-a-sitemap",
        ),
        pytest.param(
            {"x/sitemap.xml": "this is { not xml"},
            "x/sitemap.xml",
            2,
            "{url}x/sitemap.xml: not a sitemap: Start tag expected, '<' not found, line 1, column 1 (include)",
            id="not-xml",
        ),
        pytest.param(
            {"x/sitemap.xml.gz": _BOMB},
            "x/sitemap.xml.gz",
            2,
            "{url}x/sitemap.xml.gz: larger than 52,428,800 bytes uncompressed; not read (include)",
            id="too-large",
        ),
        pytest.param(
            {
                "x/sitemap.xml": '<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY e "{url}x/a">]>'
                f'<urlset xmlns="{NS}"><url><loc>&e;</loc></url></urlset>'
            },
            "x/sitemap.xml",
            2,
            "{url}x/sitemap.xml: entity declarations are not allowed (nothing was expanded, read or fetched) (include)",
            id="entities",
        ),
        pytest.param(
            {},
            "sitemap-3.xml.gz",
            2,
            "{url}sitemap-3.xml.gz: is where sitemapgen writes its own files (include another build's sitemaps)"
            " (include)",
            id="one-of-our-own-names",
        ),
    ],
)
def test_a_bad_included_sitemap_fails_the_build_in_one_line_and_nothing_is_written(
    cli: CliRunner, live: tuple[Path, str], files: dict[str, str | bytes], include: str, code: int, said: str
) -> None:
    root, url = live
    make_tree(
        root, {name: text.replace("{url}", url) if isinstance(text, str) else text for name, text in files.items()}
    )
    assert _refused(cli, root, url, url + include) == (code, said.replace("{url}", url))


def test_another_host_is_refused_before_anything_is_read(cli: CliRunner, live: tuple[Path, str]) -> None:
    root, url = live
    other = url.replace("127.0.0.1", "localhost")
    assert _refused(cli, root, url, other + "x/sitemap.xml") == (
        2,
        f"--include: {other}x/sitemap.xml is not on {url.rstrip('/')} (the base URL's scheme and host):"
        " an index lists only its own site's sitemaps",
    )


def test_a_server_that_does_not_answer_is_the_machines_failure(cli: CliRunner, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"index.html": html(), "sitemapgen.toml": ""})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"  # bound, not listening: the connection is refused
        code, line = _refused(cli, root, url, url + "x/sitemap.xml")
    assert code == 3
    assert line == f"{url}x/sitemap.xml: cannot connect: Connection refused (include)"


def test_an_optional_sitemap_that_cannot_be_read_keeps_its_entries_from_the_last_build(
    cli: CliRunner, live: tuple[Path, str]
) -> None:
    root, url = live
    make_tree(
        root,
        {
            "blog/index.xml": sitemapindex(url + "blog/a.xml", url + "blog/b.xml"),
            "blog/a.xml": urlset((url + "blog/1", "2024-02-03")),
            "blog/b.xml": urlset((url + "blog/2", "2024-02-04T05:06:07Z")),
            "app/sitemap.xml": urlset((url + "app/", "2022-01-01")),
        },
    )
    config = root / "sitemapgen.toml"
    config.write_text(
        config.read_text()
        + f'[[include]]\nurl = "{url}blog/index.xml"\noptional = true\n'
        + f'[[include]]\nurl = "{url}app/sitemap.xml"\noptional = true\n'
    )
    assert cli("build", root, "--base-url", url, "--config", config).code == 0
    index = read_index(root / "sitemap.xml")
    assert index[1:] == [
        (url + "blog/a.xml", "2024-02-03"),
        (url + "blog/b.xml", "2024-02-04T05:06:07Z"),
        (url + "app/sitemap.xml", "2022-01-01"),
    ]

    # The blog's index is there, but not the second sitemap it lists (the first has changed): all of
    # the blog is as the last build listed it, not half of it.
    (root / "blog" / "a.xml").write_text(urlset((url + "blog/1", "2025-01-01")))
    (root / "blog" / "b.xml").unlink()
    (root / "app" / "sitemap.xml").write_text("<urlset")  # ... and the app's sitemap broken
    run = cli("build", root, "--base-url", url, "--config", config)
    assert run.code == 0, run.err
    assert run.err.splitlines()[:2] == [
        f"warning: {url}blog/b.xml: not found, though {url}blog/index.xml lists it (include, optional): not read,"
        " so the index kept the 2 entries the last build gave it",
        f"warning: {url}app/sitemap.xml: not a sitemap: Couldn't find end of Start Tag urlset, line 1, column 8"
        " (include,"
        " optional): not read, so the index kept its last entry",
    ]
    assert read_index(root / "sitemap.xml") == index  # the same URLs and lastmods as the last build wrote

    # Not optional: the build fails and the published index stays as it was.
    config.write_text(config.read_text().replace("optional = true", "optional = false"))
    run = cli("build", root, "--base-url", url, "--config", config)
    assert (run.code, error_line(run.err)) == (
        2,
        f"{url}blog/b.xml: not found, though {url}blog/index.xml lists it (include)",
    )
    assert read_index(root / "sitemap.xml") == index


def test_urls_listed_twice_are_counted_once_with_an_example(cli: CliRunner, live: tuple[Path, str]) -> None:
    root, url = live
    make_tree(
        root,
        {
            "a/sitemap.xml": urlset((url + "a/1", None), (url + "a/2", None)),
            "sitemap-other.xml": urlset((url + "a/1", None), (url + "a/2", None), (url + "about.html", None)),
        },
    )
    includes = ("--include", url + "a/sitemap.xml", "--include", url + "sitemap-other.xml")
    run = cli("build", root, "--base-url", url, "--config", root / "sitemapgen.toml", *includes)
    assert run.code == 0, run.err
    assert run.err.splitlines()[:2] == [
        f"warning: 2 URLs are listed by two included sitemaps, e.g. {url}a/1 (in {url}a/sitemap.xml and"
        f" {url}sitemap-other.xml): a search engine counts each once; list each URL in one sitemap",
        f"warning: 1 URL of our pages is listed by an included sitemap too, e.g. {url}about.html (in"
        f" {url}sitemap-other.xml): a search engine counts each once; exclude those pages here, or leave them out"
        " there",
    ]
    # The included file in our output directory is ours to list, not another tool's leftover to warn of.
    assert "stays beside ours" not in run.err
    assert read_xml(root / "sitemap-other.xml").count(b"<url>") == 3


def test_a_lastmod_of_a_day_no_calendar_has_is_not_a_datetime(cli: CliRunner, live: tuple[Path, str]) -> None:
    """2025-02-30 has the form of a W3C Datetime but names no day: said as a lastmod that is not a
    W3C Datetime, and the entry is dated by the others, never a traceback."""
    root, url = live
    lastmods = ("2025-02-30", "2025-13-01T10:00:00Z", "2024-05-06T25:00:00+00:00", "2024-03-04")
    make_tree(root, {"x/sitemap.xml": urlset(*((f"{url}x/{i}", lastmod) for i, lastmod in enumerate(lastmods)))})
    run = cli(
        "build", root, "--base-url", url, "--config", root / "sitemapgen.toml", "--include", url + "x/sitemap.xml"
    )
    assert run.code == 0, run.err
    assert (
        f"warning: {url}x/sitemap.xml: 3 lastmods are not a W3C Datetime (e.g. '2025-02-30'), so they do not date"
        " its entry in the index"
    ) in run.err.splitlines()
    assert (url + "x/sitemap.xml", "2024-03-04") in read_index(root / "sitemap.xml")


def test_a_fifo_given_as_the_file_is_bad_input_read_without_waiting(cli: CliRunner, tmp_path: Path) -> None:
    """A FIFO (or any file that is not a regular one) named as an include's file is the input's
    fault: exit 2, one line, nothing written, and no wait for a writer that never comes."""
    root = make_tree(tmp_path / "public", {"index.html": html()})
    fifo = tmp_path / "child.xml"
    os.mkfifo(fifo)
    run = cli("build", root, "--base-url", "https://example.com/", "--include", f"{fifo}=https://example.com/b/s.xml")
    assert (run.code, error_line(run.err)) == (2, f"{fifo}: cannot read: not a regular file (include)")
    assert not (root / "sitemap.xml").exists()
