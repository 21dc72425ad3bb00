"""The image finder (`pages.images`): each kind of image, what is left out, and a differential
test against beautifulsoup4 (html.parser), the reference reader, on generated pages."""

from __future__ import annotations

import importlib
from pathlib import Path
from unittest import mock

import bs4
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapgen.pages import images as finder
from sitemapgen.pages import signals
from sitemapgen.pages.images import (
    PAGE_MAX_BYTES,
    ImageTags,
    Tag,
    image_tags,
    images_from_bytes,
    page_images,
    read_page_images,
    srcset_candidates,
)

ORIGIN = "https://example.com"
PAGE = ORIGIN + "/docs/page/"


def images(body: str, head: str = "", url: str = PAGE) -> tuple[str, ...]:
    """The images of a page, asserting that beautifulsoup4 finds the same tags."""
    text = f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>"
    assert image_tags(text) == shown_tags(text)
    return page_images(text, url)


_KEPT = ("src", "srcset", "data-src", "data-srcset", "width", "height", "property", "content", "href")


def _kept(tag: bs4.Tag) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for key, value in tag.attrs.items():
        if key in _KEPT:
            attrs[key] = " ".join(value) if isinstance(value, list) else value
    return attrs


def reference_tags(text: str) -> ImageTags:
    """`image_tags` as beautifulsoup4 with html.parser reads the page: the oracle."""
    soup = bs4.BeautifulSoup(text, "html.parser")
    base: str | None = None
    found: list[list[Tag]] = []
    for tag in soup.find_all(["img", "source", "picture", "meta", "base"]):
        assert isinstance(tag, bs4.Tag)
        if tag.name == "base":
            if base is None and tag.has_attr("href"):
                base = _kept(tag)["href"]
        elif tag.name == "meta":
            attrs = _kept(tag)
            if attrs.get("property", "").strip().lower() == "og:image" and "content" in attrs:
                found.append([("meta", attrs)])
        elif tag.name == "picture":
            found.append(
                [(inner.name, _kept(inner)) for inner in tag.find_all(["img", "source"]) if isinstance(inner, bs4.Tag)]
            )
        elif tag.name == "img" and tag.find_parent("picture") is None:
            found.append([("img", _kept(tag))])
    return ImageTags(base, found)


#: What a browser shows as text or not at all, where html.parser (before 3.14) reads tags: an
#: image inside one is no image, in the finder as in a browser.
_TEXT_ONLY = ["title", "textarea", "xmp", "noembed", "noframes", "template"]


def shown_tags(text: str) -> ImageTags:
    """`reference_tags`, less what is inside an element a browser shows as text (`_TEXT_ONLY`)."""
    soup = bs4.BeautifulSoup(text, "html.parser")
    for tag in soup.find_all(_TEXT_ONLY):
        assert isinstance(tag, bs4.Tag)
        tag.decompose()
    return reference_tags(str(soup))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param('<img src="a.png">', ["https://example.com/docs/page/a.png"], id="img-relative"),
        pytest.param("<IMG SRC=/b.png>", ["https://example.com/b.png"], id="upper-unquoted-rooted"),
        pytest.param("<img src='../c d.png'/>", ["https://example.com/docs/c%20d.png"], id="dot-dot-encoded"),
        pytest.param('<img src="https://cdn.example.net/x.jpg">', ["https://cdn.example.net/x.jpg"], id="cdn-kept"),
        pytest.param('<img src="//cdn.example.net/x.jpg">', ["https://cdn.example.net/x.jpg"], id="scheme-relative"),
        pytest.param('<img src="ü.png?a=1&amp;b=2">', ["https://example.com/docs/page/%C3%BC.png?a=1&b=2"], id="query"),
        pytest.param(
            '<img src="s.png" srcset="m.png 640w, l.png 1280w, xs.png 320w">',
            ["https://example.com/docs/page/l.png"],
            id="srcset-largest-width",
        ),
        pytest.param(
            '<img src="s.png" srcset="d2.png 2x, d15.png 1.5x">', ["https://example.com/docs/page/d2.png"], id="density"
        ),
        pytest.param(
            '<img src="s.png" srcset="half.png 0.5x">', ["https://example.com/docs/page/s.png"], id="src-is-1x"
        ),
        pytest.param(
            '<img srcset="https://img.example.net/w_400,h_300/p.jpg 400w,'
            ' https://img.example.net/w_800,h_600/p.jpg 800w">',
            ["https://img.example.net/w_800,h_600/p.jpg"],
            id="srcset-url-with-commas",
        ),
        pytest.param(
            '<picture><source type="image/avif" srcset="p.avif 800w, p-s.avif 400w">'
            '<source srcset="p.webp 800w"><img src="p.jpg"></picture>',
            ["https://example.com/docs/page/p.avif"],
            id="picture",
        ),
        pytest.param(
            '<img class="lazyload" src="data:image/gif;base64,R0lGOD" data-src="lazy.jpg">',
            ["https://example.com/docs/page/lazy.jpg"],
            id="lazy-data-src",
        ),
        pytest.param(
            '<img src="placeholder.svg" data-srcset="l1.jpg 1x, l2.jpg 2x">',
            ["https://example.com/docs/page/l2.jpg"],
            id="lazy-data-srcset",
        ),
        pytest.param(
            '<img data-src="n.jpg"><noscript><img src="n.jpg"></noscript><noscript><img src="only.jpg"></noscript>',
            ["https://example.com/docs/page/n.jpg", "https://example.com/docs/page/only.jpg"],
            id="noscript-once",
        ),
        pytest.param('<img src="data:image/png;base64,iVBOR">', [], id="data-uri"),
        pytest.param('<img src="pixel.gif" width="1" height="1">', [], id="one-pixel"),
        pytest.param('<img src="w.gif" width="1" height="20">', ["https://example.com/docs/page/w.gif"], id="one-wide"),
        pytest.param('<img src="p.gif" width="1px" height=" 1 ">', [], id="one-pixel-px"),
        pytest.param('<img alt="no source">', [], id="no-src"),
        pytest.param('<img src="http://exa mple.com/x.png"><img src="%zz.png">', [], id="unfetchable"),
        pytest.param('<!-- <img src="c.png"> -->', [], id="comment"),
        pytest.param("<script>document.write('<img src=\"s.png\">')</script>", [], id="script-text"),
        pytest.param("<style>/* <img src=s.png> */</style>", [], id="style-text"),
        pytest.param('<a title="<img src=t.png>">x</a>', [], id="inside-an-attribute"),
        pytest.param("<title><img src=t.png></title><img src=ok.png>", [PAGE + "ok.png"], id="inside-a-title"),
        pytest.param("<textarea><img src=t.png></textarea>", [], id="inside-a-textarea"),
        pytest.param("<template><img src=t.png></template>", [], id="inside-a-template"),
        pytest.param("<![CDATA[<img src=c.png>]]><img src=d.png>", [PAGE + "d.png"], id="inside-a-cdata-section"),
        pytest.param('<video><source src="v.mp4"></video><source srcset="x.png">', [], id="source-outside-picture"),
        pytest.param(
            '<img src="b.png"><img src="a.png"><img src="b.png">',
            ["https://example.com/docs/page/b.png", "https://example.com/docs/page/a.png"],
            id="page-order-once",
        ),
    ],
)
def test_images(body: str, expected: list[str]) -> None:
    assert list(images(body)) == expected


def test_og_image_first_in_page_order_and_base_href_resolves_every_url() -> None:
    head = '<meta property="og:image" content="og.png"><base href="https://example.com/assets/">'
    assert images('<img src="i.png">', head) == (
        "https://example.com/assets/og.png",
        "https://example.com/assets/i.png",
    )


def test_a_base_href_that_is_no_http_url_leaves_the_page_url() -> None:
    assert images('<img src="i.png">', '<base href="javascript:void(0)">') == ("https://example.com/docs/page/i.png",)


def test_og_image_by_name_is_not_open_graph() -> None:
    assert images("", '<meta name="og:image" content="/x.png"><meta property="og:title" content="/y.png">') == ()


@pytest.mark.parametrize(
    ("srcset", "expected"),
    [
        pytest.param("a.png", [("a.png", "x", 1.0)], id="bare"),
        pytest.param(" a.png 2x , b.png 300w", [("a.png", "x", 2.0), ("b.png", "w", 300.0)], id="spaces"),
        pytest.param("a.png, b.png 2x", [("a.png", "x", 1.0), ("b.png", "x", 2.0)], id="comma-ends-url"),
        pytest.param("w_1,h_2.png 2x", [("w_1,h_2.png", "x", 2.0)], id="comma-inside-url"),
        pytest.param("a.png 2x 3x, b.png 0w, c.png -1x, d.png 100w 50h", [("d.png", "w", 100.0)], id="invalid"),
    ],
)
def test_srcset_candidates(srcset: str, expected: list[tuple[str, str, float]]) -> None:
    assert srcset_candidates(srcset) == expected


def test_the_elements_skipped_whole_are_the_signal_table_s() -> None:
    # The finder skips the elements the head scanners skip whole (`signals.RAW_TEXT`), taken from
    # that one table: one more there, and an image inside it is none here either.
    page = "<noscript><img src=/a.png></noscript><img src=/b.png>"
    assert page_images(page, PAGE) == (ORIGIN + "/a.png", ORIGIN + "/b.png")
    try:
        with mock.patch.object(signals, "RAW_TEXT", (*signals.RAW_TEXT, "noscript")):
            importlib.reload(finder)
            assert finder.page_images(page, PAGE) == (ORIGIN + "/b.png",)
    finally:
        importlib.reload(finder)
    assert finder.page_images(page, PAGE) == (ORIGIN + "/a.png", ORIGIN + "/b.png")


def test_bytes_without_image_marks_are_not_decoded_and_utf16_is() -> None:
    assert images_from_bytes(b"<html><body><p>text</p></body></html>", PAGE) == ()
    page = '<html><body><img src="u.png"></body></html>'.encode("utf-16")
    assert images_from_bytes(page, PAGE) == ("https://example.com/docs/page/u.png",)


def test_a_page_larger_than_the_limit_is_read_so_far_and_said(tmp_path: Path) -> None:
    path = tmp_path / "big.html"
    path.write_bytes(b'<img src="first.png">' + b" " * PAGE_MAX_BYTES + b'<img src="late.png">')
    found, problem = read_page_images(str(path), PAGE)
    assert found == ("https://example.com/docs/page/first.png",)
    assert problem == f"larger than {PAGE_MAX_BYTES:,} bytes; images read from those only"
    path.write_bytes(b'<img src="first.png">')
    assert read_page_images(str(path), PAGE) == (("https://example.com/docs/page/first.png",), None)


# Generated pages: the markup of real bodies, in the forms both parsers read alike.
_NAMES = st.sampled_from(
    ["a.png", "/img/b.jpg", "../c.webp", "https://cdn.example.net/d.png", "e f.png", "x&amp;y.png"]
)


@st.composite
def _attr(draw: st.DrawFn, name: str, value: str) -> str:
    spelled = draw(st.sampled_from([name, name.upper()]))
    equals = draw(st.sampled_from(["=", " = "]))
    bare = value and all(c not in value for c in " \"'=<>`")
    quote = draw(st.sampled_from([q for q in "\"'" if q not in value]))
    quoted = f"{quote}{value}{quote}" if not bare or draw(st.booleans()) else value
    return f" {spelled}{equals}{quoted}"


@st.composite
def _img(draw: st.DrawFn) -> str:
    attrs = []
    if draw(st.booleans()):
        attrs.append(draw(_attr("src", draw(st.sampled_from(["", "data:image/gif;base64,R0l", draw(_NAMES)])))))
    if draw(st.booleans()):
        w = draw(st.lists(st.tuples(_NAMES, st.sampled_from(["100w", "800w", "2x", "1.5x", ""])), max_size=3))
        attrs.append(draw(_attr(draw(st.sampled_from(["srcset", "data-srcset"])), ", ".join(f"{u} {d}" for u, d in w))))
    if draw(st.booleans()):
        attrs.append(draw(_attr("data-src", draw(_NAMES))))
    if draw(st.booleans()):
        attrs.append(draw(_attr("width", draw(st.sampled_from(["1", "640"])))) + draw(_attr("height", "1")))
    if draw(st.booleans()):
        attrs.append(draw(_attr("alt", draw(st.sampled_from(["a > b", "it's", "x"])))))
    attrs = draw(st.permutations(attrs))
    return f"<{draw(st.sampled_from(['img', 'IMG', 'Img']))}{''.join(attrs)}{draw(st.sampled_from(['>', '/>', ' />']))}"


@st.composite
def _piece(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["img", "picture", "noscript", "meta", "base", "text", "other", "skipped"]))
    if kind == "img":
        return draw(_img())
    if kind == "picture":
        sources = draw(st.lists(_NAMES.map(lambda u: f'<source srcset="{u} 400w">'), max_size=2))
        return f"<picture>{''.join(sources)}{draw(_img())}</picture>"
    if kind == "noscript":
        return f"<noscript>{draw(_img())}</noscript>"
    if kind == "meta":
        prop = draw(st.sampled_from(["og:image", "OG:Image", "og:title"]))
        return f"<meta{draw(_attr('property', prop))}{draw(_attr('content', draw(_NAMES)))}>"
    if kind == "base":
        return f"<base{draw(_attr('href', draw(st.sampled_from(['https://example.com/b/', '/c/', 'sub/']))))}>"
    if kind == "other":
        inner = draw(_attr("title", draw(st.sampled_from(["<img src=no.png>", "plain", "x > y"]))))
        return f"<div{inner}><p>text</p></div>"
    if kind == "skipped":
        return draw(
            st.sampled_from(
                [
                    "<!-- <img src=c.png> -->",
                    "<script>var s = '<img src=s.png>';</script>",
                    "<SCRIPT type=module>if (a<b) {}</SCRIPT >",
                    "<style>p{background:url(x.png)} /* <img src=y.png> */</style>",
                    "<title>a <img src=t.png> title</title>",
                    "<TextArea rows=2><img src=ta.png></textarea>",
                    "<template><picture><img src=tp.png></picture></template>",
                    "<noembed><img src=ne.png></noembed>",
                    "<![CDATA[<img src=cd.png>]]>",
                ]
            )
        )
    return draw(st.sampled_from(["some text", " ", "\n", "a &amp; b", "1 < 2"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece(), max_size=12))
def test_the_finder_reads_generated_pages_as_beautifulsoup4_does(pieces: list[str]) -> None:
    text = f"<!doctype html><html><head></head><body>{''.join(pieces)}</body></html>"
    assert image_tags(text) == shown_tags(text)
