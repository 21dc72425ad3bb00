"""What a page says it is when it is no document of the site: a not-found page, a search page.

A generator writes its not-found page where the host looks for one: ``404.html`` (GitHub
Pages, Netlify, Cloudflare, Vercel, Firebase; left out by name, see `walk.DEFAULT_EXCLUDE`) or
``404/index.html``, the other form Read the Docs looks for, which Sphinx's ``dirhtml`` with
sphinx-notfound-page, Gatsby and Next with trailing slashes write. A search page is
``search.html`` or ``search/`` (Sphinx, an MkDocs theme's search template, a Hugo theme's).
A real page may carry either name (a page on HTTP 404 errors, a guide to searching), so the
name only makes a page a candidate (`candidate`), and the page itself decides (`says`):

- a not-found page's ``<title>`` says the page is not found ("Page not found", "404: This page
  could not be found.");
- a search page holds a form that sends its query to the page itself (`form_targets`): the
  results are shown where the query goes. Every page of a theme may hold a search box; on any
  other page it sends the query elsewhere, to the search page.

Only candidates are read again (a page or two a site), up to `PROBE` bytes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from sitemapgen.skips import SkipReason
from sitemapgen.urls import INDEX_NAMES

#: How much of a candidate is read: its head and the start of its body, where a search form is.
PROBE = 262_144

_NOT_FOUND_DIR = "404"
_SEARCH = "search"
_SEARCH_NAMES = tuple(f"{_SEARCH}{suffix}" for suffix in (".html", ".htm"))
#: What the name of every page `candidate` answers for, or its folder's, starts with, in any case.
CANDIDATE_STARTS = (_NOT_FOUND_DIR, _SEARCH)


def candidate(relpath: str) -> SkipReason | None:
    """What a page at `relpath` may be by its place alone (it must still say so): a
    ``404/`` directory's index a not-found page, ``search.html`` or ``search/`` a search page."""
    parent, _, name = relpath.rpartition("/")
    folder = parent.rpartition("/")[2]
    if name.lower() in INDEX_NAMES:
        if folder == _NOT_FOUND_DIR:
            return SkipReason.NOT_FOUND_PAGE
        if folder.lower() == _SEARCH:
            return SkipReason.SEARCH_PAGE
    elif name.lower() in _SEARCH_NAMES:
        return SkipReason.SEARCH_PAGE
    return None


_TITLE = re.compile(rb"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
#: What a not-found page's title says, in the words of every generator's default one.
_NOT_FOUND = re.compile(r"\bnot\s+(?:be\s+)?found\b", re.IGNORECASE)


def title(data: bytes) -> str | None:
    """The text of the page's ``<title>``, white space folded; None without one."""
    match = _TITLE.search(data)
    if match is None:
        return None
    return " ".join(html.unescape(match.group(1).decode("utf-8", "replace")).split())


def says_not_found(data: bytes) -> str | None:
    """The title of a page whose ``<title>`` says it is not found, else None."""
    text = title(data)
    return text if text is not None and _NOT_FOUND.search(text) else None


_FORM = re.compile(rb"<form\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(rb"""\s([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


def form_targets(data: bytes) -> Iterator[str]:
    """The ``action`` of each form of the page that sends its query in the URL (GET, a search
    engine's way): the href as written, character references resolved. A form without an
    action is left out: it goes nowhere a theme chose (the page itself, by default)."""
    for form in _FORM.finditer(data):
        attrs = {
            match.group(1).lower(): (match.group(2) or match.group(3) or match.group(4) or b"")
            for match in _ATTR.finditer(form.group())
        }
        action = attrs.get(b"action")
        if action is None or attrs.get(b"method", b"get").strip().lower() != b"get":
            continue
        yield html.unescape(action.decode("utf-8", "replace")).strip()
