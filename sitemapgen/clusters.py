"""hreflang clusters across pages: only links that the page they name returns are published.

Google takes an hreflang link from A to B only when B, a page it indexes,
names A back; anything else is ignored, and reported in Search Console as
"no return tags". So a link from a listed page to another URL of this site
is kept only when that URL is listed and its own links name the page: a link
to a page left out (missing, noindex, a redirect, canonical elsewhere), or to
a page that does not name it back, is dropped and counted. Links to other
hosts cannot be checked here and are kept; a page's link to itself always is.

That needs every page's links before any page is written, so this stage sits
between the pipeline and the writer, in the main process: rows pass straight
through until the first that carries links; from there every row is spooled,
in order (a few hundred a pickle), to an unnamed temporary file, and every link into a temporary
on-disk SQLite table (nothing is written where the site is, and memory stays
flat however many pages there are). Once the walk is done the spool is read
back, each row's links are checked against the table, and the row goes on to
the writer, less what is dropped.
"""

from __future__ import annotations

import html
import pickle
import re
import sqlite3
import tempfile
from collections.abc import Iterator

from .entry import Row

_LINK = re.compile(rb'<xhtml:link rel="alternate" hreflang="([^"]*)" href="([^"]*)"/>')
_BATCH = 10_000  # links inserted per executemany
_ASKED = 500  # hrefs asked about per query
_SPOOL_BATCH = 256  # rows spooled per pickle: memory stays flat, a few hundred KB


class Reciprocity:
    """The stage (see the module's docstring): `filter` rows, then `lines` says what was dropped."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.dropped = 0
        self.pages = 0
        self.example: str | None = None

    def filter(self, rows: Iterator[Row]) -> Iterator[Row]:
        """`rows`, in their order, each less the links its targets do not return."""
        for row in rows:
            if b"<xhtml:link" in row[1]:
                yield from self._spooled(row, rows)
                return
            yield row

    def _spooled(self, first: Row, rest: Iterator[Row]) -> Iterator[Row]:
        db = sqlite3.connect("")  # a private temporary database on disk, gone when closed
        try:
            db.execute("CREATE TABLE links (src TEXT NOT NULL, dst TEXT NOT NULL)")
            with tempfile.TemporaryFile() as spool:
                pending: list[tuple[str, str]] = []
                spooled: list[tuple[Row, list[_Link] | None]] = []
                for row in _chain(first, rest):
                    links = _links(row[1]) if b"<xhtml:link" in row[1] else None
                    spooled.append((row, links))  # its links read once, kept for `_checked`
                    if len(spooled) == _SPOOL_BATCH:  # one pickle a batch: a pickle a row cost 5 µs a page
                        pickle.dump(spooled, spool, protocol=pickle.HIGHEST_PROTOCOL)
                        spooled.clear()
                    if links:
                        loc = row[0]
                        pending.extend((loc, href) for _, href in links)
                        if len(pending) >= _BATCH:
                            db.executemany("INSERT INTO links VALUES (?, ?)", pending)
                            pending.clear()
                pickle.dump(spooled, spool, protocol=pickle.HIGHEST_PROTOCOL)
                db.executemany("INSERT INTO links VALUES (?, ?)", pending)
                db.execute("CREATE INDEX links_both ON links (src, dst)")
                spool.seek(0)
                while True:
                    try:
                        spooled = pickle.load(spool)
                    except EOFError:
                        break
                    for row, links in spooled:
                        yield self._checked(row, links, db) if links else row
        finally:
            db.close()

    def _checked(self, row: Row, links: list[_Link], db: sqlite3.Connection) -> Row:
        """The row less each link to a URL of this site that does not name it back."""
        loc, xml = row[0], row[1]
        asked = list(dict.fromkeys(href for _, href in links if href != loc and href.startswith(self.base_url)))
        if not asked:
            return row
        returned: set[str] = set()
        for at in range(0, len(asked), _ASKED):  # one query a row (SQLite allows 999 parameters)
            part = asked[at : at + _ASKED]
            query = f"SELECT src FROM links WHERE dst = ? AND src IN ({', '.join('?' * len(part))})"
            returned.update(src for (src,) in db.execute(query, (loc, *part)))
        unreturned = set(asked) - returned
        drop = [(link, href) for link, href in links if href in unreturned]
        if not drop:
            return row
        if self.example is None:
            self.example = f"{loc} names {drop[0][1]}"
        self.dropped += len(drop)
        self.pages += 1
        for link, _ in drop:
            xml = xml.replace(link, b"", 1)
        return (loc, xml, row[2], row[3], row[4])

    def lines(self) -> list[str]:
        """One warning for the build, or none."""
        if not self.dropped:
            return []
        return [
            f"{self.dropped:,} hreflang link{'s' * (self.dropped != 1)} on {self.pages:,}"
            f" page{'s' * (self.pages != 1)} dropped: each names a URL of this site that is not listed"
            " (missing, noindex, a redirect, canonical elsewhere) or does not name the page back, and"
            f" search engines ignore such links; e.g. {self.example}"
        ]


#: One ``<xhtml:link>`` of a row: the element as written, and its href (unescaped).
_Link = tuple[bytes, str]


def _links(xml: bytes) -> list[_Link]:
    """The hreflang links of a row's ``<url>`` element."""
    return [
        (match.group(0), html.unescape(href) if "&" in href else href)
        for match in _LINK.finditer(xml)
        for href in (match.group(2).decode(),)
    ]


def _chain(first: Row, rest: Iterator[Row]) -> Iterator[Row]:
    yield first
    yield from rest
