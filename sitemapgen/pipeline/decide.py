"""The per-page decision: one candidate in, its fate out, the same for every command.

Everything that can leave a page out is decided here, in this order: the
per-path rules (patterns, robots.txt), the file itself (symlinks, FIFOs), the
static host (`hosts`: the URL form it serves, its redirects and noindex
headers), the URL's length, the head (noindex, canonical, redirect), and, in
the main process, the entry's size. A listed page gets its lastmod, rules,
alternates and section, and its ``<url>`` element formatted as the writer
writes it. `build`, `check`, `list`, `explain`, `iter_entries` and
`iter_listing` all take page fates from here, through `pipeline.flow.Pipeline`.

`decide` runs in worker processes, so its result must be cheap to send: an
`Outcome`, a NamedTuple, crosses as a plain tuple (`pack`), and most listed pages in a `Block` of
rows (`pipeline.blocks`). A page listed with a warning or a note crosses with its row alone;
its `Entry` comes too where the caller wants the details (`list`, `explain`) or
`settle` must date it. `settle` runs in the main process, in walk order: it dates
'content' pages from the store and applies the size limit.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit

import pathspec

from sitemapgen._types import Warn
from sitemapgen.config.settings import Config
from sitemapgen.entry import Alternate, Block, Entry, Labels, Row, entry_room, row_of
from sitemapgen.hrefs import normalize_url, resolve_href
from sitemapgen.lastmod.chain import LastmodChain
from sitemapgen.pages import kinds
from sitemapgen.pages.head import read_head
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Candidate, Page, page_at
from sitemapgen.pipeline.forms import Forms, given_clusters
from sitemapgen.pipeline.pathrules import PathRules
from sitemapgen.pipeline.rules import RuleSet
from sitemapgen.protocol import LANGUAGE, MAX_URL_LENGTH
from sitemapgen.skips import NoteKind, Skip, SkipReason, conflict_note, display, missing_note
from sitemapgen.urls import page_url, served_files
from sitemapgen.util.parallel import Wire
from sitemapgen.util.safeio import open_regular_stat, read_page

if TYPE_CHECKING:
    from sitemapgen.deploy.previous import Previous
    from sitemapgen.hosts.base import Host
    from sitemapgen.pipeline.images import PageImages

#: Says something of a listed page that the build counts and says once (`NoteKind`, example).
Note = Callable[[NoteKind, str], None]
#: The language of the link a cluster names its default with (`hreflang_x_default`), folded.
X_DEFAULT = "x-default"


class Outcome(NamedTuple):
    """One page's fate: listed (`row`, and `entry` where asked for) or left out (`skip`), and
    what was said of it. The one shape a fate has, from the worker that decides it to the
    writer: a NamedTuple, because one crosses from a worker for every page."""

    relpath: str
    entry: Entry | None = None  # sent where the caller wants the details, or `settle` dates it
    row: Row | None = None  # the entry as the writer writes it
    skip: Skip | None = None
    lastmod_source: str | None = None  # a `LastmodSource` value
    warnings: tuple[str, ...] = ()
    key: bytes | None = None  # the lastmod source's key (content fingerprint), dated by `settle`
    notes: tuple[tuple[NoteKind, str], ...] = ()  # said once for the build, counted (see `pipeline`)
    #: A listed page's title and description (either may be None), only where an output wants them
    #: (`Config.wants_labels`); else None.
    labels: Labels | None = None

    @property
    def listed(self) -> bool:
        return self.skip is None


_new = tuple.__new__  # rebuilds a NamedTuple from its fields in C, as `Row.__reduce__` does
#: An `Outcome` as it crosses: its fields, its row's as a plain tuple.
_Packed = tuple[
    str,
    Entry | None,
    tuple[object, ...] | None,  # the row's fields
    Skip | None,
    str | None,
    tuple[str, ...],
    bytes | None,
    tuple[tuple[NoteKind, str], ...],
    Labels | None,
]


def pack(outcomes: list[Outcome | Block]) -> list[_Packed | Block]:
    """Outcomes as plain tuples, which pickle in C: an `Outcome` and its `Row` would each call a
    Python `__reduce__` for every page. Blocks among them (`blocks.Blocking`) stay as they are."""
    return [
        o if isinstance(o, Block) else (*o[:2], None if (r := o.row) is None else tuple(r), *o[3:]) for o in outcomes
    ]


def unpack(packed: list[_Packed | Block]) -> list[Outcome | Block]:
    """The outcomes `pack` packed, and the blocks among them as they are."""
    new = _new
    return [
        item
        if isinstance(item, Block)
        else new(Outcome, (*item[:2], None if item[2] is None else new(Row, item[2]), *item[3:]))
        for item in packed
    ]


#: How outcomes cross from the workers (`util.parallel.ordered_map`) where none is gathered in a
#: block (`blocks.Blocking.wire` where they are).
OUTCOME_WIRE: Wire[Outcome | Block] = Wire(pack, unpack)


class Decider:
    """Per-build state (rules, lastmod sources, path rules) and the per-page decision."""

    def __init__(
        self, config: Config, *, warn: Warn, dry_run: bool, previous: Previous | None = None, host: Host | None = None
    ) -> None:
        self.config = config
        self.host = host
        self.root = os.path.join(config.docroot, "")  # with a trailing separator, to prefix relpaths
        self.real_root = os.path.realpath(config.docroot)
        # A page URL is the base URL and an encoded path that normalize_url leaves as it
        # is, so its normal form is the base URL's and the same path (tested in test_decide).
        self.own_base = normalize_url(config.base_url)
        self.own_origin = (urlsplit(self.own_base).scheme, urlsplit(self.own_base).netloc)
        self.path_rules = PathRules(config)
        self.rules = RuleSet(config.rules)
        self.sections = [
            (pathspec.GitIgnoreSpec.from_lines([section.pattern]), section.name)
            for section in reversed(config.sitemaps)
        ]
        self.room = entry_room(config.limits.max_bytes)
        self.forms = Forms(config, host)  # the page an hreflang href names in another form
        self.given = given_clusters(config, self.own_base)  # a plugin's clusters, for its heads' links
        self.images: PageImages | None = None
        if config.images:
            from sitemapgen.pipeline.images import PageImages  # only then: its patterns compile on import

            self.images = PageImages(config)
        self.labelled = config.wants_labels  # read each page's title and description (llms.txt)
        self.lastmod = LastmodChain(config, warn, dry_run, previous)  # last: it may open the store

    def decide(self, candidate: Candidate, *, detail: bool = False) -> Outcome:
        """One candidate's fate, as plain data (see the module's docstring)."""
        relpath, is_link = candidate
        skip = self.path_rules.check(relpath)
        if skip is not None:
            return Outcome(relpath, skip=skip)
        path = self.root + relpath
        fd: int | None = None
        if self.config.read_heads and not is_link:
            # One open for the page's status and its head (a stat less a page). What cannot be
            # opened so is left to page_at, and then to the head's reading, to say why, as before.
            try:
                fd, status = open_regular_stat(path)
            except OSError:
                pass
        try:
            if fd is not None:
                return self.decided(Page(relpath, path, status.st_mtime_ns), fd, detail)
            skips: list[Skip] = []
            page = page_at(path, relpath, is_link=is_link, real_root=self.real_root, on_skip=skips.append)
            if page is None:
                return Outcome(relpath, skip=skips[0])
            return self.decided(page, None, detail)
        finally:
            if fd is not None:
                os.close(fd)

    def decided(self, page: Page, fd: int | None, detail: bool) -> Outcome:
        """`decide`, from the page on (the path rules passed); `fd` is the page, open, or None."""
        relpath = page.relpath
        url: str | None = None
        if self.host is not None:
            skip, url = self.host.place(relpath)
            if skip is not None:
                return Outcome(relpath, skip=skip)
        warnings: list[str] = []
        notes: list[tuple[NoteKind, str]] = []
        entry, skip, key, source, head = self._entry(page, url, warnings.append, lambda *n: notes.append(n), fd=fd)
        if entry is None:
            return Outcome(relpath, skip=skip, warnings=tuple(warnings))
        labels = (head.title, head.description, head.lang) if self.labelled and head is not None else None
        if key is not None:
            return Outcome(relpath, entry, None, None, source, tuple(warnings), key, tuple(notes), labels)
        row = row_of(entry, self.config.lastmod_format, labels)
        if warnings or detail:
            return Outcome(relpath, entry, row, None, source, tuple(warnings), None, tuple(notes), labels)
        return _new(Outcome, (relpath, None, row, None, source, (), None, tuple(notes), labels))  # C, as _unpack

    def _entry(
        self, page: Page, url: str | None, warn: Warn, note: Note, *, fd: int | None = None
    ) -> tuple[Entry | None, Skip | None, bytes | None, str | None, HeadFacts | None]:
        """The page's entry (or skip), its lastmod's key and source, and its head (None where not
        read); `url` is the path
        the host serves it under (relative to the base URL), None for a plain server; `fd`
        the page, open, to read its head from (or None: opened here)."""
        config = self.config
        loc = config.base_url + url if url is not None else page_url(config.base_url, page.relpath, config.url_style)
        if len(loc) > MAX_URL_LENGTH:
            return None, Skip(page.relpath, SkipReason.URL_TOO_LONG, f"{len(loc):,} characters"), None, None, None
        head: HeadFacts | None = None
        served = loc  # the URL the page is fetched at, which its relative image URLs are resolved against
        if config.read_heads:
            try:
                head = read_head(page.path, loc, config.head_max_bytes, fd=fd, labels=self.labelled)
            except OSError as e:
                return None, Skip(page.relpath, SkipReason.UNREADABLE, e.strerror or str(e)), None, None, None
            if head.problem:
                warn(f"{display(page.relpath)}: {head.problem}")
            skip, loc = self.head_skip(page, loc, head, note)
            if skip is None and (kind := kinds.candidate(page.relpath)) is not None:
                skip = self._generator_page(page, kind, served, fd)
            if skip is not None:
                return None, skip, None, None, None
        lastmod, source = self.lastmod.date(page, head, warn)
        facts = self.rules.facts_for(page.relpath)
        alternates = self.cluster(page, loc, head, note) if head is not None and config.hreflang else ()
        section = (
            next((name for spec, name in self.sections if spec.match_file(page.relpath)), "") if self.sections else ""
        )
        images = () if self.images is None else self._images(page, served, fd, warn)
        if isinstance(lastmod, bytes):
            entry = Entry(loc, None, facts.changefreq, facts.priority, alternates, section, images)
            if images:
                entry = self._fitted(page, entry, warn)
            return entry, None, lastmod, source, head
        entry = Entry(loc, lastmod, facts.changefreq, facts.priority, alternates, section, images)
        if images:
            entry = self._fitted(page, entry, warn)
        return entry, None, None, source, head

    def _images(self, page: Page, served: str, fd: int | None, warn: Warn) -> tuple[str, ...]:
        """The images to list for `page`, fetched at `served` (config `images`: see `pipeline.images`)."""
        assert self.images is not None
        return self.images.of(page, self.own_base + served[len(self.config.base_url) :], fd, warn)

    def _fitted(self, page: Page, entry: Entry, warn: Warn) -> Entry:
        assert self.images is not None
        return self.images.fitted(page.relpath, entry, warn)

    def cluster(
        self, page: Page, loc: str, head: HeadFacts, note: Note, lang: Callable[[], str | None] | None = None
    ) -> tuple[Alternate, ...]:
        """The page's hreflang alternates as a cluster Google accepts: no language with two
        URLs (dropped, see `signals`), and the page itself among them, in its ``<html lang>``
        (`head.lang`, or what `lang` gives: asked only where the cluster does not name the page).
        Without one, or when the cluster gives that language to another URL, which version
        the page is cannot be told: the links are kept as the head gives them, and counted."""
        for conflict in head.hreflang_conflicts:
            note(*conflict_note(page.relpath, conflict))
        alternates = self.given.get(page.relpath, head.alternates)
        if not alternates:
            return ()
        own = self.own_base + loc[len(self.config.base_url) :]
        # A link to the page in another form (Docusaurus' /a for a/) is its own: the build lists it as `loc`.
        if not any(alternate.href == own for alternate in alternates) and not self.forms.names_page(
            alternates, page.relpath
        ):
            shown = display(page.relpath)
            language = head.lang if lang is None else lang()
            if (
                language is None
                or not LANGUAGE.match(language)
                or any(a.hreflang.lower() == language.lower() for a in alternates)
            ):
                note(NoteKind.HREFLANG_NO_SELF, shown)
            else:
                note(NoteKind.HREFLANG_SELF_ADDED, f"{shown} as {language!r}")
                alternates = (*alternates, Alternate(language, own))
        return self.with_x_default(alternates)

    def with_x_default(self, alternates: tuple[Alternate, ...]) -> tuple[Alternate, ...]:
        """`hreflang_x_default` added where the head names no x-default: that URL, or the
        cluster's link in that language (none in it: nothing added)."""
        choice = self.config.hreflang_x_default
        if choice is None or any(a.hreflang.lower() == X_DEFAULT for a in alternates):
            return alternates
        if "://" in choice:
            return (*alternates, Alternate(X_DEFAULT, choice))
        href = next((a.href for a in alternates if a.hreflang.lower() == choice.lower()), None)
        return alternates if href is None else (*alternates, Alternate(X_DEFAULT, href))

    def head_skip(self, page: Page, loc: str, head: HeadFacts, note: Note) -> tuple[Skip | None, str]:
        """What the head's signals mean for this page (not a page, noindex, redirect,
        canonical): a skip, or None and the URL to list it under."""
        config = self.config
        if head.fragment:
            return Skip(page.relpath, SkipReason.FRAGMENT), loc
        if config.check_noindex and head.noindex:
            return Skip(page.relpath, SkipReason.NOINDEX), loc
        if head.refresh is None and head.canonical is None:
            return None, loc
        own = self.own_base + loc[len(config.base_url) :]  # normalize_url(loc), without the work
        if config.check_redirects and head.refresh is not None and head.refresh != own:
            return Skip(page.relpath, SkipReason.REDIRECT, f"to {head.refresh}"), loc
        if config.check_canonical and head.canonical is not None and head.canonical != own:
            return self._canonical(page, loc, head.canonical, note)
        return None, loc

    def _generator_page(self, page: Page, kind: SkipReason, served: str, fd: int | None) -> Skip | None:
        """The skip of a page named as `kind` of page is (`pages.kinds.candidate`: a not-found or a
        search page) that says it is one: read again, as only such candidates are; else None."""
        try:
            data = read_page(page.path, fd, lambda fd: os.pread(fd, kinds.PROBE, 0))
        except OSError:
            return None  # the head was read: what cannot be read now is not a reason to leave it out
        if kind is SkipReason.NOT_FOUND_PAGE:
            title = kinds.says_not_found(data)
            return None if title is None else Skip(page.relpath, kind, f"its title says so: {title!r}")
        own = self.own_base + served[len(self.config.base_url) :]
        for action in kinds.form_targets(data):
            target = resolve_href(action, own)
            if target is not None and self._is_page(target.partition("#")[0].partition("?")[0], page.relpath):
                return Skip(
                    page.relpath, SkipReason.SEARCH_PAGE, f"its search form's action {action} is the page itself"
                )
        return None

    def _is_page(self, url: str, relpath: str) -> bool:
        """Whether `url` (absolute, normalized) is answered with the file `relpath`."""
        served = (
            served_files(url, self.own_base, self.config.url_style)
            if self.host is None
            else self.host.served(url, self.own_base)
        )
        return served is not None and relpath in (*served.direct, *served.redirected)

    def _canonical(self, page: Page, loc: str, canonical: str, note: Note) -> tuple[Skip | None, str]:
        """A canonical URL that is not the page's own, resolved against the docroot as a
        static server would answer it (see `urls.served_files`).

        Another origin: left out (for search engines the page is a duplicate of
        a page elsewhere). This page's own file, answered directly: listed under
        the URL it declares, the form a search engine takes (Sphinx gives
        ``index.html`` the canonical ``/index.html``). No file at all: a search
        engine ignores a canonical that answers 404, so the page is listed under
        its own URL, and the note says so. Another file: left out.
        """
        origin = urlsplit(canonical)
        if (origin.scheme, origin.netloc) != self.own_origin:
            return Skip(page.relpath, SkipReason.CANONICAL_OTHER_HOST, f"to {canonical}"), loc
        served = (
            served_files(canonical, self.own_base, self.config.url_style)
            if self.host is None
            else self.host.served(canonical, self.own_base)
        )
        if served is None:  # this host, outside the docroot's part of it
            return Skip(page.relpath, SkipReason.CANONICAL, f"to {canonical}"), loc
        direct = self._first_file(served.direct)
        if direct == page.relpath:
            declared = self.config.base_url + canonical[len(self.own_base) :]
            return None, declared if len(declared) <= MAX_URL_LENGTH else loc
        if direct is None:
            redirected = self._first_file(served.redirected)
            if redirected == page.relpath:
                return None, loc  # its own file after a redirect: listed under the URL that answers
            if redirected is None:
                note(*missing_note(page.relpath, canonical))
                return None, loc
        return Skip(page.relpath, SkipReason.CANONICAL, f"to {canonical}"), loc

    def _first_file(self, relpaths: tuple[str, ...]) -> str | None:
        """The first of `relpaths` that is a file in the docroot: the one a server answers with."""
        return next((relpath for relpath in relpaths if os.path.isfile(self.root + relpath)), None)

    def settle(self, outcome: Outcome) -> Outcome:
        """The last of the decision, in the main process and walk order: the lastmod a
        source dates here (the content store), then the entry-size limit."""
        row = outcome.row
        if outcome.key is not None:
            entry = outcome.entry
            assert entry is not None
            assert outcome.lastmod_source is not None
            lastmod = self.lastmod.finish(outcome.lastmod_source, entry.loc, outcome.key)
            entry = dataclasses.replace(entry, lastmod=lastmod)
            row = row_of(entry, self.config.lastmod_format, outcome.labels)
            outcome = outcome._replace(entry=entry, row=row)  # the key stays: the manifest records it
        if row is not None and len(row.xml) > self.room:
            return self._too_large(outcome.relpath, len(row.xml), outcome.warnings)
        return outcome

    def _too_large(self, relpath: str, size: int, warnings: tuple[str, ...]) -> Outcome:
        """The outcome of a page whose entry would not fit in a sitemap of the configured size."""
        return Outcome(relpath, skip=Skip(relpath, SkipReason.ENTRY_TOO_LARGE, f"{size:,} bytes"), warnings=warnings)

    def commit(self) -> None:
        self.lastmod.commit()

    def abort(self) -> None:
        self.lastmod.abort()
