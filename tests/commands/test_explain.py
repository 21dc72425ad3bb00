"""`explain`: a view of the pipeline's decisions for the pages asked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import sitemapgen
from sitemapgen import Config, LastmodFormat, LastmodSource, Rule

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import HEAD_SITE, fetch, head, html, make_tree, published, static_server


def test_explain(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({**HEAD_SITE, "drafts/x.html": head(), "404.html": head(), "robots.txt": ""})
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nexclude = ["drafts/"]\n[[rules]]\npattern = "*"\npriority = 0.4\n')
    run = cli("explain", root, "ok.html", "hidden.html", "dupe.html", "old/index.html", "--config", config)
    assert run.code == 1
    assert run.out.splitlines()[0] == f"ok.html: listed as {BASE}ok.html"
    assert "  priority 0.4 (from [[rules]])" in run.out
    assert "hidden.html: not listed: noindex" in run.out
    assert f"dupe.html: not listed: canonical elsewhere (to {BASE}ok.html)" in run.out
    assert f"old/index.html: not listed: redirect (to {BASE}new/)" in run.out
    for page, why in [
        ("drafts/x.html", "directory drafts/ excluded by pattern 'drafts/'"),
        ("404.html", "excluded by pattern '404.html'"),
        ("nope.html", "no such file in the docroot"),
        ("robots.txt", "not an HTML page"),
    ]:
        answer = cli("explain", root, page, "--config", config)
        assert (answer.code, answer.out.startswith(f"{page}: not listed: {why}")) == (1, True), answer.out
    by_path = cli("explain", root, root / "en" / "index.html", "--config", config)
    assert by_path.code == 0
    assert f"en/index.html: listed as {BASE}en/" in by_path.out
    assert f"  hreflang de: {BASE}de/" in by_path.out
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("sitemap")) == []


def test_values_are_written_as_the_sitemap_writes_them(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    os.utime(root / "a.html", (1_700_000_000, 1_700_000_000))
    config = Config(
        docroot=root, base_url=BASE, rules=(Rule("*", priority=0.00001),), lastmod_format=LastmodFormat.DATE
    )
    [answer] = sitemapgen.explain(config, ["a.html"])
    assert answer.lines == (
        f"a.html: listed as {BASE}a.html",
        "  lastmod 2023-11-14 (from mtime)",
        "  priority 0.00001 (from [[rules]])",
    )


def test_a_pages_own_warnings_are_part_of_its_explanation(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "site",
        {
            "a.html": head(
                '<link rel="canonical" href="/missing.html">',
                '<link rel="alternate" hreflang="no language" href="/x">',
                '<meta name="last-modified" content="not a date">',
            ),
            "b.html": head(
                '<link rel="alternate" hreflang="de" href="/de/">',
                '<link rel="alternate" hreflang="en" href="/b.html">',
            ),
        },
    )
    config = Config(docroot=root, base_url=BASE, lastmod=(LastmodSource.META,))
    said: list[str] = []
    a, b = sitemapgen.explain(config, ["a.html", "b.html"], on_warning=said.append)
    assert a.lines == (
        f"a.html: listed as {BASE}a.html",
        "  warning: a.html: hreflang link ignored: hreflang='no language' href='/x'",
        "  warning: a.html: unreadable modified-time meta 'not a date'",
        "  note: canonical names a URL no file here answers, so it is ignored; each listed at its own URL:"
        f" a.html names {BASE}missing.html",
    )
    assert b.lines == (f"b.html: listed as {BASE}b.html", f"  hreflang de: {BASE}de/", f"  hreflang en: {BASE}b.html")
    assert said == []  # nothing for the build as a whole: the note is the page's own


def test_one_pipeline_for_all_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three pages, one git history read (not three), as in a build."""
    from sitemapgen.config.words import GitDate
    from sitemapgen.lastmod.git import GitDates, git_dates

    calls: list[Path] = []

    def counted(directory: Path, date: GitDate = GitDate.COMMIT) -> GitDates:
        calls.append(directory)
        return git_dates(directory, date)

    monkeypatch.setattr("sitemapgen.lastmod.git.git_dates", counted)
    root = make_tree(tmp_path / "site", {"a.html": html(), "b.html": html(), "c/d.html": html()})
    config = Config(docroot=root, base_url=BASE, lastmod=(LastmodSource.GIT, LastmodSource.MTIME))
    answers = sitemapgen.explain(config, ["a.html", "b.html", "c/d.html"], on_warning=lambda _: None)
    assert [a.listed for a in answers] == [True, True, True]
    assert len(calls) == 1


def test_paths_relative_to_the_docroot_in_any_spelling(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a/b.html": html()})
    config = Config(docroot=root, base_url=BASE)
    answers = sitemapgen.explain(config, ["./a/b.html", "a//b.html", "/a/b.html", "a/../a/b.html", "../x.html"])
    assert [a.lines[0] for a in answers] == [f"a/b.html: listed as {BASE}a/b.html"] * 4 + [
        "../x.html: not listed: outside the docroot"
    ]


def test_the_walks_own_reasons(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"index.html": html(), "index.htm": html(), "real/a.html": html()})
    (root / "link").symlink_to(root / "real")
    config = Config(docroot=root, base_url=BASE)
    answers = sitemapgen.explain(config, ["index.htm", "link/a.html", "real", ".hidden.html", "real/a.html"])
    assert [a.lines[0] for a in answers] == [
        "index.htm: not listed: same URL as an earlier page (index.html)",
        "link/a.html: not listed: inside link/, a directory symlink, which is not followed",
        "real: not listed: a directory, not a page",
        ".hidden.html: not listed: no such file in the docroot",
        f"real/a.html: listed as {BASE}real/a.html",
    ]


def test_explain_takes_every_site_option(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site(
        {
            "a.html": head(
                "".join(f'<link rel="alternate" hreflang="x{c}" href="/{c}/">' for c in "abcdefghijklmnopqrstuvwxyz")
            )
        }
    )
    args = [root, "a.html", "--base-url", BASE, "--out", tmp_path / "out"]
    assert cli("explain", *args).code == 0
    small = cli("explain", *args, "--max-bytes-per-sitemap", "1024")
    assert small.code == 1
    assert small.out.startswith("a.html: not listed: entry larger than max_bytes_per_sitemap allows (")


# --- A page asked for by its URL ------------------------------------------------------------

URL_SITE = {
    "index.html": html("home"),
    "about.html": html("about"),
    "faq/index.html": html("faq"),
    "docs/guide.html": html("guide"),
}


def _answered(out: str) -> str:
    """The file the first line of a URL's explanation names: `URL: answered with FILE[ after a redirect]`."""
    return out.splitlines()[0].partition(": answered with ")[2].removesuffix(" after a redirect")


@pytest.mark.parametrize("path", ["", "about.html", "faq", "faq/", "docs/guide.html", "docs/guide.html?x=1#top"])
def test_a_url_is_the_page_a_static_server_answers_it_with(tmp_path: Path, cli: CliRunner, path: str) -> None:
    root = make_tree(tmp_path / "site", URL_SITE)
    with static_server(root) as base:
        body = fetch(base + path)  # what a real static server answers (after its redirect, for faq)
        run = cli("explain", root, base + path, "--base-url", base)
    assert run.code == 0, run.out + run.err
    answered = _answered(run.out)
    assert (root / answered).read_bytes() == body
    assert run.out.splitlines()[1].startswith(f"{answered}: listed as {base}")


def test_a_url_in_every_spelling_and_url_style(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", URL_SITE)
    base = "https://docs.example.org/"
    run = cli(
        "explain",
        root,
        "https://docs.example.org/faq",
        "HTTPS://Docs.Example.org",
        f"{base}about.html",
        "--base-url",
        base,
    )
    assert (run.code, run.err) == (0, "")
    assert [line for line in run.out.splitlines() if not line.startswith("  ")] == [
        "https://docs.example.org/faq: answered with faq/index.html after a redirect",
        f"faq/index.html: listed as {base}faq/",
        "HTTPS://Docs.Example.org: answered with index.html",
        f"index.html: listed as {base}",
        f"{base}about.html: answered with about.html",
        f"about.html: listed as {base}about.html",
    ]
    bare = cli("explain", root, f"{base}about", f"{base}faq", "--base-url", base, "--url-style", "extensionless")
    assert [line for line in bare.out.splitlines() if not line.startswith("  ")] == [
        f"{base}about: answered with about.html",
        f"about.html: listed as {base}about",
        f"{base}faq: answered with faq/index.html after a redirect",
        f"faq/index.html: listed as {base}faq/",
    ]
    hosted = cli("explain", root, f"{base}about", f"{base}about.html", "--base-url", base, "--host", "cloudflare")
    assert [line for line in hosted.out.splitlines() if not line.startswith("  ")] == [
        f"{base}about: answered with about.html",
        f"about.html: listed as {base}about",
        f"{base}about.html: answered with about.html after a redirect",
        f"about.html: listed as {base}about",
    ]


def test_a_url_no_page_answers_is_not_listed(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", {**URL_SITE, "robots.txt": "User-agent: *\n"})
    run = cli("explain", root, f"{BASE}missing", f"{BASE}robots.txt", f"{BASE}about.html", "--base-url", BASE)
    assert run.code == 1
    assert run.out.splitlines()[:4] == [
        f"{BASE}missing: not listed: no file in the docroot answers it"
        " (looked for missing/index.html, missing/index.htm)",
        f"{BASE}robots.txt: answered with robots.txt",
        "robots.txt: not listed: not an HTML page (only .html and .htm files are listed)",
        f"{BASE}about.html: answered with about.html",
    ]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        pytest.param("https://other.example/faq", "not a URL of this site, whose pages are under {base}", id="host"),
        pytest.param(
            "http://docs.example.org/docs/faq", "not a URL of this site, whose pages are under {base}", id="scheme"
        ),
        pytest.param("https://docs.example.org/faq", "not a URL of this site, whose pages are under {base}", id="path"),
        pytest.param(
            "ftp://docs.example.org/docs/faq",
            "not an http(s) URL; give a page's URL under {base} or its path",
            id="not-http",
        ),
    ],
)
def test_a_url_off_the_site_is_one_line_exit_2(tmp_path: Path, cli: CliRunner, url: str, why: str) -> None:
    root = make_tree(tmp_path / "site", URL_SITE)
    base = "https://docs.example.org/docs/"
    run = cli("explain", root, "about.html", url, "--base-url", base)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: {url}: {why.format(base=base)}\n"


def test_a_directory_is_explained_as_its_index_page(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = site({"index.html": html(), "about/index.htm": html(), "empty/x.txt": "x"})
    monkeypatch.chdir(tmp_path)  # "." here is not the docroot: the docroot's "." is meant
    run = cli("explain", root, ".", "about/", "/about", "empty", "--base-url", BASE)
    assert run.code == 1  # empty/ has no page
    assert [line for line in run.out.splitlines() if not line.startswith("  lastmod ")] == [
        ".: a directory; its page is index.html",
        f"index.html: listed as {BASE}",
        "about/: a directory; its page is about/index.htm",
        f"about/index.htm: listed as {BASE}about/",
        "/about: a directory; its page is about/index.htm",
        f"about/index.htm: listed as {BASE}about/",
        "empty: not listed: a directory, not a page",
    ]


def _multilingual(lang: str, *links: tuple[str, str]) -> str:
    tags = "".join(f'<link rel="alternate" hreflang="{code}" href="{BASE}{href}">' for code, href in links)
    return f'<!DOCTYPE html><html lang="{lang}"><head><title>{lang}</title>{tags}</head><body></body></html>'


#: Docusaurus' default build (a/index.html linked as /a), a head naming index.html, and pages
#: linked by their file's path, which a pretty-URL host redirects to the path without .html:
#: page -> its head's links (language, path), the one to de/ naming no file.
_A = (("en", "a"), ("fr", "fr/a"), ("x-default", "a"), ("de", "de/a"))
_B = (("en", "b/index.html"), ("fr", "fr/b.html"))
FORMS_LINKS = {"a/index.html": _A, "fr/a/index.html": _A, "b/index.html": _B, "fr/b.html": _B}


@pytest.mark.parametrize("host", ["plain", "netlify", "cloudflare", "vercel", "firebase", "serve"])
def test_an_alternate_in_another_form_is_explained_as_the_build_publishes_it(
    tmp_path: Path, cli: CliRunner, host: str
) -> None:
    site = {
        relpath: _multilingual("fr" if relpath.startswith("fr/") else "en", *links)
        for relpath, links in FORMS_LINKS.items()
    }
    root = make_tree(tmp_path / "site", site)
    run = cli("explain", root, *site, "--base-url", BASE, "--host", host)
    assert run.code == 0, run.out + run.err
    assert cli("build", root, "--base-url", BASE, "--host", host).code == 0
    built = {url.loc: list(url.alternates) for url in published(root, BASE)}
    explained: dict[str, list[tuple[str, str]]] = {}
    taken = 0
    for line in run.out.splitlines():
        if not line.startswith("  "):
            relpath, _, loc = line.partition(": listed as ")
            written = {code: BASE + path for code, path in FORMS_LINKS[relpath]}
            explained[loc] = []
        elif line.startswith("  hreflang "):
            code, _, said = line.removeprefix("  hreflang ").partition(": ")
            url, _, why = said.partition(" (")
            if code != "de":  # no file answers it: the build drops it
                explained[loc].append((code, url))
            if url == written[code]:
                assert why == "", line
                continue
            assert why in (
                f"the head names {written[code]}, which redirects to it: taken in its listed form)",
                f"the head names {written[code]}, another URL of its file: taken in its listed form)",
            ), line
            taken += 1
    assert explained == built
    assert taken > 0  # every host lists b/index.html as another URL than /b/index.html


def _mkdocs_site(root: Path) -> Path:
    """A real MkDocs build of two pages, its project committed to git and its output not."""
    import subprocess
    import sys

    from ..helpers import git

    make_tree(root, {"mkdocs.yml": "site_name: Dates\nsite_url: https://example.org/\n", "docs/index.md": "# Dates\n"})
    make_tree(root, {"docs/install.md": "# Install\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs", date="2024-05-01T10:00:00+00:00")
    made = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q"], cwd=root, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    return root / "site"


def test_list_says_the_warnings_build_says_once_every_page_is_dated(tmp_path: Path, cli: CliRunner) -> None:
    """As the commands page says: list's warnings are build's. (explain says each page's own, and
    where its lastmod came from, under it.)"""
    pytest.importorskip("mkdocs")
    site = _mkdocs_site(tmp_path / "project")
    flags = ["--base-url", "https://example.org/", "--lastmod", "git,mtime", "--out", tmp_path / "out"]
    listed, built = cli("list", site, *flags), cli("build", site, *flags)
    assert listed.code == built.code == 0, listed.err + built.err
    [line] = [line for line in built.err.splitlines() if "dated none" in line]
    assert line.startswith("warning: lastmod 'git' dated none of the 2 pages (mtime dated them): git tracks no")
    assert listed.err.splitlines() == [line]


def test_explain_reads_the_previous_deploy_as_build_does(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With lastmod content, an unchanged page keeps the previous deploy's lastmod: explain says
    the lastmod build would write, read from the same previous deploy."""
    pytest.importorskip("mkdocs")
    site = _mkdocs_site(tmp_path / "project")
    before, after = tmp_path / "before", tmp_path / "after"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    base = ["--base-url", "https://example.org/", "--lastmod", "content"]
    (tmp_path / "none").mkdir()  # a first deploy: it writes the manifest the next one reads
    assert cli("build", site, *base, "--out", before, "--previous", tmp_path / "none").code == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")  # a later build, its own store: nothing changed
    flags = [*base, "--out", after, "--previous", before]
    explained = cli("explain", site, "install/index.html", *flags)
    listed = cli("list", site, *flags)
    assert explained.code == listed.code == 0, explained.err + listed.err
    [line] = [line for line in explained.out.splitlines() if line.startswith("  lastmod")]
    assert line == "  lastmod 2023-11-14T22:13:20+00:00 (from content)"
    assert "https://example.org/install/\t2023-11-14T22:13:20+00:00" in listed.out
