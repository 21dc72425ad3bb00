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
in order (a few hundred a pickle, as plain tuples: see `entry.Row`), to an
unnamed temporary file, and every link to another URL of this site into a
temporary on-disk SQLite table (nothing is written where the site is, and
memory stays flat however many pages there are). Once the walk is done the
spool is read back, each row's links are checked against the table, and the
row goes on to the writer, less what is dropped.
"""

from __future__ import annotations

import html
import pickle
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from typing import IO

from sitemapgen.entry import Row, RowFields

_LINK = re.compile(rb'<xhtml:link rel="alternate" hreflang="([^"]*)" href="([^"]*)"/>')
_BATCH = 10_000  # links inserted per executemany
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
            if b"<xhtml:link" in row.xml:
                yield from self._spooled(row, rows)
                return
            yield row

    def _spooled(self, first: Row, rest: Iterator[Row]) -> Iterator[Row]:
        db = sqlite3.connect("")  # a private temporary database on disk, gone when closed
        try:
            # seq: the row's place in the walk. Only links to another URL of this site are kept:
            # only they are asked about, and only they can answer (a link that names a page back
            # goes from one URL of this site to another); a page's link to itself, or to another
            # host, is neither.
            db.execute("CREATE TABLE links (seq INTEGER NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL)")
            with tempfile.TemporaryFile() as spool:
                self._spool(_chain(first, rest), spool, db)
                yield from self._unspooled(spool, db)
        finally:
            db.close()

    def _spool(self, rows: Iterator[Row], spool: IO[bytes], db: sqlite3.Connection) -> None:
        """Every row into the spool, in order, and every link into the table."""
        base = self.base_url
        pending: list[tuple[int, str, str]] = []
        spooled: list[RowFields] = []
        for seq, row in enumerate(rows):
            links = _links(row.xml) if b"<xhtml:link" in row.xml else None
            spooled.append(row[:])  # its fields as a plain tuple
            if len(spooled) == _SPOOL_BATCH:  # one pickle a batch: a pickle a row cost 5 µs a page
                pickle.dump(spooled, spool, protocol=pickle.HIGHEST_PROTOCOL)
                spooled.clear()
            if links:
                loc = row.loc
                pending.extend((seq, loc, href) for _, href in links if href != loc and href.startswith(base))
                if len(pending) >= _BATCH:
                    db.executemany("INSERT INTO links VALUES (?, ?, ?)", pending)
                    pending.clear()
        pickle.dump(spooled, spool, protocol=pickle.HIGHEST_PROTOCOL)
        db.executemany("INSERT INTO links VALUES (?, ?, ?)", pending)
        db.execute("CREATE INDEX links_pair ON links (src, dst)")
        spool.seek(0)

    def _unspooled(self, spool: IO[bytes], db: sqlite3.Connection) -> Iterator[Row]:
        """The spooled rows, in order, each less the links that are not returned: found by one
        query, in walk order (the table's), and merged with the rows as they are read back."""
        unreturned = db.execute(
            "SELECT seq, dst FROM links AS a WHERE"
            " NOT EXISTS (SELECT 1 FROM links AS b WHERE b.src = a.dst AND b.dst = a.src) ORDER BY rowid"
        )
        drop = next(unreturned, None)
        seq = 0
        while True:
            try:
                spooled: list[RowFields] = pickle.load(spool)
            except EOFError:
                return
            for fields in spooled:
                row = tuple.__new__(Row, fields)
                if drop is None or drop[0] != seq:
                    yield row
                else:
                    hrefs: set[str] = set()
                    while drop is not None and drop[0] == seq:
                        hrefs.add(drop[1])
                        drop = next(unreturned, None)
                    # Its links read again: fewer rows lose links than have them, and
                    # spooling every row's links cost more than this.
                    yield self._less(row, _links(row.xml), hrefs)
                seq += 1

    def _less(self, row: Row, links: list[_Link], unreturned: set[str]) -> Row:
        """The row less each of its links to a URL in `unreturned`, counted."""
        loc, xml = row.loc, row.xml
        drop = [(link, href) for link, href in links if href in unreturned]
        if self.example is None:
            self.example = f"{loc} names {drop[0][1]}"
        self.dropped += len(drop)
        self.pages += 1
        start = xml.find(links[0][0])
        end = start + sum(len(link) for link, _ in links)
        if start >= 0 and xml[start:end] == b"".join(link for link, _ in links):  # side by side, as written
            kept = b"".join(link for link, href in links if href not in unreturned)
            return row._replace(xml=xml[:start] + kept + xml[end:])
        for link, _ in drop:
            xml = xml.replace(link, b"", 1)
        return row._replace(xml=xml)

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
