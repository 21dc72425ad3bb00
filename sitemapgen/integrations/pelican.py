"""The Pelican plugin: ``PLUGINS = ["sitemapgen.pelican"]`` in ``pelicanconf.py`` (the ``[pelican]`` extra).

A thin adapter over `build`: when Pelican has written the site (``finalized``), the
library runs on ``OUTPUT_PATH`` with ``SITEURL`` as the base URL and the
``SITEMAPGEN_*`` settings as options: each a key of ``sitemapgen.toml`` in
capitals (``SITEMAPGEN_EXCLUDE``, ``SITEMAPGEN_LASTMOD``; a table is a dict, an
array of tables a list of dicts), checked by sitemapgen itself as soon as Pelican
has read its settings (``initialized``), before it writes anything. An error is one
line through Pelican's logger (``sitemapgen: ...``), so ``pelican --fatal errors``
stops there with Pelican's own exit status, and no sitemap is written; warnings
are Pelican warnings.

Pelican says which file it writes each page from (``content_written``): an article
or a page is dated, for ``SITEMAPGEN_LASTMOD = ["git", ...]``, by its source file's
last commit; a page made of others (the index, a tag, category, author or archive
page, each page of a paginated one) by the newest commit among the sources of the
articles it shows. Drafts and hidden articles and pages (and those i18n_subsites
writes as such into a subsite) are never listed. Pelican runs of its own inside this
one (i18n_subsites' subsites, written under ``OUTPUT_PATH``) are listed in its one
index. That page -> source map is left in ``OUTPUT_PATH`` (`pagesources`), where
``sitemapgen check`` finds it. The content store of ``lastmod`` content is kept in
Pelican's ``CACHE_PATH`` by default, which ``pelican --autoreload`` does not watch.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pelican import Pelican
from pelican.contents import Content
from pelican.plugins import signals

from sitemapgen._types import Notice
from sitemapgen.commands.build import build
from sitemapgen.commands.report import BuildResult
from sitemapgen.config.loader import config_from_values
from sitemapgen.config.settings import Config
from sitemapgen.config.words import GitPages, LastmodSource
from sitemapgen.errors import SitemapgenError, os_failure
from sitemapgen.integrations.options import Spelling
from sitemapgen.lastmod.pagesources import write_page_sources
from sitemapgen.protocol import LANGUAGE
from sitemapgen.skips import Skip, SkipReason

logger = logging.getLogger(__name__)

PREFIX = "SITEMAPGEN_"
SOURCE = "pelicanconf.py"
SPELLING = Spelling(PREFIX, SOURCE, "plugin", upper=True)
#: The statuses of what Pelican writes but links from nowhere: never listed.
UNPUBLISHED = frozenset({"draft", "hidden"})


@dataclass(frozen=True, slots=True)
class Written:
    """One page Pelican wrote: the source file it was made from (an article, a page), or those
    of the articles it shows (a page made of others), and its status where it is unpublished."""

    source: str | None = None
    shows: tuple[str, ...] | None = None
    unpublished: str | None = None
    lang: str = ""
    translations: tuple[tuple[str, str], ...] = ()  # (language, source file) of each of its translations
    date: datetime | None = None  # its metadata's modified, else date; a list's, the newest it shows


@dataclass(slots=True)
class Runs:
    """The Pelican runs under way, outermost first (i18n_subsites runs each subsite inside the
    main site's run, writing under its output), and the pages they wrote, by their absolute path."""

    running: list[Pelican] = field(default_factory=list)
    written: dict[str, Written] = field(default_factory=dict)
    refused: weakref.WeakSet[Pelican] = field(default_factory=weakref.WeakSet)  # bad settings, said once

    def nested(self, pelican: Pelican) -> bool:
        """Whether `pelican` runs inside the outermost run: it started while that one ran, and
        writes inside its output. (A run that failed midway is still in `running`: a run of the
        same output, or of one elsewhere, is no nested run.)"""
        if not self.running:
            return False
        outer: str = os.path.abspath(self.running[0].output_path)
        inner: str = os.path.abspath(pelican.output_path)
        return inner.startswith(os.path.join(outer, ""))


RUNS = Runs()


def register() -> None:
    """Pelican's entry point for a plugin (connecting a receiver twice connects it once)."""
    signals.initialized.connect(initialized)
    signals.get_generators.connect(run_started)
    signals.content_written.connect(content_written)
    signals.finalized.connect(finalized)


def initialized(pelican: Pelican) -> None:
    """Check the settings as soon as Pelican has read them, before it writes a page: a bad one is
    one error line (under ``--fatal errors`` Pelican stops there). A subsite's are the main site's."""
    if not RUNS.nested(pelican):
        _config(pelican)


def run_started(pelican: Pelican) -> None:
    """A run begins (Pelican asks for its generators): one inside another is noted; any other
    starts afresh, forgetting the pages of the last run (and what a run that failed midway left)."""
    if not RUNS.nested(pelican):
        RUNS.running.clear()
        RUNS.written.clear()
    RUNS.running.append(pelican)


def content_written(path: str, context: Mapping[str, Any]) -> None:
    RUNS.written[os.path.abspath(path)] = written(context)


def written(context: Mapping[str, Any]) -> Written:
    """What the page Pelican rendered with `context` was made from."""
    content = context.get("article", context.get("page"))
    if isinstance(content, Content):
        status = getattr(content, "status", None)
        translations = tuple(sorted((str(t.lang), t.source_path) for t in getattr(content, "translations", ())))
        unpublished = status if status in UNPUBLISHED else None
        return Written(
            source=content.source_path,
            unpublished=unpublished,
            lang=str(content.lang),
            translations=translations,
            date=_date(content),
        )
    # One page of a paginated list shows its page of it; a list of its own (a period archive) is
    # its `dates`, and any other page (tags.html, a TEMPLATE_PAGES page) has the site's in its context.
    shown = context.get("articles_page")
    articles = shown.object_list if shown is not None else context.get("dates", context.get("articles"))
    if articles is None:
        return Written()  # no articles in its context: made from none
    newest = max(filter(None, map(_date, articles)), default=None)
    return Written(shows=tuple(sorted({article.source_path for article in articles})), date=newest)


def _date(content: Content) -> datetime | None:
    """The content's ``modified`` metadata, else its ``date`` (Pelican gives them its ``TIMEZONE``);
    None where it has neither, or one with no time zone."""
    when = getattr(content, "modified", None) or getattr(content, "date", None)
    return when if isinstance(when, datetime) and when.tzinfo is not None else None


def finalized(pelican: Pelican) -> None:
    """Pelican has written the site: the sitemaps, unless this run is inside another (a subsite),
    whose pages the outer run lists."""
    if pelican in RUNS.running:
        del RUNS.running[RUNS.running.index(pelican) :]
    if RUNS.running:
        return
    pages, RUNS.written = RUNS.written, {}
    settings = _config(pelican)
    if settings is None:
        return
    try:
        said = f"sitemapgen: {_build(pelican, settings, pages).summary()}"
    except SitemapgenError as e:
        said = f"sitemapgen: {e}"  # said below, out of the except (see `_config`)
    else:
        logger.info("%s", said)
        return
    logger.error("%s", said)


def _config(pelican: Pelican) -> Config | None:
    """The settings as sitemapgen's `Config`; None (said once, as an error) where one is bad, or
    (a warning) where no base URL is set. Said outside the ``except``: under ``--fatal`` Pelican's
    logger raises, and its traceback must not carry ours as its context."""
    problem: str | None = None
    try:
        return config_of(pelican.settings)
    except SitemapgenError as e:
        problem = f"sitemapgen: {e}"
    except _NoBaseURL:
        pass
    if pelican not in RUNS.refused:
        RUNS.refused.add(pelican)
        if problem is not None:
            logger.error("%s", problem)
        else:
            logger.warning(
                "sitemapgen: no sitemap written: set SITEURL to the site's absolute URL (or %sBASE_URL) in %s",
                PREFIX,
                SOURCE,
            )
    return None


class _NoBaseURL(Exception):
    """No ``SITEMAPGEN_BASE_URL``, and ``SITEURL`` is no absolute URL."""


def config_of(settings: Mapping[str, Any]) -> Config:
    """The `Config` of Pelican's `settings`: ``SITEMAPGEN_*`` as the keys of ``sitemapgen.toml``,
    ``SITEURL`` as the base URL, the content store in ``CACHE_PATH``."""
    unknown = SPELLING.unknown(settings)
    if unknown is not None:
        raise unknown
    values = {key: value for name, value in settings.items() if (key := SPELLING.key(name)) is not None}
    if "base_url" not in values:
        site_url = str(settings.get("SITEURL") or "")
        if not site_url.startswith(("http://", "https://")):  # "" or "/blog" while developing
            raise _NoBaseURL
        values["base_url"] = site_url.rstrip("/") + "/"
    output = Path(settings["OUTPUT_PATH"])
    if "state_file" not in values:
        values["state_file"] = str(Path(settings["CACHE_PATH"], f"sitemapgen-state-{output.name}.sqlite"))
    return config_from_values(output, values, source=SOURCE, prefix=PREFIX, words=SPELLING.words)


def _build(pelican: Pelican, settings: Config, written: Mapping[str, Written]) -> BuildResult:
    output = os.path.abspath(pelican.output_path)
    listed: dict[str, Written] = {}  # by their path in the site: the articles and pages, and the pages made of them
    unpublished: dict[str, Skip] = {}
    for path, page in sorted(written.items()):
        relpath = os.path.relpath(path, output)
        if relpath.startswith(os.pardir + os.sep):
            continue  # written outside the site (a subsite given an OUTPUT_PATH of its own)
        relpath = relpath.replace(os.sep, "/")
        if page.unpublished is not None:
            unpublished[relpath] = Skip(relpath, SkipReason.UNPUBLISHED, f"Pelican's status {page.unpublished!r}")
        else:
            listed[relpath] = page
    sources = {relpath: page.source for relpath, page in listed.items() if page.source is not None}
    shows = {relpath: page.shows for relpath, page in listed.items() if page.shows is not None}
    pages = GitPages(Path(pelican.settings["PATH"]), sources, (), shows)
    cache = Path(pelican.settings["CACHE_PATH"])
    if LastmodSource.CONTENT in settings.lastmod and settings.state_path.parent == cache:
        try:
            cache.mkdir(parents=True, exist_ok=True)  # Pelican makes it only when it caches content
        except OSError as e:
            raise os_failure(cache, "create the directory", e) from None
    if LastmodSource.GIT in settings.lastmod:  # first: one that is not ours stops the build before it writes
        write_page_sources(settings.docroot, pages)
    clusters = hreflang_clusters(listed)
    dates = {relpath: page.date for relpath, page in listed.items() if page.date is not None}
    settings = dataclasses.replace(
        settings, git_pages=pages, not_documents=unpublished, hreflang_pages=clusters, page_dates=dates
    )
    return build(settings, on_warning=_warn)


def hreflang_clusters(published: Mapping[str, Written]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each listed article or page (of `published`) with a listed translation: (language, page) of each of its versions,
    itself included, from Pelican's translations (an i18n subsite's too), not the theme's links.
    Pelican's ``pt_BR`` is hreflang's ``pt-BR``; a language hreflang cannot name is left out."""
    page_of: dict[str, str] = {}
    for relpath, page in sorted(published.items()):
        if page.source is not None:
            page_of.setdefault(page.source, relpath)
    clusters: dict[str, tuple[tuple[str, str], ...]] = {}
    for relpath, page in published.items():
        versions = {(page.lang, relpath), *((lang, page_of[s]) for lang, s in page.translations if s in page_of)}
        cluster = tuple(sorted((lang.replace("_", "-"), other) for lang, other in versions))
        if len(cluster) > 1 and all(LANGUAGE.match(lang) for lang, _ in cluster):
            clusters[relpath] = cluster
    return clusters


def _warn(message: str) -> None:
    (logger.info if isinstance(message, Notice) else logger.warning)("sitemapgen: %s", message)
