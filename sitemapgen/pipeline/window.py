"""The hreflang stage's window: each row held until every one of its links to another URL of
this site is decided as the check after the walk decides it (`hreflang.Reciprocity`), then
passed on.

A link is decided here in three cases, each the check's own answer:

- **returned**: the row of the URL it names comes, and names the page back as written;
- **dropped, the page came and does not name it back**: the row of that URL has come (one of
  the last `_CAME_ROWS`) without a link to the page, and none of that row's links names a page
  in another form (each of its URLs is a row's with links, names no page, or names the page
  listed under that very URL: `forms`);
- **dropped, no page there**: no page is listed under the URL (`Forms.listed` is None: no file
  answers it), so no row with links comes under it. Asked only of the URLs a row still waits
  for after `_PROBE_ROWS` rows, or at the walk's end: on a site whose clusters are whole, the
  host's model is not asked at all (each question is a few `stat` calls).

Anything else (a link to a page whose row is further back than the window remembers, or one a
page may name in another form, which the check publishes in the URL listed) makes the window
give up: from its first held row, every row is checked after the walk. What the window dropped
from the rows it passed on, the check finds dropped too (`Reciprocity._unspooled` holds it to
that).

Two things the check's answer rests on are the build's own: no two rows share a URL, and a row
with links (an HTML page) is listed under a URL that leads back to its own file. The second is
proven for a plain static server's URL styles (tests/test_urls.py), not for a host's rules: with
a host model (`--host`), a link to a URL no row has come under waits for the check. A page that
appears under such a URL during the build (the docroot changing under it) stops the build, and
nothing is written.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence

from sitemapgen.entry import Block, Row
from sitemapgen.errors import EnvironmentFailure
from sitemapgen.pipeline.forms import Form, Forms

#: A row's links to other URLs of this site: the hrefs, in the row's order.
Links = Sequence[str]

WINDOW_ROWS = 5_000  # rows held waiting for the pages they link, at most (some 8 MiB)
_PROBE_ROWS = 3_000  # rows a held row waits before the URLs it waits for are asked of `forms`
_CAME_ROWS = 1_024  # the rows last come whose URL and links are remembered
_KEPT = 4_096  # the host model's answers kept, and URLs found with no page (a MB or so)


class Held:
    """A row or block the window holds: its first row's place, its links not yet decided, the
    hrefs it waited for, and what it drops (a row of it, by its place in the block: hrefs)."""

    __slots__ = ("awaited", "drops", "probed", "row", "seq", "waits")

    def __init__(self, row: Row | Block, seq: int) -> None:
        self.row = row
        self.seq = seq
        self.waits = 0
        self.awaited: list[str] = []
        self.drops: dict[int, set[str]] = {}
        self.probed = False

    def drop(self, at: int, href: str) -> None:
        """Drop the link to `href` of its row at `at` (0: the row, or a block's first)."""
        drops = self.drops.get(at)
        if drops is None:
            self.drops[at] = {href}
        else:
            drops.add(href)


class Window:
    """Rows held until their links are decided (see the module's docstring)."""

    def __init__(self, forms: Forms | None) -> None:
        """`forms`: the host's model, which says a URL names no page or a page in another form
        (None: no page is ever named in another form, and a link no row answers is not decided)."""
        self.forms = forms
        # Whether a URL no page is listed under is known to be no row's (see the module's docstring).
        self.probing = forms is not None and forms.host is None
        self.pending: deque[Held] = deque()
        self.awaiting: dict[str, list[tuple[Held, int, str]]] = {}  # URL: links to it (held, at, from)
        self.rows = 0  # rows held
        self.came: dict[str, Links] = {}  # the last rows' URLs: their links
        self.order: deque[str] = deque()  # `came`'s URLs, oldest first
        self.forms_of: dict[str, Form | None] = {}  # URL: the URL its page is listed under (`Forms.listed`)
        self.plain: dict[str, bool] = {}  # a row's URL: none of its links names a page in another form
        self.missing: set[str] = set()  # URLs found with no page, links to which were dropped
        self.dropped = 0  # links dropped from the rows passed on

    def add(self, row: Row | Block, seq: int, linked: Sequence[Links]) -> bool:
        """Hold `row` (a row or block, its first row at `seq`), whose rows' links are `linked` (as
        `hreflang._Table.add` gives them); False where a link cannot be decided here (the window
        gives up)."""
        locs = row.locs if isinstance(row, Block) else (row.loc,)
        held = Held(row, seq)
        self.pending.append(held)
        self.rows += len(locs)
        awaiting, came, order = self.awaiting, self.came, self.order
        for at, (loc, links) in enumerate(zip(locs, linked, strict=True)):
            if links and loc in self.missing:  # a page with links, where none was: written since
                raise EnvironmentFailure(
                    f"{loc}: a page appeared there during the build, after pages' hreflang links to it"
                    " were dropped as naming no page; build again once the docroot stops changing"
                )
            hrefs = set(links)
            if awaiting and (to_it := awaiting.pop(loc, None)) is not None:
                for their, their_at, their_loc in to_it:
                    if their_loc in hrefs:
                        hrefs.discard(their_loc)  # this row's link to it is returned too
                    elif not self._unreturned(loc, links):
                        return False
                    else:
                        their.drop(their_at, loc)
                    their.waits -= 1
            if hrefs and not self._hold(held, at, loc, hrefs):
                return False
            came[loc] = links
            order.append(loc)
            if len(order) > _CAME_ROWS:
                came.pop(order.popleft(), None)  # gone already where the walk gave one URL twice
        return True

    def _hold(self, held: Held, at: int, loc: str, hrefs: set[str]) -> bool:
        """Decide each link of the row at `loc` (`held`'s row `at`) to a URL of `hrefs` whose row
        came, or hold it until that row comes; False where one cannot be decided here."""
        came, awaiting = self.came, self.awaiting
        waiting = (held, at, loc)  # one tuple for all of its links that wait
        for href in hrefs:
            their_links = came.get(href)
            if their_links is not None:  # it came, not naming this row
                if not self._unreturned(href, their_links):
                    return False
                held.drop(at, href)
            else:
                if (others := awaiting.get(href)) is None:
                    awaiting[href] = [waiting]
                else:
                    others.append(waiting)
                held.awaited.append(href)
                held.waits += 1
        return True

    def ready(self, seq: int) -> Iterator[Held]:
        """The rows held, from the first, until one whose links are not all decided; `seq`, the
        next row's place (a row held `_PROBE_ROWS` rows has the URLs it waits for asked about)."""
        pending = self.pending
        while pending:
            head = pending[0]
            if head.waits and not head.probed and seq - head.seq > _PROBE_ROWS:
                self._probe(head)
            if head.waits:
                return
            pending.popleft()
            self.rows -= len(head.row.locs) if isinstance(head.row, Block) else 1
            yield head

    def finish(self) -> Iterator[Held]:
        """Once the walk is done: the URLs the rows held wait for are asked about, and the rows
        whose links that decides are passed on."""
        for held in self.pending:
            if held.waits and not held.probed:
                self._probe(held)
        return self.ready(0)

    def _probe(self, held: Held) -> None:
        """Drop every held link to a URL `held` waits for under which the host lists no page."""
        held.probed = True
        if not self.probing:
            return
        awaiting = self.awaiting
        for href in held.awaited:
            if href in awaiting and self._form(href) is None:
                if len(self.missing) >= _KEPT:
                    self.missing.clear()
                self.missing.add(href)
                for their, their_at, _ in awaiting.pop(href):
                    their.drop(their_at, href)
                    their.waits -= 1

    def _unreturned(self, url: str, links: Links) -> bool:
        """Whether the check drops a link to `url`, whose row came with `links`, none of them to
        the linking page as written: none of them may name a page in another form (so none names
        that page); with no links, `url` itself may not (asked once a row)."""
        if self.forms is None:
            return True
        if not links:
            return self._names_itself(url)
        plain = self.plain.get(url)
        if plain is None:
            came = self.came
            plain = all(came.get(dst) or self._names_itself(dst) for dst in links)
            if len(self.plain) >= _KEPT:
                self.plain.clear()
            self.plain[url] = plain
        return plain

    def _names_itself(self, url: str) -> bool:
        """Whether `url` names no page, or the page listed under `url` itself (a row's URL)."""
        form = self._form(url)
        return form is None or form.listed == url

    def _form(self, url: str) -> Form | None:
        """`Forms.listed` of `url`, kept: a URL is asked about from many rows."""
        try:
            return self.forms_of[url]
        except KeyError:
            pass
        assert self.forms is not None
        if len(self.forms_of) >= _KEPT:
            self.forms_of.clear()
        form = self.forms_of[url] = self.forms.listed(url)
        return form
