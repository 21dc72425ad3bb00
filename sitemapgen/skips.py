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
    REDIRECT = "redirects"
    DIR_SYMLINK = "directory symlinks not followed"
    SYMLINK_OUTSIDE = "symlinks to outside the docroot"
    BROKEN_SYMLINK = "broken symlinks"
    NOT_A_FILE = "not regular files"
    UNREADABLE = "unreadable"
    URL_TOO_LONG = "URLs of 2,048 characters or more"
    DUPLICATE_URL = "duplicate URLs"
    ENTRY_TOO_LARGE = "entries larger than a sitemap"

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
    }
)

_SINGULAR = {
    SkipReason.REDIRECT: "redirect",
    SkipReason.EXCLUDED_DIR: "directory excluded by pattern",
    SkipReason.DIR_SYMLINK: "directory symlink not followed",
    SkipReason.SYMLINK_OUTSIDE: "symlink to outside the docroot",
    SkipReason.BROKEN_SYMLINK: "broken symlink",
    SkipReason.NOT_A_FILE: "not a regular file",
    SkipReason.URL_TOO_LONG: "URL of 2,048 characters or more",
    SkipReason.DUPLICATE_URL: "same URL as an earlier page",
    SkipReason.ENTRY_TOO_LARGE: "entry larger than max_bytes_per_sitemap allows",
}


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
