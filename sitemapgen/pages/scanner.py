"""The fast scanner: the ``<meta>`` and ``<link>`` tags of a plain head, found as
beautifulsoup4 with html.parser (`reference.py`) finds them; a head it cannot
read exactly so is handed to bs4 (see `scan_tags_fast`).

Which tags mean something is the signal table's (`signals.py`): this module
only finds the tags that may carry a signal, using the table's words to skip,
unparsed, every tag that cannot (`may_decide`): a tag that may decide is
found from where its words are, not by reading every tag (`_deciding_tags`).

Where the optional compiled scanner is built (`_scan.c`, by ``pip install`` where a C compiler
is), it finds a plain head's deciding tags in one pass, and hands back to this one every head
it cannot tell exactly so (see `read_fast`): the answers are the same with it and without.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import NamedTuple, TypeVar

from sitemapgen.pages import labels as _labels
from sitemapgen.pages.compiled import load
from sitemapgen.pages.labels import TITLE, title_read, with_title
from sitemapgen.pages.signals import DECIDING_WORDS, MARKS, RAW_TEXT, SIGNAL_TAGS, Said, Tag, said_by


class _Compiled(NamedTuple):
    """The compiled scanner's functions (see `_scan.c`)."""

    deciding_tags: Callable[..., list[str] | None]  # (text, marks[, titles])
    deciding_tags_utf8: Callable[..., list[str] | None]  # (data, marks[, titles])
    read_tag: Callable[[str], Tag | None]


_scan = load()
#: The compiled scanner, or None where it is not built, or the environment sets
#: SITEMAPGEN_PURE_PYTHON (see `compiled.load`): then this module reads every head.
#: (Tests set it to None to run the pure-Python path.)
COMPILED: _Compiled | None = None
if _scan is not None:
    # Told the signal table's tag names and the elements skipped whole, which the C spells
    # nowhere: a tag added to the table is one edit. (Its words, `MARKS`, go with each call.)
    _scan.configure_heads(SIGNAL_TAGS, RAW_TEXT, (TITLE,))
    COMPILED = _Compiled(_scan.deciding_tags, _scan.deciding_tags_utf8, _scan.read_tag)

#: The raw-text elements' names, as alternatives of a pattern.
_RAW_TEXT_NAMES = "|".join(RAW_TEXT)

_RAW_TEXT_OPEN = re.compile(rf"<(?:{_RAW_TEXT_NAMES})\b", re.IGNORECASE)
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
#: hand to bs4. Each ends at the first end tag of its name in ASCII letters of any case, as
#: html.parser (3.11 to 3.13) ends it: its search, ``</\s*name\s*>`` Unicode-caseless, also
#: stops at "</\u017fcript>", but its end-tag pattern then reads no name there and keeps it as
#: text of the script. Found by runs of anything but '<' (a lazy ".*?" tried every
#: character of a 10 KB inline style). A plain comment is one that every html.parser reads
#: alike: not ``<!-->`` or ``<!--->`` (3.13 reads those as empty comments), no ``--`` inside
#: (so no ``--!>`` end either), ended by ``-->``; jekyll-seo-tag and many themes write such
#: comments in every head.
_SKIPPED = re.compile(  # '<' first, outside any group: the engine skips to each '<' in C
    r"<(?:(!--(?!-?>)(?:[^-]|-(?!-))*+-->"
    + "".join(
        rf"|(?ai:{name})(?:{_ATTR_TEXT})*+\s*+>(?:[^<]++|<(?!/\s*(?ai:{name})\s*>))*+</\s*(?ai:{name})\s*>"
        for name in RAW_TEXT
    )
    + rf")|(?i:{_RAW_TEXT_NAMES})|!--)"
)
_ATTR = re.compile(r"""\s+([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"<>]*)"|'([^'<>]*)'|([^\s"'<>=`]+)))?""")


def may_decide(tag_text: str, labels: bool = False) -> bool:
    """Whether a meta or link tag's text could change a `HeadFacts`.

    Viewport, description, og:*, stylesheet and icon tags cannot, and are most
    of a head: the fast scanner does not parse them. A tag can carry a signal
    only if it holds one of the signal table's words (`DECIDING_WORDS`); a '&'
    could spell one as a character reference, so it always counts.
    """
    lowered = tag_text.lower()
    if "&" in lowered:
        return True
    for word in _labels.WORDS if labels else DECIDING_WORDS:  # a plain loop: cheaper than any() over a generator
        if word in lowered:
            return True
    return False


def _without_skipped(text: str) -> tuple[str, list[int]] | None:
    """`text` without its script and style elements and its plain comments, as html.parser
    skips them, and where in that answer each was; None when that cannot be told here: one
    seems to open inside another tag (``<meta<script>``, which html.parser does not read as a
    script or a comment at all), does not end within the head, or is a comment of another kind.

    Left to right, as the parser reads: whichever starts first is skipped whole, so a
    comment inside a script is script text, and a script inside a comment comment text.
    """
    pieces: list[str] = []
    cuts: list[int] = []
    kept = 0
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
        kept += start - done
        cuts.append(kept)
        done = found.end()
    pieces.append(text[done:])
    stripped = "".join(pieces)  # `text` itself where nothing was skipped
    # Joining the pieces spells no new "<script" or "<!--": the piece before a skipped part
    # would end in an unclosed "<", refused above. So only one left over needs looking for.
    if left and (_RAW_TEXT_OPEN.search(stripped) or "<!--" in stripped):
        return None
    return stripped, cuts


def scan_tags_fast(text: str) -> list[Tag] | None:
    """The meta and link tags of a plain head that may decide something (see
    `may_decide`), or None to say "ask beautifulsoup4".

    Left to beautifulsoup4: comments other than plain ones (see `_SKIPPED`),
    CDATA and processing instructions outside scripts, styles and comments, and
    NUL anywhere (parsers differ on it).

    Decides only what it can decide exactly as bs4 with html.parser would: the
    head less its scripts, styles and plain comments (`_without_skipped`) must be
    text, doctype, end tags and start tags whose attributes are plain (see
    `_ATTR_TEXT`), checked by one regular expression (`_PLAIN_HEAD`). Anything else (an odd comment, a
    stray '<', a quote left open) returns None.
    """
    read = read_fast(text)
    return None if read is None else [tag for tag, _ in read]


def read_fast(text: str, labels: bool = False) -> list[Read] | None:
    """`scan_tags_fast`, each tag with what it says (`signals.said_by`).

    The head less its scripts, styles and plain comments must be plain markup
    (`_PLAIN_HEAD`, one match over the whole); then its tags that may decide are
    found from where the deciding words are (`_deciding_tags`), not by reading
    every tag. On a real site no two pages share a title, a description, a
    canonical or an ``og:`` line: what is met once is not worth keeping, so
    only the tags that may decide are kept, read, and only once met twice
    (`_TAGS`: a site repeats its robots metas and its hreflang links to each
    language's home).

    Where the compiled scanner is built, it finds those tags first (`_scan.deciding_tags`), in
    one pass over the whole; where it cannot tell (anything its C does not read exactly as these
    patterns do), this goes on as above.

    With `labels` (see `labels.LABELS`), the description metas are among the tags that may
    decide, and the title, where the head has one, is read too, from the same pass: its text must
    run, plain, to its own end tag (`labels.with_title`), else the head is bs4's to read.
    """
    if COMPILED is not None:
        if labels:
            labelled = COMPILED.deciding_tags(text, _LABEL_MARKS, True)
            if labelled is not None:
                return _read_labelled_texts(labelled, COMPILED.read_tag)
        else:
            tags = COMPILED.deciding_tags(text, MARKS)
            if tags is not None:
                return _read_texts(tags, COMPILED.read_tag)
    if "\x00" in text:
        return None
    less = _without_skipped(text)
    if less is None or _PLAIN_HEAD.fullmatch(less[0]) is None:
        return None
    stripped, cuts = less
    lowered = stripped.lower()
    if len(lowered) != len(stripped):  # a letter whose lower case is longer ("\u0130"): tag by tag
        found = list(_tags_read(stripped, labels))
    else:
        found = _deciding_tags(stripped, lowered, labels)
    return with_title(found, stripped, cuts) if labels else found


#: The same, labels asked for.
_LABEL_MARKS = (*_labels.WORDS, "&")
#: The readers of tags, by whether labels are asked for (see `signals.said_by`).
_READERS = (None, _labels.READERS)


def _deciding_tags(text: str, lowered: str, labels: bool = False) -> list[Read]:
    """The meta and link tags of plain markup `text` that may decide something, read, in order:
    `_tags_read` of `text`, found from the deciding words instead of from every tag.

    `lowered` is `text` lower-cased, of the same length, so a position in one is the same
    character in the other. In plain markup every '<' starts a tag and every tag ends at its
    first '>', so a word is inside a tag exactly when the last '<' before it has no '>' after
    it; the meta and link tags among those (`_META_LINK_TEXT`, from that '<') are the tags
    `may_decide` lets through, each found once however many words it holds.
    """
    starts: set[int] = set()
    find, rfind = lowered.find, lowered.rfind
    tags = _LABEL_TAGS if labels else _TAGS
    for word in _LABEL_MARKS if labels else MARKS:  # each a search in C: a unique head holds few of them
        at = find(word)
        while at >= 0:
            start = rfind("<", 0, at)
            if start >= 0 and rfind(">", start, at) < 0:
                starts.add(start)
            at = find(word, at + 1)
    found: list[Read] = []
    known = tags.get
    match = _META_LINK.match
    for start in sorted(starts):
        # A tag read before is its text up to its first '>': looked up before any matching (a
        # multilingual head repeats its hreflang links to each language's home page after page).
        read = known(text[start : text.find(">", start) + 1], _UNREAD)
        if read is _UNREAD:
            tag = match(text, start)
            if tag is None:
                continue
            read = _read_match(tag, labels)
            keep(tags, tag.group(), read, _TAGS_KEPT, _MET)
        if read is not None:
            found.append(read)
    return found


def read_fast_utf8(data: bytes, marks: tuple[str, ...] = MARKS) -> list[Read] | None:
    """`read_fast` of the text head bytes decode to (`encoding.decode_head`), read from the bytes
    without decoding them, where the compiled scanner can tell (they are certainly UTF-8, and
    plain); else None, and the caller decodes them. `marks`: the tags' (`signals.marks_of`)."""
    if COMPILED is None:
        return None
    tags = COMPILED.deciding_tags_utf8(data, marks)
    return None if tags is None else read_found(tags)


def read_found(texts: list[str]) -> list[Read]:
    """The deciding tags whose texts a compiled scan found, read as `read_fast_utf8` reads them."""
    assert COMPILED is not None
    return _read_texts(texts, COMPILED.read_tag)


def read_labelled_utf8(data: bytes) -> list[Read] | None:
    """`read_fast_utf8` with labels (see `read_fast`): apart, so that a build without them runs
    the same code as before, not a branch of it, page after page."""
    if COMPILED is None:
        return None
    tags = COMPILED.deciding_tags_utf8(data, _LABEL_MARKS, True)
    return None if tags is None else _read_labelled_texts(tags, COMPILED.read_tag)


def _read_texts(texts: list[str], read_tag: Callable[[str], Tag | None]) -> list[Read]:
    """The deciding tags whose texts the compiled scanner found, read as `_deciding_tags` reads
    the ones it finds: by the compiled reader, or where it cannot (a character reference), here."""
    found: list[Read] = []
    known = _TAGS.get
    for text in texts:
        read = known(text, _UNREAD)
        if read is _UNREAD:
            tag = read_tag(text)
            read = _read_tag(text) if tag is None else (tag, said_by(*tag))
            keep(_TAGS, text, read, _TAGS_KEPT, _MET)
        if read is not None:
            found.append(read)
    return found


def _read_labelled_texts(texts: list[str], read_tag: Callable[[str], Tag | None]) -> list[Read] | None:
    """`_read_texts` with labels: a title's start tag and text are among the texts, and the first
    is read (`title_read`; None, ask the Python scanner, where that cannot be done here) and put
    first, as `with_title` puts it."""
    found: list[Read] = []
    known = _LABEL_TAGS.get
    title: Read | None = None
    for text in texts:
        if text[1:6].lower() == TITLE:  # a meta or link tag starts otherwise
            if title is None:
                title = title_read(text[text.index(">") + 1 :])
                if title is None:
                    return None
            continue
        read = known(text, _UNREAD)
        if read is _UNREAD:
            tag = read_tag(text)
            read = _read_tag(text, True) if tag is None else (tag, said_by(*tag, _labels.READERS))
            keep(_LABEL_TAGS, text, read, _TAGS_KEPT, _MET)
        if read is not None:
            found.append(read)
    return found if title is None else [title, *found]


def _read_whole(text: str) -> list[Read] | None:
    """`read_fast` of head text less its skipped parts, the plain way: the whole checked at
    once, every meta and link tag found and tested by `may_decide` (see `_tags_read`)."""
    return list(_tags_read(text)) if _PLAIN_HEAD.fullmatch(text) is not None else None


def _tags_read(text: str, labels: bool = False) -> tuple[Read, ...]:
    """The meta and link tags of plain markup that may decide something (`may_decide`), read:
    each tag text once (`_TAGS`)."""
    found: list[Read] = []
    tags = _LABEL_TAGS if labels else _TAGS
    known = tags.get
    for tag_text in _META_LINK_TEXT.findall(text):
        read = known(tag_text, _UNREAD)
        if read is _UNREAD:
            read = _read_tag(tag_text, labels) if may_decide(tag_text, labels) else None
            keep(tags, tag_text, read, _TAGS_KEPT, _MET)
        if read is not None:
            found.append(read)
    return tuple(found)


#: The longest tag kept (`_TAGS`): a template's are shorter. So it keeps a few MB at most.
_KEPT_LENGTH = 512
_V = TypeVar("_V")


def keep(kept: dict[str, _V], text: str, value: _V, most: int, met: set[int] | None) -> None:
    """Keep what `text` (a tag) read as, in `kept`, which holds at most `most` entries (full, it
    starts again) and no text longer than `_KEPT_LENGTH`: once it is met a second time (`met`:
    the hashes of texts met once, such as `_MET`), or at once (`met` None).

    A tag met once (a canonical, a modified time, an hreflang link to this page's own
    translation) is most of a site's, and is not met again: kept, it would cost its place
    in `kept`, a new start of it every two thousand pages, and the garbage collector's look
    at each new entry, a tenth of a worker's time. So the first time only its text's hash
    is kept (a collision only keeps a tag early), at most `_MET_KEPT` of them."""
    if len(text) <= _KEPT_LENGTH:
        if met is not None and (seen := hash(text)) not in met:  # a str keeps its hash: no work
            if len(met) >= _MET_KEPT:
                met.clear()
            met.add(seen)
            return
        if len(kept) >= most:
            kept.clear()
        kept[text] = value


def forget_seen() -> None:
    """Forget the tags read before (see `_TAGS`): a benchmark's pass, or a test, then reads
    heads as a build reads its first."""
    _TAGS.clear()
    _LABEL_TAGS.clear()
    _MET.clear()


def _read_tag(tag_text: str, labels: bool = False) -> Read:
    """A meta or link tag's name, attributes and what it says."""
    match = _META_LINK.fullmatch(tag_text)
    assert match is not None  # found by _META_LINK_TEXT, the same pattern without its groups
    return _read_match(match, labels)


def _read_match(match: re.Match[str], labels: bool = False) -> Read:
    """`_read_tag` of the tag `_META_LINK` matched."""
    name = match.group(1).lower()
    attrs: dict[str, str] = {}
    for key, double, single, bare in _ATTR.findall(match.group(2)):
        value = double or single or bare
        attrs[key.lower()] = html.unescape(value) if "&" in value else value
    return (name, attrs), said_by(name, attrs, _READERS[labels])


#: A tag, and what it says.
Read = tuple[Tag, tuple[Said, ...]]
#: Meta and link tags read before, by their text (None: it cannot decide, see `may_decide`). A
#: site's heads repeat their tags page after page (viewport, stylesheets, hreflang links to each
#: language's home, robots metas): each is read twice at most (kept once met twice, see `keep`).
#: Their attributes are shared, so no one may change them.
_TAGS: dict[str, Read | None] = {}
#: The same, read with labels (a description meta says something then).
_LABEL_TAGS: dict[str, Read | None] = {}
_UNREAD: Read = (("", {}), ())  # not yet in _TAGS (None there: no tag)
_TAGS_KEPT = 4_096
#: The hashes of the tag texts met once, and not yet kept (see `keep`): plain ints, which the
#: garbage collector does not look at; at most `_MET_KEPT` (about a megabyte), then it starts again.
_MET: set[int] = set()
_MET_KEPT = 16_384
