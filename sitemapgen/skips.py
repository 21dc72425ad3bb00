"""Why a file is not listed: the reasons, as data and as words for the user.

Every stage that can leave a page out (the walk, the per-path rules, the
page's head, the entry-size limit) says so with a `Skip`, never by raising, so
one odd file never stops a build and every command reports it the same way.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class SkipReason(enum.Enum):
    """Why a file or directory was not listed; the value reads in a summary (a count of several)."""

    EXCLUDED = "excluded by pattern"
    EXCLUDED_DIR = "directories excluded by pattern"
    NOINDEX = "noindex"
    CANONICAL = "canonical elsewhere"
    CANONICAL_OTHER_HOST = "canonical on another host"
    ROBOTS_DISALLOWED = "disallowed by robots.txt"
    FRAGMENT = "not pages (no doctype, html, head, body or title)"
    REDIRECT = "redirects"
    DIR_SYMLINK = "directory symlinks not followed"
    SYMLINK_OUTSIDE = "symlinks to outside the docroot"
    BROKEN_SYMLINK = "broken symlinks"
    SYMLINK_LOOP = "symlink loops"
    SYMLINK_TOO_DEEP = "symlink chains too long to follow"
    NOT_A_FILE = "not regular files"
    UNREADABLE = "unreadable"
    URL_TOO_LONG = "URLs of 2,048 characters or more"
    DUPLICATE_URL = "duplicate URLs"
    ENTRY_TOO_LARGE = "entries larger than a sitemap"
    HOST_REDIRECT = "redirected by the host's rules"
    HOST_NOINDEX = "noindex in the host's headers"
    HOST_NOT_SERVED = "not served by the host under a URL of their own"
    #: Pages a site generator makes that are no document of the site: what the generator knows
    #: (the plugins), or what the page itself says (see `pages.kinds`).
    NOT_FOUND_PAGE = "not-found pages"
    SEARCH_PAGE = "search pages"
    THEME_PAGE = "theme pages that are no document"
    UNPUBLISHED = "drafts and hidden pages"  # the generator publishes them at no URL a reader is led to

    @property
    def singular(self) -> str:
        """The reason for one file, as a warning or a count of 1 states it."""
        return _SINGULAR.get(self, self.value)

    def counted(self, n: int) -> str:
        """``3 broken symlinks``, ``1 broken symlink``."""
        return f"{n:,} {self.singular if n == 1 else self.value}"

    @property
    def warns(self) -> bool:
        """Whether the user should hear about each such file, not just a count."""
        return self not in _QUIET


#: Skips that are the user's own intent (patterns, noindex, canonical, redirect
#: stubs) are only counted; the others are problems worth a line each.
_QUIET = frozenset(
    {
        SkipReason.EXCLUDED,
        SkipReason.EXCLUDED_DIR,
        SkipReason.DIR_SYMLINK,
        SkipReason.NOINDEX,
        SkipReason.CANONICAL,
        SkipReason.REDIRECT,
        # Counted, and said once for the whole build with an example (see `pipeline.Tally`).
        SkipReason.CANONICAL_OTHER_HOST,
        SkipReason.FRAGMENT,
        SkipReason.ROBOTS_DISALLOWED,  # the site's own robots.txt: its intent, counted
        SkipReason.HOST_REDIRECT,  # the host's own files: their intent, counted (explain names the rule)
        SkipReason.HOST_NOINDEX,
        SkipReason.NOT_FOUND_PAGE,  # the generator's own pages: counted (explain says what told)
        SkipReason.SEARCH_PAGE,
        SkipReason.THEME_PAGE,
        SkipReason.UNPUBLISHED,
    }
)

_SINGULAR = {
    SkipReason.REDIRECT: "redirect",
    SkipReason.FRAGMENT: "not a page (no doctype, html, head, body or title)",
    SkipReason.EXCLUDED_DIR: "directory excluded by pattern",
    SkipReason.DIR_SYMLINK: "directory symlink not followed",
    SkipReason.SYMLINK_OUTSIDE: "symlink to outside the docroot",
    SkipReason.BROKEN_SYMLINK: "broken symlink",
    SkipReason.SYMLINK_LOOP: "symlink loop",
    SkipReason.SYMLINK_TOO_DEEP: "symlink chain too long to follow",
    SkipReason.NOT_A_FILE: "not a regular file",
    SkipReason.URL_TOO_LONG: "URL of 2,048 characters or more",
    SkipReason.DUPLICATE_URL: "same URL as an earlier page",
    SkipReason.ENTRY_TOO_LARGE: "entry larger than max_bytes_per_sitemap allows",
    SkipReason.HOST_NOT_SERVED: "not served by the host under a URL of its own",
    SkipReason.NOT_FOUND_PAGE: "not-found page",
    SkipReason.SEARCH_PAGE: "search page",
    SkipReason.THEME_PAGE: "theme page that is no document",
    SkipReason.UNPUBLISHED: "draft or hidden page",
}


class NoteKind(enum.Enum):
    """Something said of listed pages that is counted and said once for the whole build,
    with an example, rather than once a page (a site's generator does it on every page)."""

    #: Search engines ignore a canonical that answers 404 (Sphinx 7's dirhtml names ``/api.html``).
    CANONICAL_MISSING = "canonical names a URL no file here answers, so it is ignored; each listed at its own URL"
    #: A theme that writes a link of the page's own language to every page of it (Zensical).
    HREFLANG_CONFLICT = "hreflang gives one language two URLs or more: that language's links dropped"
    #: Google asks each URL of a cluster to name every version, itself included.
    HREFLANG_SELF_ADDED = "hreflang links do not name the page itself: added, in its <html lang>"
    HREFLANG_NO_SELF = (
        "hreflang links do not name the page itself, and no <html lang> says its language"
        " (or they give it to another URL): kept as the head gives them"
    )

    def counted(self, n: int, example: str) -> str:
        """``12 pages: <what>; e.g. api/index.html names https://example.org/api.html``."""
        return f"{n:,} page{'s' * (n != 1)}: {self.value}; e.g. {example}"


def conflict_note(relpath: str, language: str) -> tuple[NoteKind, str]:
    """The note of the page at `relpath`, whose head gives `language` (folded) two URLs or more."""
    return NoteKind.HREFLANG_CONFLICT, f"{display(relpath)} names {language!r} more than once"


def missing_note(relpath: str, canonical: str) -> tuple[NoteKind, str]:
    """The note of the page at `relpath`, whose `canonical` no file answers."""
    return NoteKind.CANONICAL_MISSING, f"{display(relpath)} names {canonical}"


@dataclass(frozen=True, slots=True)
class Skip:
    """A file or directory (`relpath` ending in ``/``) that was passed over, and why."""

    relpath: str
    reason: SkipReason
    detail: str = ""


def display(relpath: str) -> str:
    """A path as the user would type it, on one line: undecodable bytes and control
    characters (a newline is a legal file name character) shown as escapes."""
    text = relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def skip_warning(item: Skip) -> str | None:
    """The warning a skip deserves, or None for the ones the user asked for (patterns, noindex...)."""
    if not item.reason.warns:
        return None
    detail = f" ({display(item.detail)})" if item.detail else ""
    return f"{display(item.relpath)}: skipped, {item.reason.singular}{detail}"


def plural(n: int, word: str) -> str:
    """``1 sitemap``, ``3 sitemaps``, ``1,000 pages``."""
    return f"{n:,} {word}{'s' * (n != 1)}"
