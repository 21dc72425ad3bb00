"""The summary a build prints, and its JSON."""

from __future__ import annotations

import json
import os

import pytest

from sitemapgen.skips import plural

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import html, read_index


@pytest.mark.parametrize(
    ("n", "word", "expected"),
    [
        pytest.param(0, "page", "0 pages", id="zero"),
        pytest.param(1, "sitemap", "1 sitemap", id="one"),
        pytest.param(2, "sitemap", "2 sitemaps", id="two"),
        pytest.param(12345, "URL", "12,345 URLs", id="thousands"),
    ],
)
def test_plural(n: int, word: str, expected: str) -> None:
    assert plural(n, word) == expected


def test_summary_line(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "404.html": html(), "b/index.html": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0
    assert run.err == (
        f"sitemapgen: listed 2 pages in 1 sitemap; skipped 1 excluded by pattern; lastmod from 2 mtime;"
        f" wrote {root / 'sitemap.xml'} and {root / 'sitemap-1.xml.gz'}\n"
    )


def test_wrote_names_only_the_files_written_and_kept_the_others(site: SiteFactory, cli: CliRunner) -> None:
    """A rebuild keeps each unchanged chunk's file: the summary names it as kept, not as written,
    and names as written exactly the chunks that are new on disk."""
    root = site({f"p{i:02}.html": html(f"p{i}") for i in range(12)})
    for page in root.iterdir():
        os.utime(page, (1_600_000_000, 1_600_000_000))
    args = ("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "4", "--chunking", "fill")
    assert cli(*args).code == 0
    before = {path.name: path.stat().st_ino for path in root.glob("sitemap-*.xml.gz")}
    assert sorted(before) == ["sitemap-1.xml.gz", "sitemap-2.xml.gz", "sitemap-3.xml.gz"]

    same = cli(*args)
    assert same.code == 0, same.err
    assert same.err == (
        f"sitemapgen: listed 12 pages in 3 sitemaps; lastmod from 12 mtime; wrote {root / 'sitemap.xml'};"
        " kept all 3 sitemaps unchanged\n"
    )
    assert {path.name: path.stat().st_ino for path in root.glob("sitemap-*.xml.gz")} == before

    os.utime(root / "p05.html", (1_700_000_000, 1_700_000_000))  # in the second chunk
    edit = cli(*args)
    assert edit.code == 0, edit.err
    new = sorted(name for name, _ in read_index(root / "sitemap.xml") if name.removeprefix(BASE) not in before)
    assert new == [BASE + "sitemap-4.xml.gz"]
    assert edit.err.endswith(
        f"; wrote {root / 'sitemap.xml'} and 1 of 3 sitemaps (sitemap-4.xml.gz); kept 2 unchanged;"
        " 1 sitemap no longer listed kept until the next build\n"
    )
    again = cli(*args)
    assert again.code == 0, again.err
    assert again.err.endswith(
        f"; wrote {root / 'sitemap.xml'}; kept all 3 sitemaps unchanged; removed 1 sitemap no longer listed\n"
    )
    assert sorted(path.name for path in root.glob("sitemap-*.xml.gz")) == [
        "sitemap-1.xml.gz",
        "sitemap-3.xml.gz",
        "sitemap-4.xml.gz",
    ]


def test_a_rebuild_of_one_sitemap_names_the_file_kept(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert run.err.endswith(f"; wrote {root / 'sitemap.xml'}; kept {root / 'sitemap-1.xml.gz'} unchanged\n")


def test_json_summary_and_quiet(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "404.html": html()})
    run = cli("build", root, "--base-url", BASE, "--json")
    assert run.code == 0
    assert run.err == ""
    data = json.loads(run.out)
    assert (data["listed"], data["skipped"], data["changed"]) == (1, {"excluded": 1}, 1)
    assert data["indexes"] == [str(root / "sitemap.xml")]
    assert (data["lastmod_sources"], data["no_lastmod"]) == ({"mtime": 1}, 0)
    assert (data["robots_txt"], data["robots_txt_updated"]) == (None, False)
    created = json.loads(cli("build", root, "--base-url", BASE, "--json", "--robots-txt", "create").out)
    assert (created["robots_txt"], created["robots_txt_updated"], created["changed"]) == ("created", True, 0)
    quiet = cli("build", root, "--base-url", BASE, "--quiet")
    assert (quiet.code, quiet.out, quiet.err) == (0, "", "")


def test_most_pages_naming_another_host_asks_about_the_base_url(site: SiteFactory, cli: CliRunner) -> None:
    """A site built for https://www.example.org/ and listed under BASE: every canonical names
    the other host. One line counts them, one asks about --base-url; none a page."""
    canonical = '<link rel="canonical" href="https://www.example.org/{}">'
    pages = {f"p{i}.html": f"<!DOCTYPE html><head>{canonical.format(f'p{i}.html')}</head>" for i in range(5)}
    root = site({**pages, "index.html": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    warnings = [line for line in run.err.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        "warning: 5 skipped, canonical on another host; e.g. p0.html to https://www.example.org/p0.html",
        "warning: 5 of 6 pages name www.example.org as canonical: is --base-url (base_url) the URL this site"
        " is served at?",
    ]
    assert "skipped 5 canonical on another host" in run.err
