"""The compiled run of a heads-on batch (`_scan.head_block`, `quick.COMPILED_HEADS`) against the
decision: page for page the same outcomes, whatever the heads say, the names, the base URL and the
settings; what it keeps of a tag (`judge.TagJudge.known`) holds on every page it is used on; and it lists
the plain pages itself, reading each page once."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sitemapgen import Config
from sitemapgen.config.words import LastmodSource
from sitemapgen.entry import Block, each_row
from sitemapgen.lastmod.chain import OddDates
from sitemapgen.pages import head, kinds, scanner
from sitemapgen.pages.compiled import load
from sitemapgen.pages.head import read_head_at
from sitemapgen.pages.walk import Walk
from sitemapgen.pipeline import quick
from sitemapgen.pipeline.blocks import Blocking
from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.protocol import LastmodFormat
from sitemapgen.skips import SkipReason
from sitemapgen.urls import UrlStyle, url_path

from .test_quick import each_page

pytestmark = pytest.mark.skipif(quick.COMPILED_HEADS is None, reason="the compiled module is not built here")
_scan: Any = load()  # the compiled module, where built

#: Tags a head may hold, `{loc}` the page's URL as the build writes it, `{base}` the base URL,
#: `{path}` the page's path from it, `{from_root}` from the root, `{other}` another page's URL,
#: `{first}` and `{first_url}` the first page's path from the root and URL (`{first_url_ref}` with
#: character references), `{folder}` the page's URL less a last '/', `{parent}` its URL to the '/'
#: before its last name: each way a tag may name the page, or seem to.
TAGS = (
    '<link rel="canonical" href="{loc}">',
    "<link rel='canonical' href='{loc}'>",
    "<LINK REL=canonical HREF={loc}>",
    '<link rel="canonical" href=" {loc} ">',
    '<link rel="canonical" href="{loc}#top">',
    '<link rel="canonical alternate" href="{loc}">',
    '<link rel="canonical" href="/{path}">',
    '<link rel="canonical" href="{other}">',
    '<link rel="canonical" href="{folder}.html">',  # a folder named as a file (Sphinx 7's dirhtml)
    "<link rel='canonical' href='{folder}.html' data-x=\"{folder}\">",  # the folder twice
    '<link rel="canonical" href="{folder}/index.html">',  # the page's own file
    '<link rel="canonical" href="{first}" data-x="{loc}">',  # the page's URL, but not as its href
    '<link rel="canonical" href="{loc}" data-x="{loc}">',
    '<link data-x="{loc}" rel="canonical" href="{first_url}">',  # the page's URL twice on the first page
    '<link data-x="{loc}" rel="canonical" href="{first_url_ref}">',  # the first page's URL, a reference in it
    '<link rel="canonical" hreflang="en" href="{loc}">',
    '<link rel="alternate" hreflang="en" href="{loc}">',
    '<link rel="alternate" hreflang="fr" href="{other}">',
    '<link hreflang="fr" rel="alternate" href="{other}">',  # the same link, written otherwise
    '<link rel="alternate" hreflang="EN" href="{loc}">',  # one language, one URL: both kept
    '<link rel="alternate" hreflang="en" href="{other}">',  # with the one above, a language with two URLs
    '<link rel="alternate" hreflang="x-default" href="{first_url}">',
    '<link rel="alternate" hreflang="de" href="/{path}">',  # from the root, the page's path from the base
    '<link rel="alternate" hreflang="pt" href="{from_root}">',  # from the root, naming the page
    '<link rel="alternate" hreflang="it" href="/it/">',  # from the root, the same on every page
    '<link rel="alternate" hreflang="e!" href="{loc}">',  # no language
    '<link rel="alternate" hreflang="fr" href="{base}fr/{path}">',  # a language's folder, then the page's path
    '<link rel="alternate" hreflang="de" href="https:/{from_root}">',  # an end of the page's URL: no URL on each page
    '<link rel="alternate" hreflang="es" href="{parent}es/">',  # a language's home in the page's folder
    '<link rel="alternate" hreflang="es" href="{parent_from_root}es/">',  # the same, from the root
    '<link rel="alternate" hreflang="es" href="/x{from_root}">',  # from the root: a folder, then the page's path
    '<link rel="alternate" hreflang="es" href="{loc}es/x.html">',  # under the page's URL
    '<link rel="alternate" hreflang="es" href="{parent}../es/">',  # a dot segment: not in normal form
    '<link rel="alternate" hreflang="es" href="{parent}es/?q=1">',  # a query
    "<link rel='alternate' hreflang='es' href='{parent}' data-x='{parent}es/'>",  # a start twice
    '<link data-x="{parent}es/" rel="alternate" hreflang="es" href="{base}es/">',  # the start elsewhere
    '<meta property="article:modified_time" content="2020-01-02T03:04:05Z">',
    '<meta name="robots" content="index, follow">',
    '<meta name="robots" content="noindex">',
    '<meta name="robots" content="{loc}">',
    '<meta http-equiv="refresh" content="0; url={loc}">',
    '<meta property="og:url" content="{loc}">',
    '<meta property="og:title" content="a &amp; b">',
    '<link rel="stylesheet" href="/s.css?a=1&amp;b=2">',
    '<meta name="description" content="canonical noindex">',
)
_NAMES = st.sampled_from(
    ["index.html", "a.html", "b.html", "b c.htm", "\u00e9.html", "d/index.html", "d/x.html", "e,noindex.html"]
    + ["f&g.html", "it's.html", "search.html", "404/index.html", "x=y.html", "a;b.html", "d.html", "e/f/index.html"]
    + ["g;h/index.html", "g;h/i/j.html"]  # a ';' in a folder: no path from the root holds one (`hrefs.read_href`)
    + ["Search/index.html", "SEARCH.htm", "404/INDEX.html", "x/404.htm"]  # each asked whether it is left out
)
_TAG_LISTS = st.lists(st.sampled_from(range(len(TAGS))), max_size=3)
#: A page's own tags, after its site's (a template's, the same on every page), and how its head ends.
_HEADS = st.tuples(_TAG_LISTS, st.sampled_from(["ended", "ended", "open", "latin", "huge", "fragment"]))
_BASES = st.sampled_from(["https://example.com/", "https://example.com/docs/", "HTTPS://Example.COM/", "http://h/a&b/"])


def _page(tags: list[int], shape: str, fields: dict[str, str]) -> bytes:
    """A page whose head holds `tags` (of `TAGS`, filled from `fields`), ended or not as `shape` says."""
    head = "".join(TAGS[t].format(**fields) for t in tags)
    if shape == "fragment":  # no page at all
        return f"<p>{head}</p>".encode()
    charset = "iso-8859-1" if shape == "latin" else "utf-8"
    text = "x" * 70_000 if shape == "huge" else ""  # the tags past the bytes read of a head
    page = f"<!DOCTYPE html><html><head><meta charset='{charset}'><title>t</title>{text}{head}"
    return (page if shape == "open" else page + "</head><body>b</body></html>").encode("latin-1", "replace")


def _heads(root: Path, **overrides: Any) -> tuple[Decider, quick.HeadRead, Blocking]:
    config = Config(docroot=root, lastmod=(LastmodSource.MTIME,), **{"base_url": "https://example.com/", **overrides})
    decider = Decider(config, warn=lambda _: None, dry_run=True)
    assert quick.applies_read(config, decider)
    odd = OddDates(decider.lastmod, datetime.now(UTC))
    blocking = Blocking(room=decider.room, low=odd.low, high=odd.high)
    return decider, quick.HeadRead(decider, blocking), blocking


def _candidates(decider: Decider) -> list[tuple[str, bool]]:
    walk = Walk(decider.config.docroot, prune=decider.path_rules.check_dir, url_style=decider.config.url_style)
    return list(walk.candidates())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    template=_TAG_LISTS,
    pages=st.dictionaries(_NAMES, _HEADS, min_size=1, max_size=8),
    base=_BASES,
    style=st.sampled_from([UrlStyle.DIRECTORY, UrlStyle.INDEX]),
    fmt=st.sampled_from(list(LastmodFormat)),
    hreflang=st.booleans(),
    x_default=st.sampled_from([None, None, "en", "FR", "https://example.com/?a=1&b=2"]),
)
def test_a_batch_is_each_page_decided(
    tmp_path_factory: pytest.TempPathFactory,
    template: list[int],
    pages: dict[str, tuple[list[int], str]],
    base: str,
    style: UrlStyle,
    fmt: LastmodFormat,
    hreflang: bool,
    x_default: str | None,
) -> None:
    root = tmp_path_factory.mktemp("public")
    for name in pages:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"")
    names = [relpath for relpath, _ in Walk(root).candidates() if kinds.candidate(relpath) is None] or sorted(pages)
    first_url = base + url_path(names[0], style)  # the first page a run may list
    first = {
        "first": urlsplit(first_url).path,
        "first_url": first_url,
        "first_url_ref": first_url.replace("/", "&#47;"),
    }
    for i, name in enumerate(sorted(pages)):
        tags, shape = pages[name]
        path = url_path(name, style)
        fields = {"loc": base + path, "base": base, "path": path, "from_root": urlsplit(base + path).path, **first}
        fields["folder"] = fields["loc"].removesuffix("/")
        fields["parent"] = fields["folder"][: fields["folder"].rfind("/") + 1]
        fields["parent_from_root"] = urlsplit(fields["parent"]).path
        fields["other"] = base + url_path(names[(i + 1) % len(names)], style)
        (root / name).write_bytes(_page(template + tags, shape, fields))
        os.utime(root / name, ns=(1_600_000_000 * 10**9 + i * 86_399 * 10**9,) * 2)
    decider, heads, blocking = _heads(
        root, base_url=base, url_style=style, lastmod_format=fmt, hreflang=hreflang, hreflang_x_default=x_default
    )
    try:
        candidates = _candidates(decider)
        for _ in range(2):  # the second time with what the first kept
            batch = heads.batch(candidates)
            assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    finally:
        decider.abort()


_LANG_PARTS = st.sampled_from(
    [b"<html", b"<HTML", b" ", b"\t", b"\n", b"\x0b", b"\xa0", b"lang", b"LANG", b"xml:lang", b"=", b'"', b"'"]
    + [b"en", b"de-DE", b"x" * 40, b">", b"<!-- ", b"_", b"\xc3\xa9"]
)
#: A start tag that may say a language: its name, what comes before the word, the word, the
#: spaces and '=' after it, a quote, the value.
_HTML_TAGS = st.tuples(
    st.sampled_from([b"<html", b"<HTML", b"<Html", b"<htmlx", b"<html_", b"<html-", b"<htm", b"<html>"]),
    st.sampled_from([b" ", b"\t", b"\x0b", b"\xa0", b" data-x='a>b'", b' class="x" ', b"-", b"", b" xml:"]),
    st.sampled_from([b"lang", b"LANG", b"Lang", b"lan", b"langs"]),
    st.sampled_from([b"=", b" = ", b"\n=\f", b"", b" "]),
    st.sampled_from([b'"', b"'", b"", b"`"]),
    st.sampled_from([b"en", b"de-DE", b"x" * 34, b"x" * 35, b"y" * 36, b"_en", b"-", b"", b"\xc3\xa9"]),
)


@settings(max_examples=500, deadline=None)
@example(before=[], tags=[(b"<html", b" ", b"lang", b"=", b'"', b"y" * 36)], after=[], probe=120)  # 35 kept
@given(
    before=st.lists(_LANG_PARTS, max_size=8),
    tags=st.lists(_HTML_TAGS, max_size=3),
    after=st.lists(_LANG_PARTS, max_size=8),
    probe=st.integers(0, 120),
)
def test_a_run_finds_a_page_s_language_as_the_decision_does(
    before: list[bytes], tags: list[tuple[bytes, ...]], after: list[bytes], probe: int
) -> None:
    """The `<html lang>` a run reads in a head is the one `head.html_lang` reads, in as many bytes."""
    data = b"".join(before) + b"".join(b"".join(tag) + b'" x>' for tag in tags) + b"".join(after)
    with mock.patch.object(head, "FRAGMENT_PROBE", probe):
        assert _scan.html_lang(data, probe) == head.html_lang(data)


def _site(root: Path) -> None:
    base = "https://example.com/"
    pages = {
        "index.html": f'<link rel="canonical" href="{base}">',
        "a.html": f'<link rel="canonical" href="{base}a.html"><meta property="article:modified_time" content="x">',
        "b.html": "",
        "c.html": f'<link rel="canonical" href="{base}x.html">',  # naming no file: the decision's
        "d/index.html": f'<link rel="canonical" href="{base}d/"><meta name="robots" content="index, follow">',
        "d/e.html": f'<link rel="canonical" href="{base}d/e.html">',
    }
    for name, tags in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<html><head><title>t</title>{tags}</head><body></body></html>")


def test_a_run_lists_the_plain_pages_itself_reading_each_once(tmp_path: Path) -> None:
    root = tmp_path / "public"
    _site(root)
    decider, heads, blocking = _heads(root, url_style=UrlStyle.DIRECTORY)
    candidates = _candidates(decider)
    with mock.patch.object(quick, "read_head_at", wraps=read_head_at) as reading:
        batch = heads.batch(candidates)
    assert isinstance(batch[0], Block)
    assert batch[0].locs == ["https://example.com/", "https://example.com/a.html", "https://example.com/b.html"]
    assert isinstance(batch[1], Outcome)
    assert batch[1].relpath == "c.html"  # handed back, with its head: not read again
    # The next page is decided without a run (see `HeadRead.backoff`), reading its head, and the
    # one after it by a run again.
    assert [call.args[0] for call in reading.call_args_list] == [str(root / "d/index.html")]
    assert isinstance(batch[-1], Block)
    assert batch[-1].locs == ["https://example.com/d/e.html"]
    assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    # One shape for every page naming itself so as its canonical; the link, met once, not kept.
    assert heads.judge.known == {'<link rel="canonical" href="\0">': True}
    decider.abort()


def _batch_judged(decider: Decider, heads: quick.HeadRead, blocking: Blocking) -> tuple[list[Any], mock.Mock]:
    """The batch of every candidate, each page given to a run (no backoff), checked against the
    decision page for page; and the judge's calls."""
    judged = mock.Mock(wraps=heads.judge)
    constants: Any = heads.constants
    heads.constants = (*constants[:-2], judged, constants[-1])
    candidates = _candidates(decider)
    with mock.patch.object(quick, "_WAIT_MOST", 0):
        batch = heads.batch(candidates)
    assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    return batch, judged


@pytest.mark.parametrize(
    "overrides", [pytest.param({}, id="checked"), pytest.param({"check_canonical": False}, id="not-checked")]
)
def test_a_folder_named_as_a_file_no_file_answers_is_listed_by_the_run_noted(
    tmp_path: Path, overrides: dict[str, Any]
) -> None:
    """Sphinx 7's dirhtml names each page's folder as a file (``/a.html`` for ``a/``): where no file
    answers that canonical, the run lists the page at its own URL and notes it, as the decision does,
    the tag judged once for the site; where one does (``c.html``), or the page names another
    canonical too, it is the decision's."""
    root = tmp_path / "public"
    base = "https://example.com/docs/"
    for name in ("a", "b", "c", "d", "e/f", "g", "h", "i", "j", "k"):
        end = "html#top" if name == "k" else "html"  # k's is not the URL as written
        head = f'<link rel="canonical" href="{base}{name}.{end}" />'
        head += '<link rel="alternate" href="/other.html">' if name == "g" else ""  # not a canonical: no say
        head += f'<link rel="canonical" href="{base}x.html">' if name == "d" else ""  # two canonicals
        head += f'<link rel="canonical" href="{base}h/">' if name == "h" else ""  # the other its own URL
        head += f'<link rel="canonical" href="{base}i.htm">' if name == "i" else ""  # the other as a file too
        (root / name).mkdir(parents=True)
        (root / name / "index.html").write_text(f"<html><head><title>t</title>{head}</head></html>")
    (root / "c.html").write_text("<html><head><title>c</title></head></html>")
    (root / "j.html").mkdir()
    (root / "j.html" / "index.html").write_text("<html><head><title>j</title></head></html>")  # after a redirect
    decider, heads, blocking = _heads(root, base_url=base, url_style=UrlStyle.DIRECTORY, **overrides)
    batch, judged = _batch_judged(decider, heads, blocking)
    notes = [(block.locs[at], example) for block in batch if isinstance(block, Block) for at, _, example in block.notes]
    if overrides:
        assert notes == []
        decider.abort()
        return
    assert sorted(_listed_by_runs(batch)) == [
        f"{base}{name}" for name in ("a/", "b/", "c.html", "e/f/", "g/", "j.html/")
    ]
    assert notes == [
        (f"{base}{name}/", f"{name}/index.html names {base}{name}.html") for name in ("a", "b", "e/f", "g")
    ]
    canonicals = [call.args[0] for call in judged.call_args_list if call.args[0].startswith('<link rel="canonical"')]
    assert len(canonicals) == 5  # a's (one shape for every page), the second of d, h and i, and k's
    decider.abort()


@pytest.mark.parametrize(
    "overrides", [pytest.param({}, id="checked"), pytest.param({"check_canonical": False}, id="not-checked")]
)
def test_an_index_page_naming_its_own_file_is_listed_by_the_run_under_that_url(
    tmp_path: Path, overrides: dict[str, Any]
) -> None:
    """Sphinx names an index page's own file as its canonical (``/a/index.html`` for ``a/``): the run
    lists the page under it, as the decision does, the tag judged once for the site; two canonicals,
    another file's name, or a link to the page's folder URL, are the decision's."""
    root = tmp_path / "public"
    base = "https://example.com/docs/"
    heads = {
        "index.html": f'<link rel="canonical" href="{base}index.html">',
        "a/index.html": f'<link rel="canonical" href="{base}a/index.html">',
        "b/index.html": f'<link rel="canonical" href="{base}b/index.html"><link rel="canonical" href="{base}b/">',
        "c/index.htm": f'<link rel="canonical" href="{base}c/index.html">',  # not its file
        "d/index.html": f'<link rel="canonical" href="{base}d/index.html">' + _links(("en", f"{base}d/")),
        "e/f/index.html": f"<link rel='canonical' href='{base}e/f/index.html'>",
    }
    for name, tags in heads.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<html><head><title>t</title>{tags}</head></html>")
    decider, heads_read, blocking = _heads(root, base_url=base, url_style=UrlStyle.DIRECTORY, **overrides)
    batch, judged = _batch_judged(decider, heads_read, blocking)
    if overrides:  # the canonicals are not read: each page listed at its own URL
        assert all(loc.endswith("/") for loc in _listed_by_runs(batch))
        decider.abort()
        return
    assert sorted(_listed_by_runs(batch)) == [
        f"{base}{name}" for name in ("a/index.html", "e/f/index.html", "index.html")
    ]
    canonicals = [call.args[0] for call in judged.call_args_list if call.args[0].startswith("<link rel")]
    # The root's (one shape for all but e/f's, quoted otherwise), b's second, c's, d's link, e/f's.
    assert len(canonicals) == 5
    decider.abort()


def test_a_theme_s_links_to_each_language_s_home_are_judged_once(tmp_path: Path) -> None:
    """A theme that links each language's home from the root on every page of a small site (as
    Zensical's does): each link is judged on the first page it is met on, not again."""
    root = tmp_path / "public"
    homes = _links(("en", "/"), ("de", "/de/"), ("fr", "/fr/"))
    for name in ("index.html", "a.html", "b.html", "de/index.html", "de/a.html", "fr/index.html", "fr/a.html"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<html lang='{name[:2] if '/' in name else 'en'}'><head>{homes}</head></html>")
    decider, heads, blocking = _heads(root)
    batch, judged = _batch_judged(decider, heads, blocking)
    assert len(_listed_by_runs(batch)) == 7
    assert judged.call_count == 3
    decider.abort()


@pytest.mark.parametrize(
    "tag",
    [
        pytest.param('<link rel="canonical" href="/a.html" data-x="{url}">', id="href-from-the-root"),
        pytest.param('<link data-x="{url}" rel="canonical" href="https://example.com/a.html">', id="url-twice"),
        pytest.param('<link data-x="{url}" rel="canonical" href="https://example.com/a&#46;html">', id="a-reference"),
    ],
)
def test_a_shape_names_the_page_only_where_its_href_is_the_page_s_url(tmp_path: Path, tag: str) -> None:
    """A tag that names a.html as canonical, and holds the page's URL elsewhere too, is not kept
    by its shape on a.html: on the next page, the same shape names a.html, another page."""
    root = tmp_path / "public"
    root.mkdir()
    for name in ("a.html", "b.html"):
        head = tag.format(url=f"https://example.com/{name}")
        (root / name).write_text(f"<html><head>{head}</head><body></body></html>")
    decider, heads, _ = _heads(root)
    batch = heads.batch(_candidates(decider))
    assert isinstance(batch[0], Block)
    assert batch[0].locs == ["https://example.com/a.html"]
    assert isinstance(batch[1], Outcome)
    assert batch[1].skip is not None
    assert batch[1].skip.reason is SkipReason.CANONICAL
    assert heads.judge.known == {}
    decider.abort()


def test_a_tag_met_on_one_page_only_is_not_kept(tmp_path: Path) -> None:
    root = tmp_path / "public"
    root.mkdir()
    for i in range(20):
        tag = f'<meta name="robots" content="index, max-snippet:{i}">'
        (root / f"{i}.html").write_text(f"<html><head>{tag}</head><body></body></html>")
    (root / "z.html").write_text('<html><head><meta name="robots" content="all"></head></html>')
    (root / "zz.html").write_text('<html><head><meta name="robots" content="all"></head></html>')
    decider, heads, _ = _heads(root)
    batch = heads.batch(_candidates(decider))
    assert len(batch) == 1
    assert isinstance(batch[0], Block)
    assert len(batch[0].locs) == 22
    assert heads.judge.known == {'<meta name="robots" content="all">': True}  # met twice
    decider.abort()


def test_a_page_s_own_modified_time_is_no_tag_of_a_run(tmp_path: Path) -> None:
    """A row dated by its mtime shows no modified time: each page's own ``article:modified_time``
    (its own text, met on no other page) is neither asked of the judge by a run nor read where a
    page is decided without one."""
    root = tmp_path / "public"
    root.mkdir()
    for i in range(20):
        tags = f'<link rel="canonical" href="https://example.com/{i}.html">'
        tags += f'<meta property="article:modified_time" content="2020-01-{i + 1:02}T10:{i:02}:00Z">'
        (root / f"{i}.html").write_text(f"<html><head>{tags}</head><body></body></html>")
    decider, heads, blocking = _heads(root)
    batch, judged = _batch_judged(decider, heads, blocking)
    assert len(_listed_by_runs(batch)) == 20
    assert [call.args[0] for call in judged.call_args_list] == [
        '<link rel="canonical" href="https://example.com/0.html">'
    ]
    with mock.patch.object(scanner, "read_found", wraps=scanner.read_found) as read:
        outcome = heads.decide(("7.html", False))
    assert read.call_args_list == [mock.call(['<link rel="canonical" href="https://example.com/7.html">'])]
    assert outcome == decider.decide(("7.html", False))
    decider.abort()


@pytest.mark.parametrize(
    ("overrides", "asked"),
    [
        pytest.param({}, ["404/index.html", "Search/index.html", "a/SEARCH.htm", "search.html"], id="by-name"),
        pytest.param({"exclude": ("*.htm",)}, None, id="a-pattern"),
    ],
)
def test_a_run_asks_whether_a_page_is_left_out_only_where_its_name_may_say(
    tmp_path: Path, overrides: dict[str, Any], asked: list[str] | None
) -> None:
    """Where the path rules leave a page out by its name alone, a run asks Python whether a page
    is decided elsewhere (`HeadRead._elsewhere`) only where its name or its folder's starts as
    one such may (`quick._ELSEWHERE_STARTS`); with a pattern of the config's, of every page."""
    root = tmp_path / "public"
    names = ["index.html", "a/b.html", "404/index.html", "Search/index.html", "a/SEARCH.htm", "search.html", "x4.html"]
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("<html><head><title>t</title></head><body></body></html>")
    decider, heads, blocking = _heads(root, **overrides)
    constants: Any = heads.constants
    elsewhere = mock.Mock(wraps=constants[8])
    heads.constants = (*constants[:8], elsewhere, *constants[9:])
    candidates = _candidates(decider)
    with mock.patch.object(quick, "_WAIT_MOST", 0):
        batch = heads.batch(candidates)
    assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    relpaths = [relpath for relpath, _ in candidates]
    assert sorted(call.args[0] for call in elsewhere.call_args_list) == sorted(asked or relpaths)
    decider.abort()


def test_a_python_scanner_has_python_decide_every_page(tmp_path: Path) -> None:
    root = tmp_path / "public"
    _site(root)
    with mock.patch.object(scanner, "COMPILED", None):
        decider, heads, _ = _heads(root)
        assert heads.constants is None
        assert not any(isinstance(item, Block) for item in heads.batch(_candidates(decider)))
    decider.abort()


def test_what_the_judge_raises_the_batch_raises(tmp_path: Path) -> None:
    root = tmp_path / "public"
    _site(root)
    decider, heads, _ = _heads(root)

    def judged(text: str, loc: str, shape: str | None) -> bool:
        raise RuntimeError(f"judged {text} on {loc}")

    constants: Any = heads.constants
    heads.constants = (*constants[:-2], judged, constants[-1])
    with pytest.raises(RuntimeError, match="judged <link"):
        heads.batch(_candidates(decider))
    with pytest.raises(TypeError, match="head_block"):
        quick.COMPILED_HEADS(constants[:-1], [], 0, [], [], [], [], [])  # type: ignore[misc]
    decider.abort()


def _links(*links: tuple[str, str]) -> str:
    return "".join(f'<link rel="alternate" hreflang="{lang}" href="{href}">' for lang, href in links)


def _clusters(root: Path) -> None:
    """Pages in English and French, each naming itself as canonical and giving its cluster as
    absolute links (as Hugo and Docusaurus write them), and pages whose cluster is not one to list
    as the head gives it."""
    base = "https://example.com/"
    pages = {
        name: f'<link rel="canonical" href="{base}{name}">'
        + _links(("en", f"{base}{name.removeprefix('fr/')}"), ("fr", f"{base}fr/{name.removeprefix('fr/')}"))
        + (_links(("x-default", f"{base}{name.removeprefix('fr/')}")) if "b" in name else "")
        + (_links(("it", f"{base}it&amp;{name.removeprefix('fr/')}")) if "c" in name else "")
        for name in ("a.html", "b.html", "c.html", "fr/a.html", "fr/b.html", "fr/c.html")
    }
    pages |= {
        "twice.html": _links(("en", f"{base}twice.html"), ("fr", f"{base}fr/a.html"))
        + f'<link hreflang="fr" rel="alternate" href="{base}fr/a.html">'  # the same link, written otherwise
        + _links(("EN", f"{base}twice.html")),  # the same language and URL, another case: both kept
        "two-urls.html": _links(("en", f"{base}two-urls.html"), ("fr", f"{base}fr/a.html"), ("FR", f"{base}x.html")),
        "all-two.html": _links(("en", f"{base}x.html"), ("EN", f"{base}y.html")),  # no link left
        "not-named.html": _links(("fr", f"{base}fr/a.html"), ("de", f"{base}de/a.html")),  # and no <html lang>
        "named-de.html": _links(("fr", f"{base}fr/a.html"), ("DE", f"{base}de/a.html")),  # its language another's
        "named-it.html": _links(("fr", f"{base}fr/a.html"), ("de", f"{base}de/a.html")),  # added in its language
        "form/index.html": _links(("en", f"{base}form/index.html"), ("fr", f"{base}fr/a.html")),  # another form
        "formal.html": _links(("en", f"{base}form/"), ("fr", f"{base}fr/a.html")),  # not its form
        "rooted.html": _links(("en", "/rooted.html"), ("fr", "/fr/a.html")),
        "no-language.html": _links(("en", f"{base}no-language.html"), ("e!", f"{base}fr/a.html")),
        "noindex.html": '<meta name="robots" content="noindex">' + _links(("en", f"{base}noindex.html")),
    }
    languages = {"named-de.html": " lang='de'", "named-it.html": ' data-x="1" LANG = "it"'}
    for name, tags in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        html = f"<html{languages.get(name, '')}>"
        (root / name).write_text(f"{html}<head><title>t</title>{tags}</head><body></body></html>")


def _listed_by_runs(batch: list[Outcome | Block]) -> list[str]:
    return [loc for item in batch if isinstance(item, Block) for loc in item.locs]


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({}, id="as-the-head-gives-it"),
        pytest.param({"hreflang_x_default": "en"}, id="x-default-added"),
        pytest.param({"hreflang_x_default": "FR"}, id="x-default-a-language-in-capitals"),
        pytest.param({"hreflang_x_default": "https://example.com/?a=1&b=2"}, id="x-default-a-url"),
        pytest.param({"hreflang": False}, id="hreflang-off"),
    ],
)
def test_a_run_lists_a_cluster_as_the_head_gives_it(tmp_path: Path, overrides: dict[str, Any]) -> None:
    """A cluster of absolute links or links from the root is listed by the run itself, each page
    read once, each link once, in the head's order, less each language given two URLs, which is
    noted; and so is one naming no URL of the page where the page's <html lang> is none or one of
    the cluster's (noted, kept as the head gives it). Any other cluster (one the decision adds the
    page to in its language, one with a link that may name the page in another form, one with no
    language) is the decision's. Where the build adds an x-default, the run adds it as the
    decision does, after the links, naming the URL of the cluster's link in that language.
    Where no row shows a link (hreflang off), a head's links say nothing, and its page is the
    run's, but for a link the decision warns of (one of no language)."""
    root = tmp_path / "public"
    _clusters(root)
    decider, heads, blocking = _heads(root, **overrides)
    candidates = _candidates(decider)
    off = overrides == {"hreflang": False}
    listed = ["a.html", "b.html", "c.html", "fr/a.html", "fr/b.html", "fr/c.html", "rooted.html"]
    listed += ["twice.html", "two-urls.html", "all-two.html", "not-named.html", "named-de.html", "formal.html"]
    listed += ["named-it.html", "form/"] if off else []
    for _ in range(2):  # the second time with what the first kept
        with (
            mock.patch.object(quick, "read_head_at", wraps=read_head_at) as reading,
            mock.patch.object(quick, "_WAIT_MOST", 0),  # no page decided without a run (`HeadRead.backoff`)
        ):
            batch = heads.batch(candidates)
        assert sorted(_listed_by_runs(batch)) == sorted(f"https://example.com/{name}" for name in listed)
        assert reading.call_args_list == []  # the pages handed back came with their heads
        assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
        # What the decision notes of a page a run lists goes with its block, by its place in it.
        notes = [
            (block.locs[at], kind.name, example)
            for block in batch
            if isinstance(block, Block)
            for at, kind, example in block.notes
        ]
        assert sorted(notes) == sorted(
            [
                ("https://example.com/all-two.html", "HREFLANG_CONFLICT", "all-two.html names 'en' more than once"),
                ("https://example.com/formal.html", "HREFLANG_NO_SELF", "formal.html"),
                ("https://example.com/named-de.html", "HREFLANG_NO_SELF", "named-de.html"),
                ("https://example.com/not-named.html", "HREFLANG_NO_SELF", "not-named.html"),
                ("https://example.com/two-urls.html", "HREFLANG_CONFLICT", "two-urls.html names 'fr' more than once"),
            ]
            if not off
            else []
        )
    decider.abort()
    link = '<xhtml:link rel="alternate" hreflang="{}" href="https://example.com/{}"/>'
    rows = {row.loc: row.xml.decode() for item in batch if isinstance(item, Block) for row in item.rows()}
    if off:
        assert not any(isinstance(value, tuple) for value in heads.judge.known.values())
        assert not any("<xhtml:link" in xml for xml in rows.values())
        return
    if overrides.get("hreflang_x_default", "en") != "en":  # as the decision adds it (above), in capitals or a URL
        assert sum('hreflang="x-default"' in xml for xml in rows.values()) > 2
        return
    # The x-default added where a link is English: its URL, after the links; none where the head names one (b).
    named = {"b.html", "fr/b.html"}
    if overrides:
        named |= {"a.html", "c.html", "fr/a.html", "fr/c.html", "rooted.html"}
        named |= {"twice.html", "two-urls.html", "formal.html"}
    assert {loc: xml.count('hreflang="x-default"') for loc, xml in rows.items() if "x-default" in xml} == {
        f"https://example.com/{name}": 1 for name in named
    }
    x_default = link.format("x-default", "a.html") + "</url>\n"
    assert rows["https://example.com/fr/a.html"].endswith(x_default) is bool(overrides)
    # A link naming the page is known by its shape; one naming its translation, by the start of its URL.
    tag, element = '<link rel="alternate" hreflang="{}" href="{}">'.format, b'<xhtml:link rel="alternate" hreflang='
    assert heads.judge.known[tag("en", "\0")] == (element + b'"en" href="', b'"/>', "en", "")
    assert heads.judge.known[tag("fr", "https://example.com/fr\0\0")] == (
        element + b'"fr" href="https://example.com/fr',
        b'"/>',
        "fr",
        "https://example.com/fr",
    )
    # A link met on two pages that shows no end of the page's path is known by its text.
    assert heads.judge.known[tag("fr", "https://example.com/fr/a.html")] == (
        link.format("fr", "fr/a.html").encode(),
        "fr",
        "https://example.com/fr/a.html",
    )
    assert rows["https://example.com/twice.html"].count("<xhtml:link") == 3 + bool(overrides)
    assert link.format("x-default", "b.html") in rows["https://example.com/fr/b.html"]
    assert link.format("it", "it&amp;c.html") in rows["https://example.com/fr/c.html"]
    # A link from the root: the base URL's origin, then its path.
    assert link.format("en", "rooted.html") + link.format("fr", "fr/a.html") in rows["https://example.com/rooted.html"]


def test_a_link_from_the_root_is_the_base_url_s_origin_and_its_path(tmp_path: Path) -> None:
    """Under a base URL with a path, a cluster's links from the root are listed by the run, each
    the origin and its path as written (the base URL's path not added again), one outside the
    base URL too."""
    root = tmp_path / "public"
    links = '<link rel="alternate" hreflang="en" href="/docs/{0}"><link rel="alternate" hreflang="fr"'
    links += ' href="/docs/fr/{0}"><link rel="alternate" hreflang="it" href="/it/{0}">'
    for name in ("a.html", "fr/a.html"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        tags = links.format(name.removeprefix("fr/"))
        (root / name).write_text(f"<html><head><title>t</title>{tags}</head><body></body></html>")
    decider, heads, blocking = _heads(root, base_url="https://example.com/docs/")
    candidates = _candidates(decider)
    with mock.patch.object(quick, "_WAIT_MOST", 0):
        batch = heads.batch(candidates)
    assert _listed_by_runs(batch) == ["https://example.com/docs/a.html", "https://example.com/docs/fr/a.html"]
    rows = [row.xml.decode() for item in batch if isinstance(item, Block) for row in item.rows()]
    assert all('hreflang="it" href="https://example.com/it/a.html"' in xml for xml in rows)
    assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    decider.abort()


def test_a_head_of_more_tags_than_a_run_takes_is_the_decision_s(tmp_path: Path) -> None:
    root = tmp_path / "public"
    root.mkdir()
    languages = [f"{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(65)]
    links = _links(*((languages[i], f"https://example.com/{i}.html") for i in range(64)))
    for name in ("0.html", "1.html"):
        (root / name).write_text(f"<html><head>{links}</head><body></body></html>")
    decider, heads, blocking = _heads(root)
    batch = heads.batch(_candidates(decider))
    assert _listed_by_runs(batch) == ["https://example.com/0.html", "https://example.com/1.html"]  # 64 tags
    (root / "0.html").write_text(f"<html><head>{links}{_links((languages[64], 'https://example.com/64.html'))}</head>")
    with mock.patch.object(quick, "_WAIT_MOST", 0):  # no page decided without a run (`HeadRead.backoff`)
        batch = heads.batch(_candidates(decider))
    assert _listed_by_runs(batch) == ["https://example.com/1.html"]
    assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in _candidates(decider)]))
    decider.abort()


@pytest.mark.parametrize(
    "judged",
    [None, 1, (b"<xhtml:link/>", "en"), ("<xhtml:link/>", "en", "https://example.com/")],
    ids=["none", "one", "two-items", "element-not-bytes"],
)
def test_a_judgment_is_true_false_or_a_link(tmp_path: Path, judged: object) -> None:
    root = tmp_path / "public"
    _site(root)
    decider, heads, _ = _heads(root)
    constants: Any = heads.constants
    heads.constants = (*constants[:-2], lambda *_: judged, constants[-1])
    with pytest.raises(TypeError, match="head_block: a tag is known or judged True, False, "):
        heads.batch(_candidates(decider))
    decider.abort()


@pytest.mark.parametrize("hreflang", [True, False], ids=["links-listed", "hreflang-off"])
def test_a_site_s_clusters_are_judged_on_its_first_pages_only(tmp_path: Path, hreflang: bool) -> None:
    """Each link of an English and French site is one shape for the whole site (the page's own URL,
    or a language's folder and the page's path), judged once: the run lists every page itself;
    where no row shows a link, too (each shape known to say nothing)."""
    root = tmp_path / "public"
    base = "https://example.com/docs/"
    names = [f"{section}/p{i}/index.html" for section in ("guide", "api") for i in range(5)]
    for name in names + [f"fr/{name}" for name in names]:
        path = name.removeprefix("fr/").removesuffix("index.html")
        head = f'<link rel="canonical" href="{base}{name.removesuffix("index.html")}">'
        head += _links(("en", f"{base}{path}"), ("fr", f"{base}fr/{path}"), ("x-default", f"{base}{path}"))
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<html><head>{head}</head><body></body></html>")
    decider, heads, blocking = _heads(root, base_url=base, url_style=UrlStyle.DIRECTORY, hreflang=hreflang)
    batch, judged = _batch_judged(decider, heads, blocking)
    assert len(_listed_by_runs(batch)) == 20
    # On the first English page, its canonical and three links; on the first French page, its three links.
    assert judged.call_count == 7
    assert any(b"<xhtml:link" in row.xml for item in batch for row in item.rows()) is hreflang
    decider.abort()


@pytest.mark.parametrize("start", ["https://example.com", ""], ids=["whole", "from-the-root"])
def test_the_links_to_each_copy_s_language_homes_are_judged_on_the_first_copy_only(tmp_path: Path, start: str) -> None:
    """Copies of a site, each in a folder of its own, whose pages link to each language's home in
    their copy (a theme's language switcher: ``/s1/fr/``, no page there), and to themselves, as
    URLs or paths from the root (as Zensical writes them): each link is one shape for every page
    of every copy (the start of the page's URL to its copy's folder, then the language's folder;
    the page's own URL, or path), judged once; and the run lists every page as the decision does."""
    root = tmp_path / "public"
    for copy in range(3):
        for name in ("index.html", "guide/index.html", "guide/install/index.html", "api/index.html"):
            page = f"s{copy}/{name}"
            url = f"{start}/{page.removesuffix('index.html')}"
            head = _links(("en", url), ("fr", f"{start}/s{copy}/fr/"), ("de", f"{start}/s{copy}/de/"))
            (root / page).parent.mkdir(parents=True, exist_ok=True)
            (root / page).write_text(f"<html><head>{head}</head><body></body></html>")
    decider, heads, blocking = _heads(root, url_style=UrlStyle.DIRECTORY)
    batch, judged = _batch_judged(decider, heads, blocking)
    assert len(_listed_by_runs(batch)) == 12
    # On the first page, its own link (the page's URL whole) and the two homes: three shapes in all.
    assert judged.call_count == 3
    assert sum("\0\4" in known for known in heads.judge.known) == 2
    decider.abort()


_COPY_NAMES = st.sampled_from(
    ["s0/index.html", "s0/a/index.html", "s0/a/b.html", "s1/a/b/index.html", "s;1/index.html", "s;1/a/index.html"]
    + ["\u00e9/a/index.html", "s 2/a.html", "s&3/a/index.html", "x/y;z/index.html", "x/y;z/w/index.html", "i.html"]
)
#: What a link goes on with after its copy's folder: a language's home, a page, or what no URL's
#: normal form keeps as written (a dot segment, a query, a '%', a ';', a character not a URL's).
_RESTS = st.sampled_from(["fr/", "", "de/x.html", "../fr/", "./", "fr/?q=1", "fr/%41/", "fr//", "a;b/", "\u00e9/"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(_COPY_NAMES, min_size=1, max_size=6, unique=True),
    rests=st.lists(_RESTS, min_size=1, max_size=3, unique=True),
    start=st.sampled_from(["https://example.com", ""]),
    own=st.booleans(),
    style=st.sampled_from([UrlStyle.DIRECTORY, UrlStyle.INDEX]),
)
def test_links_to_a_copy_s_folder_decide_as_the_decision(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], rests: list[str], start: str, own: bool, style: UrlStyle
) -> None:
    """Pages whose links name a start of their URL (their copy's folder), then more, as URLs or
    paths from the root, whatever their names hold (a ';', a '&', a space, a letter not ASCII):
    every page of a run is what the decision makes of it, with what was judged on others."""
    root = tmp_path_factory.mktemp("public")
    for name in names:
        path = url_path(name, style)
        folder = path[: path.find("/") + 1]  # the page's copy's, or none
        links = [(("fr", "de", "es")[i], f"{start}/{folder}{rest}") for i, rest in enumerate(rests)]
        head = _links(*links, *([("en", f"{start}/{path}")] if own else []))
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<html lang='en'><head>{head}</head><body></body></html>")
    decider, heads, blocking = _heads(root, url_style=style)
    try:
        for _ in range(2):  # the second time with what the first kept
            _batch_judged(decider, heads, blocking)
    finally:
        decider.abort()


@pytest.mark.parametrize(
    "tag",
    [
        pytest.param('<link rel="alternate" hreflang="de" href="https:/{from_root}">', id="no-url-on-each-page"),
        pytest.param(
            '<link data-x="{from_root}" rel="alternate" hreflang="fr" href="https://example.com/fr/y/">',
            id="the-path-elsewhere",
        ),
        pytest.param(
            '<link data-x="{from_root}" rel="alternate" hreflang="fr" href="https://example.com/fr&#47;x/">',
            id="a-reference",
        ),
    ],
)
def test_a_link_is_kept_by_its_shape_only_where_it_holds_on_every_page(tmp_path: Path, tag: str) -> None:
    """A link whose shape replaces an end of x/'s path (its URL then "https://x/", a path from the
    root elsewhere in the tag, or a reference before that path) is kept by its text, not its shape:
    on "x y/", the same shape is no URL, or not the URL its href is."""
    root = tmp_path / "public"
    for name in ("x/index.html", "x y/index.html"):
        from_root = "/" + url_path(name, UrlStyle.DIRECTORY)
        head = _links(("en", f"https://example.com{from_root}")) + tag.format(from_root=from_root)
        (root / name).parent.mkdir(parents=True)
        (root / name).write_text(f"<html><head>{head}</head><body></body></html>")
    decider, heads, blocking = _heads(root, url_style=UrlStyle.DIRECTORY)
    candidates = _candidates(decider)
    for _ in range(2):  # the second time with what the first kept
        with mock.patch.object(quick, "_WAIT_MOST", 0):
            batch = heads.batch(candidates)
        assert each_page(blocking(batch)) == each_page(blocking([decider.decide(c) for c in candidates]))
    assert not any("\0\0" in known for known in heads.judge.known)
    decider.abort()


def test_a_build_says_what_its_runs_noted_as_the_decision_says_it(tmp_path: Path) -> None:
    """The notes of the pages runs list go with their blocks, split where the walk skips a page
    among them, and the build counts and says them as it does the decision's, in the same words,
    with the same examples, in the same order; the rows are the same bytes."""
    root = tmp_path / "public"
    homes = _links(("en", "/"), ("de", "/de/"), ("fr", "/fr/"))
    same = _links(("en", "/"), ("en", "/de/"))  # a theme giving its own language to every version
    for folder in ("", "de/", "fr/"):
        for at, name in enumerate(("index.html", "a.html", "b.html", "b2/index.html", "c.html", "d.html")):
            tags = same if folder == "fr/" and at > 2 else homes
            (root / folder / name).parent.mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_text(f"<html lang='en'><head><title>t</title>{tags}</head></html>")
    config = Config(docroot=root, base_url="https://example.com/", lastmod=(LastmodSource.MTIME,), exclude=("b2/",))

    def build() -> tuple[list[str], list[bytes]]:
        said: list[str] = []
        pipeline = Pipeline(config, None, warn=said.append, dry_run=True)
        try:
            rows = [row.xml for row in each_row(pipeline.rows(on_skip=lambda _: None))]
        finally:
            pipeline.abort()
        return said, rows

    with mock.patch.object(Block, "split", autospec=True, side_effect=Block.split) as split:
        said, rows = build()
    assert any(block.notes for block, _ in (call.args for call in split.call_args_list))  # a block of notes split
    with mock.patch.object(quick, "COMPILED_HEADS", None):
        assert build() == (said, rows)
    assert said[:2] == [
        "10 pages: hreflang links do not name the page itself, and no <html lang> says its language (or they"
        " give it to another URL): kept as the head gives them; e.g. a.html",
        "2 pages: hreflang gives one language two URLs or more: that language's links dropped; e.g. fr/c.html"
        " names 'en' more than once",
    ]
