"""hreflang clusters across pages: only links that the page they name returns are published.

Google takes an hreflang link from A to B only when B, a page it indexes,
names A back; anything else is ignored, and reported in Search Console as
"no return tags". So a link from a listed page to another URL of this site
is kept only when that URL is listed and its own links name the page: a link
to a page left out (missing, noindex, a redirect, canonical elsewhere), or to
a page that does not name it back, is dropped and counted. Links to other
hosts cannot be checked here and are kept; a page's link to itself always is.

That needs every page's links before a page can be known to lose none, so this
stage sits between the pipeline and the writer, in the main process: rows pass
straight through until the first that carries links. From there, every link to
another URL of this site is kept for a temporary on-disk SQLite table, and a row
passes on as soon as each of its links is decided as the check below decides it
(`window`): most sites' clusters are whole and near each other in the walk, and
pass as it goes, and the links a page does not return, or that name no page, are
dropped as it goes too. Once a link cannot be decided there, or 5,000 rows wait,
every row from the first one held on is spooled, in order (a few hundred a
pickle, each the plain tuple of its fields, a `Row` again once read back; a
`Block` of rows whole, a copy of it where a row of it loses or changes a link),
to an unnamed temporary file. Nothing is written where the site is, and memory
stays flat however many pages there are. Once the walk is done, the table is
filled (from another such file, the links pickled to it as they came), the spool
is read back, each row's links are checked against the table, and the row goes on
to the writer, less what is dropped.

A link may name a listed page in another form: Docusaurus links ``/fr/a``, which
the server redirects to the listed ``/fr/a/`` (see `forms`). Such a link is not
returned as written, since no listed page is ``/fr/a``; so, for the URLs that
unreturned links name and no page is listed under, the URL their page is listed
under is looked up, and if any is found every link is checked again in its
listed form, and published in it. A site whose links all name listed URLs that
return them is never spooled, and the check is not asked.
"""

from __future__ import annotations

import itertools
import pickle
import sqlite3
import tempfile
from collections.abc import Iterator
from typing import IO

from sitemapgen.entry import Block, Row, RowLink, relinked, row_hrefs, row_links
from sitemapgen.pipeline.forms import Forms
from sitemapgen.pipeline.window import WINDOW_ROWS, Held, Links, Window
from sitemapgen.util.scratch import kept_aside, pickled

_LINKED = b"<xhtml:link"  # in a row's element: it has hreflang links
_BATCH = 10_000  # links kept aside per pickle, and inserted per executemany
_SPOOL_BATCH = 256  # rows spooled per pickle: memory stays flat, a few hundred KB
_ASIDE = "the hreflang links aside for their check"  # what the stage's temporary files keep


class Reciprocity:
    """The stage (see the module's docstring): `filter` rows, then `lines` says what was dropped."""

    def __init__(self, base_url: str, forms: Forms | None = None) -> None:
        """`forms` finds the listed form of a URL no page is listed under (None: not looked for)."""
        self.base_url = base_url
        self.forms = forms
        self.dropped = 0
        self.pages = 0
        self.example: str | None = None
        self.relisted = 0  # links published in their page's listed form
        self.relisted_pages = 0
        self.relisted_example: str | None = None

    def filter(self, rows: Iterator[Row | Block]) -> Iterator[Row | Block]:
        """`rows`, in their order, each less the links its targets do not return."""
        for row in rows:
            if any(_LINKED in xml for xml in row.xmls) if isinstance(row, Block) else _LINKED in row.xml:
                yield from self._spooled(row, rows)
                return
            yield row

    def _spooled(self, first: Row | Block, rest: Iterator[Row | Block]) -> Iterator[Row | Block]:
        """`first` and `rest`, each on as soon as its links are known returned (see the module)."""
        # A private temporary database on disk, gone when closed; closed by whichever thread ends
        # the stage (Ctrl-C may finalize it from another).
        db = sqlite3.connect("", check_same_thread=False)
        table = _Table(db, self.base_url)
        try:
            window = Window(self.forms)
            rows = _chain(first, rest)
            for row in rows:
                seq = table.seq  # the row's place, before its links go in
                if not window.add(row, seq, table.add(row)):
                    break
                yield from self._passed(window.ready(table.seq), window)
                if window.rows > WINDOW_ROWS:
                    break
            else:
                yield from self._passed(window.finish(), window)
                if not window.pending:  # every link decided in the window: nothing to check again
                    return
            start = window.pending[0].seq if window.pending else table.seq
            with kept_aside(_ASIDE):
                spool = tempfile.TemporaryFile()
            with spool:
                self._spool(itertools.chain((held.row for held in window.pending), table.adding(rows)), spool)
                with kept_aside(_ASIDE):  # what follows reads and queries only the stage's own files
                    table.finish()
                    yield from self._unspooled(spool, db, start, window.dropped)
        finally:
            table.close()
            db.close()

    def _passed(self, helds: Iterator[Held], window: Window) -> Iterator[Row | Block]:
        """The rows `window` passes on, each less the links it dropped (counted, in walk order)."""
        for held in helds:
            row, drops = held.row, held.drops
            if not drops:
                yield row
                continue
            before = self.dropped
            if isinstance(row, Block):
                xmls = list(row.xmls)
                for at in sorted(drops):
                    xmls[at] = self._less(row.locs[at], xmls[at], row_links(xmls[at]), drops[at], {})
                yield row._replace(xmls=xmls)
            else:
                yield row._replace(xml=self._less(row.loc, row.xml, row_links(row.xml), drops[0], {}))
            window.dropped += self.dropped - before

    def _spool(self, rows: Iterator[Row | Block], spool: IO[bytes]) -> None:
        """Every row into the spool, in order (a block whole)."""
        spooled: list[tuple[object, ...] | Block] = []
        held = 0  # rows in `spooled`
        for row in rows:
            if isinstance(row, Block):  # spooled whole
                spooled.append(row)
                held += len(row.locs)
            else:
                spooled.append(tuple(row))  # a plain tuple pickles and loads with no call a row
                held += 1
            if held >= _SPOOL_BATCH:  # one pickle a batch: a pickle a row cost 5 µs a page
                with kept_aside(_ASIDE):
                    pickle.dump(spooled, spool, protocol=pickle.HIGHEST_PROTOCOL)
                spooled.clear()
                held = 0
        with kept_aside(_ASIDE):
            pickle.dump(spooled, spool, protocol=pickle.HIGHEST_PROTOCOL)
            spool.seek(0)

    def _unspooled(self, spool: IO[bytes], db: sqlite3.Connection, seq: int, passed: int) -> Iterator[Row | Block]:
        """The spooled rows (the first at `seq`), in order, each less the links that are not
        returned and with the others in their listed form: the changes are found by a query, in
        walk order (the table's), and merged with the rows as they are read back. The changes
        to rows the window passed on must be the `passed` links it dropped from them."""
        db.execute(
            "CREATE TABLE unreturned AS SELECT rowid AS link, seq, dst FROM links AS a WHERE"
            " NOT EXISTS (SELECT 1 FROM links AS b WHERE b.src = a.dst AND b.dst = a.src)"
        )
        relisted = self._relisted(db)
        changes = (
            self._changes(db, relisted)
            if relisted
            else db.execute("SELECT seq, dst, NULL FROM unreturned ORDER BY link")
        )
        change = next(changes, None)
        while change is not None and change[0] < seq:  # a row the window passed on: dropped there
            if change[2] is not None or not passed:
                raise AssertionError(f"hreflang: a row passed on before the check changes: {change}")
            passed -= 1
            change = next(changes, None)
        if passed:
            raise AssertionError(f"hreflang: {passed} links the window dropped the check keeps")
        spooled: list[tuple[object, ...] | Block]
        for spooled in pickled(spool):
            for fields in spooled:
                if isinstance(fields, Block):
                    end = seq + len(fields.locs)
                    if change is not None and change[0] < end:  # rows of it change: a copy, they changed
                        xmls = list(fields.xmls)
                        while change is not None and change[0] < end:
                            at = change[0] - seq
                            xmls[at], change = self._changed(fields.locs[at], xmls[at], change, changes)
                        fields = fields._replace(xmls=xmls)
                    yield fields
                    seq = end
                    continue
                row = tuple.__new__(Row, fields)  # a C call, as `Row.__reduce__` rebuilds one
                if change is None or change[0] != seq:
                    yield row
                else:
                    xml, change = self._changed(row.loc, row.xml, change, changes)
                    yield row._replace(xml=xml)
                seq += 1

    def _changed(
        self, loc: str, xml: bytes, change: tuple[int, str, str | None], changes: Iterator[tuple[int, str, str | None]]
    ) -> tuple[bytes, tuple[int, str, str | None] | None]:
        """The ``<url>`` element `xml` of the row at `loc` with `change` and those after it for
        the same row made, and the first change for a row after it."""
        seq = change[0]
        drop: set[str] = set()
        listed: dict[str, str] = {}
        next_change: tuple[int, str, str | None] | None = change
        while next_change is not None and next_change[0] == seq:
            if next_change[2] is None:
                drop.add(next_change[1])
            else:
                listed[next_change[1]] = next_change[2]
            next_change = next(changes, None)
        # Its links read again: fewer rows lose links than have them, and spooling every row's
        # links cost more than this.
        return self._less(loc, xml, row_links(xml), drop, listed), next_change

    def _relisted(self, db: sqlite3.Connection) -> list[tuple[str, str]]:
        """(href, listed URL) for each URL unreturned links name that no page with links is
        listed under but that names a page listed under another URL (see `forms`)."""
        forms = self.forms
        if forms is None:
            return []
        named = db.execute(
            "SELECT DISTINCT dst FROM unreturned AS u WHERE NOT EXISTS (SELECT 1 FROM links AS b WHERE b.src = u.dst)"
        )
        return [(href, form.listed) for (href,) in named if (form := forms.listed(href)) and form.listed != href]

    def _changes(
        self, db: sqlite3.Connection, relisted: list[tuple[str, str]]
    ) -> Iterator[tuple[int, str, str | None]]:
        """Every link checked again with each URL in its listed form: (seq, href, listed URL)
        for a link to publish in another form, (seq, href, None) for one to drop, in walk order."""
        db.execute("CREATE TABLE forms (href TEXT PRIMARY KEY, listed TEXT NOT NULL)")
        db.executemany("INSERT INTO forms VALUES (?, ?)", relisted)
        db.execute("ALTER TABLE links ADD COLUMN listed TEXT")
        db.execute(
            "UPDATE links SET listed = coalesce((SELECT f.listed FROM forms AS f WHERE f.href = links.dst), dst)"
        )
        db.execute("CREATE INDEX links_listed ON links (src, listed)")
        # A link that names its own page in another form is its link to itself: returned.
        return db.execute(
            "SELECT seq, dst, CASE WHEN returned THEN listed END FROM (SELECT rowid AS link, seq, dst, listed,"
            " listed = src OR EXISTS (SELECT 1 FROM links AS b WHERE b.src = a.listed AND b.listed = a.src)"
            " AS returned FROM links AS a) WHERE NOT returned OR listed != dst ORDER BY link"
        )

    def _less(self, loc: str, xml: bytes, links: list[RowLink], unreturned: set[str], listed: dict[str, str]) -> bytes:
        """The ``<url>`` element `xml` of the row at `loc` less each of its links to a URL in
        `unreturned`, and with each to a URL in `listed` naming the URL listed instead, counted."""
        self._count(loc, links, unreturned, listed)
        new = [
            b"" if href in unreturned else relinked(link, listed[href]) if href in listed else link
            for link, href in links
        ]
        start = xml.find(links[0][0])
        end = start + sum(len(link) for link, _ in links)
        if start >= 0 and xml[start:end] == b"".join(link for link, _ in links):  # side by side, as written
            return xml[:start] + b"".join(new) + xml[end:]
        for (link, _), instead in zip(links, new, strict=True):
            if instead is not link:
                xml = xml.replace(link, instead, 1)
        return xml

    def _count(self, loc: str, links: list[RowLink], unreturned: set[str], listed: dict[str, str]) -> None:
        """Count the links of the row at `loc` that are dropped, and those published in another form."""
        dropped = [href for _, href in links if href in unreturned]
        if dropped:
            if self.example is None:
                self.example = f"{loc} names {dropped[0]}"
            self.dropped += len(dropped)
            self.pages += 1
        moved = [href for _, href in links if href in listed]
        if moved:
            if self.relisted_example is None:
                self.relisted_example = f"{loc} names {moved[0]}, listed as {listed[moved[0]]}"
            self.relisted += len(moved)
            self.relisted_pages += 1

    def lines(self) -> list[str]:
        """A warning for the build for the links dropped, and one for the links published in
        another form; or none."""
        said = []
        if self.dropped:
            said.append(
                f"{self.dropped:,} hreflang link{'s' * (self.dropped != 1)} on {self.pages:,}"
                f" page{'s' * (self.pages != 1)} dropped: each names a URL of this site that is not listed"
                " (missing, noindex, a redirect, canonical elsewhere) or does not name the page back, and"
                f" search engines ignore such links; e.g. {self.example}"
            )
        if self.relisted:
            said.append(
                f"{self.relisted:,} hreflang link{'s' * (self.relisted != 1)} on {self.relisted_pages:,}"
                f" page{'s' * (self.relisted_pages != 1)} name{'s' * (self.relisted == 1)} a listed page in"
                " another form (a URL that redirects to it, or another URL of its file): published as the"
                " URL listed; to silence this, make the pages' heads link that URL (Docusaurus: its"
                " trailingSlash option);"
                f" e.g. {self.relisted_example}"
            )
        return said


class _Table:
    """The table of links (see `Reciprocity`), with each row's place: the links kept as rows
    come, and put in the table only if the check needs them (`finish`)."""

    def __init__(self, db: sqlite3.Connection, base: str) -> None:
        # Only links to another URL of this site are kept: only they are asked about, and only
        # they can answer (a link that names a page back goes from one URL of this site to
        # another); a page's link to itself, or to another host, is neither.
        self.db = db
        self.base = base
        self.seq = 0  # the next row's place
        #: The links kept, a row's together: its place, its URL, and the URLs it names.
        self.pending: list[tuple[int, str, Links]] = []
        self.kept = 0  # links in `pending`
        # The links kept, a batch a pickle, until the check needs them: the table is made only
        # then. Most sites' windows decide every link, and a pickle costs a third of an insert.
        self.spill: IO[bytes] | None = None

    def add(self, row: Row | Block) -> list[Links]:
        """Keep the links of `row` (of each row of a block) to another URL of this site for the
        table; each row's, in order (none: an empty list)."""
        base, seq, pending = self.base, self.seq, self.pending
        found: list[Links]
        if isinstance(row, Block):
            locs = row.locs
            found = [
                _to_this_site(loc, xml, base) if _LINKED in xml else _NONE
                for loc, xml in zip(locs, row.xmls, strict=True)
            ]
        else:
            locs = [row.loc]
            found = [_to_this_site(row.loc, row.xml, base) if _LINKED in row.xml else _NONE]
        for at, links in enumerate(found):
            if links:
                pending.append((seq + at, locs[at], links))
                self.kept += len(links)
        self.seq += len(locs)
        if self.kept >= _BATCH:
            with kept_aside(_ASIDE):
                if self.spill is None:
                    self.spill = tempfile.TemporaryFile()
                pickle.dump(pending, self.spill, protocol=pickle.HIGHEST_PROTOCOL)
            pending.clear()
            self.kept = 0
        return found

    def adding(self, rows: Iterator[Row | Block]) -> Iterator[Row | Block]:
        """`rows`, each once its links are in the table."""
        for row in rows:
            self.add(row)
            yield row

    def finish(self) -> None:
        """Every link is in: the table is filled, in the order they came, and indexed for the check."""
        # seq: the row's place in the walk; src: its URL; dst: the URL its link names.
        self.db.execute("CREATE TABLE links (seq INTEGER NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL)")
        insert = "INSERT INTO links VALUES (?, ?, ?)"
        if self.spill is not None:
            self.spill.seek(0)
            for rows in pickled(self.spill):
                self.db.executemany(insert, _each_link(rows))
            self.close()
        self.db.executemany(insert, _each_link(self.pending))
        self.pending.clear()
        self.kept = 0
        self.db.execute("CREATE INDEX links_pair ON links (src, dst)")

    def close(self) -> None:
        """Let go of the links not yet in the table."""
        if self.spill is not None:
            self.spill.close()
            self.spill = None


_NONE: list[str] = []  # a row's links to other URLs of this site, where it has none: never changed


def _to_this_site(loc: str, xml: bytes, base: str) -> list[str]:
    """The hrefs of the links of the row at `loc` (its ``<url>`` element `xml`) to another URL
    of this site (under `base`)."""
    return [href for href in row_hrefs(xml) if href != loc and href.startswith(base)]


def _each_link(rows: list[tuple[int, str, Links]]) -> Iterator[tuple[int, str, str]]:
    """The links kept (see `_Table.pending`), one by one, as the table holds them: (seq, src, dst)."""
    return ((seq, src, dst) for seq, src, links in rows for dst in links)


def _chain(first: Row | Block, rest: Iterator[Row | Block]) -> Iterator[Row | Block]:
    yield first
    yield from rest
