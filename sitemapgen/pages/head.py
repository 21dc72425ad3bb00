"""What a page's ``<head>`` says about whether and how it belongs in a sitemap.

Only the bytes up to ``</head>`` (or ``<body``) are read, at most `max_bytes`,
so a large page costs no more than a small one, and decoded as a browser would
(`encoding.py`). beautifulsoup4 (html.parser) is the reference reader of those
bytes (`reference.py`), but costs ~0.5 ms a page; a strict scanner
(`scanner.py`) decides the plain heads that are most of a site, and hands
anything unusual to bs4 (a differential test checks that the two agree). Broken
or binary input yields a `HeadFacts` with a `problem`, never an exception, and
the page is then kept as if it said nothing.

Which tags mean something is the signal table's (`signals.py`): head reading
only finds the ``<meta>`` and ``<link>`` tags that may carry a signal, using
the table's words to skip, unparsed, every head (`says_nothing`) and tag
(`scanner.may_decide`) that cannot.
"""

from __future__ import annotations

import codecs
import dataclasses
import os
import re
from collections.abc import Callable

from sitemapgen.config.words import DEFAULT_MAX_BYTES
from sitemapgen.pages.compiled import load
from sitemapgen.pages.encoding import decode_head
from sitemapgen.pages.labels import READERS
from sitemapgen.pages.reference import MAX_TANGLE, scan_tags_bs4, tangle
from sitemapgen.pages.scanner import Read, read_fast, read_fast_utf8, read_labelled_utf8
from sitemapgen.pages.signals import DECIDING_WORDS, HeadFacts, facts_from_said, facts_from_tags
from sitemapgen.util.safeio import open_regular_stat, read_page

_FIRST_READ = 4_096
_READ_STEP = 16_384
#: What ends a head (lower case), in any ASCII case.
_HEAD_ENDS = (b"</head", b"<body")
_HEAD_END = re.compile(b"|".join(_HEAD_ENDS), re.IGNORECASE)  # bytes: ASCII case only, as bytes.lower()
_scan = load()
#: `read_head_at`'s work in one call, by the compiled module (`_scan.read_head`), or None where
#: it is not built (or the platform has no `open`, Windows). (Tests set it to None to read in Python.)
COMPILED: Callable[[bytes, int], tuple[bytes, int, bool] | None] | None = None
if _scan is not None and hasattr(_scan, "read_head"):
    # Told what ends a head and the reads' sizes, which the C spells nowhere.
    _scan.configure_reading(tuple(end.decode("ascii") for end in _HEAD_ENDS), _FIRST_READ, _READ_STEP)
    COMPILED = _scan.read_head


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
    return read_page(path, fd, lambda fd: read_open_head(fd, max_bytes))


def read_open_head(fd: int, max_bytes: int) -> tuple[bytes, bool, bool]:
    """`read_head_bytes` of the page open at `fd`, from where it stands (its start)."""
    data = b""
    step = _FIRST_READ
    while len(data) < max_bytes:
        chunk = os.read(fd, min(step, max_bytes - len(data)))
        if not chunk:
            return data, True, False  # the whole file is the head
        start = len(data)
        data += chunk
        end = head_end(data, start)
        if end is not None:
            return data[:end], True, True
        step = _READ_STEP
    return data, False, False


def read_head_at(path: str, max_bytes: int) -> tuple[bytes, int, bool] | None:
    """The head of the regular file at `path` as `read_open_head` reads it, the file's
    st_mtime_ns, and whether a ``</head`` or ``<body`` ended the head; None where the file cannot
    be opened or read, or is not a regular file (the caller asks the slow way, which says why).
    By the compiled module where it is built (the open, the status, the reads and the close in one
    call), else by `safeio.open_regular_stat` and `read_open_head`: the same answers
    (tests/pages/test_scan_c.py)."""
    compiled = COMPILED
    if compiled is not None:
        return compiled(os.fsencode(path), max_bytes)
    try:
        fd, status = open_regular_stat(path)
    except OSError:
        return None
    try:
        data, _, ended = read_open_head(fd, max_bytes)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data, status.st_mtime_ns, ended


def parse_head(text: str, page_url: str, *, fast: bool = True, labels: bool = False) -> HeadFacts:
    """Read the signals from head text: the fast scanner where it can decide, else bs4.

    A head too tangled for html.parser to read in bounded time (see `tangle`), or one it
    rejects, is kept as saying nothing, with a problem that the build reports: no page
    can stall or stop a build, and none is dropped for it. With `labels`, the page's title and
    description are read too (see `labels.LABELS`), in the same pass.
    """
    read = read_fast(text, labels) if fast else None
    if read is not None:
        return facts_from_said(read, page_url)
    work = tangle(text)
    if work > MAX_TANGLE:
        return HeadFacts(
            problem=f"head too tangled to read in bounded time ({work:,} > {MAX_TANGLE:,}); read as saying nothing"
        )
    tags = scan_tags_bs4(text, labels)
    if tags is None:
        return HeadFacts(problem="head html.parser rejects as malformed; read as saying nothing")
    return facts_from_tags(tags, page_url, READERS if labels else None)


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
    """What head bytes say: read from the bytes where the compiled scanner can (see
    `scanner.read_fast_utf8`); nothing, when `says_nothing` can tell; else decoded and scanned."""
    return facts_of_read(read_fast_utf8(data) if fast else None, data, page_url, fast=fast)


def facts_of_read(read: list[Read] | None, data: bytes, page_url: str, *, fast: bool = True) -> HeadFacts:
    """`facts_from_bytes`, where `read` is what `scanner.read_fast_utf8` read of `data` (None:
    it could not, or was not asked)."""
    if read is not None:
        return facts_from_said(read, page_url)
    if fast and says_nothing(data):
        return _NOTHING
    return parse_head(decode_head(data), page_url, fast=fast)


def labelled_from_bytes(data: bytes, page_url: str, *, fast: bool = True) -> HeadFacts:
    """`facts_from_bytes` with the page's title and description (`labels.LABELS`): apart, so that
    a build without them runs the same code as before; and no `says_nothing`, since a title needs
    no deciding word."""
    if fast:
        read = read_labelled_utf8(data)
        if read is not None:
            return facts_from_said(read, page_url)
    return parse_head(decode_head(data), page_url, fast=fast, labels=True)


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
    path: str,
    page_url: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    fast: bool = True,
    fd: int | None = None,
    labels: bool = False,
) -> HeadFacts:
    """Read and parse the head of the page at `path` (or `fd`, see `read_head_bytes`); with
    `labels`, its title and description too. Raises OSError if it cannot be read."""
    data, complete, ended = read_head_bytes(path, max_bytes, fd=fd)
    return facts_of_head(data, page_url, max_bytes, complete=complete, ended=ended, fast=fast, labels=labels)


def head_end(data: bytes, start: int = 0) -> int | None:
    """Where a page's head ends in `data` (at its ``</head`` or ``<body``), looked for from
    `start`; None if not yet: for a page read from the network as it comes."""
    end = _HEAD_END.search(data, max(0, start - 6))
    return None if end is None else end.start()


def facts_of_head(
    data: bytes,
    page_url: str,
    max_bytes: int,
    *,
    complete: bool,
    ended: bool,
    fast: bool = True,
    labels: bool = False,
) -> HeadFacts:
    """What the head bytes `data` of the page at `page_url` say, as `read_head` reads a file's:
    `complete` when they are all of its head (or of the page), `ended` when a ``</head`` or
    ``<body`` ended them. `verify` reads a live page's head through this too."""
    facts = labelled_from_bytes(data, page_url, fast=fast) if labels else facts_from_bytes(data, page_url, fast=fast)
    if not ended and is_fragment(data):
        facts = dataclasses.replace(facts, fragment=True)
    if facts.alternates or labels:  # a cluster names the page in it; an output of labels shows it
        facts = facts.with_lang(html_lang(data))
    if complete:
        return facts
    note = f"no end of <head> in the first {max_bytes:,} bytes; read only those"
    return dataclasses.replace(facts, problem=f"{facts.problem}; {note}" if facts.problem else note)
