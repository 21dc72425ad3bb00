"""The Sphinx extension: ``extensions = ["sitemapgen.sphinx"]`` in ``conf.py`` (the ``[sphinx]`` extra).

A thin adapter over `build`: when an ``html`` or ``dirhtml`` build finishes
without error, the library runs on its output directory with ``html_baseurl``
as the base URL and the ``sitemapgen_*`` values of ``conf.py`` as options (the
keys of ``sitemapgen.toml``: ``sitemapgen_exclude``, ``sitemapgen_lastmod``...).
A ``sitemapgen_*`` name that is none of them is refused, with the close one if
there is one, and so is a bad value: as soon as Sphinx has read ``conf.py``, before it reads a
source (`config_inited`). Every line it logs starts with ``sitemapgen:``. An error is one
such line at Sphinx's error level, and sphinx-build exits non-zero (2 for bad
input, 3 when the machine failed): raising would print Sphinx's crash report
(versions, traceback, "please open an issue"), which is for bugs. What a
healthy first build says (starting the content store) is logged at info level,
so ``sphinx-build -W`` passes. For ``sitemapgen_lastmod = ["git", ...]`` each
page is dated by the source file it was made from (``env.doc2path``), and a page
made from every source (the general index, a domain's index such as
``py-modindex``, the search page) by the newest of their commits: git runs in the
source directory, wherever the output directory is. That map is left in the
output directory (`pagesources`), where ``sitemapgen check`` finds it.

The content store of ``sitemapgen_lastmod = ["content"]`` is kept by default in
Sphinx's doctree directory (``-d``), with Sphinx's own state between builds:
sphinx-autobuild and other watchers of the source tree ignore it there (beside
the output directory, ``docs/_build`` is often inside the watched ``docs``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Set
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.config import Config as SphinxConfig
from sphinx.util import logging

from sitemapgen._types import Notice
from sitemapgen._version import __version__
from sitemapgen.commands.build import build
from sitemapgen.commands.report import BuildResult
from sitemapgen.config.loader import FILE_KEYS, config_from_values
from sitemapgen.config.words import GitPages, LastmodSource
from sitemapgen.errors import EnvironmentFailure, Refusal, SitemapgenError
from sitemapgen.integrations.options import Spelling
from sitemapgen.lastmod.pagesources import write_page_sources
from sitemapgen.skips import Skip, SkipReason

logger = logging.getLogger(__name__)

#: The builders whose output is a site of HTML pages.
BUILDERS = ("html", "dirhtml")
PREFIX = "sitemapgen_"
SOURCE = "conf.py"
SPELLING = Spelling(PREFIX, SOURCE, "extension")
#: The templates of the pages Sphinx makes from every document: the general index (whole or
#: split by letter), a domain's index (``py-modindex``), the search page.
EVERY_SOURCE_TEMPLATES = frozenset(
    {"genindex.html", "genindex-split.html", "genindex-single.html", "domainindex.html", "search.html"}
)


def setup(app: Sphinx) -> dict[str, Any]:
    for key in FILE_KEYS:
        app.add_config_value(PREFIX + key, None, "", types=())
    every: set[str] = set()  # this build's pages made from every document, by page name
    app.connect("config-inited", config_inited)
    app.connect("html-page-context", functools.partial(page_rendered, every=every))
    app.connect("build-finished", functools.partial(build_finished, every=every))
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}


def config_inited(app: Sphinx, config: SphinxConfig) -> None:
    """Check the options as soon as Sphinx has read ``conf.py``, before it reads a source: a bad
    one is its one error line and exit 2, before a minute of building, as a bad command line is
    (`SystemExit`, as argparse's; an exception would print Sphinx's crash report, for bugs). The
    base URL's own check waits for an HTML build, which alone needs it."""
    try:
        values = settings_of(config)
        base_url = values.get("base_url") or config.html_baseurl
        if base_url:
            config_from_values(Path(app.outdir), {**values, "base_url": base_url}, source=SOURCE, prefix=PREFIX)
    except SitemapgenError as e:
        logger.error("sitemapgen: %s", e)
        raise SystemExit(exit_code(e)) from None


def page_rendered(
    app: Sphinx, pagename: str, templatename: str, context: object, doctree: object, *, every: set[str]
) -> None:
    """Note a page made from every document (written in the main process, at the build's end)."""
    if templatename in EVERY_SOURCE_TEMPLATES and pagename not in app.env.found_docs:
        every.add(pagename)


def build_finished(app: Sphinx, exception: Exception | None, *, every: set[str]) -> None:
    if exception is not None or app.builder.name not in BUILDERS:
        return
    try:
        result = _build(app, every)
    except SitemapgenError as e:
        logger.error("sitemapgen: %s", e)
        app.statuscode = exit_code(e)
        return
    if result is not None:
        logger.info("sitemapgen: %s", result.summary())


def exit_code(error: SitemapgenError) -> int:
    """sphinx-build's exit status for `error`, the CLI's: 3 the machine, 1 a refusal, 2 the input."""
    if isinstance(error, EnvironmentFailure):
        return 3
    return 1 if isinstance(error, Refusal) else 2


def _build(app: Sphinx, every: set[str]) -> BuildResult | None:
    values = settings_of(app.config)
    if "base_url" not in values:
        if not app.config.html_baseurl:
            logger.warning("sitemapgen: no sitemap written: set html_baseurl (or sitemapgen_base_url) in %s", SOURCE)
            return None
        values["base_url"] = app.config.html_baseurl
    if "state_file" not in values:
        values["state_file"] = str(Path(app.doctreedir, f"sitemapgen-state-{Path(app.outdir).name}.sqlite"))
    settings = config_from_values(Path(app.outdir), values, source=SOURCE, prefix=PREFIX)
    pages = GitPages(Path(app.srcdir), pages_and_sources(app), tuple(sorted(_outfiles(app, every).values())))
    if LastmodSource.GIT in settings.lastmod:  # first: one that is not ours stops the build before it writes
        write_page_sources(settings.docroot, pages)
    return build(dataclasses.replace(settings, git_pages=pages, not_documents=extra_pages(app)), on_warning=_warn)


def pages_and_sources(app: Sphinx) -> dict[str, str]:
    """Each document's page, by its path in the output directory (``usage.html``; dirhtml:
    ``usage/index.html``): the source file it was made from. Pages made from no document
    (``genindex``, ``search``) have none."""
    return {page: str(app.env.doc2path(docname)) for docname, page in _outfiles(app, app.env.found_docs).items()}


def _outfiles(app: Sphinx, names: Set[str]) -> dict[str, str]:
    """Each of the pages `names` (Sphinx's page names, sorted): its path in the output
    directory (``usage.html``; dirhtml: ``usage/index.html``)."""
    builder = app.builder
    if not isinstance(builder, StandaloneHTMLBuilder):  # html and dirhtml are
        return {}
    outdir = os.path.realpath(app.outdir)
    paths = {name: os.path.relpath(os.path.realpath(builder.get_outfilename(name)), outdir) for name in sorted(names)}
    return {name: path.replace(os.sep, "/") for name, path in paths.items()}


#: sphinx-notfound-page, whose ``notfound_pagename`` page is the site's not-found page.
NOTFOUND = "notfound.extension"


def extra_pages(app: Sphinx) -> dict[str, Skip]:
    """The pages the builder writes that are no document of the site, by their path in the
    output directory: its search page (when it writes one, and no document is named so) and
    sphinx-notfound-page's not-found page (made from no document, or from the ``404`` document
    the extension then turns into its not-found page). The builder's other extra pages stay
    listed: ``genindex`` and the domain indices (``py-modindex``) index the documents, viewcode's
    ``_modules`` pages show their code, and ``html_additional_pages`` are the user's own."""
    builder = app.builder
    if not isinstance(builder, StandaloneHTMLBuilder):  # html and dirhtml are
        return {}
    made: dict[str, tuple[SkipReason, str]] = {}
    if builder.search and "search" not in app.env.found_docs:
        made["search"] = SkipReason.SEARCH_PAGE, "Sphinx's search page"
    if NOTFOUND in app.extensions:
        made[app.config.notfound_pagename] = SkipReason.NOT_FOUND_PAGE, f"{NOTFOUND}'s not-found page"
    outdir = os.path.realpath(app.outdir)
    pages: dict[str, Skip] = {}
    for pagename, (reason, detail) in made.items():
        page = os.path.relpath(os.path.realpath(builder.get_outfilename(pagename)), outdir).replace(os.sep, "/")
        pages[page] = Skip(page, reason, detail)
    return pages


def _warn(message: str) -> None:
    (logger.info if isinstance(message, Notice) else logger.warning)("sitemapgen: %s", message)


def settings_of(config: SphinxConfig) -> dict[str, Any]:
    """The ``sitemapgen_*`` values set in `config`, by their ``sitemapgen.toml`` key; a
    ``sitemapgen_*`` name in ``conf.py`` that is no setting is a `ConfigError`."""
    raw: dict[str, Any] = getattr(config, "_raw_config", {})  # conf.py's names: Sphinx keeps unknown ones only here
    unknown = SPELLING.unknown(raw)
    if unknown is not None:
        raise unknown
    return {key: value for key in FILE_KEYS if (value := getattr(config, PREFIX + key)) is not None}
