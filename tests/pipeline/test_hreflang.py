"""hreflang clusters across pages: a link to this site survives only if its target returns it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

import sitemapgen
from sitemapgen import Config

from ..conftest import BASE
from ..helpers import make_tree, published


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
