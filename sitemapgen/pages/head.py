"""What a page's ``<head>`` says about whether and how it belongs in a sitemap.

Only the bytes up to ``</head>`` (or ``<body``) are read, at most `max_bytes`,
so a large page costs no more than a small one. beautifulsoup4 (html.parser) is
the reference reader of those bytes, but costs ~0.5 ms a page; a strict scanner
decides the plain heads that are most of a site, and hands anything unusual to
bs4 (a differential test checks that the two agree). Broken or binary input
yields a `HeadFacts` with a `problem`, never an exception, and the page is then
kept as if it said nothing.

Which tags mean something is the signal table's (`signals.py`): this module
only finds the ``<meta>`` and ``<link>`` tags that may carry a signal, using
the table's words to skip, unparsed, every head and tag that cannot.
"""

from __future__ import annotations

import codecs
import dataclasses
import functools
import html
import itertools
import os
import re
from typing import TypeVar

from sitemapgen.config.words import DEFAULT_MAX_BYTES
from sitemapgen.pages.signals import (
    DECIDING_WORDS,
    SIGNAL_TAGS,
    HeadFacts,
    Said,
    facts_from_said,
    facts_from_tags,
    said_by,
)
from sitemapgen.util.safeio import open_regular

_FIRST_READ = 4_096
_READ_STEP = 16_384
#: As the HTML spec's prescan: a charset declaration counts only in the first 1,024 bytes.
_PRESCAN = 1_024
_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_HEAD_END = re.compile(rb"</head|<body", re.IGNORECASE)  # bytes: ASCII case only, as bytes.lower()
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_BOM_FIRST = frozenset(bom[:1] for bom, _ in _BOMS)


def read_head_bytes(
    path: str, max_bytes: int = DEFAULT_MAX_BYTES, *, fd: int | None = None
) -> tuple[bytes, bool, bool]:
    """The page's bytes up to the end of its head, whether that end (or the end of the
    file) was found, and whether it was a ``</head`` or ``<body`` that ended it.

    Reads 4 KiB first (most heads fit), then larger steps, so a short head on
    a long page costs one small read. A page swapped for a FIFO (or anything but
    a regular file) after the walk saw it is an OSError, never a wait. With `fd`
    (the page, open from `safeio.open_regular`, at its start), reads that and
    leaves it open.
    """
    if fd is not None:
        return _read_head(fd, max_bytes)
    fd = open_regular(path)
    try:
        return _read_head(fd, max_bytes)
    finally:
        os.close(fd)


def _read_head(fd: int, max_bytes: int) -> tuple[bytes, bool, bool]:
    data = b""
    step = _FIRST_READ
    while len(data) < max_bytes:
        chunk = os.read(fd, min(step, max_bytes - len(data)))
        if not chunk:
            return data, True, False  # the whole file is the head
        start = max(0, len(data) - 6)
        data += chunk
        end = _HEAD_END.search(data, start)
        if end is not None:
            return data[: end.start()], True, True
        step = _READ_STEP
    return data, False, False


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """The encoding of a head and the length of its BOM, as a browser would decide.

    BOM first, then UTF-16 without a BOM (a NUL beside an ASCII '<'), then a
    ``<meta charset>`` or http-equiv content-type, then UTF-8.
    """
    if data[:1] in _BOM_FIRST:
        for bom, name in _BOMS:
            if data.startswith(bom):
                return name, len(bom)
    if len(data) >= 2 and data[0] == 0x3C and data[1] == 0:
        return "utf-16-le", 0
    if len(data) >= 2 and data[0] == 0 and data[1] == 0x3C:
        return "utf-16-be", 0
    prescan = data[:_PRESCAN]
    lowered = prescan.lower()
    found = None
    at = lowered.find(b"charset")
    while at >= 0 and found is None:
        # Only a charset inside a <meta> tag counts: try the tag that holds this word.
        start = lowered.rfind(b"<meta", 0, at)
        found = _META_CHARSET.match(prescan, start) if start >= 0 else None
        if found is not None and found.end() < at:
            found = None  # that meta tag's charset ends before this word: not the one
        at = lowered.find(b"charset", at + 7)
    return (_encoding_named(found.group(1)) if found else "utf-8"), 0


@functools.lru_cache(maxsize=64)
def _encoding_named(label: bytes) -> str:
    """The encoding a ``<meta charset>`` label names (UTF-8 for one Python does not know)."""
    try:
        name = codecs.lookup(label.decode("ascii", "replace").lower()).name
    except LookupError:
        return "utf-8"
    # A meta tag that could be read as ASCII cannot be UTF-16 (HTML spec: use UTF-8).
    return "utf-8" if name.startswith("utf-16") else name


def decode_head(data: bytes) -> str:
    """Decode head bytes; undecodable bytes become U+FFFD, never an error."""
    encoding, skip = sniff_encoding(data)
    return data[skip:].decode(encoding, "replace")


Tag = tuple[str, dict[str, str]]

_RAW_TEXT_OPEN = re.compile(r"<(?:script|style)\b", re.IGNORECASE)
#: One attribute as both parsers read it alike: a name, and a value double- or
#: single-quoted, or unquoted and plain. Values holding '<' or '>' are not
#: plain: html.parser would still end the tag at the right '>', but a '<meta'
#: inside a value must never look like a tag to the extraction below.
_ATTR_TEXT = r"""\s++[^\s"'<>/=]++(?:\s*+=\s*+(?:"[^"<>]*+"|'[^'<>]*+'|[^\s"'<>=`]++))?+"""
_PLAIN_HEAD = re.compile(
    rf"""(?:[^<]++|<[a-zA-Z][^\s/<>]*+(?:{_ATTR_TEXT})*+\s*+/?>|</[a-zA-Z][^<>]*+>|<![dD][oO][cC][tT][yY][pP][eE][^<>]*+>)*+"""
)
#: A meta or link tag's name (case-insensitivity scoped to it: 10% faster than over the whole
#: pattern, whose other parts hold no letters) and the rest of the tag.
_SIGNAL_TAG_NAME = rf"(?i:{'|'.join(SIGNAL_TAGS)})"
_SIGNAL_TAG_REST = r"(?:[\s/][^<>]*+)?"
_META_LINK = re.compile(rf"<({_SIGNAL_TAG_NAME})({_SIGNAL_TAG_REST})>")
#: The text of each tag `_META_LINK` matches, found in one pass: the same pattern without its groups.
_META_LINK_TEXT = re.compile(rf"<{_SIGNAL_TAG_NAME}{_SIGNAL_TAG_REST}>")
#: What html.parser skips, as one match each: a script or style element, dropped whole as
#: raw text, or a plain comment (group 1); or the start of one that is not (no group 1).
#: Only a plain opening tag (attributes as above, not self-closing) opens a script or style,
#: and only one named "script" or "style" in ASCII letters of any case: html.parser lower-cases
#: a tag name that starts with an ASCII letter, so "\u017fcript" (a long s, which a Unicode
#: caseless "s" matches) opens nothing, and any other is left in place for the check below to
#: hand to bs4. Each ends at the first end tag of its name, found as html.parser (3.11 to 3.13)
#: finds it, ``</\s*name\s*>`` caseless, by runs of anything but '<' (a lazy ".*?" tried every
#: character of a 10 KB inline style). A plain comment is one that every html.parser reads
#: alike: not ``<!-->`` or ``<!--->`` (3.13 reads those as empty comments), no ``--`` inside
#: (so no ``--!>`` end either), ended by ``-->``; jekyll-seo-tag and many themes write such
#: comments in every head.
_SKIPPED = re.compile(  # '<' first, outside any group: the engine skips to each '<' in C
    r"<(?:(!--(?!-?>)(?:[^-]|-(?!-))*+-->"
    + "".join(
        rf"|(?ai:{name})(?:{_ATTR_TEXT})*+\s*+>(?:[^<]++|<(?!/\s*(?i:{name})\s*>))*+</\s*(?i:{name})\s*>"
        for name in ("script", "style")
    )
    + r")|(?i:script|style)|!--)"
)
_ATTR = re.compile(r"""\s+([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"<>]*)"|'([^'<>]*)'|([^\s"'<>=`]+)))?""")


def may_decide(tag_text: str) -> bool:
    """Whether a meta or link tag's text could change a `HeadFacts`.

    Viewport, description, og:*, stylesheet and icon tags cannot, and are most
    of a head: the fast scanner does not parse them. A tag can carry a signal
    only if it holds one of the signal table's words (`DECIDING_WORDS`); a '&'
    could spell one as a character reference, so it always counts.
    """
    lowered = tag_text.lower()
    if "&" in lowered:
        return True
    for word in DECIDING_WORDS:  # a plain loop: cheaper than any() over a generator, per tag
        if word in lowered:
            return True
    return False


def _without_skipped(text: str) -> str | None:
    """`text` without its script and style elements and its plain comments, as html.parser
    skips them; None when that cannot be told here: one seems to open inside another tag
    (``<meta<script>``, which html.parser does not read as a script or a comment at all),
    does not end within the head, or is a comment of another kind.

    Left to right, as the parser reads: whichever starts first is skipped whole, so a
    comment inside a script is script text, and a script inside a comment comment text.
    """
    pieces: list[str] = []
    done = 0
    left = False  # a "<script", "<style" or "<!--" that starts nothing skipped
    for found in _SKIPPED.finditer(text):
        if found.group(1) is None:
            left = True
            continue
        start = found.start()
        if text.rfind("<", 0, start) > text.rfind(">", 0, start):
            return None
        pieces.append(text[done:start])
        done = found.end()
    if not done:
        stripped = text
    else:
        pieces.append(text[done:])
        stripped = "".join(pieces)
    # Joining the pieces spells no new "<script" or "<!--": the piece before a skipped part
    # would end in an unclosed "<", refused above. So only one left over needs looking for.
    if left and (_RAW_TEXT_OPEN.search(stripped) or "<!--" in stripped):
        return None
    return stripped


def scan_tags_fast(text: str) -> list[Tag] | None:
    """The meta and link tags of a plain head that may decide something (see
    `may_decide`), or None to say "ask beautifulsoup4".

    Left to beautifulsoup4: comments other than plain ones (see `_SKIPPED`),
    CDATA and processing instructions outside scripts, styles and comments, and
    NUL anywhere (parsers differ on it).

    Decides only what it can decide exactly as bs4 with html.parser would: the
    head less its scripts, styles and plain comments (`_without_skipped`) must be
    text, doctype, end tags and start tags whose attributes are plain (see
    `_ATTR_TEXT`), checked by one regular expression (`_PLAIN_HEAD`, line by line
    of lines not seen before, see `_read_fast`). Anything else (an odd comment, a
    stray '<', a quote left open) returns None.
    """
    read = _read_fast(text)
    return None if read is None else [tag for tag, _ in read]


def _read_fast(text: str) -> list[_Read] | None:
    """`scan_tags_fast`, each tag with what it says (`signals.said_by`), read once per line text.

    A site's heads share most of their lines (its template's), so each line is
    kept with the tags it holds, read: a line seen before is one lookup, neither
    checked nor searched again. If each line is plain markup (`_PLAIN_HEAD`),
    so is the whole, and its tags are the lines' tags in order: a tag that
    `_PLAIN_HEAD` matches ends at its own '>' on its own line. A line that is
    not plain (a tag over two lines) sends the whole head to `_read_whole`.
    """
    if "\x00" in text:
        return None
    stripped = _without_skipped(text)
    if stripped is None:
        return None
    lines = stripped.split("\n")
    found = list(map(_LINES.get, lines))  # a line's reads, or None if not seen before
    if None in found:
        for at, line in enumerate(lines):
            if found[at] is None:
                if _PLAIN_HEAD.fullmatch(line) is None:
                    return _read_whole(stripped)
                found[at] = reads = _tags_read(line)
                _keep(_LINES, line, reads, _LINES_KEPT)
    return list(itertools.chain.from_iterable(found))  # type: ignore[arg-type]  # no None is left


def _read_whole(text: str) -> list[_Read] | None:
    """`_read_fast` of a head with a line that is not plain markup by itself: checked whole."""
    return list(_tags_read(text)) if _PLAIN_HEAD.fullmatch(text) is not None else None


def _tags_read(text: str) -> tuple[_Read, ...]:
    """The meta and link tags of plain markup that may decide something (`may_decide`), read:
    each tag text once (`_TAGS`), so a line not seen before that holds a tag seen before (a
    minified head, one line a page, is all such) does not read that tag again."""
    found: list[_Read] = []
    known = _TAGS.get
    for tag_text in _META_LINK_TEXT.findall(text):
        read = known(tag_text, _UNREAD)
        if read is _UNREAD:
            read = _read_tag(tag_text) if may_decide(tag_text) else None
            _keep(_TAGS, tag_text, read, _TAGS_KEPT)
        if read is not None:
            found.append(read)
    return tuple(found)


#: Lines of plain markup read before, with the tags each holds that may decide (see `_read_fast`).
_LINES: dict[str, tuple[_Read, ...]] = {}
_LINES_KEPT = 4_096
#: The longest tag or line kept (`_TAGS`, `_LINES`): a template's are shorter, and a minified
#: head is one line a page, which no other page repeats. So each keeps a few MB at most.
_KEPT_LENGTH = 512
_V = TypeVar("_V")


def _keep(kept: dict[str, _V], text: str, value: _V, most: int) -> None:
    """Keep what `text` (a tag or a line) read as, in `kept`, which holds at most `most`
    entries (full, it starts again) and no text longer than `_KEPT_LENGTH`."""
    if len(text) <= _KEPT_LENGTH:
        if len(kept) >= most:
            kept.clear()
        kept[text] = value


def forget_seen() -> None:
    """Forget the tags and lines read before (see `_TAGS`, `_LINES`): a benchmark's pass,
    or a test, then reads heads as a build reads its first."""
    _TAGS.clear()
    _LINES.clear()


def _read_tag(tag_text: str) -> _Read:
    """A meta or link tag's name, attributes and what it says."""
    match = _META_LINK.fullmatch(tag_text)
    assert match is not None  # found by _META_LINK_TEXT, the same pattern without its groups
    name = match.group(1).lower()
    attrs: dict[str, str] = {}
    for key, double, single, bare in _ATTR.findall(match.group(2)):
        value = double or single or bare
        attrs[key.lower()] = html.unescape(value) if "&" in value else value
    return (name, attrs), said_by(name, attrs)


#: A tag, and what it says.
_Read = tuple[Tag, tuple[Said, ...]]
#: Meta and link tags read before, by their text (None: it cannot decide, see `may_decide`). A
#: site's heads repeat their tags page after page (viewport, stylesheets, hreflang links to each
#: language's home, robots metas): each is looked at once. Their attributes are shared, so no
#: one may change them.
_TAGS: dict[str, _Read | None] = {}
_UNREAD: _Read = (("", {}), ())  # not yet in _TAGS (None there: no tag)
_TAGS_KEPT = 4_096


def scan_tags_bs4(text: str) -> list[Tag]:
    """The meta and link tags as beautifulsoup4 (html.parser) reads them: the reference."""
    import bs4  # only here: most heads never need it, and it costs 45 ms to import
    from bs4.filter import SoupStrainer  # bs4 >= 4.13

    soup = bs4.BeautifulSoup(text, "html.parser", parse_only=SoupStrainer(list(SIGNAL_TAGS)))
    tags: list[Tag] = []
    for tag in soup.find_all(list(SIGNAL_TAGS)):
        if isinstance(tag, bs4.Tag):
            attrs = {key: " ".join(value) if isinstance(value, list) else value for key, value in tag.attrs.items()}
            tags.append((tag.name, attrs))
    return tags


#: The most work (see `tangle`) a head may ask of html.parser: about 0.2 s of it.
MAX_TANGLE = 8_000_000


def tangle(text: str) -> int:
    """A bound on the characters html.parser scans in `text`, beyond one pass.

    html.parser looks for the end of each tag from its '<' onward, and a tag
    left open (no '>') sends it to the end of the text, again for every '<'
    after it: 60 KB of unclosed tags, comments or quotes cost it 2-25 s. Each
    '<' scans at most to the next '>' (a quote or comment may carry it further,
    but never past the last '>', after which the bound counts to the end), so
    the sum of (the '<' of a stretch without '>') x (its length) bounds it, and
    is linear to compute. Real heads, 1.5-15 KB, score a few thousand.
    """
    work = 0
    for stretch in text.split(">"):
        opens = stretch.count("<")
        if opens > 1:
            work += opens * len(stretch)
    tail = text.rpartition(">")[2]
    return work + tail.count("<") * len(tail)


def parse_head(text: str, page_url: str, *, fast: bool = True) -> HeadFacts:
    """Read the signals from head text: the fast scanner where it can decide, else bs4.

    A head too tangled for html.parser to read in bounded time (see `tangle`)
    is kept as saying nothing, with a problem that the build reports: no page
    can stall a build, and none is dropped for it.
    """
    read = _read_fast(text) if fast else None
    if read is not None:
        return facts_from_said(read, page_url)
    work = tangle(text)
    if work > MAX_TANGLE:
        return HeadFacts(
            problem=f"head too tangled to read in bounded time ({work:,} > {MAX_TANGLE:,}); read as saying nothing"
        )
    return facts_from_tags(scan_tags_bs4(text), page_url)


#: What `says_nothing` looks for: the deciding words, and "utf-7" (an encoding that spells '&' otherwise).
_DECIDING_BYTES = (*(word.encode("ascii") for word in DECIDING_WORDS), b"utf-7")


def says_nothing(data: bytes) -> bool:
    """Whether head bytes certainly carry no signal, without decoding them.

    Every signal needs one of the deciding words in an attribute value, or a
    '&' that could spell one as a character reference. In any encoding that
    writes ASCII as ASCII, their absence from the bytes settles it. UTF-16
    (a BOM or NUL bytes) and UTF-7 (which writes '&' otherwise) are decoded.
    """
    if b"&" in data or b"\x00" in data or data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    lowered = data.lower()
    for word in _DECIDING_BYTES:  # a plain loop: cheaper than any() over a generator, per page
        if word in lowered:
            return False
    return True


def facts_from_bytes(data: bytes, page_url: str, *, fast: bool = True) -> HeadFacts:
    """What head bytes say: nothing, when `says_nothing` can tell; else decoded and scanned."""
    if fast and says_nothing(data):
        return _NOTHING
    return parse_head(decode_head(data), page_url, fast=fast)


_NOTHING = HeadFacts()

_HTML_LANG = re.compile(rb"""<html\b[^>]*?\slang\s*=\s*["']?([A-Za-z0-9-]{1,35})""", re.IGNORECASE)


def html_lang(data: bytes) -> str | None:
    """The ``<html lang>`` of head bytes (ASCII-compatible encodings), or None: the page's
    own language, which its hreflang cluster must name it under."""
    match = _HTML_LANG.search(data, 0, FRAGMENT_PROBE)
    return match.group(1).decode("ascii") if match else None


#: What every page has near its start, and a template fragment (a Jinja partial that a
#: generator copied into the site, a snippet of navigation) has none of.
_PAGE_MARKS = (b"<!doctype", b"<html", b"<head", b"<body", b"<title")
#: How far into a file its page marks must start: past a BOM, a comment, white space.
FRAGMENT_PROBE = 4_096


def is_fragment(data: bytes) -> bool:
    """Whether head bytes (`read_head_bytes` found no ``</head`` or ``<body``) are
    not a page at all: none of doctype, ``<html``, ``<head``, ``<body`` or ``<title``
    in the first `FRAGMENT_PROBE` bytes, in any case or encoding. An empty file
    is not a fragment: it is a page that says nothing (a placeholder)."""
    probe = data[:FRAGMENT_PROBE]
    if not probe.strip():
        return False
    lowered = probe.lower()
    if any(mark in lowered for mark in _PAGE_MARKS):
        return False
    text = decode_head(probe).lower()  # UTF-16 spells the marks in other bytes
    return not any(mark.decode("ascii") in text for mark in _PAGE_MARKS)


def read_head(
    path: str, page_url: str, max_bytes: int = DEFAULT_MAX_BYTES, *, fast: bool = True, fd: int | None = None
) -> HeadFacts:
    """Read and parse the head of the page at `path` (or `fd`, see `read_head_bytes`).
    Raises OSError if it cannot be read."""
    data, complete, ended = read_head_bytes(path, max_bytes, fd=fd)
    facts = facts_from_bytes(data, page_url, fast=fast)
    if not ended and is_fragment(data):
        facts = dataclasses.replace(facts, fragment=True)
    if facts.alternates:
        facts = dataclasses.replace(facts, lang=html_lang(data))
    if complete:
        return facts
    note = f"no end of <head> in the first {max_bytes:,} bytes; read only those"
    return dataclasses.replace(facts, problem=f"{facts.problem}; {note}" if facts.problem else note)
