"""The fast ways an href of a head becomes a URL (`hrefs`) give what the plain way gives."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from sitemapgen import hrefs
from sitemapgen.hrefs import resolve_href

_SEGMENT = st.one_of(
    st.sampled_from([".", "..", "", "a", "de", "fr", "index.html", "%C3%A9t%C3%A9", "a:b", "x;y=1", "~u"]),
    st.text(alphabet="abcXYZ019-._~!$&'()*+,;=:@", min_size=1, max_size=6),
)


@given(
    segments=st.lists(_SEGMENT, min_size=1, max_size=6),
    absolute=st.booleans(),
    page=st.sampled_from(
        [
            "https://example.org/",
            "https://example.org/de/",
            "https://example.org/de/install/page.html",
            "http://h:8080/a/b",
        ]
    ),
)
def test_path_references_resolve_as_urljoin_does(segments: list[str], absolute: bool, page: str) -> None:
    """The fast join of path references (hreflang links) gives what urljoin and normalize_url give."""
    href = ("/" if absolute else "") + "/".join(segments)
    assume(href.strip())  # an empty href is no link (resolve_href says None), where urljoin gives the page
    assert resolve_href(href, page) == hrefs._resolved(href, page)


@given(
    href=st.one_of(
        st.builds(lambda s: "/" + "/".join(s), st.lists(_SEGMENT, min_size=1, max_size=5)),
        st.builds("/".join, st.lists(_SEGMENT, min_size=1, max_size=5)),
        st.sampled_from(["https://example.org/de/", "  /de/ ", "//other.org/x", "HTTPS://Example.org/A", "", "?q=1"]),
        st.text(max_size=12),
    ),
    page=st.sampled_from(
        ["https://example.org/", "https://example.org/de/install/page.html", "http://h:8080/a/b", "https://E.org/%7e/"]
    ),
)
def test_an_href_read_once_resolves_as_resolve_href_on_every_page(href: str, page: str) -> None:
    """Head reading settles what it can of an href once (read_href) and the rest per page."""
    assert hrefs.read_href(href).resolve(page) == resolve_href(href, page)
