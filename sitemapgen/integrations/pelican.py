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
from pathlib import Path
from typing import Any

from pelican import Pelican
from pelican.plugins import signals

from sitemapgen._types import Notice
from sitemapgen.commands.build import build
from sitemapgen.commands.report import BuildResult
from sitemapgen.config.settings import Config
from sitemapgen.config.words import GitPages, LastmodSource, SiteFacts
from sitemapgen.errors import SitemapgenError, os_failure
from sitemapgen.integrations.pelican_site import (
    PREFIX,
    SOURCE,
    NoBaseURL,
    Written,
    config_of,
    hreflang_clusters,
    site_of,
    written,
)
from sitemapgen.lastmod.pagesources import write_page_sources

logger = logging.getLogger(__name__)


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
    except NoBaseURL:
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


def _build(pelican: Pelican, settings: Config, written: Mapping[str, Written]) -> BuildResult:
    site = site_of(written, os.path.abspath(pelican.output_path))
    pages = GitPages(Path(pelican.settings["PATH"]), site.sources, (), site.shows)
    cache = Path(pelican.settings["CACHE_PATH"])
    if LastmodSource.CONTENT in settings.lastmod and settings.state_path.parent == cache:
        try:
            cache.mkdir(parents=True, exist_ok=True)  # Pelican makes it only when it caches content
        except OSError as e:
            raise os_failure(cache, "create the directory", e) from None
    if LastmodSource.GIT in settings.lastmod:  # first: one that is not ours stops the build before it writes
        write_page_sources(settings.docroot, pages)
    settings = dataclasses.replace(
        settings,
        git_pages=pages,
        not_documents=site.unpublished,
        site_facts=SiteFacts(hreflang_clusters(site.listed), site.dates),
    )
    return build(settings, on_warning=_warn)


def _warn(message: str) -> None:
    (logger.info if isinstance(message, Notice) else logger.warning)("sitemapgen: %s", message)
