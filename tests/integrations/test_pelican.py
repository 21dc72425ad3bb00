"""The Pelican plugin, with the real ``pelican`` command, on a site of articles, pages, drafts,
hidden ones, translations (with and without i18n_subsites) and custom ``*_SAVE_AS`` paths, in a
git repository whose commits have known dates: the sitemaps validate against the XSDs, list
exactly the pages beautifulsoup4 says a search engine may index less those Pelican publishes
nowhere (drafts, hidden), date each article and page by its source's commit and each page made of
others by the newest commit of what it shows; an unchanged rebuild writes the same bytes; a bad
setting is one error line, and ``--fatal errors`` stops Pelican before it writes anything."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from ..helpers import git, make_tree, output_files, published, wait_until_watched
from .test_git_dates import _next_second

pytest.importorskip("pelican")

BASE = "https://example.org/"
SETUP_DATE = "2020-06-01T00:00:00Z"  # the project's own files; no page may get this date
UNPUBLISHED_DATE = "2020-07-01T00:00:00Z"

SETTINGS = """\
AUTHOR = "Ann"
SITENAME = "Frobnicate"
SITEURL = "https://example.org"
PATH = "content"
TIMEZONE = "UTC"
DEFAULT_LANG = "en"
DEFAULT_CATEGORY = "misc"
DEFAULT_PAGINATION = 2
FEED_ALL_ATOM = CATEGORY_FEED_ATOM = TRANSLATION_FEED_ATOM = AUTHOR_FEED_ATOM = AUTHOR_FEED_RSS = None
STATIC_PATHS = ["extra"]
ARTICLE_EXCLUDES = ["extra"]
ARTICLE_URL = "posts/{slug}/"
ARTICLE_SAVE_AS = "posts/{slug}/index.html"
ARTICLE_LANG_URL = "posts/{slug}-{lang}/"
ARTICLE_LANG_SAVE_AS = "posts/{slug}-{lang}/index.html"
PAGE_URL = "{slug}/"
PAGE_SAVE_AS = "{slug}/index.html"
PAGE_LANG_URL = "{slug}-{lang}/"
PAGE_LANG_SAVE_AS = "{slug}-{lang}/index.html"
SITEMAPGEN_LASTMOD = ["git", "mtime"]
"""
PLUGINS = 'PLUGINS = ["sitemapgen.pelican"]\n'
I18N = 'PLUGINS = ["i18n_subsites", "sitemapgen.pelican"]\nI18N_SUBSITES = {"fr": {}}\n'

#: Each source, its commit (committed in this order) and the lastmod that commit gives. "a" is the
#: oldest article by Pelican's date and the newest commit: a page that shows it alone has its date.
SOURCES = {
    "b": ("content/b.md", "2022-02-03T04:05:06+02:00", "2022-02-03T02:05:06+00:00"),
    "c": ("content/c.md", "2023-03-04T05:06:07Z", "2023-03-04T05:06:07+00:00"),
    "a": ("content/a.md", "2024-04-05T06:07:08Z", "2024-04-05T06:07:08+00:00"),
    "a-fr": ("content/a-fr.md", "2021-05-06T07:08:09Z", "2021-05-06T07:08:09+00:00"),
    "about": ("content/pages/about.md", "2021-06-07T08:09:10Z", "2021-06-07T08:09:10+00:00"),
    "about-fr": ("content/pages/about-fr.md", "2021-07-08T09:10:11Z", "2021-07-08T09:10:11+00:00"),
}
TEXT = {
    "b": "Title: B\nDate: 2022-01-01\nModified: 2024-12-01 10:00\nLang: en\nTags: beta, all\n\nAbout b.\n",
    "c": "Title: C\nDate: 2023-01-01\nLang: en\nTags: gamma, all\n\nAbout c.\n",
    "a": "Title: A\nDate: 2021-01-01\nLang: en\nTags: alpha, all\n\nAbout a.\n",
    "a-fr": "Title: A en français\nSlug: a\nDate: 2021-01-01\nLang: fr\nTags: alpha\n\nÀ propos de a.\n",
    "about": "Title: About\nLang: en\n\nAbout us.\n",
    "about-fr": "Title: À propos\nSlug: about\nLang: fr\n\nÀ propos de nous.\n",
}
#: Written by Pelican, linked from nowhere: never listed (committed before the others).
UNPUBLISHED = {
    "content/draft.md": "Title: Draft\nDate: 2024-06-01\nLang: en\nStatus: draft\n\nNot yet.\n",
    "content/hidden.md": "Title: Hidden\nDate: 2024-06-01\nLang: en\nStatus: hidden\n\nShh.\n",
    "content/pages/secret.md": "Title: Secret\nLang: en\nStatus: hidden\n\nShh.\n",
    # Copied as it is: its head says noindex, which beautifulsoup4 reads too.
    "content/extra/old.html": '<!doctype html><html><head><meta name="robots" content="noindex">'
    "<title>Old</title></head><body>Old.</body></html>\n",
}


def _project(root: Path, plugins: str = PLUGINS, extra: str = "") -> Path:
    root.mkdir()
    git(root, "init", "-q")
    make_tree(root, {".gitignore": "output/\ncache/\n__pycache__/\n", "pelicanconf.py": SETTINGS + plugins + extra})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "setup", date=SETUP_DATE)
    make_tree(root, UNPUBLISHED)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "unpublished", date=UNPUBLISHED_DATE)
    for name, (path, date, _) in SOURCES.items():
        make_tree(root, {path: TEXT[name]})
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", name, date=date)
    return root


def _pelican(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The real ``pelican``, its log without colour and one line a message (COLUMNS: rich wraps)."""
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    env |= {"NO_COLOR": "1", "COLUMNS": "1000", "PYTHONPATH": str(Path(__file__).parents[2])}
    argv = (sys.executable, "-m", "pelican", "content", "-s", "pelicanconf.py", *argv)
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)


def _built(root: Path) -> Path:
    run = _pelican(root)
    assert run.returncode == 0, run.stdout + run.stderr
    assert _said(run, "WARNING", "ERROR", "CRITICAL") == []
    return root / "output"


#: A line of Pelican's rich log: the time (left out when it is the last line's), the level, the
#: message and where it was logged.
_LOGGED = re.compile(r"(?:\[[\d:]+\])?\s+(DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(.*?)\s+[\w.]+\.py:\d+")


def _said(run: subprocess.CompletedProcess[str], *levels: str) -> list[str]:
    """The messages Pelican logged (its console is stdout) at `levels`, as ``LEVEL message``."""
    found = (_LOGGED.fullmatch(line) for line in run.stdout.splitlines())
    return [f"{m[1]} {m[2]}" for m in found if m is not None and m[1] in levels]


def _url(relpath: str) -> str:
    """A page's URL, as a static server answers it (``a/index.html`` at ``a/``)."""
    directory = relpath == "index.html" or relpath.endswith("/index.html")
    return BASE + (relpath.removesuffix("index.html") if directory else relpath)


def _indexable(out: Path) -> set[str]:
    """The URL of every page in `out` that beautifulsoup4 says a search engine may index: no
    robots noindex, no canonical naming another URL."""
    urls = set()
    for path in out.rglob("*.html"):
        url = _url(path.relative_to(out).as_posix())
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        robots = soup.find("meta", attrs={"name": "robots"})
        canonical = soup.find("link", rel="canonical")
        if robots is not None and "noindex" in str(robots.get("content", "")).lower():
            continue
        if canonical is not None and canonical.get("href") not in (None, url):
            continue
        urls.add(url)
    return urls


#: The articles, pages and drafts Pelican writes that nothing links: never listed.
NOT_LINKED = {"drafts/draft.html", "posts/hidden/index.html", "secret/index.html"}

#: Without i18n_subsites: each page and its lastmod, by its path in the site.
DATED = {
    "": "c",  # the first page of the index shows c and b
    "index2.html": "a",
    "posts/a/": "a",
    "posts/b/": "b",
    "posts/c/": "c",
    "posts/a-fr/": "a-fr",
    "about/": "about",
    "about-fr/": "about-fr",
    "tag/alpha.html": "a",
    "tag/beta.html": "b",
    "tag/gamma.html": "c",
    "tag/all.html": "c",
    "tag/all2.html": "a",
    "category/misc.html": "c",
    "category/misc2.html": "a",
    "author/ann.html": "c",
    "author/ann2.html": "a",
    **dict.fromkeys(["archives.html", "tags.html", "categories.html", "authors.html"], "a"),  # every article
}


def test_pelican_lists_what_a_search_engine_may_index_dated_by_git(tmp_path: Path) -> None:
    out = _built(_project(tmp_path / "site"))
    urls = {u.loc: u for u in published(out, BASE)}  # every file valid against the XSDs
    unlisted = {_url(page) for page in NOT_LINKED}
    assert unlisted <= _indexable(out)  # their heads would let them in: Pelican knows better
    assert set(urls) == _indexable(out) - unlisted
    assert {loc.removeprefix(BASE): u.lastmod for loc, u in urls.items()} == {
        page: SOURCES[name][2] for page, name in DATED.items()
    }
    clusters = {loc.removeprefix(BASE): u.alternates for loc, u in urls.items() if u.alternates}
    pairs = {"posts/a/": "posts/a-fr/", "about/": "about-fr/"}
    assert clusters == {
        page: ((lang, BASE + one), (other_lang, BASE + other))
        for en, fr in pairs.items()
        for page in (en, fr)
        for (lang, one), (other_lang, other) in [(("en", en), ("fr", fr))]
    }


#: What i18n_subsites writes into the French subsite for what has no French version: as drafts
#: (articles) or hidden (pages, and what was hidden already).
SUBSITE_UNTRANSLATED = {
    "fr/drafts/b-en.html",
    "fr/drafts/c-en.html",
    "fr/drafts/draft-en.html",
    "fr/posts/hidden-en/index.html",
    "fr/secret-en/index.html",
}


#: With lastmod ["meta", "git"]: each page's date from Pelican's metadata (modified, else date),
#: a page made of others the newest it shows; a page with no date in its source, its commit.
META = {
    "posts/a/": "2021-01-01T00:00:00+00:00",
    "posts/a-fr/": "2021-01-01T00:00:00+00:00",
    "posts/b/": "2024-12-01T10:00:00+00:00",  # its modified, not its date
    "posts/c/": "2023-01-01T00:00:00+00:00",
    "about/": SOURCES["about"][2],
    "about-fr/": SOURCES["about-fr"][2],
}


def test_pelican_metadata_dates_where_the_settings_ask(tmp_path: Path) -> None:
    out = _built(_project(tmp_path / "site", extra='SITEMAPGEN_LASTMOD = ["meta", "git"]\n'))
    got = {u.loc.removeprefix(BASE): u.lastmod for u in published(out, BASE)}
    a, b, c = META["posts/a/"], META["posts/b/"], META["posts/c/"]
    made_of_others = {
        **dict.fromkeys(["", "tag/all.html", "category/misc.html", "author/ann.html"], b),  # c and b
        **dict.fromkeys(["index2.html", "tag/all2.html", "category/misc2.html", "author/ann2.html"], a),
        **{"tag/alpha.html": a, "tag/beta.html": b, "tag/gamma.html": c},
        **dict.fromkeys(["archives.html", "tags.html", "categories.html", "authors.html"], b),  # every article
    }
    assert got == META | made_of_others


def test_pelican_i18n_subsites_in_one_index_with_clusters_from_translations(tmp_path: Path) -> None:
    """The subsite's theme links name /fr/../posts/a/; the clusters come from Pelican. What
    i18n_subsites writes into the subsite as drafts or hidden (the untranslated) is not listed."""
    pytest.importorskip("pelican.plugins.i18n_subsites")
    out = _built(_project(tmp_path / "site", I18N))
    urls = {u.loc: u for u in published(out, BASE)}
    unlisted = {_url(page) for page in NOT_LINKED | SUBSITE_UNTRANSLATED}
    assert set(urls) == _indexable(out) - unlisted
    assert {BASE + "fr/", BASE + "fr/posts/a/", BASE + "fr/about/"} <= set(urls)
    for page, name in [("posts/a/", "a"), ("fr/posts/a/", "a-fr"), ("about/", "about"), ("fr/about/", "about-fr")]:
        assert urls[BASE + page].lastmod == SOURCES[name][2]
    assert urls[BASE + "fr/"].lastmod == SOURCES["a-fr"][2]  # the subsite's index shows a-fr alone
    cluster = (("en", BASE + "posts/a/"), ("fr", BASE + "fr/posts/a/"))
    assert urls[BASE + "posts/a/"].alternates == urls[BASE + "fr/posts/a/"].alternates == cluster


@pytest.mark.parametrize("plugins", [pytest.param(PLUGINS, id="plain"), pytest.param(I18N, id="i18n_subsites")])
def test_an_unchanged_pelican_rebuild_writes_the_same_bytes(tmp_path: Path, plugins: str) -> None:
    pytest.importorskip("pelican.plugins.i18n_subsites")
    root = _project(tmp_path / "site", plugins)
    before = output_files(_built(root))
    _next_second()  # Pelican writes every page again
    after = output_files(_built(root))
    assert after == before
    assert {"sitemap.xml", "sitemapgen-sources.json"} <= set(after)


BAD = [
    pytest.param(
        'SITEMAPGEN_CHUNKNG = "fill"\n',
        "SITEMAPGEN_CHUNKNG: no such setting (did you mean SITEMAPGEN_CHUNKING?)",
        id="unknown",
    ),
    pytest.param(
        'SITEMAPGEN_CHUNKING = "bogus"\n',
        "SITEMAPGEN_CHUNKING: must be one of 'stable', 'fill', got 'bogus'",
        id="value",
    ),
    pytest.param(
        'SITEMAPGEN_RULES = [{"pattern": "tag/", "priority": 3}]\n',
        "SITEMAPGEN_RULES[0].priority: must be between 0.0 and 1.0, got 3",
        id="nested",
    ),
]


@pytest.mark.parametrize(("setting", "said"), BAD)
def test_a_bad_setting_is_one_error_line_and_no_sitemap(tmp_path: Path, setting: str, said: str) -> None:
    root = _project(tmp_path / "site", extra=setting)
    run = _pelican(root)
    assert run.returncode == 0, run.stdout + run.stderr  # Pelican's way: an error fails only --fatal errors
    assert _said(run, "WARNING", "ERROR", "CRITICAL") == [f"ERROR sitemapgen: pelicanconf.py: {said}"]
    assert (root / "output/index.html").exists()
    assert not (root / "output/sitemap.xml").exists()


@pytest.mark.parametrize(("setting", "said"), BAD)
def test_fatal_errors_stops_pelican_before_it_writes_anything(tmp_path: Path, setting: str, said: str) -> None:
    root = _project(tmp_path / "site", extra=setting)
    run = _pelican(root, "--fatal", "errors")
    assert run.returncode != 0
    assert _said(run, "ERROR") == [f"ERROR sitemapgen: pelicanconf.py: {said}"]
    assert "sitemapgen.errors" not in run.stdout + run.stderr  # Pelican's own traceback (4.12), none of ours
    assert not (root / "output").exists()


@pytest.mark.parametrize("site_url", ["", "/blog"])
def test_without_a_site_url_one_warning_and_no_sitemap(tmp_path: Path, site_url: str) -> None:
    root = _project(tmp_path / "site", extra=f"SITEURL = {site_url!r}\n")
    run = _pelican(root)
    assert run.returncode == 0, run.stdout + run.stderr
    assert _said(run, "WARNING", "ERROR", "CRITICAL") == [
        "WARNING sitemapgen: no sitemap written: set SITEURL to the site's absolute URL (or SITEMAPGEN_BASE_URL)"
        " in pelicanconf.py"
    ]
    assert not (root / "output/sitemap.xml").exists()


@pytest.mark.forks  # it ends the pelican it started
def test_autoreload_settles_after_one_edit(tmp_path: Path) -> None:
    """What the plugin writes (the sitemaps, the page-source map in the output, the content store
    in CACHE_PATH) starts no rebuild: one edit, one more build, and then none."""
    root = _project(tmp_path / "site", extra='SITEMAPGEN_LASTMOD = ["content"]\n')
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    env |= {"NO_COLOR": "1", "COLUMNS": "1000", "PYTHONPATH": str(Path(__file__).parents[2])}
    log = tmp_path / "autoreload.log"
    argv = [sys.executable, "-m", "pelican", "content", "-s", "pelicanconf.py", "--autoreload"]
    with log.open("w") as sink:
        proc = subprocess.Popen(argv, cwd=root, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            _wait_for_builds(log, 1, proc)
            wait_until_watched(proc.pid, root / "content")
            (root / "content/b.md").write_text(TEXT["b"] + "\nMore about b.\n", encoding="utf-8")
            _wait_for_builds(log, 2, proc)
            time.sleep(5)  # a rebuild started by what the second build wrote would show by now
            assert _builds(log) == 2, log.read_text()
            assert any(u.loc.startswith(BASE + "tag/") for u in published(root / "output", BASE))
            wait_until_watched(proc.pid, root / "pelicanconf.py")
            with (root / "pelicanconf.py").open("a", encoding="utf-8") as settings:
                settings.write('SITEMAPGEN_EXCLUDE = ["tag/"]\n')  # Pelican makes a new instance of itself
            _wait_for_builds(log, 3, proc)
            time.sleep(5)
            assert _builds(log) == 3, log.read_text()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    assert "ERROR" not in log.read_text()
    assert (root / "cache/sitemapgen-state-output.sqlite").is_file()
    assert not any(u.loc.startswith(BASE + "tag/") for u in published(root / "output", BASE))


def _builds(log: Path) -> int:
    return log.read_text().count("Done: Processed")


def _wait_for_builds(log: Path, n: int, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while _builds(log) < n:
        if proc.poll() is not None:
            pytest.fail(f"pelican --autoreload exited {proc.returncode}:\n{log.read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"pelican --autoreload did not build {n} times in {seconds} s:\n{log.read_text()}")
        time.sleep(0.2)
