"""The MkDocs plugin: ``plugins: [search, sitemapgen]`` in ``mkdocs.yml`` (the ``[mkdocs]`` extra).

A thin adapter over `build`: after MkDocs has written the site, the library
runs on ``site_dir`` with ``site_url`` as the base URL and the plugin's options,
which are the keys of ``sitemapgen.toml``. MkDocs' own ``sitemap.xml`` and
``sitemap.xml.gz`` (every page dated with the build's day) are never written:
the plugin takes ``sitemap.xml`` out of the theme's static templates, and the
raw template out of the files MkDocs copies. The options are checked when
MkDocs reads its config, before anything is built or cleaned: a bad or unknown
one fails the build with the tool's one-line message (MkDocs' own line for an
unknown option, a warning that says the same, is not added). Warnings go to
MkDocs' log, which prefixes them with ``sitemapgen:``; what a healthy first
build says (starting the content store) is logged at info level, so
``mkdocs build --strict`` passes. For ``lastmod: [git, ...]`` each page is dated
by the Markdown file it was made from, and a page the theme makes from every
page (its ``search.html``) by the newest of their commits: git runs in
``docs_dir``, wherever ``site_dir`` is. That map is left in ``site_dir``
(`pagesources`), where ``sitemapgen check`` finds it. Under ``mkdocs serve`` the site is built in a temporary
directory, so the content store beside it is the session's own: it is removed
when the session ends.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.base import ConfigErrors, ConfigWarnings
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import Files

from sitemapgen._types import Notice
from sitemapgen.commands.build import build
from sitemapgen.config.loader import FILE_KEYS, config_from_values
from sitemapgen.config.settings import Config
from sitemapgen.config.words import GitPages, LastmodSource
from sitemapgen.errors import SitemapgenError
from sitemapgen.lastmod.pagesources import write_page_sources
from sitemapgen.skips import Skip, SkipReason
from sitemapgen.urls import is_page_name

log = get_plugin_logger(__name__)

#: MkDocs' own sitemap template; the gzipped copy is written from it too.
MKDOCS_SITEMAP = "sitemap.xml"


class SitemapgenPlugin(BasePlugin[base.LegacyConfig]):  # type: ignore[no-untyped-call]  # mkdocs: untyped hook
    """Every key of ``sitemapgen.toml`` is an option, checked by sitemapgen itself."""

    config_scheme = tuple((key, c.Optional(c.Type((str, int, float, bool, list, dict)))) for key in FILE_KEYS)

    def __init__(self) -> None:
        super().__init__()
        self.unknown: dict[str, Any] = {}
        self.settings: Config | None = None
        self.sources: GitPages | None = None  # this build's pages and their Markdown files
        self.session_store: Path | None = None  # the content store of a `mkdocs serve` session
        self.documents: frozenset[str] = frozenset()  # the pages MkDocs writes from files (Files)

    def load_config(
        self, options: dict[str, Any], config_file_path: str | None = None
    ) -> tuple[ConfigErrors, ConfigWarnings]:
        """The options MkDocs knows are its to type-check; the others are kept for sitemapgen,
        which refuses them in `on_config` with the close name (MkDocs would only warn)."""
        self.unknown = {key: value for key, value in options.items() if key not in FILE_KEYS}
        known = {key: value for key, value in options.items() if key in FILE_KEYS}
        return super().load_config(known, config_file_path)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        config.theme.static_templates.discard(MKDOCS_SITEMAP)  # not rendered, so no .gz either
        values: dict[str, Any] = {key: value for key, value in self.config.items() if value is not None}
        values.update(self.unknown)
        if "base_url" not in values:
            if not config.site_url:
                raise PluginError("sitemapgen: set site_url in mkdocs.yml (or base_url in the plugin's options)")
            values["base_url"] = config.site_url
        try:
            self.settings = config_from_values(
                config.site_dir, values, source="mkdocs.yml", prefix="plugins.sitemapgen."
            )
        except SitemapgenError as e:
            raise PluginError(f"sitemapgen: {e}") from e
        if "state_file" not in values and _serve_dir(config.site_dir):
            self.session_store = self.settings.state_path
        return config

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files | None:
        """Not copied either: a theme file that is no longer a static template is copied raw."""
        template = files.get_file_from_path(MKDOCS_SITEMAP)
        docs = os.path.join(os.path.abspath(config.docs_dir), "")
        if template is not None and not (template.abs_src_path or docs).startswith(docs):
            files.remove(template)
        sources = pages_and_sources(files, docs)
        self.sources = GitPages(Path(docs), sources, made_from_every_page(config, sources))
        self.documents = frozenset(
            file.dest_uri for file in files if file.is_documentation_page() or file.is_static_page()
        )
        return files

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        assert self.settings is not None  # on_config ran: MkDocs calls it first
        try:
            if self.sources is not None and LastmodSource.GIT in self.settings.lastmod:
                write_page_sources(self.settings.docroot, self.sources)  # first: one not ours stops the build
            settings = dataclasses.replace(
                self.settings,
                git_pages=self.sources,
                not_documents=theme_pages(config.theme.static_templates, self.documents),
            )
            result = build(settings, on_warning=_warn)
        except SitemapgenError as e:
            raise PluginError(f"sitemapgen: {e}") from e
        log.info(result.summary())

    def on_shutdown(self) -> None:
        """The end of a `mkdocs serve` session: MkDocs removes its temporary site directory
        after this, and the content store the session kept beside it goes too. (Having this
        method, the plugin is kept across the session's rebuilds, by MkDocs' rule.)"""
        store, self.session_store = self.session_store, None
        if store is None:
            return
        for path in (store, store.with_name(store.name + "-journal")):  # the journal: a build stopped midway
            try:
                path.unlink(missing_ok=True)
            except OSError as e:
                log.warning(f"{path}: cannot remove this session's lastmod state store: {e.strerror or e}")


def _warn(message: str) -> None:
    (log.info if isinstance(message, Notice) else log.warning)(message)


def _serve_dir(site_dir: str) -> bool:
    """Whether `site_dir` is the temporary directory `mkdocs serve` builds in: MkDocs makes it
    with ``tempfile.mkdtemp(prefix="mkdocs_")``."""
    path = Path(site_dir)
    return path.name.startswith("mkdocs_") and path.parent == Path(tempfile.gettempdir())


#: What a static template of a theme is, by the name MkDocs writes it under: the not-found page
#: MkDocs names so, the search plugin's search page; any other is the theme's own page (a
#: ``sitemap.html``, a tag list), made from no document.
_STATIC_KINDS = {"404.html": SkipReason.NOT_FOUND_PAGE, "search.html": SkipReason.SEARCH_PAGE}


def theme_pages(static_templates: Iterable[str], documents: Collection[str]) -> dict[str, Skip]:
    """The pages MkDocs renders from the theme's static templates (each written under its own
    name), less any a documentation page of the same path overwrites: no document made them,
    so none is listed. (The user's ``extra_templates`` are the user's own pages: listed.)"""
    return {
        name: Skip(name, _STATIC_KINDS.get(name, SkipReason.THEME_PAGE), f"the theme's static template {name}")
        for name in sorted(static_templates)
        if is_page_name(name) and name not in documents
    }


def pages_and_sources(files: Files, docs: str) -> dict[str, str]:
    """Each page MkDocs writes from a file of `docs` (a Markdown page, or an HTML file copied
    as it is), by its path in the site: the file it was made from. Theme files, and files a
    plugin generated, have no source there."""
    return {
        file.dest_uri: file.abs_src_path
        for file in files
        if (file.is_documentation_page() or file.is_static_page())
        and file.generated_by is None
        and file.abs_src_path is not None
        and file.abs_src_path.startswith(docs)
    }


def made_from_every_page(config: MkDocsConfig, sources: Mapping[str, str]) -> tuple[str, ...]:
    """The pages the theme renders from its static templates (a search page, the not-found
    page), which are made from the whole site, not a file of `docs_dir`."""
    return tuple(sorted(t for t in config.theme.static_templates if t.endswith(".html") and t not in sources))
