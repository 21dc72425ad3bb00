"""What the Pelican plugin (`integrations.pelican`) makes of Pelican's settings and of the pages
Pelican writes, without Pelican itself: ``SITEMAPGEN_*`` settings as a `Config`, what each page
was made from (`Written`), which pages are listed, and the hreflang clusters of Pelican's
translations."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sitemapgen.config.loader import config_from_values
from sitemapgen.config.settings import Config
from sitemapgen.integrations.options import Spelling
from sitemapgen.protocol import LANGUAGE
from sitemapgen.skips import Skip, SkipReason

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


@dataclass(frozen=True, slots=True)
class Site:
    """The pages one run wrote, by their path in the site: those listed (articles, pages and the
    pages made of them), and the drafts and hidden ones, never listed."""

    listed: Mapping[str, Written]
    unpublished: Mapping[str, Skip]

    @property
    def sources(self) -> dict[str, str]:
        return {relpath: page.source for relpath, page in self.listed.items() if page.source is not None}

    @property
    def shows(self) -> dict[str, tuple[str, ...]]:
        return {relpath: page.shows for relpath, page in self.listed.items() if page.shows is not None}

    @property
    def dates(self) -> dict[str, datetime]:
        return {relpath: page.date for relpath, page in self.listed.items() if page.date is not None}


def site_of(written: Mapping[str, Written], output: str) -> Site:
    """The pages of `written` (by absolute path) in the site at `output`."""
    listed: dict[str, Written] = {}
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
    return Site(listed, unpublished)


def written(context: Mapping[str, Any]) -> Written:
    """What the page Pelican rendered with `context` was made from."""
    content = context.get("article", context.get("page"))  # Pelican's Article, Page or Draft
    if content is not None:
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


def _date(content: Any) -> datetime | None:
    """The content's ``modified`` metadata, else its ``date`` (Pelican gives them its ``TIMEZONE``);
    None where it has neither, or one with no time zone."""
    when = getattr(content, "modified", None) or getattr(content, "date", None)
    return when if isinstance(when, datetime) and when.tzinfo is not None else None


class NoBaseURL(Exception):
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
            raise NoBaseURL
        values["base_url"] = site_url.rstrip("/") + "/"
    output = Path(settings["OUTPUT_PATH"])
    if "state_file" not in values:
        values["state_file"] = str(Path(settings["CACHE_PATH"], f"sitemapgen-state-{output.name}.sqlite"))
    return config_from_values(output, values, source=SOURCE, prefix=PREFIX, words=SPELLING.words)


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
