"""One ``<url>`` of a sitemap: the `Entry`, and its bytes exactly as every sitemap writes them.

Formatting is the workers' job (`pipeline/decide.py`), so what crosses to the main
process is a finished element (`Row`), and `list` and `explain` show values
formatted by the same functions as the sitemap. The hreflang check reads a row's links back
from its bytes here too (`row_hrefs`, `row_links`, `relinked`), beside the code that writes them.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import NamedTuple

from sitemapgen.protocol import IMAGE_NS, SITEMAP_NS, XHTML_NS, ChangeFreq, LastmodFormat
from sitemapgen.skips import NoteKind

#: What opens and closes every sitemap file, around its ``<url>`` elements.
XML_DECL = b'<?xml version="1.0" encoding="UTF-8"?>\n'
URLSET_OPEN = XML_DECL + f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">\n'.encode()
URLSET_CLOSE = b"</urlset>\n"
#: A ``<url>`` that lists images declares their namespace itself: a sitemap's open tag is
#: written before its entries are known (chunks stream), so the namespace is declared only
#: in the sitemaps that use it, each entry's bytes are all it costs (see `entry_room`), and
#: the XSDs and XML parsers read a declaration on ``<url>`` as one on ``<urlset>``.
URL_OPEN_WITH_IMAGES = f'<url xmlns:image="{IMAGE_NS}"><loc>'


def entry_room(max_bytes: int) -> int:
    """The largest ``<url>`` element, in bytes, that fits in a sitemap of `max_bytes`."""
    return max_bytes - len(URLSET_OPEN) - len(URLSET_CLOSE)


@dataclass(frozen=True, slots=True)
class Alternate:
    """One ``<link rel="alternate" hreflang href>``: href absolute and percent-encoded."""

    hreflang: str
    href: str

    def __reduce__(self) -> tuple[type[Alternate], tuple[str, str]]:
        return Alternate, (self.hreflang, self.href)  # cheaper to send from workers (see Entry)


@dataclass(frozen=True, slots=True)
class Entry:
    """One ``<url>`` of a sitemap.

    `loc` is absolute and already percent-encoded; XML escaping is the
    writer's job alone, so it can never happen twice. `lastmod` is aware.
    `section` names the chunk series it goes to ("" for the main one).
    """

    loc: str
    lastmod: datetime | None = None
    changefreq: ChangeFreq | None = None
    priority: float | None = None
    alternates: tuple[Alternate, ...] = ()
    section: str = ""
    images: tuple[str, ...] = ()  # absolute, percent-encoded image URLs (config `images`)

    def __reduce__(self) -> tuple[type[Entry], tuple[object, ...]]:
        # Entries cross from worker processes: a constructor call pickles twice as fast
        # as a slotted dataclass's state (test_decide checks it keeps every field).
        fields = (self.loc, self.lastmod, self.changefreq, self.priority, self.alternates, self.section)
        return Entry, (*fields, self.images) if self.images else fields


def escape_xml(text: str) -> str:
    """Entity-escape the five characters the protocol names."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if "'" in text:
        text = text.replace("'", "&apos;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    return text


@functools.lru_cache(maxsize=256)
def format_priority(value: float) -> str:
    """The shortest exact decimal for `value`, never in exponent form.

    ``xsd:decimal`` has no exponent, so ``1e-05`` must be written ``0.00001``.
    """
    text = format(Decimal(repr(float(value))), "f")
    return text if "." in text else text + ".0"


def format_lastmod(value: datetime, fmt: LastmodFormat) -> str:
    """W3C Datetime as `date --iso-8601=seconds -u` prints it, or the date alone."""
    if value.tzinfo is UTC:
        return _utc_text(value, fmt is LastmodFormat.DATE)
    if fmt is LastmodFormat.DATE:
        return value.date().isoformat()
    return value.isoformat(timespec="seconds")


_TWO_DIGITS = tuple(f"{n:02d}" for n in range(60))
_DAYS: dict[int, str] = {}  # a day's proleptic ordinal -> its ISO text
_DAYS_KEPT = 4_096  # eleven years of days: a site's pages fall on fewer
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def _utc_text(value: datetime, date_only: bool) -> str:
    """`format_lastmod` of a UTC datetime, as isoformat writes it but a fifth of its cost.

    Pages' mtimes are spread over the years a site has lived, so few pages
    share a second, and a cache of whole texts would miss on nearly every page;
    they share days, so the day's text is kept by value and the time is put
    together from two-digit strings. A property test checks it against
    isoformat.
    """
    day = _day(value.toordinal())
    if date_only:
        return day
    two = _TWO_DIGITS
    return f"{day}T{two[value.hour]}:{two[value.minute]}:{two[value.second]}+00:00"


def utc_second_text(seconds: int, date_only: bool) -> str:
    """`format_lastmod` of the UTC datetime `seconds` after 1970 (0 to 253,402,300,799: the
    seconds a `datetime` holds), made from the number without a datetime (`pipeline.quick`)."""
    days, second = divmod(seconds, 86_400)
    day = _day(_EPOCH_ORDINAL + days)
    if date_only:
        return day
    two = _TWO_DIGITS
    return f"{day}T{two[second // 3600]}:{two[second // 60 % 60]}:{two[second % 60]}+00:00"


def _day(ordinal: int) -> str:
    """The ISO text of the day of proleptic `ordinal`, kept (see `_utc_text`)."""
    day = _DAYS.get(ordinal)
    if day is None:
        if len(_DAYS) >= _DAYS_KEPT:
            _DAYS.clear()
        day = _DAYS[ordinal] = date.fromordinal(ordinal).isoformat()
    return day


#: A page's title, description and language, as head reading gives them (each may be None), for
#: the outputs that show them (llms.txt, the HTML sitemap).
Labels = tuple[str | None, str | None, str | None]


class Row(NamedTuple):
    """An entry ready to write: its ``<url>`` element, and what the writer needs beside it.

    Rows cross from worker processes (inside an `Outcome`) and through the hreflang spool, so
    a row pickles as a C call that rebuilds it from its fields (`__reduce__`), not as the
    NamedTuple's own Python constructor.
    """

    loc: str
    xml: bytes  # the whole ``<url>`` element
    lastmod_key: float | None  # lastmod as POSIX time
    lastmod_text: str | None  # lastmod as written
    section: str
    #: What the outputs beside the index show of the page, where one asks (`Config.wants_labels`):
    #: carried with the row, so that they go where it goes (through the hreflang spool), no further.
    labels: Labels | None

    def __reduce__(self) -> tuple[Callable[..., Row], tuple[type[Row], tuple[object, ...]]]:
        return tuple.__new__, (Row, tuple(self))


class Block(NamedTuple):
    """Rows one after another that need nothing but writing, in columns: each dated (by one
    source), in the main section, with no labels, and small enough for any sitemap. Most of a
    batch's pages are such rows: a worker sends them so (`pipeline.blocks`), and every stage
    after passes them on whole, down to the writer, which adds as many at once as fit in the
    chunk (`output.filling`). A stage that must see each row reads `rows`. What the decision
    notes of a row of it, counted for the build, goes with it (`notes`)."""

    locs: list[str]
    xmls: list[bytes]  # each row's ``<url>`` element
    keys: list[float]  # each row's lastmod, as POSIX time
    texts: list[str]  # each row's lastmod, as written
    source: str  # the `LastmodSource` value that dated them all
    #: What the decision notes of its rows (said once for the build, counted: `pipeline.tally`),
    #: in order: the row's place in the block, the kind, the example.
    notes: Sequence[tuple[int, NoteKind, str]] = ()

    def rows(self) -> Iterator[Row]:
        """The rows, one by one."""
        new = tuple.__new__
        for loc, xml, key, text in zip(self.locs, self.xmls, self.keys, self.texts, strict=True):
            yield new(Row, (loc, xml, key, text, "", None))

    def split(self, at: int) -> tuple[Block, Block]:
        """The rows before `at`, and from `at` on."""
        notes = self.notes
        return (
            Block(
                self.locs[:at],
                self.xmls[:at],
                self.keys[:at],
                self.texts[:at],
                self.source,
                [note for note in notes if note[0] < at],
            ),
            Block(
                self.locs[at:],
                self.xmls[at:],
                self.keys[at:],
                self.texts[at:],
                self.source,
                [(place - at, kind, example) for place, kind, example in notes if place >= at],
            ),
        )


def each_row(rows: Iterable[Row | Block]) -> Iterator[Row]:
    """`rows`, each `Block` read row by row: for a stage that must see every row."""
    for row in rows:
        if isinstance(row, Block):
            yield from row.rows()
        else:
            yield row


def format_entry(entry: Entry, fmt: LastmodFormat, lastmod_text: str | None = None) -> bytes:
    """The ``<url>`` element for `entry`, one line, UTF-8."""
    parts = ["<url><loc>" if not entry.images else URL_OPEN_WITH_IMAGES, escape_xml(entry.loc), "</loc>"]
    if entry.lastmod is not None:
        parts += ["<lastmod>", lastmod_text or format_lastmod(entry.lastmod, fmt), "</lastmod>"]
    if entry.changefreq is not None:
        parts += ["<changefreq>", entry.changefreq.value, "</changefreq>"]
    if entry.priority is not None:
        parts += ["<priority>", format_priority(entry.priority), "</priority>"]
    if entry.alternates:
        parts.append(link_elements(entry.alternates))
    for image in entry.images:
        parts += ["<image:image><image:loc>", escape_xml(image), "</image:loc></image:image>"]
    parts.append("</url>\n")
    return "".join(parts).encode("utf-8")


def link_elements(alternates: tuple[Alternate, ...]) -> str:
    """The ``<xhtml:link>`` elements of `alternates`, in their order (as a ``<url>`` element holds them)."""
    return "".join(
        [
            f'<xhtml:link rel="alternate" hreflang="{escape_xml(a.hreflang)}" href="{escape_xml(a.href)}"/>'
            for a in alternates
        ]
    )


#: An ``<xhtml:link>`` as `link_elements` writes it, its href the group: read back as text for a row's
#: hrefs (`row_hrefs`), and as bytes with the whole element a group too for its links (`row_links`).
_LINK_TEXT = r'<xhtml:link rel="alternate" hreflang="[^"]*" href="([^"]*)"/>'
_HREF = re.compile(_LINK_TEXT)
_LINK = re.compile(f"({_LINK_TEXT})".encode())
#: One ``<xhtml:link>`` of a row: the element as written, and its href (unescaped).
RowLink = tuple[bytes, str]


def row_hrefs(xml: bytes) -> list[str]:
    """The hrefs of the hreflang links of a row's ``<url>`` element `xml` (unescaped), in order:
    one search over the element decoded, which costs less than a match a link (the hreflang
    check asks it of every row with links)."""
    text = xml.decode()
    hrefs = _HREF.findall(text)
    return [html.unescape(href) if "&" in href else href for href in hrefs] if "&" in text else hrefs


def row_links(xml: bytes) -> list[RowLink]:
    """The hreflang links of a row's ``<url>`` element `xml`, each as written and its href."""
    found = _LINK.findall(xml)
    if b"&" not in xml:
        return [(link, href.decode()) for link, href in found]
    return [(link, html.unescape(text) if "&" in (text := href.decode()) else text) for link, href in found]


def relinked(link: bytes, href: str) -> bytes:
    """An ``<xhtml:link>`` element as `link_elements` writes it (`link`, one of `row_links`), naming
    `href` instead."""
    return link[: link.index(b' href="') + 7] + escape_xml(href).encode() + b'"/>'


def dated_row(loc: str, seconds: int, text: str, alternates: tuple[Alternate, ...] = ()) -> Row:
    """`row_of` an entry with a URL, a lastmod (`text`, of the UTC second `seconds`) and
    `alternates` alone, made without the entry (`pipeline.quick`): the same ``<url>`` element
    `format_entry` writes."""
    return tuple.__new__(Row, (loc, dated_xml(loc, text, alternates), float(seconds), text, "", None))


def dated_xml(loc: str, text: str, alternates: tuple[Alternate, ...] = ()) -> bytes:
    """The ``<url>`` element of `dated_row`."""
    links = link_elements(alternates) if alternates else ""
    return f"<url><loc>{escape_xml(loc)}</loc><lastmod>{text}</lastmod>{links}</url>\n".encode()


def row_of(entry: Entry, fmt: LastmodFormat, labels: Labels | None = None) -> Row:
    """The `Row` for an `Entry` (and its page's `labels`). Made for every listed page, so by a C
    call (`tuple.__new__`, as `Row.__reduce__`), not the NamedTuple's Python constructor."""
    lastmod = entry.lastmod
    if lastmod is None:
        return tuple.__new__(Row, (entry.loc, format_entry(entry, fmt), None, None, entry.section, labels))
    if lastmod.tzinfo is UTC:
        text = _utc_text(lastmod, fmt is LastmodFormat.DATE)
    else:
        text = format_lastmod(lastmod, fmt)
    xml = format_entry(entry, fmt, text)
    return tuple.__new__(Row, (entry.loc, xml, lastmod.timestamp(), text, entry.section, labels))
