"""hreflang clusters across pages: a link to this site survives only if its target returns it."""

from __future__ import annotations

import random
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

import sitemapgen
from sitemapgen import Config
from sitemapgen.entry import Block, Row, each_row

from ..conftest import BASE
from ..helpers import make_tree, published, refuse_sqlite


def _page(lang: str, *links: tuple[str, str], extra: str = "") -> str:
    tags = "".join(f'<link rel="alternate" hreflang="{code}" href="{href}">' for code, href in links)
    return f'<!DOCTYPE html><html lang="{lang}"><head><title>t</title>{tags}{extra}</head><body></body></html>'


_FULL = (("en", "/en/a.html"), ("de", "/de/a.html"), ("fr", "/fr/a.html"))

#: One real cluster (en, de, fr name each other), and around it every way a link can fail.
SITE = {
    "en/a.html": _page("en", *_FULL),
    "de/a.html": _page("de", *_FULL),
    "fr/a.html": _page("fr", *_FULL),
    # Names a page that does not exist, a noindex page, a redirect, a page canonical elsewhere,
    # a page with no links at all, and another host: only the other host is kept (and itself).
    "en/b.html": _page(
        "en",
        ("en", "/en/b.html"),
        ("de", "/de/missing.html"),
        ("fr", "/fr/hidden.html"),
        ("it", "/it/moved.html"),
        ("es", "/es/copy.html"),
        ("nl", "/nl/plain.html"),
        ("ja", "https://jp.example.org/b.html"),
    ),
    "fr/hidden.html": _page("fr", ("en", "/en/b.html"), extra='<meta name="robots" content="noindex">'),
    "it/moved.html": _page("it", ("en", "/en/b.html"), extra='<meta http-equiv="refresh" content="0; url=/it/b.html">'),
    "es/copy.html": _page("es", ("en", "/en/b.html"), extra='<link rel="canonical" href="/en/a.html">'),
    "nl/plain.html": _page("nl"),
}


def _build(root: Path, **options: object) -> tuple[dict[str, list[tuple[str, str]]], list[str]]:
    warnings: list[str] = []
    sitemapgen.build(Config(docroot=root, base_url=BASE, **options), on_warning=warnings.append)  # type: ignore[arg-type]
    urls = published(root, BASE)
    return {
        u.loc.removeprefix(BASE): [(lang, href.removeprefix(BASE)) for lang, href in u.alternates] for u in urls
    }, warnings


def test_only_returned_links_to_this_site_are_published(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", SITE)
    links, warnings = _build(root)
    full = [(lang, href.lstrip("/")) for lang, href in _FULL]
    assert links["en/a.html"] == full
    assert links["de/a.html"] == full
    assert links["fr/a.html"] == full
    assert links["en/b.html"] == [("en", "en/b.html"), ("ja", "https://jp.example.org/b.html")]
    assert links["nl/plain.html"] == []
    assert not {"fr/hidden.html", "it/moved.html", "es/copy.html"} & set(links)
    dropped = [w for w in warnings if "hreflang links on 1 page dropped" in w]
    assert len(dropped) == 1
    assert dropped[0].startswith("5 hreflang links on 1 page dropped")
    assert dropped[0].endswith(f"e.g. {BASE}en/b.html names {BASE}de/missing.html")


def test_the_order_of_pages_is_kept(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", SITE)
    with_check, _ = _build(root)
    without, _ = _build(root, hreflang=False)
    assert list(with_check) == list(without)


def test_a_site_without_links_spools_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> None:
        raise AssertionError("a site with no hreflang links spooled its rows")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    root = make_tree(tmp_path / "site", {f"p{i}.html": _page("en") for i in range(50)})
    links, warnings = _build(root)
    assert len(links) == 50
    assert warnings == []


@pytest.mark.parametrize(
    ("choice", "x_default"),
    [
        ("en", ("x-default", "en/a.html")),
        ("DE", ("x-default", "de/a.html")),
        ("https://example.com/choose/", None),  # a URL of this site that is not listed: not returned, dropped
        ("https://lang.example.net/", ("x-default", "https://lang.example.net/")),
        ("pt", None),  # no such language in the cluster: nothing added
    ],
)
def test_x_default_is_added_where_the_head_has_none(
    tmp_path: Path, choice: str, x_default: tuple[str, str] | None
) -> None:
    root = make_tree(tmp_path / "site", {k: v for k, v in SITE.items() if k.endswith("/a.html")})
    links, _ = _build(root, hreflang_x_default=choice)
    full = [(lang, href.lstrip("/")) for lang, href in _FULL]
    assert links["en/a.html"] == full + ([x_default] if x_default else [])


@pytest.mark.parametrize("choice", ["x-default", "not a language", "/relative/", "ftp://x.example/"])
def test_a_bad_x_default_is_a_config_error(tmp_path: Path, choice: str) -> None:
    with pytest.raises(sitemapgen.ConfigError, match="hreflang_x_default: must be a language code"):
        Config(docroot=tmp_path, base_url=BASE, hreflang_x_default=choice)


@pytest.mark.parametrize("between", ["", "\n"])
def test_a_row_loses_only_its_unreturned_links_whether_they_are_side_by_side_or_not(between: str) -> None:
    """Rows as the writer makes them have their links side by side, and lose the unreturned ones in
    one cut; a row laid out otherwise loses them one by one, to the same effect."""
    from sitemapgen.entry import Row, each_row
    from sitemapgen.pipeline.hreflang import Reciprocity

    def row(loc: str, *hrefs: str) -> Row:
        links = between.join(f'<xhtml:link rel="alternate" hreflang="x{i}" href="{h}"/>' for i, h in enumerate(hrefs))
        return Row(loc, f"<url><loc>{loc}</loc>{links}</url>\n".encode(), None, None, "", None)

    a, b, c = BASE + "a", BASE + "b", BASE + "c"
    stage = Reciprocity(BASE)
    out = list(each_row(stage.filter(iter([row(a, a, b, c, "https://other.example/"), row(b, b, a)]))))
    dropped = f'<xhtml:link rel="alternate" hreflang="x2" href="{c}"/>'.encode()
    assert out[0].xml == row(a, a, b, c, "https://other.example/").xml.replace(dropped, b"")
    assert dropped not in out[0].xml
    assert out[1] == row(b, b, a)
    assert (stage.dropped, stage.pages, stage.example) == (1, 1, f"{a} names {c}")


@pytest.mark.parametrize("between", ["", "\n"])
def test_a_row_names_the_listed_form_whether_its_links_are_side_by_side_or_not(tmp_path: Path, between: str) -> None:
    """A link to another form of a listed page (/b, the directory b/ redirects to /b/) names the
    URL listed instead, in its place, however the row is laid out; the others stay as they are."""
    from sitemapgen.entry import Row
    from sitemapgen.pipeline.forms import Forms
    from sitemapgen.pipeline.hreflang import Reciprocity

    def row(loc: str, *hrefs: str) -> Row:
        links = between.join(f'<xhtml:link rel="alternate" hreflang="x{i}" href="{h}"/>' for i, h in enumerate(hrefs))
        return Row(loc, f"<url><loc>{loc}</loc>{links}</url>\n".encode(), None, None, "", None)

    root = make_tree(tmp_path / "site", {"a.html": _page("en"), "b/index.html": _page("de")})
    a, b = BASE + "a.html", BASE + "b/"
    stage = Reciprocity(BASE, Forms(Config(docroot=root, base_url=BASE), None))
    out = list(stage.filter(iter([row(a, a, BASE + "b", "https://other.example/"), row(b, a, BASE + "b")])))
    assert out == [row(a, a, b, "https://other.example/"), row(b, a, b)]
    assert (stage.relisted, stage.relisted_pages, stage.relisted_example) == (2, 2, f"{a} names {BASE}b, listed as {b}")
    assert stage.dropped == 0


def _linked_row(loc: str, *hrefs: str) -> Row:
    links = "".join(f'<xhtml:link rel="alternate" hreflang="x{i}" href="{h}"/>' for i, h in enumerate(hrefs))
    return Row(loc, f"<url><loc>{loc}</loc>{links}</url>\n".encode(), None, None, "", None)


def _random_site(rng: random.Random, broken: float) -> list[Row | Block]:
    """Clusters of 1 to 5 pages, spread over the walk; a page names each page of its cluster but
    with chance `broken` (and then maybe a missing page, or one of another cluster); pages with
    no links, links to another host, and blocks of rows among them."""
    pages = [f"{BASE}p{i}" for i in range(rng.randint(1, 120))]
    order = pages[:]
    rng.shuffle(order)
    rows: dict[str, Row] = {}
    while order:
        cluster = [order.pop() for _ in range(min(len(order), rng.randint(1, 5)))]
        for page in cluster:
            hrefs = [other for other in cluster if rng.random() >= broken or other == page]
            if rng.random() < broken:
                hrefs.append(rng.choice([f"{BASE}missing{rng.randint(0, 3)}", rng.choice(pages)]))
            if rng.random() < 0.2:
                hrefs.append("https://other.example/x")
            rows[page] = _linked_row(page, *hrefs) if len(cluster) > 1 or rng.random() < 0.5 else _linked_row(page)
    walk: list[Row | Block] = []
    at = 0
    while at < len(pages):
        size = rng.choice([1, 1, 2, 7])
        group = [rows[page] for page in pages[at : at + size]]
        if len(group) == 1:
            walk.append(group[0])
        else:
            walk.append(
                Block([r.loc for r in group], [r.xml for r in group], [0.0] * len(group), [""] * len(group), "mtime")
            )
        at += size
    return walk


@pytest.mark.parametrize("broken", [0.0, 0.02, 0.2])
def test_rows_passed_on_while_the_walk_goes_are_what_the_whole_check_makes(
    monkeypatch: pytest.MonkeyPatch, broken: float
) -> None:
    """Rows whose links are all returned pass on before the walk ends (the window); whatever the
    links, the rows, their order and what is counted are those of the check of every row after
    the walk (the window given up at once)."""
    from sitemapgen.pipeline import hreflang

    rng = random.Random(f"window {broken}")
    for _ in range(300):
        site = _random_site(rng, broken)
        monkeypatch.setattr(hreflang, "WINDOW_ROWS", 10_000)
        windowed = hreflang.Reciprocity(BASE)
        out = list(each_row(windowed.filter(iter(site))))
        monkeypatch.setattr(hreflang, "WINDOW_ROWS", -1)
        monkeypatch.setattr(hreflang, "_BATCH", rng.choice([1, 3, 10_000]))  # the links kept a few a pickle, or none
        whole = hreflang.Reciprocity(BASE)
        assert out == list(each_row(whole.filter(iter(site))))
        assert vars(windowed) == vars(whole)
        monkeypatch.setattr(hreflang, "_BATCH", 10_000)


def _random_served_site(rng: random.Random, root: Path) -> list[Row | Block]:
    """Rows of pages with files in `root` (``p3.html``, and ``d3/`` for ``d3/index.html``) whose
    links name, besides the pages of their cluster: a page that does not name them back, one
    that comes far later, a URL no file answers, a page of the docroot that is no row (noindex,
    say), a page in another form (``d3``, which redirects to ``d3/``), another host."""
    names = [f"p{i}.html" if rng.random() < 0.5 else f"d{i}/" for i in range(rng.randint(1, 60))]
    make_tree(root, {name + "index.html" * name.endswith("/"): _page("en") for name in names} | {"q.html": _page("en")})
    pages = [BASE + name for name in names]
    order = pages[:]
    rng.shuffle(order)
    links: dict[str, list[str]] = {}
    while order:
        cluster = [order.pop() for _ in range(min(len(order), rng.randint(1, 4)))]
        for page in cluster:
            links[page] = []
            for other in cluster:
                if other == page or rng.random() >= 0.2:
                    links[page].append(other)
                elif other.endswith("/") and rng.random() < 0.5:
                    links[page].append(other[:-1])  # names it in another form, not as listed
    for page in pages:
        if rng.random() < 0.3:
            other = rng.choice(pages)
            links[page].append(
                rng.choice([other, other.rstrip("/"), f"{BASE}missing{rng.randint(0, 3)}", BASE + "q.html"])
            )
        if rng.random() < 0.1:
            links[page].append("https://other.example/x")
    walk: list[Row | Block] = []
    at = 0
    while at < len(pages):
        group = [_linked_row(page, *links[page]) for page in pages[at : at + rng.choice([1, 1, 3])]]
        walk.append(
            group[0]
            if len(group) == 1
            else Block([r.loc for r in group], [r.xml for r in group], [0.0] * len(group), [""] * len(group), "mtime")
        )
        at += len(group)
    return walk


def test_links_the_window_drops_with_the_hosts_model_are_those_the_whole_check_drops(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The window decides a link to a page that came and does not name the row back, and one to
    a URL no file answers, as the check of every row after the walk does; where a page may be
    named in another form, or a link names a page no row comes under, it leaves the rows to the
    check. Whatever it decides, the rows, their order and what is counted are the check's."""
    from sitemapgen.pipeline import hreflang, window
    from sitemapgen.pipeline.forms import Forms

    spooled: list[bool] = []
    real = tempfile.TemporaryFile

    def counted() -> IO[bytes]:
        spooled.append(True)
        return real()

    monkeypatch.setattr(tempfile, "TemporaryFile", counted)
    rng = random.Random("window with forms")
    decided = 0  # sites with links dropped, none spooled
    for n in range(300):
        root = tmp_path / str(n)
        site = _random_served_site(rng, root)
        forms = Forms(Config(docroot=root, base_url=BASE), None)
        monkeypatch.setattr(window, "_PROBE_ROWS", rng.choice([0, 2, 1_000]))
        monkeypatch.setattr(hreflang, "WINDOW_ROWS", 10_000)
        spooled.clear()
        windowed = hreflang.Reciprocity(BASE, forms)
        out = list(each_row(windowed.filter(iter(site))))
        decided += not spooled and windowed.dropped > 0
        monkeypatch.setattr(hreflang, "WINDOW_ROWS", -1)
        whole = hreflang.Reciprocity(BASE, forms)
        assert out == list(each_row(whole.filter(iter(site))))
        assert vars(windowed) == vars(whole)
    assert decided > 10


def test_a_page_that_appears_where_the_window_found_none_stops_the_build(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Links to a URL no file answers are dropped before the walk ends; a page with links that
    then comes under that URL (written during the build) is an error naming it, not a sitemap
    that drops a link the page returns."""
    from sitemapgen.errors import EnvironmentFailure
    from sitemapgen.pipeline import hreflang, window
    from sitemapgen.pipeline.forms import Forms

    monkeypatch.setattr(window, "_PROBE_ROWS", 0)
    root = make_tree(tmp_path / "site", {"a.html": _page("en")})
    a, b = BASE + "a.html", BASE + "b.html"
    stage = hreflang.Reciprocity(BASE, Forms(Config(docroot=root, base_url=BASE), None))
    rows = stage.filter(iter([_linked_row(a, a, b), _linked_row(BASE + "c.html"), _linked_row(b, b, a)]))
    assert next(rows) == _linked_row(a, a)  # dropped: no page is b.html
    (root / "b.html").write_text(_page("de"))
    assert next(rows) == _linked_row(BASE + "c.html")
    with pytest.raises(EnvironmentFailure, match=f"^{b}: a page appeared there during the build"):
        next(rows)


def test_a_site_whose_clusters_are_whole_passes_each_row_on_as_its_cluster_is_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every row passes on once its cluster's last page has come, long before the walk ends;
    nothing is spooled, and no link is dropped."""
    from sitemapgen.pipeline.hreflang import Reciprocity

    def refuse() -> None:
        raise AssertionError("a site whose clusters are whole spooled its rows")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    langs = ["en", "de", "fr"]
    site = [
        _linked_row(f"{BASE}{lang}/{i}", *(f"{BASE}{other}/{i}" for other in langs))
        for i in range(500)
        for lang in langs
    ]
    came: list[int] = []

    def walk() -> Iterator[Row]:
        for at, row in enumerate(site):
            came.append(at)
            yield row

    stage = Reciprocity(BASE)
    out: list[Row | Block] = []
    for row in stage.filter(walk()):
        assert came[-1] - len(out) <= 2  # the cluster's last page has just come
        out.append(row)
    assert out == site
    assert stage.dropped == 0


def test_the_table_is_made_only_when_the_window_gives_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A site whose every link the window decides leaves the table unmade: the links kept for it
    as they came are let go. Where it gives up, the table is filled from them, in order."""
    from sitemapgen.pipeline import hreflang

    statements: list[str] = []
    connect = sqlite3.connect

    def traced(database: str, *, check_same_thread: bool = True) -> sqlite3.Connection:
        db = connect(database, check_same_thread=check_same_thread)
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", traced)
    monkeypatch.setattr(hreflang, "_BATCH", 4)  # kept a few links a pickle
    langs = ["en", "de", "fr"]
    site = [_linked_row(f"{BASE}{lang}/{i}", *(f"{BASE}{o}/{i}" for o in langs)) for i in range(50) for lang in langs]
    site.append(_linked_row(f"{BASE}x", f"{BASE}en/0"))  # not named back: dropped
    stage = hreflang.Reciprocity(BASE)
    out = list(stage.filter(iter(site)))
    assert statements == []
    assert (out[:-1], stage.dropped) == (site[:-1], 1)
    monkeypatch.setattr(hreflang, "WINDOW_ROWS", -1)  # given up at once: every link checked after the walk
    whole = hreflang.Reciprocity(BASE)
    assert list(whole.filter(iter(site))) == out
    assert sum(statement.startswith("INSERT") for statement in statements) == 50 * 3 * 2 + 1  # each link, once


@pytest.mark.parametrize("where", ["spill", "spool", "table"])
def test_a_temporary_directory_that_fails_the_check_is_one_line_and_nothing_is_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str
) -> None:
    """The links kept aside, the rows spooled, or the table the check asks, each where the
    machine gives no room (a temporary directory gone, full, or SQLite refusing): the build
    stops with one line naming it, and writes nothing."""
    from sitemapgen.errors import EnvironmentFailure
    from sitemapgen.pipeline import hreflang

    langs = ["en", "de", "fr"]
    links = [(lang, f"/{lang}/p0.html") for lang in langs]  # the others' links not named back: dropped
    root = make_tree(tmp_path / "site", {f"{lang}/p{i}.html": _page(lang, *links) for lang in langs for i in range(20)})
    monkeypatch.setattr(hreflang, "WINDOW_ROWS", -1)  # given up at once: every row spooled, the table asked
    if where == "table":
        refuse_sqlite(monkeypatch)
        expected = r"\(.+\): interrupted; nothing new was published$"
    else:
        monkeypatch.setattr(hreflang, "_BATCH", 2 if where == "spill" else 10_000)
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
        expected = rf"\({tmp_path / 'gone'}\): No such file or directory; nothing new was published$"
    out = tmp_path / "out"
    with pytest.raises(EnvironmentFailure, match="^cannot keep the hreflang links aside for their check in a") as e:
        sitemapgen.build(Config(docroot=root, base_url=BASE, out_dir=out), on_warning=lambda message: None)
    assert re.search(expected, str(e.value)), e.value
    assert not out.exists()


def test_rows_that_wait_past_the_window_are_checked_after_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clusters further apart than the window are whole too: checked once the walk is done,
    their rows come out the same."""
    from sitemapgen.pipeline import hreflang

    monkeypatch.setattr(hreflang, "WINDOW_ROWS", 5)
    pages = [f"{BASE}a{i}" for i in range(10)] + [f"{BASE}b{i}" for i in range(10)]
    site = [_linked_row(page, page, f"{BASE}{'b' if page[len(BASE)] == 'a' else 'a'}{page[-1]}") for page in pages]
    stage = hreflang.Reciprocity(BASE)
    spooled = []
    real = tempfile.TemporaryFile

    def counted() -> IO[bytes]:
        spooled.append(True)
        return real()

    monkeypatch.setattr(tempfile, "TemporaryFile", counted)
    assert list(stage.filter(iter(site))) == site
    assert spooled == [True]
    assert stage.dropped == 0


def test_links_whose_urls_the_sitemap_escapes_are_read_back_as_urls(tmp_path: Path) -> None:
    """A URL with an '&' or a quote is escaped in the ``<url>`` element the check reads links from
    (``&amp;``, ``&apos;``): read back as the URL, a link that is returned stays, and one that is
    not is dropped, by the window and by the check after the walk."""
    cluster = (("en", "/en/R&D's.html"), ("de", "/de/R&D's.html"))
    root = make_tree(
        tmp_path / "site",
        {
            "en/R&D's.html": _page("en", *cluster, ("fr", "/fr/R&D's.html")),  # no fr page: dropped
            "de/R&D's.html": _page("de", *cluster),
        },
    )
    links, warnings = _build(root)
    kept = [(lang, href.removeprefix("/")) for lang, href in cluster]
    assert links == {"de/R&D's.html": kept, "en/R&D's.html": kept}
    assert any("1 hreflang link on 1 page dropped" in w for w in warnings)
