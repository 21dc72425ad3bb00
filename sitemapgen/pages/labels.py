"""What a page is called, for the outputs that show it (llms.txt): its ``<title>`` and its
``<meta name="description">``, read by the head reading that decides the page, in the same
pass, only when an output asks (`labels=True`). Their signals (`LABELS`) join the signal table's
then (`READERS`, `WORDS`); the title, an element's text rather than a tag, is read as a tag
whose one "attribute" is its text (`TITLE_TEXT`): from plain markup here (`with_title`), by
the compiled scanner where it is built (asked for titles), by bs4 otherwise (`reference.py`).
Both read entities, white space and length alike (`label`): the differential tests hold them
to what beautifulsoup4 reads.
"""

from __future__ import annotations

import html
import html.entities
import re
from typing import Any

from sitemapgen.pages.signals import SIGNALS, Attrs, Readers, Said, Signal, Tag, _Found, readers_of, said_by

#: A tag as head reading finds it, with what it says.
Read = tuple[Tag, tuple[Said, ...]]

#: The element whose text is the page's title: read, when asked, as a tag whose one "attribute"
#: is its text, under a name no attribute has (see `TITLE_TEXT`).
TITLE = "title"
TITLE_TEXT = ""
#: The longest title and description kept, in characters, "…" included (issue 41).
TITLE_LENGTH = 200
DESCRIPTION_LENGTH = 300


def label(text: str, most: int) -> str | None:
    """A title's or description's text (entities already decoded) as an output shows it: runs
    of white space one space, cut at `most` characters with "…"; None when nothing is left."""
    text = " ".join(text.split())
    if not text:
        return None
    return text if len(text) <= most else text[: most - 1].rstrip() + "\u2026"


def _says_title(attrs: Attrs) -> str | None:
    return label(attrs.get(TITLE_TEXT, ""), TITLE_LENGTH)


def _apply_title(title: str, found: _Found) -> None:
    if found.title is None:
        found.title = title


def _says_description(attrs: Attrs) -> str | None:
    if attrs.get("name", "").strip().lower() == "description":
        return label(attrs.get("content", ""), DESCRIPTION_LENGTH)
    return None


def _apply_description(description: str, found: _Found) -> None:
    if found.description is None:
        found.description = description


#: What a page is called, read only when an output asks (`labels=True` through head reading):
#: its words join the deciding ones then, so with no output asking a head costs what it did.
LABELS: tuple[Signal[Any], ...] = (
    Signal("title", TITLE, (), _says_title, _apply_title),
    Signal("description", "meta", ("description",), _says_description, _apply_description),
)
#: The signals' readers and the labels' (`signals.said_by`'s `readers`).
READERS: Readers = readers_of((*SIGNALS, *LABELS))
#: The deciding words and the labels'.
WORDS: tuple[str, ...] = tuple(dict.fromkeys(word for s in (*SIGNALS, *LABELS) for word in s.words))


#: A title element in plain markup (every '<' starts a tag): its start tag (its name ended as
#: html.parser ends one; not self-closing), its text, and its end tag right after. Where the
#: first title is not so, the head is bs4's to read.
_TITLE_OPEN = re.compile(rf"<(?ai:{TITLE})(?=[\t\n\r\f />])")
_TITLE = re.compile(rf"<(?ai:{TITLE})(?:[\t\n\r\f ][^<>]*+)?(?<!/)>([^<]*+)</(?ai:{TITLE})[\t\n\r\f ]*+>")
#: The character references both readers decode alike in text (html.parser gives bs4 the others
#: otherwise than `html.unescape` reads them: "&foo;" is "&foo" to bs4): numbers, and HTML 4's names.
_TEXT_REFERENCE = re.compile(r"&(?:#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|([a-zA-Z][a-zA-Z0-9]{1,15});)")
_NAMED = frozenset({*html.entities.name2codepoint, "apos"})


def _title_text(raw: str) -> str | None:
    """The text of a title as bs4 gives it, or None where its references may read otherwise."""
    if "&" not in raw:
        return raw
    if raw.count("&") != sum(
        1 for ref in _TEXT_REFERENCE.finditer(raw) if ref.group(1) is None or ref.group(1) in _NAMED
    ):
        return None
    return html.unescape(raw)


def title_read(raw: str) -> Read | None:
    """The title's text `raw` (references undecoded), read as a tag (see `signals.TITLE_TEXT`)."""
    text = _title_text(raw)
    if text is None:
        return None
    attrs = {TITLE_TEXT: text}
    return (TITLE, attrs), said_by(TITLE, attrs, READERS)


def with_title(found: list[Read], text: str, cuts: list[int]) -> list[Read] | None:
    """`found` with the first title of plain markup `text` (see `_TITLE`), or None: ask bs4,
    as where something was cut from inside the title (`cuts`: where, in `text`): html.parser
    reads the text on either side of a comment apart, so ``&#8<!-- -->212;`` is no dash."""
    opened = _TITLE_OPEN.search(text)
    if opened is None:
        return found
    title = _TITLE.match(text, opened.start())
    if title is None or any(title.start() < cut < title.end() for cut in cuts):
        return None
    read = title_read(title.group(1))
    if read is None:
        return None
    return [read, *found]
