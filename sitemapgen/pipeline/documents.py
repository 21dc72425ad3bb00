"""Documents: files other than pages (PDFs, data sheets) that the config's `documents`
patterns name, listed under their own path.

A document is never read as HTML: it has no head, so no noindex, canonical, refresh or
hreflang of its own, and lastmod 'meta' passes it on. What decides about a page's path
decides about a document's too: the exclude patterns and robots.txt (`pathrules`), the
file itself (symlinks, FIFOs), the static host (its redirect or its ``X-Robots-Tag:
noindex`` for the path), the URL's length; then it is dated by the lastmod chain (the
content source hashes its bytes as they are), and given its priority, changefreq and
section by path, as a page is.

Its URL is its exact path, whatever the URL style: ``manual.pdf`` is ``/manual.pdf``,
never ``/manual``. None of this runs unless `documents` names a pattern: without one, the
walk drops every file that is not a page unseen, as it always has.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from urllib.parse import unquote

import pathspec

from sitemapgen.config.settings import Config
from sitemapgen.config.words import LastmodSource
from sitemapgen.deploy.manifest import MANIFEST_NAME
from sitemapgen.entry import Entry, row_of
from sitemapgen.hosts.base import Host
from sitemapgen.hosts.load import TOP_FILES
from sitemapgen.lastmod.pagesources import SOURCES_NAME
from sitemapgen.pages.walk import Candidate, page_at
from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.protocol import LLMS_NAME, MAX_URL_LENGTH, ROBOTS_FILE
from sitemapgen.skips import Skip, SkipReason, display
from sitemapgen.urls import encoded_path, is_page_name

#: A sitemap or index, anywhere (this tool's, a generator's, another build's), a sitemap's
#: stylesheet (``stylesheet = true`` writes sitemap.xsl) or a text sitemap (``text_sitemap = true``
#: writes sitemap.txt, sitemap-2.txt, ...): never a document.
SITEMAP_NAME = re.compile(r"sitemap[\w.-]*\.(?:xml(?:\.gz)?|xsl)|sitemap(?:-[0-9]+)?\.txt", re.IGNORECASE)
#: Files at the docroot's top that speak to crawlers or to the host, not to readers (llms.txt:
#: to language models; ``llms_txt = true`` writes it).
_TOP_FILES = frozenset({ROBOTS_FILE, "_headers", "_redirects", LLMS_NAME, *TOP_FILES.values()})
#: Files sitemapgen leaves beside the sitemaps for its own next run, or for `check`.
_OWN_FILES = frozenset({MANIFEST_NAME, SOURCES_NAME})


class DocumentPatterns:
    """The config's `documents` patterns: which files (not pages) are documents."""

    def __init__(self, config: Config) -> None:
        self.patterns = config.documents
        self.spec = pathspec.GitIgnoreSpec.from_lines(self.patterns)
        self.top_files = _TOP_FILES | ({f"{config.indexnow_key}.txt"} if config.indexnow_key else set())
        self.included = _included_here(config)

    def matches(self, relpath: str) -> bool:
        """Whether the file at `relpath` is a document: a pattern names it, and it is no page
        and none of the files that are never documents (`never`)."""
        return not is_page_name(relpath) and self.spec.match_file(relpath) and self.never(relpath) is None

    def never(self, relpath: str) -> str | None:
        """Why the file at `relpath` is never a document, whatever the patterns say, or None."""
        name = relpath.rpartition("/")[2]
        if SITEMAP_NAME.fullmatch(name):
            return "a sitemap's stylesheet" if name.lower().endswith(".xsl") else "a sitemap file"
        if relpath in self.top_files:
            return "a file for crawlers or the host, not for readers"
        if name in _OWN_FILES:
            return "a file sitemapgen keeps for itself"
        if relpath in self.included:
            return "a sitemap the index includes (include)"
        return None

    def pattern_of(self, relpath: str) -> str | None:
        """The pattern that names `relpath` (the last that matches decides), or None."""
        result = self.spec.check_file(relpath)
        return self.patterns[result.index] if result.include and result.index is not None else None


def _included_here(config: Config) -> frozenset[str]:
    """The docroot's files that are included sitemaps (``include``), whatever their names: each
    one's file, and the file its URL names below the base URL."""
    found = set()
    docroot = os.path.realpath(config.docroot)
    for include in config.include:
        if include.file is not None:
            relpath = os.path.relpath(os.path.realpath(include.file), docroot)
            if not relpath.startswith(".."):
                found.add(relpath.replace(os.sep, "/"))
        if include.url.startswith(config.base_url):
            found.add(unquote(include.url[len(config.base_url) :]))
    return frozenset(found)


def only_meta_warning(config: Config) -> str | None:
    """The warning for a lastmod chain that cannot date a document: 'meta' alone reads a head."""
    if not config.documents or any(source is not LastmodSource.META for source in config.lastmod):
        return None
    return (
        "lastmod 'meta' reads page heads, and documents have none: documents are listed without a lastmod;"
        ' add a source after it, e.g. lastmod = ["meta", "mtime"]'
    )


def place_document(host: Host, relpath: str) -> tuple[Skip | None, str]:
    """The document's URL path (encoded, relative to the base URL) if `host` serves it there,
    with no noindex; else a `Skip` naming what decided. A document has one URL: its path."""
    path = "/" + relpath
    answer = host.respond(path)
    if answer.status == 200 and answer.file == relpath and not answer.fallback:
        noindex = host.noindex(path, answer)
        if noindex is None:
            return None, encoded_path(relpath)
        value, origin = noindex
        return Skip(relpath, SkipReason.HOST_NOINDEX, f"{path} answers with X-Robots-Tag: {value}; {origin}"), ""
    if 300 <= answer.status < 400:
        rule = f"; {answer.rule}" if answer.rule is not None else ""
        return Skip(relpath, SkipReason.HOST_REDIRECT, f"{path} answers {answer.status} to {answer.location}{rule}"), ""
    if answer.status == 200 and answer.file is not None:
        return Skip(relpath, SkipReason.HOST_NOT_SERVED, f"{path} answers with {display(answer.file)}"), ""
    return Skip(relpath, SkipReason.HOST_NOT_SERVED, f"{path} answers {answer.status}"), ""


class DocumentDecider:
    """The decision for every candidate of a build with documents: a page's is `Decider`'s,
    a document's is made here, with the same per-build state."""

    def __init__(self, decider: Decider, patterns: DocumentPatterns) -> None:
        self.decider = decider
        self.patterns = patterns

    def decide(self, candidate: Candidate, *, detail: bool = False) -> Outcome:
        relpath, is_link = candidate
        if is_page_name(relpath):
            return self.decider.decide(candidate, detail=detail)
        decider = self.decider
        skip = decider.path_rules.check(relpath)
        if skip is not None:
            return Outcome(relpath, skip=skip)
        skips: list[Skip] = []
        page = page_at(
            decider.root + relpath, relpath, is_link=is_link, real_root=decider.real_root, on_skip=skips.append
        )
        if page is None:
            return Outcome(relpath, skip=skips[0])
        url = encoded_path(relpath)
        if decider.host is not None:
            skip, url = place_document(decider.host, relpath)
            if skip is not None:
                return Outcome(relpath, skip=skip)
        config = decider.config
        loc = config.base_url + url
        if len(loc) > MAX_URL_LENGTH:
            return Outcome(relpath, skip=Skip(relpath, SkipReason.URL_TOO_LONG, f"{len(loc):,} characters"))
        warnings: list[str] = []
        lastmod, source = decider.lastmod.date_document(page, warnings.append)
        return self._listed(relpath, loc, lastmod, source, warnings=warnings, detail=detail)

    def _listed(
        self,
        relpath: str,
        loc: str,
        lastmod: datetime | bytes | None,
        source: str | None,
        *,
        warnings: list[str],
        detail: bool,
    ) -> Outcome:
        """The listed document's outcome, as `Decider` gives a page's."""
        decider = self.decider
        facts = decider.rules.facts_for(relpath)
        section = next((name for spec, name in decider.sections if spec.match_file(relpath)), "")
        fmt = decider.config.lastmod_format
        if isinstance(lastmod, bytes):
            entry = Entry(loc, None, facts.changefreq, facts.priority, (), section)
            return Outcome(relpath, entry, lastmod_source=source, warnings=tuple(warnings), key=lastmod)
        entry = Entry(loc, lastmod, facts.changefreq, facts.priority, (), section)
        if warnings or detail:
            return Outcome(relpath, entry, row_of(entry, fmt), lastmod_source=source, warnings=tuple(warnings))
        return Outcome(relpath, row=row_of(entry, fmt), lastmod_source=source)
