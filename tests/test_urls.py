from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote, unquote, unquote_to_bytes, urlsplit

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from sitemapgen import urls
from sitemapgen.errors import ConfigError
from sitemapgen.hrefs import normalize_url
from sitemapgen.urls import (
    Served,
    UrlStyle,
    normalize_base_url,
    page_url,
    served_files,
    url_path,
)

from .conftest import BASE, CliRunner, SiteFactory
from .helpers import (
    fetch,
    html,
    locs,
    static_server,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("https://example.com", "https://example.com/", id="adds-slash"),
        pytest.param("HTTPS://Example.COM/", "https://example.com/", id="lowercases-scheme-and-host"),
        pytest.param("http://example.com:8080/docs", "http://example.com:8080/docs/", id="port-and-path"),
        pytest.param("https://example.com/a b/ü/", "https://example.com/a%20b/%C3%BC/", id="encodes-path"),
        pytest.param("https://example.com/a%20b/", "https://example.com/a%20b/", id="keeps-escapes"),
        pytest.param("https://bücher.example/", "https://xn--bcher-kva.example/", id="idna"),
        pytest.param("http://[::1]:8000/", "http://[::1]:8000/", id="ipv6"),
        pytest.param("http://127.0.0.1/", "http://127.0.0.1/", id="ipv4"),
    ],
)
def test_normalize_base_url(raw: str, expected: str) -> None:
    assert normalize_base_url(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "example.com",
        "ftp://example.com/",
        "https://",
        "https://example.com/#x",
        "https://example.com/?",
        "http://a.b/",
        "https://-bad-.com/",
        "https://exa mple.com/",
    ],
)
def test_bad_base_urls(raw: str) -> None:
    with pytest.raises(ConfigError, match="^base_url: "):
        normalize_base_url(raw)


@pytest.mark.parametrize(
    ("relpath", "style", "expected"),
    [
        pytest.param("index.html", UrlStyle.DIRECTORY, "", id="root-index"),
        pytest.param("a/b/index.html", UrlStyle.DIRECTORY, "a/b/", id="dir-index"),
        pytest.param("a/b/index.htm", UrlStyle.DIRECTORY, "a/b/", id="dir-index-htm"),
        pytest.param("a/b.html", UrlStyle.DIRECTORY, "a/b.html", id="page"),
        pytest.param("a/INDEX.HTML", UrlStyle.DIRECTORY, "a/INDEX.HTML", id="index-is-case-sensitive"),
        pytest.param("a/b/index.html", UrlStyle.INDEX, "a/b/index.html", id="keep-index"),
        pytest.param("index.html", UrlStyle.INDEX, "index.html", id="keep-root-index"),
        pytest.param("a/b.html", UrlStyle.EXTENSIONLESS, "a/b", id="extensionless"),
        pytest.param("a/b.HTM", UrlStyle.EXTENSIONLESS, "a/b", id="extensionless-upper"),
        pytest.param("a/index.html", UrlStyle.EXTENSIONLESS, "a/", id="extensionless-index"),
        pytest.param("a/.html", UrlStyle.EXTENSIONLESS, "a/.html", id="extensionless-no-stem"),
        pytest.param("a b/ü?#%.html", UrlStyle.DIRECTORY, "a%20b/%C3%BC%3F%23%25.html", id="encoded"),
    ],
)
def test_url_path(relpath: str, style: UrlStyle, expected: str) -> None:
    assert url_path(relpath, style) == expected


# Any file name Linux allows: bytes except NUL and "/", not "." or "..".
segment = st.binary(min_size=1, max_size=40).filter(
    lambda b: b"\0" not in b and b"/" not in b and b not in (b".", b"..")
)


@given(st.lists(segment, min_size=1, max_size=4))
def test_url_round_trips_to_the_raw_path(segments: list[bytes]) -> None:
    raw = b"/".join(segments) + b".html"
    relpath = os.fsdecode(raw)
    url = page_url("https://example.com/base/", relpath, UrlStyle.INDEX)
    path = urlsplit(url).path
    assert url.isascii()
    assert not set(url) & set(' "<>\\^`{|}#?')  # nothing a URL must not hold raw
    assert unquote_to_bytes(path.removeprefix("/base/")) == raw


@given(st.lists(segment, min_size=1, max_size=4))
@example([b"caf\xc3\xa9 & 'b'", "na\u00efve %41#x?".encode(), b"\xff\xfe.html"])
def test_a_path_is_encoded_as_quote_encodes_its_raw_bytes(segments: list[bytes]) -> None:
    """Only the runs that need it are encoded (`urls._encoded`): the same text as `quote` of the
    path's bytes, whatever they are (UTF-8 or not, with '%', '#' or '?')."""
    raw = b"/".join(segments)
    assert url_path(os.fsdecode(raw), UrlStyle.INDEX) == quote(raw, safe="/!$&'()*+,;=:@")


@given(
    st.one_of(
        st.lists(segment, min_size=1, max_size=4).map(lambda segments: url_path(os.fsdecode(b"/".join(segments)))),
        st.text(alphabet="aZ09-._~/%Cc3A9ff é", max_size=20),
    )
)
@example("caf%C3%A9/%ff%FE/a%2Fb%zz%")
def test_a_url_path_is_decoded_to_the_bytes_a_server_decodes_it_to(path: str) -> None:
    """`decoded_path` (which leaves a path with nothing to decode as it is) gives the file name a
    static server decodes any path to, bytes that are not UTF-8 as surrogate escapes."""
    assert urls.decoded_path(path) == os.fsdecode(unquote_to_bytes(path))


@given(st.text(min_size=1, max_size=30).filter(lambda t: "\0" not in t and "/" not in t and t not in (".", "..")))
def test_unicode_names_round_trip_through_unquote(name: str) -> None:
    from urllib.parse import unquote

    assume(not any("\ud800" <= c <= "\udfff" for c in name))  # lone surrogates: raw bytes, covered above
    url = page_url("https://example.com/", f"d/{name}.html", UrlStyle.INDEX)  # 'index' stays a name
    assert unquote(url.removeprefix("https://example.com/")) == f"d/{name}.html"


@pytest.mark.parametrize(
    ("url", "base", "style", "direct", "redirected"),
    [
        ("https://e.org/", "https://e.org/", UrlStyle.DIRECTORY, ("index.html", "index.htm"), ()),
        ("https://e.org/a/", "https://e.org/", UrlStyle.DIRECTORY, ("a/index.html", "a/index.htm"), ()),
        (
            "https://e.org/a.html",
            "https://e.org/",
            UrlStyle.DIRECTORY,
            ("a.html",),
            ("a.html/index.html", "a.html/index.htm"),
        ),
        ("https://e.org/a", "https://e.org/", UrlStyle.DIRECTORY, (), ("a/index.html", "a/index.htm")),
        (
            "https://e.org/a",
            "https://e.org/",
            UrlStyle.EXTENSIONLESS,
            ("a.html", "a.htm"),
            ("a/index.html", "a/index.htm"),
        ),
        (
            "https://e.org/a%20b.html?x=1",
            "https://e.org/",
            UrlStyle.DIRECTORY,
            ("a b.html",),
            ("a b.html/index.html", "a b.html/index.htm"),
        ),
        (
            "https://e.org/docs/a.html",
            "https://e.org/docs/",
            UrlStyle.DIRECTORY,
            ("a.html",),
            ("a.html/index.html", "a.html/index.htm"),
        ),
        ("https://e.org/a/../b.html", "https://e.org/", UrlStyle.DIRECTORY, (), ()),
        ("https://e.org/a%00.html", "https://e.org/", UrlStyle.DIRECTORY, (), ()),
        ("https://e.org//a.html", "https://e.org/", UrlStyle.DIRECTORY, (), ()),
    ],
)
def test_served_files(
    url: str, base: str, style: UrlStyle, direct: tuple[str, ...], redirected: tuple[str, ...]
) -> None:
    """The files a plain static server answers a URL with, directly or after a redirect."""
    assert served_files(url, base, style) == Served(direct, redirected)


@pytest.mark.parametrize(
    ("url", "base"),
    [("https://e.org/other/a.html", "https://e.org/docs/"), ("https://f.org/a.html", "https://e.org/")],
)
def test_served_files_outside_the_base_url(url: str, base: str) -> None:
    assert served_files(url, base, UrlStyle.DIRECTORY) is None


#: Base URLs as a build has them (normalized) and as it never has them: without a path, with a
#: query or a fragment, with a character `urlsplit` deletes or strips, with no scheme or host.
_BASES = [
    "https://e.org/",
    "https://e.org/docs/",
    "http://[::1]:8080/a%20b/",
    "https://xn--caf-dma.example/",
    "https://e.org",
    "https://e.org/?q=",
    "https://e.org/#top",
    " https://e.org/",
    "https://e.org/a\tb/",
    "//e.org/",
    "/docs/",
    "docs/",
    "/",
    "https:/",
]


@given(
    base=st.sampled_from(_BASES),
    rest=st.lists(
        st.sampled_from(["a", "/", "%20", "?", "#", "\t", "\r", "\n", " ", ":", ".", "é", "//"]), max_size=10
    ).map("".join),
    elsewhere=st.booleans(),
)
@example(base="https://e.org", rest="a", elsewhere=False)  # the host's name goes on, not the path
@example(base="https://e.org/", rest="a#b", elsewhere=False)
@example(base="https://e.org/", rest="a\tb", elsewhere=False)
@example(base="/", rest="/e.org/a", elsewhere=False)  # a host after all: "//e.org/a"
def test_the_path_past_the_base_is_the_one_urlsplit_reads(base: str, rest: str, elsewhere: bool) -> None:
    """`path_past_base` gives what `urlsplit` reads of both URLs, whatever the URL holds past
    the base: as written where nothing in it is a query, a fragment or a character `urlsplit`
    deletes, and read by `urlsplit` where something is; None where the URL is not under the base."""
    url = ("https://f.org/" if elsewhere else base) + rest
    path, base_path = urlsplit(url).path, urlsplit(base).path
    expected = path[len(base_path) :] if url.startswith(base) and path.startswith(base_path) else None
    assert urls.path_past_base(url, base) == expected


@given(
    st.lists(
        st.text(st.characters(exclude_characters="/\x00", exclude_categories=["Cs"]), min_size=1, max_size=8),
        min_size=1,
        max_size=4,
    )
)
def test_a_page_url_is_served_by_its_own_file(segments: list[str]) -> None:
    """Every page's own URL leads a static server straight back to its file."""
    assume(all(s not in (".", "..") for s in segments))
    relpath = "/".join(segments) + ".html"
    base = "https://e.org/"
    for style in (UrlStyle.DIRECTORY, UrlStyle.INDEX, UrlStyle.EXTENSIONLESS):
        served = served_files(normalize_url(page_url(base, relpath, style)), base, style)
        assert served is not None
        assert relpath in served.direct


TRICKY_NAMES = [
    pytest.param("with space.html", "with%20space.html", id="space"),
    pytest.param("über.html", "%C3%BCber.html", id="u-umlaut"),
    pytest.param("日本語.html", "%E6%97%A5%E6%9C%AC%E8%AA%9E.html", id="cjk"),
    pytest.param("emoji-🎉.html", "emoji-%F0%9F%8E%89.html", id="emoji"),
    pytest.param('q"uote.html', "q%22uote.html", id="double-quote"),
    pytest.param("a<b>c.html", "a%3Cb%3Ec.html", id="angle-brackets"),
    pytest.param("100%.html", "100%25.html", id="percent"),
    pytest.param("%41.html", "%2541.html", id="percent-escape-lookalike"),
    pytest.param("hash#tag.html", "hash%23tag.html", id="hash"),
    pytest.param("what?.html", "what%3F.html", id="question-mark"),
    pytest.param("q&a.html", "q&a.html", id="ampersand"),
    pytest.param("it's.html", "it's.html", id="apostrophe"),
    pytest.param("a+b;c=d,e.html", "a+b;c=d,e.html", id="sub-delims"),
    pytest.param("back\\slash.html", "back%5Cslash.html", id="backslash"),
    pytest.param("tab\tand\nnewline.html", "tab%09and%0Anewline.html", id="control-chars"),
    pytest.param("-dash.html", "-dash.html", id="leading-dash"),
    pytest.param(" lead and trail .html", "%20lead%20and%20trail%20.html", id="edge-spaces"),
    pytest.param("x" * 250 + ".html", "x" * 250 + ".html", id="255-bytes"),
    pytest.param("dir with space/ü/index.html", "dir%20with%20space/%C3%BC/", id="dirs"),
]


@pytest.mark.parametrize(("name", "encoded"), TRICKY_NAMES)
def test_tricky_names_are_encoded_once_and_served(
    site: SiteFactory, cli: CliRunner, name: str, encoded: str, tmp_path: Path
) -> None:
    content = html(name)
    root = site({name: content})
    with static_server(root) as served:
        assert cli("build", root, "--base-url", served).code == 0
        [loc] = locs(root, served)
        assert loc == served + encoded
        assert unquote(urlsplit(loc).path) == "/" + name.removesuffix("index.html")
        assert fetch(loc) == content.encode()


def test_name_that_is_not_utf8_is_encoded_from_its_raw_bytes(site: SiteFactory, cli: CliRunner) -> None:
    root = site({b"caf\xe9.html": html(), b"\xff\xfe/index.html": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    got = locs(root, BASE)
    assert got == [BASE + "caf%E9.html", BASE + "%FF%FE/"]
    # The standard library's server decodes paths as UTF-8 and cannot serve these
    # names; a byte-transparent server (nginx, Apache) maps the raw bytes back:
    assert [unquote_to_bytes(u[len(BASE) :]) for u in got] == [b"caf\xe9.html", b"\xff\xfe/"]


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        pytest.param(None, ["", "a/", "a/b.html", "a/c.htm"], id="directory-default"),
        pytest.param("directory", ["", "a/", "a/b.html", "a/c.htm"], id="directory"),
        pytest.param("index", ["index.html", "a/index.html", "a/b.html", "a/c.htm"], id="index"),
        pytest.param("extensionless", ["", "a/", "a/b", "a/c"], id="extensionless"),
    ],
)
def test_url_styles(site: SiteFactory, cli: CliRunner, style: str | None, expected: list[str]) -> None:
    root = site({"index.html": html(), "a/index.html": html(), "a/b.html": html(), "a/c.htm": html()})
    args = ["--url-style", style] if style else []
    assert cli("build", root, "--base-url", BASE, *args).code == 0
    assert locs(root, BASE) == [BASE + e for e in expected]


def test_url_style_from_config(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"a/b.html": html()})
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nurl_style = "extensionless"\n')
    assert cli("build", root, "--config", config).code == 0
    assert locs(root, BASE) == [BASE + "a/b"]
