"""What a page named as a not-found or search page is says it is (`pages.kinds`)."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemapgen.pages import kinds
from sitemapgen.pages.walk import EXCLUDED_STARTS, default_excluded
from sitemapgen.skips import SkipReason


@pytest.mark.parametrize(
    ("relpath", "kind"),
    [
        pytest.param("404/index.html", SkipReason.NOT_FOUND_PAGE, id="dirhtml-404"),
        pytest.param("de/404/index.html", SkipReason.NOT_FOUND_PAGE, id="a-language-404"),
        pytest.param("404/other.html", None, id="another-page-under-404"),
        pytest.param("x404/index.html", None, id="not-404"),
        pytest.param("search.html", SkipReason.SEARCH_PAGE, id="search-html"),
        pytest.param("SEARCH.HTM", SkipReason.SEARCH_PAGE, id="search-htm-any-case"),
        pytest.param("search/index.html", SkipReason.SEARCH_PAGE, id="search-dir"),
        pytest.param("search/tips.html", None, id="a-page-under-search"),
        pytest.param("research.html", None, id="research"),
        pytest.param("index.html", None, id="home"),
    ],
)
def test_only_a_page_in_a_not_found_or_search_pages_place_is_a_candidate(relpath: str, kind: SkipReason | None) -> None:
    assert kinds.candidate(relpath) is kind


@pytest.mark.parametrize(
    ("head", "said"),
    [
        pytest.param(
            b"<title>Page not found &#8212; F  documentation</title>", "Page not found \u2014 F documentation"
        ),
        pytest.param(b"<TITLE>404: This page could not be found.</TITLE>", "404: This page could not be found."),
        pytest.param(b"<title>404 Page\n not   found</title>", "404 Page not found", id="folded"),
        pytest.param(b"<title>Error 404</title>", None, id="a-page-about-the-error"),
        pytest.param(b"<title>Foundations</title>", None, id="no-not-found"),
        pytest.param(b"<h1>Page not found</h1>", None, id="no-title"),
    ],
)
def test_a_not_found_page_is_one_whose_title_says_so(head: bytes, said: str | None) -> None:
    assert kinds.says_not_found(head) == said


@pytest.mark.parametrize(
    ("body", "targets"),
    [
        pytest.param(b'<form id="content_search" action="search.html">', ["search.html"], id="get-by-default"),
        pytest.param(b"<FORM method=GET action='./s.html?x=1&amp;y=2'>", ["./s.html?x=1&y=2"], id="references"),
        pytest.param(b'<form action="/search/" method="post">', [], id="post"),
        pytest.param(b"<form class=md-search__form name=search>", [], id="no-action"),
        pytest.param(b'<form action="a.html"><form action="b.html">', ["a.html", "b.html"], id="each"),
    ],
)
def test_the_forms_that_send_a_query_in_the_url_and_where(body: bytes, targets: list[str]) -> None:
    assert list(kinds.form_targets(body)) == targets


_PIECES = st.sampled_from(["404", "search", "SEARCH", "Search", "index", ".html", ".htm", ".", "x", "\u212a", "\u0130"])
_PARTS = st.lists(st.one_of(_PIECES, st.text("s4.eArchH\u017f\u212a", max_size=3)), max_size=4).map("".join)


@given(st.lists(_PARTS.filter(lambda part: "/" not in part and part), min_size=1, max_size=3))
def test_a_page_asked_whether_it_is_left_out_by_name_has_a_start_of_its_name_or_folder(parts: list[str]) -> None:
    """What the compiled runs ask `check` of where the path rules leave out by name alone
    (`quick._constants`): a page that the defaults leave out, or that is a not-found or search
    page's candidate, has a name or a folder that starts with one of the starts given, ASCII
    letters in any case (as the runs compare them)."""
    relpath = "/".join(parts)
    name = relpath.rpartition("/")[2]
    folder = relpath.rpartition("/")[0].rpartition("/")[2]
    said = [os.fsencode(name).lower(), os.fsencode(folder).lower()]
    if default_excluded(name):
        assert any(part.startswith(start.encode()) for part in said[:1] for start in EXCLUDED_STARTS)
    if kinds.candidate(relpath) is not None:
        assert any(part.startswith(start.encode()) for part in said for start in kinds.CANDIDATE_STARTS)
