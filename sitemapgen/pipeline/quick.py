"""The decision of a plain page dated by its mtime, in one or two frames instead of a dozen.

A build with no host model, no priority or changefreq rules, no sections, no images, no
documents and `lastmod = mtime` decides most pages from their path, their `stat` and, heads
on, what their head says, and nothing else:

- heads off (`MtimeOnly`): whether a path rule leaves the page out, whether it is a regular
  file, its URL and its mtime, a batch of pages in one frame, each listed page straight into
  its batch's block (`blocks.Blocking`: no `Outcome`, no `Row`); where the compiled module is
  built, each run of such pages in one call of it (`_scan.mtime_block`), which hands back to
  the frame every page it does not answer for;
- heads on (`HeadRead`, where no output wants labels and no plugin gives clusters): the same,
  and its head, read in the call that gives its `stat` (`head.read_head_at`): what it says
  (noindex, a redirect, a canonical) means what the decision says it means
  (`Decider.head_skip`), and a cluster of hreflang links is made as the decision makes it
  (`Decider.cluster`); where the compiled module is built, each run of pages whose heads say
  nothing their rows show (no tag, a modified time, a canonical naming the page) but a cluster
  of hreflang links (absolute, or from the root) the decision takes as they are, less any
  language given two URLs, or not naming the page where its ``<html lang>`` does not make it
  another version, a canonical naming the page's folder as a file no file answers (Sphinx 7's
  dirhtml), and one naming an index page's own file (Sphinx's ``/a/index.html``, listed under
  it; each noted as the decision notes it, the notes going with the block), in one call of it
  (`_scan.head_block`), which asks this module what a tag it has not met says
  (`judge.TagJudge`), keeps what holds on every page, and hands back the page it stops at
  with its head read.

`Decider.decide` gets there through a dozen frames (the page, the entry, the head's reading,
the lastmod chain, the row); here they are one or two, and the ``<url>`` element (its hreflang
links too) is put together from the mtime's second directly (`entry.dated_row` and
`entry.utc_second_text`: what `row_of` writes, without an entry or a datetime). A head that
says a canonical and a modified time at most (most heads) is not made into `HeadFacts` at all
(`signals.canonical_said`). Anything else (a skip, a
symlink, a URL too long, an mtime out of the years a `datetime` holds, a head with a problem
or too long to read whole, a page named as a generator's own) goes to the decision, which says
why; the outcome is the same either way (tests/pipeline/test_quick.py and test_quick_heads.py
check it byte for byte).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence

from sitemapgen.config.settings import Config
from sitemapgen.config.words import LastmodSource
from sitemapgen.entry import Alternate, Block, dated_row, dated_xml, escape_xml, link_elements, utc_second_text
from sitemapgen.pages import kinds, scanner
from sitemapgen.pages.compiled import load
from sitemapgen.pages.head import FRAGMENT_PROBE, facts_of_read, html_lang, read_head_at
from sitemapgen.pages.scanner import Read, read_fast_utf8
from sitemapgen.pages.signals import SIGNALS, canonical_said, marks_of
from sitemapgen.pages.walk import EXCLUDED_STARTS, Candidate, Page
from sitemapgen.pipeline.blocks import Blocking, Gathered
from sitemapgen.pipeline.decide import X_DEFAULT, Decider, Note, Outcome
from sitemapgen.pipeline.judge import TagJudge
from sitemapgen.protocol import MAX_URL_LENGTH, LastmodFormat
from sitemapgen.skips import NoteKind, conflict_note, display, missing_note
from sitemapgen.urls import UrlStyle, url_path

_new = tuple.__new__
#: What the decision notes of a page a run listed: its place in the block, its relpath, the
#: canonical no file answers (or None), the languages its head gives two URLs (or None), and
#: whether its cluster does not name it.
_Noted = tuple[int, str, str | None, tuple[str, ...] | None, bool]
_LAST_SECOND = 253_402_300_800  # 10000-01-01: the first second a `datetime` does not hold
_SOURCE = LastmodSource.MTIME.value
_WAIT_MOST = 64  # the most pages `HeadRead.batch` decides without a run after a page its run handed back

#: What a tag that may say something a row dated by its mtime shows holds (see `signals.MARKS`):
#: the words of every signal but the modified time, which only `lastmod = meta` reads. So a head's
#: ``article:modified_time``, each page's own text, is not read, nor asked of the judge, page after
#: page (see docs/performance.md).
_MARKS = marks_of(s for s in SIGNALS if s.name != "modified")
#: What the name of every page `HeadRead._elsewhere` answers for, or its folder's, starts with
#: (in any case), where the path rules leave a page out by its name alone.
_ELSEWHERE_STARTS = (*EXCLUDED_STARTS, *kinds.CANDIDATE_STARTS)
#: `_scan.mtime_block`: a run of a batch's pages listed in one call, as `MtimeOnly.batch` lists
#: them (see `_scan.c`), where the compiled module is built (not on Windows); else None. (Tests
#: set it to None to list them in Python.)
COMPILED = getattr(load(), "mtime_block", None)
#: `_scan.head_block`: the same, heads on, as `HeadRead.batch` lists them; else None (as `COMPILED`).
COMPILED_HEADS = getattr(load(), "head_block", None)
#: What it is told of `entry.dated_xml`, `url_path` and `escape_xml`, from them: the element's
#: four parts around a URL, a lastmod and hreflang links, the characters a URL keeps, and those
#: the element escapes.
_LINKED = (Alternate("\2", "\3"),)
_FRAME = tuple(
    dated_xml("\0", "\1", _LINKED).replace(link_elements(_LINKED).encode(), b"\0").replace(b"\1", b"\0").split(b"\0")
)
_KEPT = bytes(b for b in range(1, 128) if url_path("a" + chr(b), UrlStyle.INDEX) == "a" + chr(b))
_ESCAPED = bytes(b for b in range(1, 128) if escape_xml(chr(b)) != chr(b))


def _constants(
    decider: Decider, blocking: Blocking, check: Callable[[str], object], starts: tuple[str, ...]
) -> tuple[object, ...] | None:
    """What the compiled runs (`COMPILED`, `COMPILED_HEADS`) are told of this build, with `check`
    (a page it leaves out, the run hands back), where they list pages: URLs of the styles that keep
    a page's name, a base URL of ASCII; else None. Where the path rules leave a page out by its name
    alone (`PathRules.by_name`), `check` is asked only of a page whose name, or folder's, starts
    with one of `starts` (what the name of every page it leaves out, or its folder's, starts with),
    not through a call into Python a page (see docs/performance.md)."""
    config = decider.config
    if config.url_style not in (UrlStyle.DIRECTORY, UrlStyle.INDEX) or not config.base_url.isascii():
        return None
    return (
        os.fsencode(decider.root),
        config.base_url.encode(),
        *_FRAME,
        _KEPT,
        _ESCAPED,
        check,
        config.url_style is UrlStyle.DIRECTORY,
        config.lastmod_format is LastmodFormat.DATE,
        MAX_URL_LENGTH,
        _LAST_SECOND,
        blocking.low,
        blocking.high,
        blocking.room,
        starts if decider.path_rules.by_name else None,
    )


def _x_default(decider: Decider) -> tuple[str, bytes | None, str, bytes, int] | None:
    """What a run is told of the x-default link `Decider.with_x_default` adds to a cluster naming
    none, where `hreflang_x_default` is set (see `_scan.head_block`): the folded language of an
    x-default link, the element where the setting is a URL (what it adds to no link), the language
    whose link's URL it names (folded), the element to its language's end, and where a link's
    language starts in its element."""
    choice = decider.config.hreflang_x_default
    if choice is None:
        return None
    element = link_elements(added).encode() if (added := decider.with_x_default(())) else None
    start = link_elements((Alternate("\0", ""),)).encode().index(b"\0")
    made = link_elements((Alternate(X_DEFAULT, ""),)).encode()[: start + len(X_DEFAULT)]
    return X_DEFAULT, element, choice.lower(), made, start


def _plain(config: Config, decider: Decider) -> bool:
    """Whether nothing but a page's path, `stat` and head decides its row in this build."""
    return (
        decider.host is None
        and decider.images is None
        and not decider.sections
        and not config.rules
        and not config.documents
        and config.lastmod == (LastmodSource.MTIME,)
    )


def applies(config: Config, decider: Decider) -> bool:
    """Whether a page of this build is decided by its path and its `stat` alone (`MtimeOnly`)."""
    return not config.read_heads and _plain(config, decider)


def applies_read(config: Config, decider: Decider) -> bool:
    """Whether a plain page of this build is decided by `HeadRead`."""
    return config.read_heads and not decider.labelled and not decider.given and _plain(config, decider)


class MtimeOnly:
    """`Decider.decide` for a build that `applies`, a batch at a time: a listed page in the loop's
    own frame, straight into a block of its batch (`blocks.Blocking`), with no `Outcome` or `Row`."""

    def __init__(self, decider: Decider, blocking: Blocking) -> None:
        config = decider.config
        self.decider = decider
        self.blocking = blocking
        self.check = decider.path_rules.check  # by name where only the default excludes apply
        self.root = decider.root
        self.base_url = config.base_url
        self.style = config.url_style
        self.date_only = config.lastmod_format is LastmodFormat.DATE
        #: What `COMPILED` is told of this build, where it lists a run of pages; else None.
        self.constants = None if COMPILED is None else _constants(decider, blocking, self.check, EXCLUDED_STARTS)

    def batch(self, candidates: Sequence[Candidate]) -> Gathered:
        """The candidates' outcomes in order: each run of pages listed here as one `Block`
        (what `Blocking` makes of their outcomes), any other page as `Decider.decide` decides it.
        Where `COMPILED` lists pages, it lists each run it can, and the page it stops at is
        listed or decided here."""
        gathered: Gathered = []
        block: Block | None = None
        check, root, base_url, style, date_only = self.check, self.root, self.base_url, self.style, self.date_only
        admits = self.blocking.admits
        constants, run = self.constants, COMPILED
        listed = candidates if isinstance(candidates, list) else list(candidates)
        at, count = 0, len(listed)
        while at < count:
            if constants is not None and run is not None:
                into = Block([], [], [], [], _SOURCE) if block is None else block
                stop = run(constants, listed, at, into.locs, into.xmls, into.keys, into.texts)
                if stop > at and block is None:
                    block = into
                    gathered.append(block)
                at = stop
                if at == count:
                    break
            candidate = listed[at]
            at += 1
            relpath, is_link = candidate
            outcome = status = None
            if not is_link and check(relpath) is None:
                try:
                    status = os.stat(root + relpath)
                except OSError:
                    pass  # the decision's to say
            if status is not None:
                seconds = status.st_mtime_ns // 1_000_000_000
                loc = base_url + url_path(relpath, style)
                if stat.S_ISREG(status.st_mode) and len(loc) <= MAX_URL_LENGTH and 0 <= seconds < _LAST_SECOND:
                    text = utc_second_text(seconds, date_only)
                    xml = dated_xml(loc, text)
                    key = float(seconds)
                    if admits(key, xml):
                        if block is None:
                            block = Block([], [], [], [], _SOURCE)
                            gathered.append(block)
                        block.locs.append(loc)
                        block.xmls.append(xml)
                        block.keys.append(key)
                        block.texts.append(text)
                        continue
                    row = dated_row(loc, seconds, text)  # dated out of the plausible years (rare)
                    outcome = _new(Outcome, (relpath, None, row, None, _SOURCE, (), None, (), None))
            block = None
            gathered.append(self.decider.decide(candidate) if outcome is None else outcome)  # which says why
        return gathered


class HeadRead:
    """`Decider.decide` for a build that `applies_read`: one frame for a page, and a second for
    the plain page whose head is read (see the module's docstring); where the compiled module is
    built, each run of plain pages whose heads say nothing their rows show listed in one call of it
    (`batch`)."""

    def __init__(self, decider: Decider, blocking: Blocking) -> None:
        config = decider.config
        self.decider = decider
        self.check = decider.path_rules.check
        self.root = decider.root
        self.base_url = config.base_url
        self.own_base = decider.own_base  # the base URL, normalized as a head's URLs are
        self.style = config.url_style
        self.date_only = config.lastmod_format is LastmodFormat.DATE
        self.max_bytes = config.head_max_bytes
        self.hreflang = config.hreflang
        #: What `COMPILED_HEADS` asks of a deciding tag it has not met, and what is known of each.
        self.judge = TagJudge(decider)
        #: A site's pages are alike: after a run hands back a page whose head says more than its
        #: row shows (an hreflang cluster, a canonical elsewhere), this many next pages are decided
        #: by `decide`, not handed to a run only to be handed back (a call, a judgment and a
        #: hand-back each, see docs/performance.md); doubled at each page handed back so until a
        #: run lists a page, up to `_WAIT_MOST`. `waiting`: how many are left to decide so.
        self.backoff = self.waiting = 0
        #: What it is told of this build, where it lists a run of pages; else None.
        self.constants: tuple[object, ...] | None = None
        if (
            COMPILED_HEADS is not None
            and scanner.COMPILED is not None  # whose reading of a tag the run's judge asks for
            and (constants := _constants(decider, blocking, self._elsewhere, _ELSEWHERE_STARTS)) is not None
        ):
            self.constants = (
                *constants,
                self.max_bytes,
                _MARKS,
                FRAGMENT_PROBE,
                _x_default(decider),
                self.judge.known,
                self.judge,
                self.own_base,
            )

    def batch(self, candidates: Sequence[Candidate]) -> Gathered:
        """The candidates' outcomes in order: each run of pages `COMPILED_HEADS` lists as one
        `Block`, and the page it stops at decided by `decide`, with the head it read (so not read
        twice); every page by `decide` where it is not built."""
        listed = candidates if isinstance(candidates, list) else list(candidates)
        constants, run = self.constants, COMPILED_HEADS
        if constants is None or run is None:
            return [self.decide(candidate) for candidate in listed]
        gathered: Gathered = []
        block: Block | None = None  # the block a run lists into
        spare = Block([], [], [], [], _SOURCE, [])  # the next, made before a run that may list nothing
        #: The page a run stops at: its head where the run read it, and its deciding tags where found.
        handed: list[tuple[tuple[bytes, int, bool], list[str] | None]] = []
        noted: list[_Noted] = []
        at, count = 0, len(listed)
        while at < count:
            if self.waiting:  # the next pages of a site whose heads say more: each by `decide`
                wait = min(self.waiting, count - at)
                gathered += [self.decide(candidate) for candidate in listed[at : at + wait]]
                self.waiting -= wait
                block = None
                at += wait
                continue
            into = spare if block is None else block
            stop = run(constants, listed, at, into.locs, into.xmls, into.keys, into.texts, handed, noted)
            if noted:
                _noted(into.notes, noted)  # type: ignore[arg-type]  # a list: made so above
            if stop > at:
                self.backoff = 0
                if block is None:
                    block = into
                    gathered.append(block)
                    spare = Block([], [], [], [], _SOURCE, [])
            if stop == count:
                break
            read, tags = handed.pop() if handed else (None, None)
            gathered.append(self.decide(listed[stop], read, tags))
            self.judge.fresh.clear()
            if tags is not None:  # its head said more: likely so do the next pages' (see `backoff`)
                self.waiting = self.backoff = min(2 * self.backoff or 1, _WAIT_MOST)
            block = None
            at = stop + 1
        self.judge.fresh.clear()
        return gathered

    def decide(
        self, candidate: Candidate, read: tuple[bytes, int, bool] | None = None, tags: list[str] | None = None
    ) -> Outcome:
        """The candidate's outcome; `read`: its head, read already (as `head.read_head_at` reads
        it), and `tags`: its deciding tags, found already (as `scanner.read_fast_utf8` finds them)."""
        relpath, is_link = candidate
        path = self.root + relpath
        kind = None  # a not-found or search page's candidate (`kinds.candidate`), a run never reads
        if read is None:  # else a run read it, having asked what `_elsewhere` asks
            if is_link or self.check(relpath):
                return self.decider.decide(candidate)
            kind = kinds.candidate(relpath)
            read = read_head_at(path, self.max_bytes)
            if read is None:
                return self.decider.decide(candidate)  # which says why
        data, mtime_ns, ended = read
        found = read_fast_utf8(data, _MARKS) if tags is None else self.judge.read(tags)
        outcome = self._plain(relpath, data, found, mtime_ns, ended)
        # The decision's to say what else the page is, read again; and whether a candidate its
        # head leaves listed is the page it may be (a head's skip comes first, as there).
        if outcome is None or (kind is not None and outcome.skip is None):
            outcome = self.decider.decided(Page(relpath, path, mtime_ns), None, False)
        return outcome

    def _elsewhere(self, relpath: str) -> object:
        """Whether the page at `relpath` is decided elsewhere: a path rule leaves it out (what it
        says), or it is named as a generator's own page (`kinds.candidate`); else None."""
        return self.check(relpath) or kinds.candidate(relpath)

    def _plain(self, relpath: str, data: bytes, read: list[Read] | None, mtime_ns: int, ended: bool) -> Outcome | None:
        """The outcome of the page `relpath`, whose head is `data` (`ended`: all of it; `read`: its
        deciding tags, read, where a fast scan could), where it is plain; else None."""
        seconds = mtime_ns // 1_000_000_000
        loc = self.base_url + url_path(relpath, self.style)
        if len(loc) > MAX_URL_LENGTH or not 0 <= seconds < _LAST_SECOND:
            return None
        own = self.own_base + loc[len(self.base_url) :]  # the page's URL as a head's URLs are normalized
        notes: list[tuple[NoteKind, str]] = []
        alternates: tuple[Alternate, ...] = ()
        said = canonical_said(read, loc) if read is not None and ended else None  # most heads: no more
        if said is None or said[0] not in (None, own):  # the head says more than the page's own canonical
            head = facts_of_read(read, data, loc)
            if not ended or head.problem is not None:
                return None
            if head.noindex or head.refresh is not None or head.canonical not in (None, own):
                page = Page(relpath, self.root + relpath, mtime_ns)
                skip, loc = self.decider.head_skip(page, loc, head, self._note(notes))
                if skip is not None:
                    return _new(Outcome, (relpath, None, None, skip, None, (), None, (), None))
            if self.hreflang and (head.alternates or head.hreflang_conflicts):
                page = Page(relpath, self.root + relpath, mtime_ns)
                # The page's <html lang>, which a cluster without the page names it in (as `facts_of_head`).
                alternates = self.decider.cluster(page, loc, head, self._note(notes), lambda: html_lang(data))
        row = dated_row(loc, seconds, utc_second_text(seconds, self.date_only), alternates)
        return _new(Outcome, (relpath, None, row, None, _SOURCE, (), None, tuple(notes), None))

    @staticmethod
    def _note(notes: list[tuple[NoteKind, str]]) -> Note:
        """What the decision notes, into `notes`."""
        return lambda kind, example: notes.append((kind, example))


def _noted(notes: list[tuple[int, NoteKind, str]], noted: list[_Noted]) -> None:
    """What the decision notes of each page a run listed (`noted`, then cleared), into its block's
    `notes`, in the decision's order: a canonical no file answers (`Decider.head_skip`), each
    language given two URLs, then a cluster that does not name the page (`Decider.cluster`)."""
    for at, relpath, canonical, conflicts, no_self in noted:
        if canonical is not None:
            notes.append((at, *missing_note(relpath, canonical)))
        notes += [(at, *conflict_note(relpath, language)) for language in conflicts or ()]
        if no_self:
            notes.append((at, NoteKind.HREFLANG_NO_SELF, display(relpath)))
    noted.clear()
