"""The one producer of page outcomes: walk -> per-page decision (in workers) -> settle, in walk order.

Every command reads page fates from a `Pipeline`: `build` and `check` as
rows to write (`rows`), `list`, `explain` and the library's iterators as
`Outcome`s (`outcomes`). Both views come from the same events, so they cannot
disagree about a page. The walk's own skips (excluded directories, duplicate
URLs, directory symlinks) are put back among the pages in walk order, so
warnings come out in the same order whatever the number of workers.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.config.settings import Config
from sitemapgen.entry import Block, Row
from sitemapgen.hosts.base import Host
from sitemapgen.lastmod.chain import OddDates
from sitemapgen.pages.walk import Candidate, Page, Walk
from sitemapgen.pipeline import quick
from sitemapgen.pipeline.blocks import Blocking
from sitemapgen.pipeline.decide import OUTCOME_WIRE, Decider, Outcome
from sitemapgen.pipeline.documents import DocumentDecider, DocumentPatterns, only_meta_warning
from sitemapgen.pipeline.tally import Tally
from sitemapgen.skips import Skip
from sitemapgen.urls import is_page_name
from sitemapgen.util.parallel import BATCH, can_fork, each, ordered_map, usable_cpus, worker_limit

if TYPE_CHECKING:
    from sitemapgen.deploy.previous import Previous

Progress = Callable[[int], None]
Dated = Callable[[str, bytes, str], None]

#: Pages a batch holds where a page costs its worker a `stat` and no more (heads off,
#: `quick.MtimeOnly`): four times `BATCH`, so that a batch's round trip through the pool, not
#: its pages, is not what the workers wait on (docs/performance.md).
_CHEAP_BATCH = 4 * BATCH

#: A task for the workers: candidates, and the walk's skips among them as (position, skip).
_Task = tuple[list[Candidate], list[tuple[int, Skip]]]


class Pipeline:
    """One build's decisions, page by page. Close it with `commit` or `abort`."""

    def __init__(
        self, config: Config, host: Host | None, *, warn: Warn, dry_run: bool, previous: Previous | None = None
    ) -> None:
        """`config` is the effective one, and `host` its host model (`hosts.load.effective_config`);
        `previous` the previous deploy (``previous``), read before (`deploy.memory.read_previous_deploy`)
        and closed by the caller."""
        self.host = host
        self.config = config
        self.warn = warn
        self.decider = Decider(config, warn=warn, dry_run=dry_run, previous=previous, host=host)
        self.documents: DocumentDecider | None = None  # the decision of a build with documents
        if config.documents:
            self.documents = DocumentDecider(self.decider, DocumentPatterns(config))
            said = only_meta_warning(config)
            if said is not None:
                warn(said)
        self.jobs = (config.jobs or usable_cpus()) if can_fork() else 1  # the CPUs this process may use
        if self.jobs > 1:
            limit, soft = worker_limit()
            if self.jobs > limit:
                warn(f"--jobs {self.jobs}: the open-file limit ({soft}) leaves room for {limit}; using {limit}")
                self.jobs = limit
        self.sources_used: Counter[str] = Counter()  # lastmod source -> pages `rows` listed with it
        self.undated = 0  # pages `rows` listed with no lastmod (no source answered)
        self.documents_listed = 0  # of the pages listed, the documents (see `pipeline.documents`)
        #: Every page decided, and the workers gone: nothing this build does forks another (the
        #: writer may then start threads, see `output.chunks.Chunk`).
        self.walked = False
        #: Files of the docroot this build writes anew (the HTML sitemap's pages, as its relpaths):
        #: the walk passes over them, and `own_page` decides what the build writes there.
        self.own_pages: frozenset[str] = frozenset()
        self.now = datetime.now(UTC)  # what a lastmod "in the future" is after (`OddDates`)
        odd = OddDates(self.decider.lastmod, self.now)
        self.blocking = Blocking(room=self.decider.room, low=odd.low, high=odd.high)

    def _tasks(self, targets: Collection[str] | None, on_progress: Progress | None, size: int) -> Iterator[_Task]:
        """The walk in batches of `size` candidates, each with the walk's skips among them."""
        skips: list[tuple[int, Skip]] = []
        batch: list[Candidate] = []
        count = 0
        walk = Walk(
            self.config.docroot,
            prune=self.decider.path_rules.check_dir,
            on_skip=lambda skip: skips.append((len(batch), skip)),
            url_style=self.config.url_style if self.host is None else None,  # a host model decides alone
            documents=None if self.documents is None else self.documents.patterns.matches,
        )
        own = self.own_pages
        for candidate in walk.candidates(targets):
            if own and candidate[0] in own:
                continue
            batch.append(candidate)
            if len(batch) == size or len(skips) >= size:
                count += len(batch)
                if on_progress is not None:
                    on_progress(count)
                yield batch, skips
                batch, skips = [], []
        if batch or skips:
            yield batch, skips

    def _events(
        self, *, detail: bool, targets: Collection[str] | None = None, on_progress: Progress | None = None
    ) -> Iterator[Outcome | Block]:
        """Every page's settled fate, and the walk's skips, in walk order; without `detail`, runs
        of pages that need nothing but writing as blocks (see `pipeline.blocks`)."""
        decider = self.decider
        decide = self._decision(detail)
        settle = decider.settle if self.documents is None else self._settle_counted
        gather = self.blocking if not detail and self.documents is None else None
        tally = Tally()
        odd = OddDates(decider.lastmod, self.now)
        low, high = odd.low, odd.high
        sources_used = self.sources_used
        wire = OUTCOME_WIRE if gather is None else gather.wire
        size = _CHEAP_BATCH if isinstance(getattr(decide, "__self__", None), quick.MtimeOnly) else BATCH
        tasks = self._tasks(targets, on_progress, size)
        for results, walk_skips in ordered_map(decide, tasks, jobs=self.jobs, wire=wire):
            gathered = results if gather is None else gather(results)  # a worker's are gathered already
            for event, decided in _in_walk_order(gathered, walk_skips):
                if not decided:
                    yield event
                    continue
                if isinstance(event, Block):
                    tally.pages += len(event.locs)
                    sources_used[event.source] += len(event.locs)
                    for _, kind, example in event.notes:
                        tally.note(kind, example)
                    yield event
                    continue
                tally.pages += 1
                outcome = settle(event)
                if outcome.skip is not None:
                    tally.skip(outcome.skip)
                elif outcome.lastmod_source is not None:  # counted for every caller: `undated_warnings`
                    sources_used[outcome.lastmod_source] += 1
                else:
                    self.undated += 1
                for kind, example in outcome.notes:
                    tally.note(kind, example)
                row = outcome.row
                if row is not None and (when := row.lastmod_key) is not None and not low <= when <= high:
                    odd.see(outcome.lastmod_source, when, row.lastmod_text, outcome.relpath)
                yield outcome
        self.walked = True
        if targets is None:  # `explain` says each page's own notes under it
            for line in [*tally.lines(), *odd.lines()]:
                self.warn(line)

    def _decision(self, detail: bool) -> Callable[[Sequence[Candidate]], list[Outcome | Block]]:
        """How a batch of candidates is decided (in the workers): each by the documents' decision
        or the page's, or where a plain page is dated by its mtime, by `quick`'s (the same
        outcomes, in a frame or two a page)."""
        decide = self.decider.decide if self.documents is None else self.documents.decide
        if detail:
            return each(functools.partial(decide, detail=True))
        if self.documents is None and quick.applies(self.config, self.decider):
            return quick.MtimeOnly(self.decider, self.blocking).batch
        if self.documents is None and quick.applies_read(self.config, self.decider):
            return quick.HeadRead(self.decider, self.blocking).batch
        return each(decide)

    def _settle_counted(self, outcome: Outcome) -> Outcome:
        """`Decider.settle`, counting the documents listed (a build with documents only)."""
        settled = self.decider.settle(outcome)
        if settled.skip is None and not is_page_name(settled.relpath):
            self.documents_listed += 1
        return settled

    def rows(
        self,
        on_skip: Callable[[Skip], None],
        on_progress: Progress | None = None,
        on_dated: Dated | None = None,
    ) -> Iterator[Row | Block]:
        """The rows to write, in walk order (what `build` writes), most in blocks (see
        `pipeline.blocks`), each with its page's labels where `Config.wants_labels`. Warnings go
        to `warn`; `on_dated` hears each page dated by its content: URL, fingerprint, lastmod."""
        warn = self.warn
        for outcome in self._events(detail=False, on_progress=on_progress):
            if isinstance(outcome, Block):
                yield outcome
                continue
            for message in outcome.warnings:
                warn(message)
            if outcome.skip is not None:
                on_skip(outcome.skip)
                continue
            row = outcome.row
            assert row is not None
            if on_dated is not None and outcome.key is not None and outcome.entry is not None:
                lastmod = outcome.entry.lastmod
                assert lastmod is not None
                on_dated(row.loc, outcome.key, lastmod.isoformat(timespec="seconds"))
            yield row

    def outcomes(self, targets: Collection[str] | None = None) -> Iterator[Outcome]:
        """Every page's `Outcome` in walk order, with its warnings (for the caller to say).

        With `targets`, only those pages, and the skips of directories above
        them (see `Walk.candidates`).
        """
        for outcome in self._events(detail=True, targets=targets):
            assert type(outcome) is Outcome  # with the details, no page is in a block
            yield outcome

    def undated_warnings(self) -> Iterator[str]:
        """After `rows` or `outcomes`: a warning for each lastmod source that was asked about pages and
        dated none."""
        return self.decider.lastmod.undated_warnings(self.sources_used, self.undated)

    def own_page(self, relpath: str, path: str) -> Outcome:
        """The fate of a page this build writes (the HTML sitemap's), at `relpath` once published
        and at `path` now: decided as a page the walk finds, in the main process, and counted."""
        decider = self.decider
        if self.host is not None:
            self.host.writes(relpath)
        skip = decider.path_rules.check(relpath)
        if skip is not None:
            return Outcome(relpath, skip=skip)
        outcome = decider.settle(decider.decided(Page(relpath, path, os.stat(path).st_mtime_ns), None, False))
        if outcome.skip is None:
            if outcome.lastmod_source is not None:
                self.sources_used[outcome.lastmod_source] += 1
            else:
                self.undated += 1
        return outcome

    def commit(self) -> None:
        """Keep what the build learned (the content store)."""
        self.decider.commit()

    def abort(self) -> None:
        """Forget what the build learned."""
        self.decider.abort()


def _in_walk_order(
    gathered: list[Outcome | Block], walk_skips: list[tuple[int, Skip]]
) -> Iterator[tuple[Outcome | Block, bool]]:
    """A batch's results with the walk's skips among them, each where the walk met it (before the
    page of its place; a block split there), and whether it was decided (the walk's skips were not)."""
    at = 0
    place = 0  # of the next page
    for item in gathered:
        if isinstance(item, Block):
            while at < len(walk_skips) and walk_skips[at][0] < place + len(item.locs):
                skipped, skip = walk_skips[at]
                if skipped > place:
                    before, item = item.split(skipped - place)
                    place = skipped
                    yield before, True
                yield Outcome(skip.relpath, skip=skip), False
                at += 1
            place += len(item.locs)
        else:
            while at < len(walk_skips) and walk_skips[at][0] <= place:
                yield Outcome(walk_skips[at][1].relpath, skip=walk_skips[at][1]), False
                at += 1
            place += 1
        yield item, True
    for _, skip in walk_skips[at:]:
        yield Outcome(skip.relpath, skip=skip), False
