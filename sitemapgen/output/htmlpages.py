"""What the HTML sitemap's pages say (`output.htmlmap` writes them): plain static HTML5, no
script and no stylesheet but a few inline rules, readable without them and on a phone.

Each page has the site's name in its ``<title>`` and ``<h1>``, its language in ``<html lang>``
(English, the language of the words it adds: "Site map of", "also in", "Page 2 of 3"; each
title in another language carries its page's ``lang``, as the site's name does),
its place among the pages (``rel="prev"``/``"next"`` links in the head and at the top and the
end of the page), then the listed pages, grouped by section: the folder a page's URL is in at
the site's root (``/docs/``; the root's own pages under the site's name, as llms.txt groups
them). A section's index page heads its group; every other page is one item: a link by its
title (its URL where it has none), its lastmod's date as ``<time datetime>``, and the other
languages of its hreflang cluster as links with ``hreflang``. A group that goes on past a page
is headed again, "continued", on the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from html import escape
from typing import NamedTuple

from sitemapgen.protocol import LANGUAGE
from sitemapgen.urls import INDEX_NAMES

#: The language of the words a page of the map adds to the titles.
LANG = "en"
#: The most pages one HTML page links to (a page of about 200 KB).
MAX_LINKS = 1000
HTML_NAME = "sitemap.html"

_STYLE = (
    "body{font:1rem/1.5 system-ui,sans-serif;margin:0 auto;max-width:48rem;padding:1rem}"
    "ul{padding-left:1.25rem}li{margin:.35rem 0}a{color:#0b57d0;overflow-wrap:anywhere}"
    ".m{color:#4d4d4d;font-size:.875rem}nav{margin:1rem 0}"
)


def html_name(number: int) -> str:
    """``sitemap.html`` for the first page, ``sitemap-N.html`` after it."""
    return HTML_NAME if number == 1 else f"sitemap-{number}.html"


class Link(NamedTuple):
    """One listed page as a link shows it."""

    url: str
    title: str | None
    lang: str | None  # its <html lang>, given to its title where it is not the map's (`LANG`)
    date: str | None  # YYYY-MM-DD, its lastmod's date as the sitemap writes it
    others: tuple[tuple[str, str], ...]  # (hreflang, href) of its cluster's other pages


class Site(NamedTuple):
    """What every page of the map says of the site."""

    home: str  # the base URL
    name: str
    lang: str | None  # the home page's, which the site's name is in
    pages: int  # how many HTML pages the map has
    links: int  # how many pages it lists


def section(url: str, home: str) -> str:
    """The section a page's URL is in: the folder at the site's root (``/docs/``), ``/`` at the root."""
    path = url[len(home) :] if url.startswith(home) else url
    folder, slash, _ = path.partition("/")
    return f"/{folder}/" if slash else "/"


def _is_index(url: str, home: str, name: str) -> bool:
    """Whether `url` is the index page of the section `name`."""
    folder = home + name[1:]
    return url == folder or (url.startswith(folder) and url[len(folder) :] in INDEX_NAMES)


def _lang(lang: str | None) -> str:
    """The ``lang`` attribute of words in `lang`, where it is a language and not the map's."""
    return f' lang="{lang}"' if lang and LANGUAGE.match(lang) and lang.lower() != LANG else ""


def _item(link: Link) -> str:
    """A page's link, date and other languages (the inside of its ``<li>`` or heading)."""
    lang = _lang(link.lang) if link.title else ""
    parts = [f'<a href="{escape(link.url)}"{lang}>{escape(link.title or link.url, quote=False)}</a>']
    if link.date is not None:
        parts.append(f' <time class="m" datetime="{link.date}">{link.date}</time>')
    if link.others:
        langs = ", ".join(
            f'<a href="{escape(href)}" hreflang="{escape(hreflang)}">{escape(hreflang, quote=False)}</a>'
            for hreflang, href in link.others
        )
        parts.append(f' <span class="m">also in {langs}</span>')
    return "".join(parts)


def _nav(number: int, site: Site, where: str) -> str:
    """The links to the previous and the next page, at the page's top or end (`where`): each nav
    a name of its own, for a screen reader's list of landmarks."""
    if site.pages == 1:
        return ""
    links = []
    if number > 1:
        links.append(f'<a href="{html_name(number - 1)}" rel="prev">Previous page</a>')
    links.append(f"Page {number} of {site.pages}")
    if number < site.pages:
        links.append(f'<a href="{html_name(number + 1)}" rel="next">Next page</a>')
    return f'<nav aria-label="Pages of the site map, {where}">{" · ".join(links)}</nav>\n'


def _head(number: int, site: Site) -> str:
    name = escape(site.name, quote=False)
    named = f"<span{_lang(site.lang)}>{name}</span>" if _lang(site.lang) else name
    of = f" (page {number} of {site.pages})" if site.pages > 1 else ""
    rels = "".join(
        f'<link rel="{rel}" href="{html_name(n)}">\n'
        for rel, n in (("prev", number - 1), ("next", number + 1))
        if 1 <= n <= site.pages
    )
    count = f"{site.links:,} page{'s' if site.links != 1 else ''}"
    return (
        f'<!DOCTYPE html>\n<html lang="{LANG}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Site map of {name}{of}</title>\n{rels}<style>{_STYLE}</style>\n</head>\n<body>\n<main>\n"
        f'<h1>Site map of <a href="{escape(site.home)}">{named}</a></h1>\n'
        f"<p>Every page of the site that search engines are asked to index: {count}.</p>\n" + _nav(number, site, "top")
    )


def page(number: int, links: Iterable[Link], site: Site, *, continued: str | None) -> Iterator[str]:
    """The HTML of page `number`, listing `links` (the map's next `MAX_LINKS` or fewer) in order;
    `continued` is the section the page before ended in, whose group goes on here."""
    yield _head(number, site)
    current: str | None = None
    listing = False  # a <ul> is open
    for link in links:
        name = section(link.url, site.home)
        if name != current:
            if current is not None:
                yield "</ul>\n</section>\n" if listing else "</section>\n"
            again, current, listing = name == continued and current is None, name, False
            if not again and _is_index(link.url, site.home, name):
                yield f"<section>\n<h2>{_item(link)}</h2>\n"
                continue
            shown = escape(site.name if name == "/" else name, quote=False)
            yield f"<section>\n<h2>{shown}{' (continued)' if again else ''}</h2>\n"
        if not listing:
            yield "<ul>\n"
            listing = True
        yield f"<li>{_item(link)}</li>\n"
    if current is not None:
        yield "</ul>\n</section>\n" if listing else "</section>\n"
    yield _nav(number, site, "end") + "</main>\n</body>\n</html>\n"
