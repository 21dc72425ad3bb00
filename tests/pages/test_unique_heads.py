"""Heads as real sites write them, each page its own: the fast scanner against beautifulsoup4.

On a real site no two pages share a title, a description, a canonical, an ``og:`` line,
JSON-LD dates and headline or an inline script's body. These heads are built through the head
templates of the generators of `tests/realsites` (and Docusaurus'), with every page's own
parts drawn afresh, so nothing the scanner keeps between pages can answer for them.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from urllib.parse import quote

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitemapgen.pages import scanner
from sitemapgen.pages.head import facts_from_bytes, parse_head
from sitemapgen.pages.scanner import read_fast

# Every test here, with the compiled scanner and with the pure-Python one (conftest.py).
pytestmark = pytest.mark.usefixtures("each_scanner")

BASE = "https://example.com/"

#: What a page's own text may hold: markup's own characters, the deciding words, letters
#: whose lower case is longer (U+0130) or ASCII (the Kelvin sign), and what ends a script.
_own_text = st.lists(
    st.one_of(
        st.sampled_from([*"abc XYZ<>&\"'=/-!;", "é", "\u0130", "\u212a", "\n"]),
        st.sampled_from(["canonical", "robots", "hreflang", "modified", "refresh", "</script>", "<!--", "&amp;"]),
    ),
    max_size=24,
).map("".join)


class _Page:
    """One page's own parts, as a generator escapes them."""

    def __init__(self, draw: st.DrawFn) -> None:
        segment = st.text("abcé-_ ~.%", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))
        segments = draw(st.lists(segment, min_size=1, max_size=3))
        self.url = BASE + "/".join(quote(s, safe="") for s in segments) + draw(st.sampled_from(["/", ".html"]))
        self.title = html.escape(draw(_own_text))
        self.description = html.escape(draw(_own_text))
        self.date = draw(st.datetimes()).isoformat(timespec="seconds") + "+00:00"
        self.raw_title = draw(_own_text)
        #: JSON-LD as Hugo writes it (``<`` as ``\\u003c``), or as json.dumps does (it may end the script).
        self.json_ld = json.dumps(
            {"@context": "https://schema.org", "headline": self.raw_title, "dateModified": self.date, "url": self.url}
        )
        if draw(st.booleans()):
            self.json_ld = self.json_ld.replace("<", "\\u003c")
        self.script = draw(_own_text)
        self.hreflang = draw(st.booleans())
        #: A robots meta, in some of them with its name spelled by a character reference.
        self.robots = draw(
            st.sampled_from(
                [
                    "",
                    '<meta name="robots" content="index, follow">',
                    '<meta name="robots" content="noindex">',
                    '<meta name="r&#111;bots" content="noindex">',
                ]
            )
        )


def _mkdocs(page: _Page) -> str:
    return f"""<!doctype html>
<html lang="en" class="no-js">
  <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width,initial-scale=1">
        <meta name="description" content="{page.description}">
        <link rel="canonical" href="{page.url}">{page.robots}
        <link rel="prev" href="../">
      <link rel="icon" href="../assets/images/favicon.png">
        <title>{page.title} - Docs</title>
        <link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto:300&display=fallback">
        <style>:root{{--md-text-font:"Roboto"}}</style>
    <script>__md_scope=new URL("..",location),x="{page.script}"</script>
    <meta property="og:url" content="{page.url}">
    <meta property="article:modified_time" content="{page.date}">
  </head>"""


def _docusaurus(page: _Page) -> str:
    links = ""
    if page.hreflang:
        links = (
            f'<link data-rh="true" rel="alternate" href="{page.url}" hreflang="en">'
            f'<link data-rh="true" rel="alternate" href="{BASE}fr/{page.url[len(BASE) :]}" hreflang="fr">'
            f'<link data-rh="true" rel="alternate" href="{page.url}" hreflang="x-default">'
        )
    return (
        '<!doctype html>\n<html lang="en" dir="ltr" class="docs-wrapper">\n<head>\n<meta charset="UTF-8">\n'
        f'<title data-rh="true">{page.title} | My Site</title><meta data-rh="true" name="viewport" '
        f'content="width=device-width,initial-scale=1"><meta data-rh="true" property="og:url" content="{page.url}">'
        f'<meta data-rh="true" property="og:title" content="{page.title}"><meta data-rh="true" name="description" '
        f'content="{page.description}"><link data-rh="true" rel="canonical" href="{page.url}">{links}'
        f'<script data-rh="true" type="application/ld+json">{page.json_ld}</script>\n'
        '<link rel="stylesheet" href="/assets/css/styles.css">\n</head>'
    )


def _sphinx(page: _Page) -> str:
    return f"""<!DOCTYPE html>

<html lang="en" data-content_root="../">
  <head>
    <meta charset="utf-8" />
<meta property="og:title" content="{page.title}" />
<meta property="og:url" content="{page.url}" />
<meta name="description" content="{page.description}" />

    <title>{page.title} &#8212; proj 2.1 documentation</title>
    <script src="../_static/doctools.js?v=fd6eb6e6"></script>
    <link rel="canonical" href="{page.url}" />
    <link rel="next" title="{page.title}" href="next.html" />
  </head>"""


def _hugo(page: _Page) -> str:
    links = ""
    if page.hreflang:
        links = (
            f'\t<link rel="alternate" hreflang="en" href="{page.url}">\n'
            f'\t<link rel="alternate" hreflang="de" href="{BASE}de/{page.url[len(BASE) :]}">\n'
        )
    return f"""<!DOCTYPE html>
<html lang="en-us" dir="ltr">
<head>
\t<meta charset="utf-8">
\t<title>{page.title} | Blog</title>
\t<meta name="description" content="{page.description}">
\t<link rel="canonical" href="{page.url}">
{links}\t<meta property="og:title" content="{page.title}">
\t<meta property="article:modified_time" content="{page.date}">
\t<script type="application/ld+json">
{page.json_ld}
\t</script>
\t<script>window.__page = "{page.script}";</script>
</head>"""


def _jekyll(page: _Page) -> str:
    return f"""<!DOCTYPE html>
<html lang="en"><head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1"><!-- Begin Jekyll SEO tag v2.8.0 -->
<title>{page.title} | My blog</title>
<meta property="og:title" content="{page.title}" />
<meta name="description" content="{page.description}" />
<link rel="canonical" href="{page.url}" />{page.robots}
<meta property="og:url" content="{page.url}" />
<meta property="article:published_time" content="{page.date}" />
<script type="application/ld+json">
{page.json_ld}</script>
<!-- End Jekyll SEO tag -->
<link type="application/atom+xml" rel="alternate" href="{BASE}feed.xml" title="My blog" /></head>"""


_GENERATORS: dict[str, Callable[[_Page], str]] = {
    "mkdocs": _mkdocs,
    "docusaurus": _docusaurus,
    "sphinx": _sphinx,
    "hugo": _hugo,
    "jekyll": _jekyll,
}


@st.composite
def _page(draw: st.DrawFn) -> _Page:
    return _Page(draw)


_sites = st.tuples(st.sampled_from(sorted(_GENERATORS)), st.lists(_page(), max_size=6))


@settings(max_examples=300, deadline=None)
@given(_sites)
@example(("hugo", []))
def test_unique_heads_read_fast_as_bs4_reads_them(site: tuple[str, list[_Page]]) -> None:
    # Pages of one site in turn, as a worker reads them: what the scanner kept from the pages
    # before must not change what it reads on this one.
    generator, pages = site
    scanner.forget_seen()
    for page in pages:
        head = _GENERATORS[generator](page)
        reference = parse_head(head, page.url, fast=False)
        assert parse_head(head, page.url) == reference, head
        assert facts_from_bytes(head.encode(), page.url) == reference, head
        if "<" not in page.script + page.json_ld:  # nothing in it for bs4 alone
            assert read_fast(head) is not None, head
            assert reference.canonical == page.url, head  # every page names itself
