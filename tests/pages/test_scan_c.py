"""The compiled scanner (`sitemapgen/pages/_scan.c`) against the pure-Python one: wherever it
answers, it answers as the Python scanner does; it answers for the heads real generators write;
and it is built wherever a C compiler is. (The head tests of this folder run with each scanner,
against beautifulsoup4: conftest.py.)"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitemapgen.pages import head, lister, scanner
from sitemapgen.pages.encoding import decode_head, sniff_encoding
from sitemapgen.pages.head import read_head_bytes
from sitemapgen.pages.signals import MARKS, RAW_TEXT, SIGNAL_TAGS
from sitemapgen.urls import INDEX_NAMES, PAGE_SUFFIXES

from ..helpers import c_compiler
from .test_head import _attribute, _piece
from .test_unique_heads import _GENERATORS, _page

try:
    from sitemapgen.pages import _scan
except ImportError:
    _scan = None  # type: ignore[assignment]

REALSITES = Path(__file__).parent.parent / "realsites"


@pytest.fixture(autouse=True)
def _compiled(request: pytest.FixtureRequest) -> Iterator[None]:
    if _scan is None and request.node.get_closest_marker("without_it") is None:
        pytest.skip("the compiled scanner is not built here (no C compiler at install)")
    scanner.forget_seen()
    yield
    scanner.forget_seen()


def _python_tags(text: str) -> list[tuple[str, dict[str, str]]] | None:
    """What the pure-Python scanner finds in `text`, from a cold start."""
    scanner.forget_seen()
    try:
        with mock.patch.object(scanner, "COMPILED", None):
            read = scanner.read_fast(text)
    finally:
        scanner.forget_seen()
    return None if read is None else [tag for tag, _ in read]


def _agrees(text: str) -> list[str] | None:
    """Assert that where the compiled scanner answers for `text`, it finds the tags the Python
    scanner finds, and reads each as it does; its answer. With labels asked for too: where it
    answers, the title and description metas it finds read as the Python scanner's."""
    labelled = scanner.read_fast(text, labels=True)
    if labelled is not None:
        scanner.forget_seen()
        with mock.patch.object(scanner, "COMPILED", None):
            pure = scanner.read_fast(text, labels=True)
        scanner.forget_seen()
        assert pure is not None, text
        assert [tag for tag, _ in labelled] == [tag for tag, _ in pure], text
    found = _scan.deciding_tags(text, MARKS)
    if found is not None:
        python = _python_tags(text)
        assert python is not None, text
        assert [scanner._read_tag(tag)[0] for tag in found] == python, text
        for tag in found:
            read = _scan.read_tag(tag)
            assert read is None or read == scanner._read_tag(tag)[0], tag
    return found


def _agrees_bytes(data: bytes) -> list[str] | None:
    """`_agrees` of the text head bytes decode to, read from the bytes (`read_fast_utf8`): where it
    answers, the bytes are read as UTF-8 (`sniff_encoding`), and it finds what the Python scanner
    finds in their text."""
    found = _scan.deciding_tags_utf8(data, MARKS)
    if found is not None:
        assert sniff_encoding(data) == ("utf-8", 0), data
        text = decode_head(data)
        python = _python_tags(text)
        assert python is not None, data
        assert [scanner._read_tag(tag)[0] for tag in found] == python, data
    return found


@pytest.mark.without_it
def test_it_is_built_where_a_compiler_is() -> None:
    if c_compiler() is None:
        pytest.skip("no C compiler here: the install left the compiled scanner out, as it should")
    assert _scan is not None, "a C compiler is here, but the install did not build the compiled scanner"
    assert scanner.COMPILED == (_scan.deciding_tags, _scan.deciding_tags_utf8, _scan.read_tag)
    assert lister.COMPILED == _scan.listing
    assert lister.WALK == _scan.walk
    assert head.COMPILED == _scan.read_head


@pytest.mark.parametrize(("value", "compiled"), [("1", False), ("yes", False), ("0", True), ("", True)])
def test_the_environment_can_turn_it_off(value: str, compiled: bool) -> None:
    # SITEMAPGEN_PURE_PYTHON=1: every head read in Python (if the compiled scanner were ever
    # wrong, the way around it; and how make bench times the pure-Python path).
    # The directory lister and the head's reads too (`compiled.load` loads the module for all).
    code = (
        "from sitemapgen.pages import head, lister, scanner;"
        "print(scanner.COMPILED is None, lister.COMPILED is None, lister.WALK is None, head.COMPILED is None)"
    )
    env = {**os.environ, "SITEMAPGEN_PURE_PYTHON": value}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(not compiled)] * 4


#: What could make the compiled scanner read a head otherwise than the Python scanner: Unicode
#: white space and control characters where a tag's markup has ASCII white space, a script's end
#: tag spelled with Unicode white space, names that start as script's and style's, characters
#: whose lower case is longer or ASCII, NUL, references, a backtick, a doctype's spellings.
_EDGES = st.sampled_from(
    [
        "<meta\xa0name=robots content=noindex>",
        "<meta name=robots\x1ccontent=noindex>",
        "<meta name=robots content=noindex\u2003>",
        "<meta name=robots content=\x01noindex>",
        "<script>a</\xa0script><meta name=robots content=noindex></script>",
        "<script>a</script\u2003><meta name=robots content=noindex>",
        "<script>a</ SCRIPT\n><meta name=robots content=noindex>",
        "<style>a</\u017ftyle><meta name=robots content=noindex></style>",
        "<scriptx>",
        "<style-x>",
        "<script/>",
        "<script src=/a.js/></script>",
        "<meta name=é content=canonical>",
        "<meta na\u0130me=robots content=noindex>",
        "<link rel=canonica\u212a href=/k>",
        "<lin\u212a rel=canonical href=/k>",
        "\u0130",
        "\x00",
        "<link rel=canonical href=`x`>",
        "<link rel=canonical href=/a/>",
        "<meta name=robots content=noindex/>",
        "<meta name='robots' content=\"noindex\" />",
        "<LINK REL=CANONICAL HREF=/X>",
        "<meta content=&amp; name=modified>",
        '<meta name="robots" content="no&#105;ndex">',
        "<link rel=alternate hreflang=de href=/de/ hreflang=fr>",
        "<!DOCTYPE html>",
        "<!doctypex>",
        "<!doctype",
        "</a b='>",
        "<a b=c d='e' f>",
        "<a b= >",
        "<a b =c>",
        "<meta/>",
        "<meta/ name=robots>",
        "<link\n>",
        "<metadata name=robots content=noindex>",
        '<meta name="robots" content="noindex"<',
        "<!---->",
        "<!-- a -- b -->",
        "<!-- é -->",
    ]
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(_piece(), _EDGES), max_size=12))
@example(["<script>a</\xa0script>", "<meta name=robots content=noindex>", "</script>"])
@example(["<meta name=robots content=noindex\u2003>"])
@example(["<meta>", "<meta>", "<title name=robots/>", "</title>"])  # a title's '/' before '>', in a value
def test_where_it_answers_it_answers_as_the_python_scanner(pieces: list[str]) -> None:
    _agrees("".join(pieces))


@settings(max_examples=800, deadline=None)
@given(
    st.sampled_from(["meta", "link", "META", "Link"]),
    st.lists(st.one_of(_attribute(), _EDGES.map(lambda edge: " " + edge.strip("<>"))), max_size=5),
    st.sampled_from([">", "/>", " />", " >"]),
)
def test_a_tag_reads_as_the_python_scanner_reads_it(name: str, attributes: list[str], close: str) -> None:
    tag = f"<{name}{''.join(attributes)}{close}"
    read = _scan.read_tag(tag)
    if read is not None:
        match = scanner._META_LINK.fullmatch(tag)
        assert match is not None, tag
        assert read == scanner._read_match(match)[0], tag


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(_GENERATORS)), st.lists(_page(), min_size=1, max_size=4))
def test_it_answers_for_the_heads_generators_write(generator: str, pages: list[object]) -> None:
    # On a real site's heads it must answer, or it would be no faster: wherever the Python
    # scanner answers without a letter whose lower case is longer or ASCII (U+0130, U+212A).
    for page in pages:
        head = _GENERATORS[generator](page)  # type: ignore[arg-type]
        if _python_tags(head) is not None and not {"\u0130", "\u212a"} & set(head):
            assert _agrees(head) is not None, head
            assert _agrees_bytes(head.encode("utf-8")) is not None, head


def test_it_answers_for_every_page_of_the_real_sites() -> None:
    pages = sorted(REALSITES.rglob("*.html"))
    assert len(pages) > 50
    for page in pages:
        data, _, _ = read_head_bytes(str(page))
        text = decode_head(data)
        if _python_tags(text) is not None:
            assert _agrees(text) is not None, page


#: Bytes where UTF-8 and the head's declared encoding could part: BOMs, charset declarations of
#: every kind and place, bytes that are no UTF-8, and the UTF-8 of characters the scanners treat
#: apart (U+0130, U+212A, U+00A0 and U+0085 where a script's end tag allows white space).
_BYTE_EDGES = st.sampled_from(
    [
        b"\xef\xbb\xbf",
        b"\xff\xfe",
        b"\xfe\xff",
        b'<meta charset="utf-8">',
        b"<meta charset=UTF8>",
        b"<META CHARSET = 'Utf-8' >",
        b'<meta charset="latin-1">',
        b"<meta charset=windows-1252>",
        b"<meta charset=utf-16>",
        b"<meta charset=utf-7>",
        b"<meta charset=x-unknown>",
        b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">',
        b'<meta name="charset" content="x"><meta charset=latin1>',
        b"<meta charset>",
        b"charset=latin1",
        b"<meta x=charset>charset=latin1",
        b"<!-- <meta charset=latin1> -->",
        b"\xff",
        b"\xc3",
        b"caf\xc3\xa9",
        b"\xc4\xb0",
        b"\xe2\x84\xaa",
        b"<script>a</\xc2\xa0script><meta name=robots content=noindex></script>",
        b"<script>a</script\xc2\x85><meta name=robots content=noindex>",
        b"<meta name=robots content=\xc3\xa9noindex>",
        b'<meta name="robots" content="\xc3\xa9 noindex">',
        b"<link rel=canonical href=/caf\xc3\xa9>",
        b'<link rel=canonical href="/caf\xc3\xa9\xff">',
        b"\x00",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.one_of(_piece().map(lambda piece: piece.encode("utf-8")), _BYTE_EDGES), max_size=12),
    st.integers(0, 1100),
)
@example([b"<meta charset=latin1>", b"<link rel=canonical href=/caf\xe9>"], 0)
@example([b"<script>a</\xc2\xa0script>", b"<meta name=robots content=noindex>", b"</script>"], 0)
def test_from_bytes_it_answers_as_the_python_scanner_on_their_text(pieces: list[bytes], pad: int) -> None:
    # `pad` moves the pieces about the prescan's end (1,024 bytes): a charset declared past it
    # does not count.
    _agrees_bytes(b" " * pad + b"".join(pieces))


def test_from_bytes_it_answers_for_every_utf8_page_of_the_real_sites() -> None:
    answered = 0
    for page in sorted(REALSITES.rglob("*.html")):
        data, _, _ = read_head_bytes(str(page))
        if sniff_encoding(data) == ("utf-8", 0) and _python_tags(decode_head(data)) is not None:
            assert _agrees_bytes(data) is not None, page
            answered += 1
    assert answered > 50


#: Where a tag's bytes are looked at sixteen at a time (`_scan.any_mark_bytes`, the end of a quoted
#: value): every place of a chunk, and a word cut short or run into the tag's end.
_PLACES = range(36)


@pytest.mark.parametrize("word", [*MARKS, "robot", "canonica", "\x06", "R\x0fBOTS"])
def test_a_mark_at_any_place_of_a_tag_is_found_as_the_python_scanner_finds_it(word: str) -> None:
    # A mark in any case at every place, before the tag's end or at it; a word a mark only starts;
    # a byte that reads as a mark's first with its 0x20 bit set ("\x06" as "&"), and so on.
    for spelled in dict.fromkeys((word, word.upper(), word.title())):
        for after in ("", "y", "y" * 15, "y" * 16):
            tags = [f'<meta content="{"x" * before}{spelled}{after}">' for before in _PLACES]
            tags += [f"<meta content={'x' * before}{spelled}>" for before in _PLACES]  # the mark ends the tag
            for tag in tags:
                text = f"<head>{tag}</head>"
                found = _agrees(text)
                assert found == _agrees_bytes(text.encode()), tag
                if word.isprintable() or '"' in tag:  # else an unquoted value holds a control character
                    assert found == ([tag] if word in MARKS else []), tag
                else:
                    assert found is None, tag


@pytest.mark.parametrize("quote", ['"', "'"])
def test_a_quoted_value_ends_where_the_python_scanner_ends_it(quote: str) -> None:
    # A value's end found sixteen bytes at a time: a '<' or '>' at any place of it (the head is
    # the Python scanner's to read), the other quote (a character of the value), no end at all.
    other = "'" if quote == '"' else '"'
    for before in _PLACES:
        for inside, answered in (("<", False), (">", False), (other, True), ("", True)):
            tag = f"<meta name=robots content={quote}{'x' * before}{inside}{'y' * (before % 17)}{quote}>"
            for text in (f"<head>{tag}</head>", f"<head>{tag[:-2]}"):  # the second ends in the value
                found = _agrees(text), _agrees_bytes(text.encode())
                assert found[0] == found[1], text
                assert (found[0] is not None) is (answered and text.endswith("</head>")), text


def _python_listing(directory: Path) -> tuple[list[bytes], dict[str, OSError]]:
    """`lister.listing` of `directory` by `os.scandir` alone, as where the scanner is not built."""
    with mock.patch.object(lister, "COMPILED", None):
        return lister.listing(str(directory))


#: Names of every kind the walk tells apart: page suffixes in any case and their near misses,
#: index names, names that are not UTF-8, white space, a newline.
_NAMES = st.one_of(
    st.sampled_from(["index.html", "index.htm", "INDEX.HTML", "index.html.gz", ".html", ".htm", "html", "a.HtMl"]),
    st.builds(
        lambda stem, suffix: stem + suffix,
        st.binary(min_size=1, max_size=6).map(lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_")),
        st.sampled_from([b"", b".html", b".HTM", b".htm", b".Html", b".xhtml", b".html~", b".ht", b"html"]),
    ).map(os.fsdecode),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_NAMES, st.sampled_from(["file", "dir", "page link", "dir link", "broken", "fifo"]))))
def test_a_listing_is_the_python_listing(
    tmp_path_factory: pytest.TempPathFactory, entries: list[tuple[str, str]]
) -> None:
    # The directory's entries of every type (files, directories, symlinks to each, a broken one,
    # a FIFO), under names that are and are not pages, in any bytes: the same entries, kinds and
    # ranks as `os.scandir` gives.
    root = tmp_path_factory.mktemp("listing")
    (root / "target.html").write_text("")
    (root / "target").mkdir()
    for name, kind in entries:
        path = root / name
        if name in (".", "..") or os.path.lexists(path):
            continue
        if kind == "file":
            path.write_text("")
        elif kind == "dir":
            path.mkdir()
        elif kind == "page link":
            path.symlink_to("target.html")
        elif kind == "dir link":
            path.symlink_to("target")
        elif kind == "broken":
            path.symlink_to("nowhere")
        else:
            os.mkfifo(path)
    found = _scan.listing(os.fsencode(root))
    assert found is not None  # this file system gives every entry's type
    python, errors = _python_listing(root)
    assert errors == {}
    assert sorted(found) == sorted(python)


@pytest.mark.parametrize(("missing", "error"), [("nothing here", FileNotFoundError), ("a file", NotADirectoryError)])
def test_a_listing_that_fails_fails_as_os_scandir(tmp_path: Path, missing: str, error: type[OSError]) -> None:
    (tmp_path / "a file").write_text("")
    path = tmp_path / missing
    with pytest.raises(error) as python:
        os.scandir(path)
    with pytest.raises(error) as compiled:
        _scan.listing(os.fsencode(path))
    assert (type(compiled.value), compiled.value.errno, compiled.value.strerror) == (
        type(python.value),
        python.value.errno,
        python.value.strerror,
    )
    assert os.fsdecode(compiled.value.filename) == str(path)


def _python_head(path: Path, max_bytes: int) -> tuple[bytes, int, bool] | None:
    """`head.read_head_at` of `path` in Python alone, as where the scanner is not built."""
    with mock.patch.object(head, "COMPILED", None):
        return head.read_head_at(str(path), max_bytes)


#: What may end a head, or nearly: the two ends in any case, with and without the rest of their
#: tag, and what only starts as one.
_HEAD_ENDS = st.sampled_from(
    [
        b"</head>",
        b"</HEAD>",
        b"</HeAd",
        b"<body>",
        b"<BODY class=x>",
        b"<bodyx",
        b"</hea",
        b"<bod",
        b"</ head>",
        b"<</head",
    ]
)
_READ = 4_096  # the first read: where an end may straddle two reads


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(_HEAD_ENDS, st.binary(max_size=40), st.integers(0, 2 * _READ).map(lambda n: b"x" * n)), max_size=8
    ),
    st.sampled_from([0, 1, 6, _READ - 1, _READ, _READ + 1, 5 * _READ, 16 * _READ]),
)
@example([b"x" * (_READ - 3), b"</HEAD>"], 16 * _READ)  # the end begun in the first read, ended in the second
@example([b"x" * (_READ - 5), b"<body>"], _READ + 2)  # ... and cut short by the most to read
@example([b"x" * (5 * _READ + 7), b"</head>"], 16 * _READ)  # in the third read
def test_a_head_read_in_one_call_is_the_python_read(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], max_bytes: int
) -> None:
    # The same bytes (up to the same end, or the most to read), the same mtime (to the
    # nanosecond), and the same word on whether an end of the head ended them.
    path = tmp_path_factory.mktemp("head") / "page.html"
    path.write_bytes(b"".join(pieces))
    os.utime(path, ns=(0, 1_700_000_000_123_456_789))
    read = head.read_head_at(str(path), max_bytes)
    assert read is not None
    assert read == _python_head(path, max_bytes)


@pytest.mark.parametrize(
    "kind", ["missing", "directory", "fifo", "broken link", "page link", "far future", "before 1970"]
)
def test_a_head_read_in_one_call_fails_and_dates_as_the_python_read(tmp_path: Path, kind: str) -> None:
    # What is not a regular file (a FIFO is never waited on) is None to both, so the decision
    # says why; a link is followed; an mtime a long long's nanoseconds cannot hold is an int still.
    (tmp_path / "target.html").write_bytes(b"<title>t</title></head>")
    path = tmp_path / "page.html"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "broken link":
        path.symlink_to("nowhere.html")
    elif kind == "page link":
        path.symlink_to("target.html")
    elif kind != "missing":
        path.write_bytes(b"<head></head>")
        os.utime(path, ns=(0, 253_402_300_799_000_000_001 if kind == "far future" else -86_400_000_000_123))
    read = head.read_head_at(str(path), 65_536)
    assert read == _python_head(path, 65_536)
    assert (read is None) == (kind in ("missing", "directory", "fifo", "broken link"))


def test_a_head_read_in_one_call_refuses_a_nul_as_os_open(tmp_path: Path) -> None:
    # A ValueError, as `os.open` raises (its words differ from one Python to the next).
    with pytest.raises(ValueError, match="embedded null"):
        head.read_head_at(str(tmp_path / "a\0b.html"), 65_536)
    with pytest.raises(ValueError, match="embedded null"):
        _python_head(tmp_path / "a\0b.html", 65_536)


def _untold() -> ModuleType:
    """A new instance of the compiled module, not yet told its words by the modules that use it."""
    spec = importlib.util.find_spec("sitemapgen.pages._scan")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_listing_takes_its_names_from_the_lister(tmp_path: Path) -> None:
    # The C spells no index name, page suffix or kind of its own: untold, it lists nothing; told
    # others, it lists by them. So a suffix added to `urls.PAGE_SUFFIXES` is one edit.
    root = tmp_path / "site"
    (root / "d").mkdir(parents=True)
    for name in ("a.xml", "home.xml", "b.html", "index.html"):
        (root / name).write_text("")
    untold = _untold()
    with pytest.raises(RuntimeError, match="configure_listing"):
        untold.listing(os.fsencode(root))
    untold.configure_listing(("home.xml",), (".xml",), (5, 6, 7, 8))
    assert sorted(untold.listing(os.fsencode(root))) == [b"\0home.xml\0\6", b"\1a.xml\0\6", b"\1d\0\5"]
    with pytest.raises(ValueError, match="may not"):
        untold.configure_listing(("index.html",), (".kml",), (0, 1, 2, 3))  # U+212A lower-cases to "k"


def test_a_head_read_takes_its_ends_and_sizes_from_the_head_reader(tmp_path: Path) -> None:
    # The C spells no end of a head, nor the sizes of its reads: untold, it reads nothing; told
    # others, it reads by them. An end it would never find (upper case: it compares lower case)
    # is refused.
    page = tmp_path / "page.html"
    page.write_bytes(b"<meta charset=utf-8><TITLE>t</title><body>")
    untold = _untold()
    with pytest.raises(RuntimeError, match="configure_reading"):
        untold.read_head(os.fsencode(page), 65_536)
    untold.configure_reading(("</title",), 1, 1)
    read = untold.read_head(os.fsencode(page), 65_536)
    assert read is not None
    assert read[0::2] == (b"<meta charset=utf-8><TITLE>t", True)
    for ends, first, said in (
        (("</TITLE",), 1, "may not"),
        (("title",), 1, "starts with '<'"),
        (("</title",), 0, "at least 1"),
    ):
        with pytest.raises(ValueError, match=said):
            untold.configure_reading(ends, first, 1)


def test_a_scan_takes_its_names_from_the_signal_table() -> None:
    # The C spells no tag name of its own: untold, it reads nothing; told one more tag that may
    # decide and one more element to skip whole, it finds and reads by them. So a tag added to
    # `signals.SIGNALS` (or an element to `signals.RAW_TEXT`) is one edit.
    untold = _untold()
    with pytest.raises(RuntimeError, match="configure_heads"):
        untold.deciding_tags("<meta>", MARKS)
    with pytest.raises(RuntimeError, match="configure_heads"):
        untold.read_tag("<meta>")
    untold.configure_heads((*SIGNAL_TAGS, "base"), (*RAW_TEXT, "textarea"), ("caption",))
    head = "<BASE href=/canonical><textarea><meta name=robots content=noindex></textarea><link rel=canonical href=/c>"
    assert untold.deciding_tags(head, MARKS) == ["<BASE href=/canonical>", "<link rel=canonical href=/c>"]
    assert untold.deciding_tags_utf8(head.encode(), MARKS) == untold.deciding_tags(head, MARKS)
    assert untold.read_tag("<BASE href=/canonical>") == ("base", {"href": "/canonical"})
    assert untold.deciding_tags("<textareax>", MARKS) is None  # only starts as one: Python's to say
    with pytest.raises(ValueError, match="may not"):
        untold.configure_heads(("meta/",), RAW_TEXT, ("title",))


@pytest.mark.without_it
def test_the_c_spells_no_word_of_the_tables() -> None:
    # What the tables say is said once, in Python; the C is told it (the two tests above).
    source = (Path(scanner.__file__).parent / "_scan.c").read_text(encoding="utf-8")
    for word in (*SIGNAL_TAGS, *RAW_TEXT, *INDEX_NAMES, *PAGE_SUFFIXES, *(end.decode() for end in head._HEAD_ENDS)):
        assert f'"{word}"' not in source, word
