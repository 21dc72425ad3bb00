"""The other builds' sitemaps a build lists in its index (``[[include]]``), read and checked.

Each is read as the previous deploy is (`source`: the same size limits, gzip bounds and
hostile-input rules), before anything is written, from its URL or from the local file
served there, and checked:

- it is a sitemap, or an index whose sitemaps (each inside the index's folder) are read in
  its place: an index never lists an index, so ours lists them;
- each sitemap lists only URLs inside its own folder (the protocol's location rule), at most
  50,000 of them;
- none of them is one of this tool's own files at the base URL.

Its entry in our index carries the newest lastmod it lists, none when it lists none; never
the build's time. A URL that two of them list is warned about once, with the count; so is a
URL our pages list too (`Included.rows`). One that cannot be read fails the build (exit 3 for a
machine's or network's failure, 2 for its content), unless it is optional: then a warning,
and the entries our published index gave it last time are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.config.include import Include, origin
from sitemapgen.deploy.source import Place, SourceError, directory, entries
from sitemapgen.entry import Block, Row
from sitemapgen.errors import EnvironmentFailure, SitemapgenError
from sitemapgen.hrefs import normalize_url, resolve_href
from sitemapgen.protocol import MAX_BYTES_PER_SITEMAP, MAX_SITEMAPS_PER_INDEX, MAX_URLS_PER_SITEMAP
from sitemapgen.skips import plural

if TYPE_CHECKING:
    from sitemapgen.deploy.changes import Changes

#: A lastmod as the index schema takes it (xsd:date, or xsd:dateTime with seconds and an offset).
_XSD_LASTMOD = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))?")
#: A W3C Datetime (the protocol's lastmod): also hours and minutes alone.
_W3C_LASTMOD = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?")
#: A '.' or '..' segment in a URL's path: resolved, it may lead out of the folder it seems in.
_DOT_SEGMENT = re.compile(r"(?:^|/)\.\.?(?:/|$)")
LABEL = "include"
#: Why a URL an included sitemap listed in the previous deploy is not listed now.
GONE_FROM_INCLUDED = "no longer in its included sitemap"


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


class IncludeError(SitemapgenError):
    """An included sitemap that cannot be listed: its content, or where it is (exit 2)."""


@dataclass(frozen=True, slots=True)
class Child:
    """One sitemap our index lists for another build: its URL, its newest lastmod, its URLs."""

    url: str
    lastmod: str | None
    urls: int


@dataclass(slots=True)
class Included:
    """Every included sitemap read (in the order given), the URLs they list, and the entries
    kept from the last build for the optional ones that could not be read."""

    children: list[Child] = field(default_factory=list)
    urls: dict[str, tuple[str | None, str]] = field(default_factory=dict)  # URL -> lastmod, the sitemap
    kept: list[tuple[str, str | None]] = field(default_factory=list)
    twice: int = 0  # URLs a second sitemap lists too
    example: tuple[str, str, str] = ("", "", "")  # one of them, the first sitemap, the second
    overlap: int = 0  # our pages' URLs they list too
    overlap_example: str = ""

    @property
    def entries(self) -> list[tuple[str, str | None]]:
        """What our index lists for them, (URL, lastmod), in order."""
        return [*((c.url, c.lastmod) for c in self.children), *self.kept]

    def rows(self, rows: Iterator[Row | Block]) -> Iterator[Row | Block]:
        """Our pages' rows, each looked up among the included URLs as it passes (`overlap`)."""
        urls = self.urls
        for row in rows:
            for loc in row.locs if isinstance(row, Block) else (row.loc,):
                if loc in urls:
                    self.overlap += 1
                    self.overlap_example = self.overlap_example or loc
            yield row

    def settle(self, changes: Changes, base_url: str) -> None:
        """Once every URL of this build is told to `changes`: say why a URL the previous deploy
        listed in an included sitemap's folder is gone (no longer listed there), and count the
        URLs in the folders of the entries kept for unreadable ones as still listed, as the kept
        entries list them. A folder at or above the base URL, where our pages are too, is left to
        our pages' reasons."""
        read = {directory(c.url) for c in self.children}
        kept = {directory(loc) for loc, _ in self.kept}
        own = [f for f in read | kept if f != base_url and not base_url.startswith(f)]
        if not own:
            return
        for loc, lastmod in changes.previous.listed():
            folder = next((f for f in own if loc.startswith(f)), None)
            if folder is None or loc in self.urls:
                continue
            if folder in kept:
                changes.see(loc, lastmod)
            else:
                changes.left_out(loc, GONE_FROM_INCLUDED)

    def overlap_warning(self) -> str | None:
        """The warning for our pages' URLs that an included sitemap lists too, if any."""
        if not self.overlap:
            return None
        return (
            f"{plural(self.overlap, 'URL')} of our pages {_are(self.overlap)} listed by an included sitemap too, e.g."
            f" {self.overlap_example} (in {self.urls[self.overlap_example][1]}): a search engine counts each once;"
            " exclude those pages here, or leave them out there"
        )


@dataclass(frozen=True, slots=True)
class _Site:
    """What every included sitemap is checked against: the base URL, and which names there are ours."""

    base_url: str
    own_name: Callable[[str], bool]

    def check(self, url: str, where: str | None = None) -> None:
        """Refuse `url` (listed by `where`, or included itself) on another site, or where our own files go."""
        said = f"{where}: lists {url}, which is" if where else f"{url}: is"
        if origin(url) != origin(self.base_url):
            raise IncludeError(f"{said} not on the base URL's scheme and host (an index lists its own site's sitemaps)")
        if directory(url) == self.base_url and self.own_name(url[len(self.base_url) :]):
            raise IncludeError(f"{said} where sitemapgen writes its own files (include another build's sitemaps)")


def _newest(lastmod: str, newest: tuple[datetime, str] | None) -> tuple[datetime, str] | None:
    """The newer of `newest` and `lastmod` (a W3C Datetime), with the text our index writes for it;
    None where `lastmod` has the form but names no day or time (2025-02-30, 25:00)."""
    try:
        when = datetime.fromisoformat(lastmod.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # a date alone: its midnight, for comparing only
    if newest is not None and when <= newest[0]:
        return newest
    return when, lastmod if _XSD_LASTMOD.fullmatch(lastmod) else when.isoformat()


def _read_urlset(
    url: str, listed: Iterator[tuple[str, str | None]], where: str, included: Included, warn: Warn
) -> Child:
    folder = directory(url)
    count = bad = 0
    newest: tuple[datetime, str] | None = None
    example = ""
    for loc, lastmod in listed:
        count += 1
        if count > MAX_URLS_PER_SITEMAP:
            raise IncludeError(f"{where}: lists more than {MAX_URLS_PER_SITEMAP:,} URLs, the protocol's limit")
        if _DOT_SEGMENT.search(loc.partition("?")[0].partition("#")[0][len(folder) :]):
            raise IncludeError(
                f"{where}: lists {loc}, whose path has a '.' or '..' segment: resolved, it may lie outside"
                f" its own folder {folder} (a sitemap lists each URL as it is served)"
            )
        if not loc.startswith(folder) and not normalize_url(loc).startswith(folder):
            raise IncludeError(
                f"{where}: lists {loc or 'a <url> without a <loc>'}, outside its own folder {folder}"
                " (a sitemap lists only URLs at or below where it is served)"
            )
        if lastmod is not None and _W3C_LASTMOD.fullmatch(lastmod) and (dated := _newest(lastmod, newest)):
            newest = dated
        elif lastmod is not None:
            bad += 1
            example = example or lastmod
        known = included.urls.setdefault(loc, (lastmod, url))
        if known[1] != url:
            included.twice += 1
            included.example = included.example if included.twice > 1 else (loc, known[1], url)
    if not count:
        raise IncludeError(f"{where}: lists no URLs (a sitemap lists one at least)")
    if bad:
        warn(
            f"{where}: {plural(bad, 'lastmod')} {_are(bad)} not a W3C Datetime (e.g. {example!r}),"
            " so they do not date its entry in the index"
        )
    return Child(url, newest[1] if newest is not None else None, count)


def _read_one(include: Include, site: _Site, included: Included, warn: Warn) -> None:
    """Read `include` into `included`: a sitemap, or an index's sitemaps."""
    site.check(include.url)
    known = {child.url for child in included.children}
    if include.url in known:
        raise IncludeError(f"{include.url}: is listed already, by an index included before it")
    place = Place(str(include.file) if include.file is not None else include.url)
    where = place.index_name
    data = place.read_index()
    if data is None:
        raise IncludeError(f"{where}: not found")
    kind, listed = entries(data, where)
    if kind == "urlset":
        included.children.append(_read_urlset(include.url, listed, where, included, warn))
        return
    folder = directory(include.url)
    first = len(included.children)
    for n, (written, _) in enumerate(listed, 1):
        if n > MAX_SITEMAPS_PER_INDEX:
            raise IncludeError(f"{where}: lists more than {MAX_SITEMAPS_PER_INDEX:,} sitemaps, the protocol's limit")
        loc = resolve_href(written, written) if written.startswith(("http://", "https://")) else None
        if loc is None:
            raise IncludeError(f"{where}: lists {written or 'a <sitemap> without a <loc>'}, which is not a URL")
        site.check(loc, where)
        if loc in known:
            raise IncludeError(f"{where}: lists {loc}, which the index lists already")
        known.add(loc)
        if not loc.startswith(folder) or loc == folder:
            raise IncludeError(f"{where}: lists {loc}, outside its own folder {folder}")
        relative = loc[len(folder) :]
        sitemap = place.read_beside(relative, MAX_BYTES_PER_SITEMAP)
        if sitemap is None:
            raise IncludeError(f"{place.where(relative)}: not found, though {where} lists it")
        kind, urls = entries(sitemap, place.where(relative))
        if kind != "urlset":
            raise IncludeError(f"{place.where(relative)}: an index inside an index (an index lists sitemaps only)")
        included.children.append(_read_urlset(loc, urls, place.where(relative), included, warn))
    if len(included.children) == first:
        raise IncludeError(f"{where}: lists no sitemaps (an index lists one at least)")


def _kept(
    include: Include, published: Sequence[tuple[str, str | None]], taken: set[str]
) -> list[tuple[str, str | None]]:
    """The entries our published index gave `include` last time: its own URL, or, for an index,
    the sitemaps in its folder that no other include lists now."""
    folder = directory(include.url)
    return [
        (loc, lastmod)
        for loc, lastmod in published
        if loc == include.url or (loc.startswith(folder) and loc not in taken)
    ]


def read_included(
    includes: Sequence[Include],
    base_url: str,
    *,
    own_name: Callable[[str], bool],
    published: Sequence[tuple[str, str | None]],
    warn: Warn,
) -> Included:
    """Read and check every include, in order (see the module's text). `own_name` says which
    file names at the base URL are this tool's own; `published` is what our published index
    lists for other builds: an optional include that cannot be read keeps its entries from there."""
    site = _Site(base_url, own_name)
    included = Included()
    missing: list[tuple[Include, str]] = []
    for include in includes:
        before = (len(included.children), len(included.urls), included.twice, included.example)
        try:
            _read_one(include, site, included, warn)
        except (SourceError, IncludeError) as e:
            if not include.optional:
                failure = EnvironmentFailure if isinstance(e, SourceError) and e.machine else IncludeError
                raise failure(f"{e} ({LABEL})") from None
            missing.append((include, str(e)))
            _forget(included, *before)
    taken = {c.url for c in included.children}
    for include, why in missing:
        kept = _kept(include, published, taken)
        taken.update(loc for loc, _ in kept)
        included.kept.extend(kept)
        what = f"kept the {len(kept):,} entries the last build gave it" if len(kept) > 1 else "kept its last entry"
        warn(f"{why} ({LABEL}, optional): not read, so the index {what if kept else 'does not list it this time'}")
    _warn_twice(included, warn)
    return included


def _forget(included: Included, children: int, urls: int, twice: int, example: tuple[str, str, str]) -> None:
    """Take back what an include that failed half-way (an index's second sitemap) had added."""
    del included.children[children:]
    for loc in list(islice(included.urls, urls, None)):
        del included.urls[loc]
    included.twice, included.example = twice, example


def _warn_twice(included: Included, warn: Warn) -> None:
    """One warning for the URLs two included sitemaps list, with the count and one example."""
    if included.twice:
        loc, first, second = included.example
        warn(
            f"{plural(included.twice, 'URL')} {_are(included.twice)} listed by two included sitemaps,"
            f" e.g. {loc} (in {first} and {second}):"
            " a search engine counts each once; list each URL in one sitemap"
        )
