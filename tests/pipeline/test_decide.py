"""The per-page decision, one page at a time: every way a page is left out, and how it is listed."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import pytest

from sitemapgen import Config, SkipReason
from sitemapgen.entry import Row, row_of
from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.skips import NoteKind

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    HEAD_SITE,
    head,
    html,
    locs,
    make_tree,
    published,
)


def _head(extra: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title>{extra}</head><body></body></html>"


def _decide(root: Path, relpath: str, **overrides: Any) -> tuple[Decider, Outcome]:
    decider = Decider(Config(docroot=root, base_url=BASE, **overrides), warn=lambda _: None, dry_run=True)
    try:
        outcome = decider.settle(decider.decide((relpath, os.path.islink(root / relpath)), detail=True))
        assert isinstance(outcome, Outcome)
        return decider, outcome
    finally:
        decider.abort()


@pytest.mark.parametrize(
    ("content", "overrides", "reason", "detail"),
    [
        pytest.param(_head(""), {"exclude": ("p.html",)}, SkipReason.EXCLUDED, "p.html", id="pattern"),
        pytest.param(_head('<meta name="robots" content="noindex">'), {}, SkipReason.NOINDEX, "", id="noindex"),
        pytest.param(
            _head('<link rel="canonical" href="/q.html">'),
            {},
            SkipReason.CANONICAL,
            "to https://example.com/q.html",
            id="canonical-elsewhere",
        ),
        pytest.param(
            _head('<meta http-equiv="refresh" content="0;url=/q.html">'),
            {},
            SkipReason.REDIRECT,
            "to https://example.com/q.html",
            id="redirect",
        ),
        pytest.param(
            _head("".join(f'<link rel="alternate" hreflang="x{chr(97 + i)}" href="/{i}/">' for i in range(26))),
            {"max_bytes_per_sitemap": 1_024},
            SkipReason.ENTRY_TOO_LARGE,
            "2,007 bytes",
            id="entry-too-large",
        ),
    ],
)
def test_pages_left_out(
    tmp_path: Path, content: str, overrides: dict[str, Any], reason: SkipReason, detail: str
) -> None:
    root = make_tree(tmp_path / "site", {"p.html": content, "q.html": _head("")})
    _, outcome = _decide(root, "p.html", **overrides)
    assert outcome.skip is not None
    assert (outcome.skip.relpath, outcome.skip.reason, outcome.skip.detail) == ("p.html", reason, detail)
    assert outcome.entry is None


@pytest.mark.parametrize(
    ("content", "overrides"),
    [
        pytest.param(_head('<link rel="canonical" href="/p.html">'), {}, id="self-canonical"),
        pytest.param(_head('<link rel="canonical" href="HTTPS://Example.COM:443/p.html#x">'), {}, id="self-other-form"),
        pytest.param(_head('<meta http-equiv="refresh" content="30">'), {}, id="refresh-without-url"),
        pytest.param(_head('<meta name="robots" content="noindex">'), {"check_noindex": False}, id="noindex-off"),
        pytest.param(_head('<link rel="canonical" href="/q.html">'), {"check_canonical": False}, id="canonical-off"),
        pytest.param(_head('<meta name="robots" content="noindex">'), {"read_heads": False}, id="heads-off"),
    ],
)
def test_pages_listed(tmp_path: Path, content: str, overrides: dict[str, Any]) -> None:
    root = make_tree(tmp_path / "site", {"p.html": content})
    decider, outcome = _decide(root, "p.html", **overrides)
    assert outcome.skip is None
    assert outcome.entry is not None
    assert outcome.entry.loc == BASE + "p.html"
    assert outcome.row == row_of(outcome.entry, decider.config.lastmod_format)  # formatted as the writer writes


_CANONICAL_SITE = {
    # Sphinx 7 and 9, html builder: index.html names itself in its file form.
    "index.html": _head('<link rel="canonical" href="https://example.com/index.html" />'),
    "_modules/index.html": _head('<link rel="canonical" href="https://example.com/_modules/index.html" />'),
    # Sphinx 7, dirhtml builder: the canonical names a file the build never wrote.
    "api/index.html": _head('<link rel="canonical" href="https://example.com/api.html" />'),
    # A directory page naming itself without its slash: the server redirects /guide to /guide/.
    "guide/index.html": _head('<link rel="canonical" href="/guide">'),
    # Hugo, MkDocs: the directory form of itself.
    "usage/index.html": _head('<link rel="canonical" href="https://example.com/usage/">'),
    # A page that names another page of this site, one that names a missing one.
    "copy.html": _head('<link rel="canonical" href="/usage/">'),
    "gone.html": _head('<link rel="canonical" href="/nowhere/">'),
    # Another host, another scheme.
    "mirror.html": _head('<link rel="canonical" href="https://b.example/p">'),
    "http.html": _head('<link rel="canonical" href="http://example.com/http.html">'),
    # This host, outside the base URL's path: unknown, so taken as elsewhere.
    "docs/outside.html": _head('<link rel="canonical" href="https://example.com/other/outside.html">'),
}


@pytest.mark.parametrize(
    ("relpath", "base", "listed_as", "reason"),
    [
        ("index.html", BASE, BASE + "index.html", None),
        ("_modules/index.html", BASE, BASE + "_modules/index.html", None),
        ("api/index.html", BASE, BASE + "api/", None),
        ("guide/index.html", BASE, BASE + "guide/", None),
        ("usage/index.html", BASE, BASE + "usage/", None),
        ("copy.html", BASE, None, SkipReason.CANONICAL),
        ("gone.html", BASE, BASE + "gone.html", None),
        ("mirror.html", BASE, None, SkipReason.CANONICAL_OTHER_HOST),
        ("http.html", BASE, None, SkipReason.CANONICAL_OTHER_HOST),
        ("docs/outside.html", BASE + "docs/", None, SkipReason.CANONICAL),
    ],
)
def test_a_canonical_is_resolved_against_the_docroot(
    tmp_path: Path, relpath: str, base: str, listed_as: str | None, reason: SkipReason | None
) -> None:
    """Same file: listed, under the URL it declares when that URL answers directly. No file:
    ignored, as search engines ignore a canonical that answers 404. Another file, another
    host or scheme: left out."""
    root = make_tree(tmp_path / "site", _CANONICAL_SITE)
    if base != BASE:
        root = root / "docs"
    decider = Decider(Config(docroot=root, base_url=base), warn=lambda _: None, dry_run=True)
    try:
        rel = relpath.removeprefix("docs/") if base != BASE else relpath
        outcome = decider.decide((rel, False), detail=True)
    finally:
        decider.abort()
    assert isinstance(outcome, Outcome)
    assert (outcome.entry.loc if outcome.entry else None) == listed_as
    assert (outcome.skip.reason if outcome.skip else None) == reason
    assert bool(outcome.notes) == (relpath in ("api/index.html", "gone.html"))


def test_files_that_are_not_pages(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a.html": _head("")})
    os.mkfifo(root / "fifo.html")
    (root / "broken.html").symlink_to(root / "missing.html")
    (root / "out.html").symlink_to(tmp_path)
    reasons = {name: _decide(root, name)[1].skip for name in ("fifo.html", "broken.html", "out.html")}
    assert {name: skip.reason if skip else None for name, skip in reasons.items()} == {
        "fifo.html": SkipReason.NOT_A_FILE,
        "broken.html": SkipReason.BROKEN_SYMLINK,
        "out.html": SkipReason.DIR_SYMLINK,
    }


def test_a_url_too_long_is_left_out(tmp_path: Path) -> None:
    name = "x" * 250 + ".html"
    deep = "/".join(["d" * 250] * 8) + "/" + name
    root = make_tree(tmp_path / "site", {deep: _head("")})
    _, outcome = _decide(root, deep)
    assert outcome.skip is not None
    assert outcome.skip.reason is SkipReason.URL_TOO_LONG


@pytest.mark.parametrize(
    ("head", "noted"),
    [
        pytest.param("", False, id="nothing-to-say"),
        # A note (here: a canonical no file answers) is counted for the build, not warned of page
        # by page: the page still crosses with its row alone, its notes with it, and the build counts them.
        pytest.param('<link rel="canonical" href="/gone.html">', True, id="a-note"),
    ],
)
def test_a_listed_page_without_warnings_crosses_from_workers_without_its_entry(
    tmp_path: Path, head: str, noted: bool
) -> None:
    root = make_tree(tmp_path / "site", {"p.html": _head(head)})
    decider = Decider(Config(docroot=root, base_url=BASE), warn=lambda _: None, dry_run=True)
    plain = decider.decide(("p.html", False))
    detailed = decider.decide(("p.html", False), detail=True)
    assert bool(detailed.notes) is noted
    assert detailed.entry is not None
    assert plain == detailed._replace(entry=None)
    assert plain.lastmod_source == "mtime"


def test_what_crosses_from_workers_survives_pickling_whole() -> None:
    """Entry, Alternate and Row pickle as constructor calls, and outcomes cross as `OUTCOME_WIRE`
    packs them: no field may be left behind, and each comes back as its own type."""
    import pickle
    from datetime import UTC, datetime

    from sitemapgen import ChangeFreq, LastmodFormat, Skip
    from sitemapgen.entry import Alternate, Entry
    from sitemapgen.pipeline.decide import OUTCOME_WIRE

    entry = Entry(
        BASE, datetime(2024, 1, 2, tzinfo=UTC), ChangeFreq.DAILY, 0.5, (Alternate("de", BASE + "de/"),), "blog"
    )
    outcome = Outcome("a.html", entry, row_of(entry, LastmodFormat.DATETIME), None, "git", labels=("T", None, "de"))
    skipped = Outcome("b.html", skip=Skip("b.html", SkipReason.NOINDEX), warnings=("w",), key=b"k")
    for value in (entry, entry.alternates[0], outcome.row):
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value)
        assert back == value  # every field
    crossed = OUTCOME_WIRE.unpack(pickle.loads(pickle.dumps(OUTCOME_WIRE.pack([outcome, skipped]))))
    assert crossed == [outcome, skipped]  # every field
    first, second = crossed
    assert type(first) is Outcome
    assert type(second) is Outcome
    assert type(first.row) is Row
    assert second.row is None


def test_a_page_crosses_with_its_title_description_and_language_only_when_an_output_wants_them(tmp_path: Path) -> None:
    page = '<title>A &amp; B</title><meta name="description" content=" What\n it is ">'
    root = make_tree(
        tmp_path / "site",
        {"p.html": _head(page).replace("<html>", '<html lang="pt-BR">'), "q.html": "<!doctype html><p>no head"},
    )
    for relpath, labels in (("p.html", ("t", "What it is", "pt-BR")), ("q.html", (None, None, None))):
        # `_head` writes a title "t" first: the first title is the page's.
        decider = Decider(Config(docroot=root, base_url=BASE, llms_txt=True), warn=lambda _: None, dry_run=True)
        assert decider.decide((relpath, False)).labels == labels
        assert decider.decide((relpath, False), detail=True).labels == labels
        off = Decider(Config(docroot=root, base_url=BASE), warn=lambda _: None, dry_run=True)
        assert off.decide((relpath, False)).labels is None
    # Without head reading, nothing is read, whatever asks.
    unread = Decider(Config(docroot=root, base_url=BASE, llms_txt=True, read_heads=False), warn=print, dry_run=True)
    assert unread.decide(("p.html", False)).labels is None


def _alternates(*pairs: tuple[str, str]) -> str:
    return "".join(f'<link rel="alternate" hreflang="{lang}" href="{href}">' for lang, href in pairs)


@pytest.mark.parametrize(
    ("html_lang", "links", "expected", "note"),
    [
        pytest.param(
            "en", [("en", "/p.html"), ("de", "/de/p.html")], [("en", "p.html"), ("de", "de/p.html")], None, id="whole"
        ),
        pytest.param(
            "en",
            [("de", "/de/p.html")],
            [("de", "de/p.html"), ("en", "p.html")],
            NoteKind.HREFLANG_SELF_ADDED,
            id="self-added",
        ),
        pytest.param(None, [("de", "/de/p.html")], [("de", "de/p.html")], NoteKind.HREFLANG_NO_SELF, id="no-html-lang"),
        pytest.param(
            "en",
            [("en", "/other.html"), ("de", "/de/p.html")],
            [("en", "other.html"), ("de", "de/p.html")],
            NoteKind.HREFLANG_NO_SELF,
            id="own-language-elsewhere",
        ),
        pytest.param(
            "en",
            [("en", "/p.html"), ("fr", "/fr/a.html"), ("FR", "/fr/b.html"), ("de", "/de/p.html")],
            [("en", "p.html"), ("de", "de/p.html")],
            NoteKind.HREFLANG_CONFLICT,
            id="a-language-twice",
        ),
    ],
)
def test_an_hreflang_cluster_is_made_whole(
    tmp_path: Path,
    html_lang: str | None,
    links: list[tuple[str, str]],
    expected: list[tuple[str, str]],
    note: NoteKind | None,
) -> None:
    lang = f' lang="{html_lang}"' if html_lang else ""
    root = make_tree(
        tmp_path / "site", {"p.html": f"<!DOCTYPE html><html{lang}><head>{_alternates(*links)}</head></html>"}
    )
    _, outcome = _decide(root, "p.html")
    assert outcome.entry is not None
    assert [(a.hreflang, a.href.removeprefix(BASE)) for a in outcome.entry.alternates] == expected
    assert [kind for kind, _ in outcome.notes] == ([note] if note else [])


def test_long_urls_are_skipped_with_a_warning(site: SiteFactory, cli: CliRunner) -> None:
    deep = "/".join(["ü" * 100] * 4) + "/page.html"  # each ü becomes %C3%BC: about 2,400 characters
    root = site({deep: html(), "ok.html": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0
    assert locs(root, BASE) == [BASE + "ok.html"]
    assert "skipped, URL of 2,048 characters or more" in run.err


def test_head_signals_decide_what_is_listed(site: SiteFactory, cli: CliRunner) -> None:
    root = site(HEAD_SITE)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    urls = published(root, BASE)
    assert [u.loc for u in urls] == [BASE, BASE + "ok.html", BASE + "de/", BASE + "en/"]
    assert (
        "skipped 2 noindex, 1 canonical elsewhere, 1 canonical on another host,"
        " 1 not a page (no doctype, html, head, body or title), 1 redirect"
    ) in run.err
    assert "warning: 1 skipped, canonical on another host; e.g. elsewhere.html to https://other.example/x\n" in run.err
    assert "warning: 1 skipped, not a page (no doctype, html, head, body or title); e.g. junk.html\n" in run.err
    [en] = [u for u in urls if u.loc == BASE + "en/"]
    assert en.alternates == (("en", BASE + "en/"), ("de", BASE + "de/"), ("x-default", BASE + "en/"))


@pytest.mark.parametrize(
    ("setting", "also_listed"),
    [
        pytest.param("check_noindex = false", ["bot.html", "hidden.html"], id="noindex-off"),
        pytest.param("check_canonical = false", ["dupe.html", "elsewhere.html"], id="canonical-off"),
        pytest.param("check_redirects = false", ["old/"], id="redirects-off"),
        pytest.param(
            "read_heads = false",
            ["bot.html", "dupe.html", "elsewhere.html", "hidden.html", "junk.html", "old/"],
            id="heads-off",
        ),
    ],
)
def test_each_head_check_can_be_switched_off(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, setting: str, also_listed: list[str]
) -> None:
    root = site(HEAD_SITE)
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\n{setting}\n')
    assert cli("build", root, "--config", config).code == 0
    listed = {u.loc.removeprefix(BASE) for u in published(root, BASE)}
    assert listed == {"", "ok.html", "de/", "en/", *also_listed}


def test_hreflang_can_be_switched_off(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site(HEAD_SITE)
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nhreflang = false\n')
    assert cli("build", root, "--config", config).code == 0
    assert all(not u.alternates for u in published(root, BASE))
    assert b"<xhtml:link" not in gzip.decompress((root / "sitemap-1.xml.gz").read_bytes())


def test_byte_limit_holds_with_many_hreflang_links(site: SiteFactory, cli: CliRunner) -> None:
    langs = [f"x{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(30)]  # valid xsd:language codes
    links = [f'<link rel="alternate" hreflang="{lang}" href="/{lang}/page-with-a-long-name.html">' for lang in langs]
    root = site({f"{lang}/page-with-a-long-name.html": head(*links) for lang in langs})  # one cluster of 30
    assert cli("build", root, "--base-url", BASE, "--max-bytes-per-sitemap", "8000").code == 0
    chunks = sorted(root.glob("sitemap-*.xml.gz"))
    assert len(chunks) > 2
    assert max(len(gzip.decompress(c.read_bytes())) for c in chunks) <= 8000
    urls = published(root, BASE)
    assert len(urls) == 30
    assert all(len(u.alternates) == 30 for u in urls)
