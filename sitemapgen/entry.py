"""One ``<url>`` of a sitemap: the `Entry`, and its bytes exactly as every sitemap writes them.

Formatting is the workers' job (`decide.py`), so what crosses to the main
process is a finished element (`Row`), and `list` and `explain` show values
formatted by the same functions as the sitemap.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from .config import ChangeFreq, LastmodFormat
from .signals import Alternate


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

    def __reduce__(self) -> tuple[type[Entry], tuple[object, ...]]:
        # Entries cross from worker processes: a constructor call pickles twice as fast
        # as a slotted dataclass's state (test_decide checks it keeps every field).
        return Entry, (self.loc, self.lastmod, self.changefreq, self.priority, self.alternates, self.section)


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
    if fmt is LastmodFormat.DATE:
        return value.date().isoformat()
    return value.isoformat(timespec="seconds")


#: An entry ready to write, as a plain tuple (what crosses from worker processes;
#: a tuple pickles five times faster than a NamedTuple):
#: (loc, the whole ``<url>`` element, lastmod as POSIX time, lastmod as written, section).
Row = tuple[str, bytes, float | None, str | None, str]


def format_entry(entry: Entry, fmt: LastmodFormat, lastmod_text: str | None = None) -> bytes:
    """The ``<url>`` element for `entry`, one line, UTF-8."""
    parts = ["<url><loc>", escape_xml(entry.loc), "</loc>"]
    if entry.lastmod is not None:
        parts += ["<lastmod>", lastmod_text or format_lastmod(entry.lastmod, fmt), "</lastmod>"]
    if entry.changefreq is not None:
        parts += ["<changefreq>", entry.changefreq.value, "</changefreq>"]
    if entry.priority is not None:
        parts += ["<priority>", format_priority(entry.priority), "</priority>"]
    for alternate in entry.alternates:
        parts += [
            '<xhtml:link rel="alternate" hreflang="',
            escape_xml(alternate.hreflang),
            '" href="',
            escape_xml(alternate.href),
            '"/>',
        ]
    parts.append("</url>\n")
    return "".join(parts).encode("utf-8")


def row_of(entry: Entry, fmt: LastmodFormat) -> Row:
    """The `Row` for an `Entry`."""
    lastmod = entry.lastmod
    if lastmod is None:
        return entry.loc, format_entry(entry, fmt), None, None, entry.section
    if lastmod.tzinfo is UTC:
        text, key = _utc_lastmod(lastmod, fmt is LastmodFormat.DATE)
    else:
        text, key = format_lastmod(lastmod, fmt), lastmod.timestamp()
    return entry.loc, format_entry(entry, fmt, text), key, text, entry.section


@functools.lru_cache(maxsize=4096)
def _utc_lastmod(value: datetime, date_only: bool) -> tuple[str, float]:
    # Most pages share a handful of mtimes. Only for UTC: datetimes at one instant in two
    # offsets are equal, hash alike, and would share one (wrong) text. (A bool, not the
    # enum, in the key: an enum hashes in Python code.)
    return format_lastmod(value, LastmodFormat.DATE if date_only else LastmodFormat.DATETIME), value.timestamp()
