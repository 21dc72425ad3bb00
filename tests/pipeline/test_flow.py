"""One producer of page outcomes: build, list, explain and check agree page for page."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sitemapgen
from sitemapgen import Config, LastmodSource, SkipReason, UrlStyle
from sitemapgen.pipeline.flow import Pipeline

from ..conftest import BASE, CliRunner
from ..helpers import html, make_tree, published


def _head(extra: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title>{extra}</head><body>b</body></html>\n"


def _hreflang(n: int) -> str:
    langs = [f"x{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(n)]  # xaa, xab, ...: valid language tags
    return "".join(f'<link rel="alternate" hreflang="{lang}" href="/{lang}/page.html">' for lang in langs)


#: A site with something for every stage to decide: an entry too large for the byte
#: limit, hreflang pages, noindex, canonical elsewhere, a redirect stub, an excluded
#: directory, an index twin, a cross-host canonical, a canonical that names no file
#: (listed, a note) and a bad hreflang.
MIXED_SITE = {
    "index.html": html("home"),
    "index.htm": html("twin"),
    "huge.html": _head(_hreflang(60)),
    "de.html": _head(_hreflang(3)),
    "hidden.html": _head('<meta name="robots" content="noindex">'),
    "copy.html": _head('<link rel="canonical" href="/de.html">'),
    "old.html": _head('<meta http-equiv="refresh" content="0; url=/de.html">'),
    "drafts/wip.html": html("wip"),
    "blog/index.html": html("blog"),
    "blog/post.html": _head('<link rel="canonical" href="https://elsewhere.example/post">'),
    "blog/bad.html": _head('<link rel="alternate" hreflang="not a language" href="/x">'),
    "blog/2024/a.html": _head('<link rel="canonical" href="/blog/2024/gone.html">'),
}


def _site_args(root: Path, out: Path, *extra: str) -> list[str | Path]:
    return [root, "--base-url", BASE, "--out", out, "--lastmod", "content,mtime", *extra]


def test_list_explain_and_check_say_what_build_wrote(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", MIXED_SITE)
    (root / ".sitemapignore").write_text("drafts/\n")
    out = tmp_path / "out"
    args = _site_args(root, out, "--max-bytes-per-sitemap", "2048")

    built = cli("build", *args)
    assert built.code == 0, built.err
    assert "huge.html: skipped, entry larger than max_bytes_per_sitemap allows" in built.err  # a path, as every warning
    written = published(out, BASE)
    assert written  # and every file passed the XSDs on the way

    listing = cli("list", *args, "--json")
    assert listing.code == 0, listing.err
    rows = [json.loads(line) for line in listing.out.splitlines()]
    assert [(r["url"], r["lastmod"], r["priority"], r["changefreq"]) for r in rows] == [
        (u.loc, u.lastmod, u.priority, u.changefreq) for u in written
    ]
    assert {r["lastmod_source"] for r in rows} == {"content"}
    warnings = [line for line in built.err.splitlines() if "no lastmod state store yet" not in line]
    # The same warnings, in the same order, less the summary, and less the hreflang links the
    # build drops for want of a return link: list shows no links, so it has none to drop.
    assert warnings[-2].startswith("warning: 3 hreflang links on 1 page dropped")
    assert listing.err.splitlines() == warnings[:-2]

    pages = sorted(str(p.relative_to(root)) for p in root.rglob("*.htm*"))
    explained = cli("explain", *args, *pages)
    assert explained.code == 1  # some pages are not listed
    said = [line for line in explained.out.splitlines() if not line.startswith(" ")]
    listed_as = sorted(line.rpartition(" listed as ")[2] for line in said if " listed as " in line)
    assert listed_as == sorted(u.loc for u in written)
    assert "huge.html: not listed: entry larger than max_bytes_per_sitemap allows" in explained.out
    assert "drafts/wip.html: not listed: directory drafts/ excluded by pattern 'drafts/'" in explained.out
    assert "index.htm: not listed: same URL as an earlier page (index.html)" in explained.out
    assert "blog/post.html: not listed: canonical on another host (to https://elsewhere.example/post)" in (
        explained.out
    )
    assert (
        f"  note: canonical names a URL no file here answers, so it is ignored; each listed at its own URL:"
        f" blog/2024/a.html names {BASE}blog/2024/gone.html" in explained.out
    )
    assert (
        "warning: 1 page: canonical names a URL no file here answers, so it is ignored; each listed at its own"
        f" URL; e.g. blog/2024/a.html names {BASE}blog/2024/gone.html"
    ) in built.err.splitlines()

    checked = cli("check", *args)
    assert (checked.code, checked.out) == (0, f"current: 1 sitemap, {len(written)} pages\n")


_NAMES = st.sampled_from(["index.html", "index.htm", "a.html", "a.htm", "b.html", "x y.html", "é.html", ".hid.html"])
_DIRS = st.sampled_from(["", "d/", "d/e/", "skip/", ".git/", "n/"])
_HEADS = st.sampled_from(
    [
        "",
        '<meta name="robots" content="noindex">',
        '<link rel="canonical" href="/a.html">',
        '<link rel="canonical" href="https://other.example/">',
        '<meta http-equiv="refresh" content="0; url=/b.html">',
        _hreflang(2),
        _hreflang(30),
        '<link rel="alternate" hreflang="bad lang" href="/x">',
        '<meta property="article:modified_time" content="2024-01-02T03:04:05+02:00">',
    ]
)
_TREES = st.dictionaries(st.tuples(_DIRS, _NAMES).map("".join), _HEADS.map(_head), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=_TREES, style=st.sampled_from(["directory", "index", "extensionless"]))
def test_build_list_and_explain_agree_on_generated_trees(tree: dict[str, str], style: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_tree(Path(tmp) / "site", tree)
        config = Config(
            docroot=root,
            base_url=BASE,
            out_dir=Path(tmp) / "out",
            url_style=UrlStyle(style),
            exclude=("skip/",),
            lastmod=(LastmodSource.META, LastmodSource.MTIME),
            max_bytes_per_sitemap=1_500,
            jobs=1,
        )
        error = ""
        try:
            sitemapgen.build(config, on_warning=lambda _: None)
        except sitemapgen.SitemapgenError as e:
            error = str(e)
        assert error == "" or "no pages to list" in error
        written = [u.loc for u in published(Path(tmp) / "out", BASE)] if not error else []
        listed = [item.entry.loc for item in sitemapgen.iter_listing(config, on_warning=lambda _: None)]
        assert listed == written
        answers = sitemapgen.explain(config, sorted(tree))
        assert sorted(a.lines[0].rpartition(" listed as ")[2] for a in answers if a.listed) == sorted(written)
        assert all(a.lines[0].startswith(f"{a.relpath}: not listed: ") for a in answers if not a.listed)


def test_every_page_has_one_outcome_in_walk_order(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", MIXED_SITE)
    config = Config(docroot=root, base_url=BASE, exclude=("drafts/",), max_bytes_per_sitemap=2048)
    pipeline = Pipeline(config, None, warn=lambda _: None, dry_run=True)
    try:
        outcomes = list(pipeline.outcomes())
    finally:
        pipeline.abort()
    reasons = {o.relpath: o.skip.reason if o.skip else None for o in outcomes}
    assert reasons == {
        "index.html": None,
        "index.htm": SkipReason.DUPLICATE_URL,
        "copy.html": SkipReason.CANONICAL,
        "de.html": None,
        "hidden.html": SkipReason.NOINDEX,
        "huge.html": SkipReason.ENTRY_TOO_LARGE,
        "old.html": SkipReason.REDIRECT,
        "blog/index.html": None,
        "blog/bad.html": None,
        "blog/post.html": SkipReason.CANONICAL_OTHER_HOST,
        "blog/2024/a.html": None,
        "drafts/": SkipReason.EXCLUDED_DIR,
    }
    # Every fate comes in walk order, the walk's own skips (a duplicate URL, a pruned
    # directory) where their names sort among the pages: the listing is consumed as it goes.
    assert list(reasons) == [
        "index.html",
        "index.htm",
        "copy.html",
        "de.html",
        "drafts/",
        "hidden.html",
        "huge.html",
        "old.html",
        "blog/index.html",
        "blog/bad.html",
        "blog/post.html",
        "blog/2024/a.html",
    ]
    by_path = {o.relpath: o for o in outcomes}
    assert by_path["blog/bad.html"].warnings == (
        "blog/bad.html: hreflang link ignored: hreflang='not a language' href='/x'",
    )


def _many(root: Path, n: int) -> Path:
    for i in range(n):
        directory = root / f"d{i % 7}"
        directory.mkdir(parents=True, exist_ok=True)
        extra = '<meta name="robots" content="noindex">' if i % 11 == 0 else _hreflang(i % 3)
        (directory / f"p{i:05}.html").write_text(_head(extra))
    return root


@pytest.mark.forks  # else no worker starts
@pytest.mark.parametrize("jobs", [1, 2])
def test_list_uses_workers_and_says_the_same(ram_tmp: Path, cli: CliRunner, jobs: int) -> None:
    root = _many(ram_tmp / "site", 5_000)  # more than is done inline: workers start
    out = ram_tmp / "out"
    assert cli("build", root, "--base-url", BASE, "--out", out, "--jobs", "1").code == 0
    listing = cli("list", root, "--base-url", BASE, "--out", out, "--jobs", str(jobs))
    assert listing.code == 0
    assert [line.split("\t")[0] for line in listing.out.splitlines()] == [u.loc for u in published(out, BASE)]
