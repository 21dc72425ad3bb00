"""What a page named as a not-found or search page is says it is (`pages.kinds`)."""

from __future__ import annotations

import pytest

from sitemapgen.pages import kinds
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
