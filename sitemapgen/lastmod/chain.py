"""Where a page's ``<lastmod>`` comes from: a chain of sources, first answer wins.

mtime is the protocol FAQ's own answer, but a CI checkout or a full rebuild
gives every file a new mtime, and crawlers learn to ignore a lastmod that
always changes. So the user can put truer sources before it: the page's own
meta tags, the last git commit that touched the page (or its source), or a
content hash remembered across builds.

The sources are one table, `SOURCES`: a `LastmodSource` name and a `Source`
class. Adding a source is a new enum member, its class, and its entry; the
config, the CLI help and the chain take it from there (a test checks that the
enum and the table name the same sources).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.config.words import LastmodSource
from sitemapgen.lastmod.base import FUTURE_SLACK, PLAUSIBLE_SINCE, Source
from sitemapgen.lastmod.content import ContentLastmod
from sitemapgen.lastmod.git import GitLastmod
from sitemapgen.lastmod.meta import MetaLastmod
from sitemapgen.lastmod.mtime import MtimeLastmod
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Page
from sitemapgen.skips import display, plural

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config
    from sitemapgen.deploy.previous import Previous


#: Every lastmod source, by the name a chain uses.
SOURCES: dict[LastmodSource, type[Source]] = {
    LastmodSource.MTIME: MtimeLastmod,
    LastmodSource.GIT: GitLastmod,
    LastmodSource.META: MetaLastmod,
    LastmodSource.CONTENT: ContentLastmod,
}


class LastmodChain:
    """The configured sources, in order: the first with an answer dates the page."""

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.sources = [(name, SOURCES[name](config, warn, dry_run, previous)) for name in config.lastmod]
        if previous is not None and not {LastmodSource.CONTENT, LastmodSource.GIT} & set(config.lastmod):
            chain = ",".join(source.value for source in config.lastmod)
            warn(
                f"--previous: lastmod {chain!r} does not name 'content', so no lastmod carries over from the"
                " previous deploy (a fresh checkout's mtimes are the checkout's): add it, e.g. --lastmod content"
            )

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> tuple[datetime | bytes | None, str | None]:
        """The first answer and the name of its source (a str: it crosses from workers)."""
        for name, source in self.sources:
            value = source.date(page, head, warn)
            if value is not None:
                return value, name._value_  # .value without the descriptor call: this runs per page
        return None, None

    def date_document(self, page: Page, warn: Warn) -> tuple[datetime | bytes | None, str | None]:
        """`date` for a document: a file with no head ('meta' passes it on)."""
        for name, source in self.sources:
            value = source.date_document(page, warn)
            if value is not None:
                return value, name.value
        return None, None

    def undated_warnings(self, dated: Mapping[str, int], undated: int) -> Iterator[str]:
        """A warning for each source that was asked about pages and dated none of them (`dated`:
        pages listed per source name; `undated`: pages listed with no lastmod), saying which
        source dated them instead, why if the source can tell, and what to do."""
        reached = sum(dated.values()) + undated  # the pages the next source is asked about
        before: list[str] = []
        for i, (name, source) in enumerate(self.sources):
            count = dated.get(name.value, 0)
            why = source.why_none() if reached and not count else None
            if why is not None:
                left = f" {' and '.join(repr(b) for b in before)} left undated" if before else ""
                message = f"lastmod {name.value!r} dated none of the {plural(reached, 'page')}{left}"
                message += f" ({_instead(self.sources[i + 1 :], dated, undated)})"
                yield message + (f": {why}" if why else "")
            reached -= count
            before.append(name.value)

    def finish(self, source: str, loc: str, key: bytes) -> datetime:
        """The date for a key that source `source` gave (main process only)."""
        for name, instance in self.sources:
            if name.value == source:
                return instance.finish(loc, key)
        raise KeyError(source)

    def commit(self) -> None:
        for _, source in self.sources:
            source.commit()

    def abort(self) -> None:
        for _, source in self.sources:
            source.abort()


class OddDates:
    """Lastmods that cannot be true (before 1990, or in the future), counted per source and
    direction and said once each after the build, with an example and what to do; the pages
    are listed with them all the same (the protocol takes any W3C date).

    The caller tests each listed page's lastmod against `low` and `high` itself (POSIX times,
    a comparison a page) and calls `see` only for those outside.
    """

    def __init__(self, chain: LastmodChain, now: datetime) -> None:
        self.now = now
        self.low = PLAUSIBLE_SINCE.timestamp()
        self.high = (now + FUTURE_SLACK).timestamp()
        self.sources = {name.value: source for name, source in chain.sources}
        self.counts: Counter[tuple[str, str]] = Counter()  # (source, why) -> pages
        self.examples: dict[tuple[str, str], str] = {}

    def see(self, source: str | None, when: float, text: str | None, relpath: str) -> None:
        """A page `source` dated `when` (written as `text`), outside `low`..`high`."""
        instance = self.sources.get(source or "")
        if instance is None or instance.said(when):
            return
        why = f"before {PLAUSIBLE_SINCE.year}" if when < self.low else "in the future"
        key = (source or "", why)
        self.counts[key] += 1
        self.examples.setdefault(key, f"{display(relpath)} {text}")

    def lines(self) -> Iterator[str]:
        """One warning for each source and direction, in the chain's order, the past first."""
        for (source, why), n in sorted(self.counts.items(), key=lambda item: self._order(item[0])):
            advice = self.sources[source].odd_dates(why != f"before {PLAUSIBLE_SINCE.year}")
            said = f"lastmod {source!r} dated {plural(n, 'page')} {why}, listed so" + (f": {advice}" if advice else "")
            yield f"{said}; e.g. {self.examples[source, why]}"  # the example last, as `Tally` says it

    def _order(self, key: tuple[str, str]) -> tuple[int, bool]:
        return list(self.sources).index(key[0]), key[1] == "in the future"


def _instead(later: list[tuple[LastmodSource, Source]], dated: Mapping[str, int], undated: int) -> str:
    """Who dated the pages a source passed on: "mtime dated them", "git dated 2, mtime 1; 1 has no lastmod"."""
    counts = [(name.value, dated[name.value]) for name, _ in later if dated.get(name.value)]
    if not counts:
        return "they have no lastmod"
    if len(counts) == 1 and not undated:
        return f"{counts[0][0]} dated them"
    text = f"{counts[0][0]} dated {counts[0][1]:,}" + "".join(f", {name} {n:,}" for name, n in counts[1:])
    return text + (f"; {undated:,} {'has' if undated == 1 else 'have'} no lastmod" if undated else "")
