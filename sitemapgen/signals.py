"""What the tags of a page's head mean: one table, one entry per signal.

A signal is a kind of ``<meta>`` or ``<link>`` tag that can change whether or
how a page is listed (noindex, canonical, redirect, hreflang, a modified
time). Each entry names its tag, the words one of whose presence (lower-cased,
in the tag's text) is necessary for the tag to carry the signal, and the code
that reads it. Head reading (`head.py`) derives its prefilters from those
words: a head or tag holding none of them, and no ``&`` that could spell one,
is never parsed. So adding a signal is one `Signal` entry and its reader, and
the prefilters follow; `tests/test_signals.py` checks both directions (every
word reaches its reader; no reader acts on a tag without one).

Deciding what the facts mean for a page (is a canonical "elsewhere"?) is the
decision's job (`decide.py`), not this module's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .urls import resolve_href


@dataclass(frozen=True, slots=True)
class Alternate:
    """One ``<link rel="alternate" hreflang href>``: href absolute and percent-encoded."""

    hreflang: str
    href: str

    def __reduce__(self) -> tuple[type[Alternate], tuple[str, str]]:
        return Alternate, (self.hreflang, self.href)  # cheaper to send from workers (see Entry)


@dataclass(frozen=True, slots=True)
class HeadFacts:
    """The head's signals, as found; deciding what they mean is the caller's job."""

    noindex: bool = False
    canonical: str | None = None  # absolute, normalized
    canonical_conflict: bool = False  # several different canonicals: search engines ignore them all
    refresh: str | None = None  # absolute target of a meta refresh redirect
    alternates: tuple[Alternate, ...] = ()
    modified: str | None = None  # the raw date text of the first modified-time meta
    problem: str | None = None  # why the head may not have been read in full
    fragment: bool = False  # not a page: none of doctype, <html>, <head>, <body>, <title> (see head.is_fragment)
    hreflang_conflicts: tuple[str, ...] = ()  # languages given two URLs or more: dropped, all their links
    lang: str | None = None  # the <html lang> of a page with alternates (its own language in the cluster)


@dataclass(slots=True)
class _Found:
    """What the readers have found so far in one head (mutable while reading)."""

    page_url: str
    noindex: bool = False
    canonicals: list[str] = field(default_factory=list)
    refresh: str | None = None
    alternates: list[Alternate] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)  # (hreflang, href) of `alternates`
    modified: str | None = None
    problems: list[str] = field(default_factory=list)


Attrs = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Signal:
    """One kind of tag that can decide something, and how to read it."""

    name: str
    tag: str  # "meta" or "link"
    #: Lower-case words, one of which is in the text of every tag that carries this signal.
    words: tuple[str, ...]
    read: Callable[[Attrs, _Found], None]


def _tokens(value: str) -> set[str]:
    return set(value.replace(",", " ").lower().split())


def _has_token(value: str, token: str) -> bool:
    """Whether `token` (lower case) is one of `value`'s words: `token in _tokens(value)`, without
    making the set in the common cases (``rel="canonical"``; no such word at all)."""
    if value == token:
        return True
    return token in value.lower() and token in _tokens(value)


_ROBOTS_NAMES = frozenset({"robots", "googlebot"})


def _read_robots(attrs: Attrs, found: _Found) -> None:
    if attrs.get("name", "").strip().lower() in _ROBOTS_NAMES and _tokens(attrs.get("content", "")) & {
        "noindex",
        "none",
    }:
        found.noindex = True


_REFRESH_URL = re.compile(r"""^\s*(\d*\.?\d*)\s*[;,]?\s*(?:url\s*=\s*)?(['"]?)(.*?)\2\s*$""", re.IGNORECASE | re.DOTALL)


def _read_refresh(attrs: Attrs, found: _Found) -> None:
    if found.refresh is None and attrs.get("http-equiv", "").strip().lower() == "refresh":
        match = _REFRESH_URL.match(attrs.get("content", ""))
        if match and match.group(3).strip():
            found.refresh = resolve_href(match.group(3), found.page_url)


#: (attribute, value) pairs that mark a meta tag's content as the page's modified time.
_MODIFIED = (("property", "article:modified_time"), ("name", "last-modified"), ("itemprop", "datemodified"))


def _read_modified(attrs: Attrs, found: _Found) -> None:
    content = attrs.get("content", "").strip()
    if found.modified is None and content:
        for attr, value in _MODIFIED:
            if attrs.get(attr, "").strip().lower() == value:
                found.modified = content
                return


def _read_canonical(attrs: Attrs, found: _Found) -> None:
    if _has_token(attrs.get("rel", ""), "canonical"):
        href = resolve_href(attrs.get("href", ""), found.page_url)
        if href is not None and href not in found.canonicals:
            found.canonicals.append(href)


#: xsd:language, which the XHTML schema requires of hreflang ("x-default" fits too).
LANGUAGE = re.compile(r"^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$")


def _read_hreflang(attrs: Attrs, found: _Found) -> None:
    if "hreflang" not in attrs or not _has_token(attrs.get("rel", ""), "alternate"):
        return
    lang = attrs["hreflang"].strip()
    href = resolve_href(attrs.get("href", ""), found.page_url)
    if not LANGUAGE.match(lang) or href is None:
        found.problems.append(f"hreflang link ignored: hreflang={lang!r} href={attrs.get('href', '')!r}")
    elif (lang, href) not in found.seen:
        found.seen.add((lang, href))
        found.alternates.append(Alternate(lang, href))


#: Every signal, in the order its tags are read. The deciding words of head
#: reading are derived from this table (`DECIDING_WORDS`).
SIGNALS: tuple[Signal, ...] = (
    Signal("noindex", "meta", ("robots", "googlebot"), _read_robots),
    Signal("refresh", "meta", ("refresh",), _read_refresh),
    Signal("modified", "meta", ("modified",), _read_modified),
    Signal("canonical", "link", ("canonical",), _read_canonical),
    Signal("hreflang", "link", ("hreflang",), _read_hreflang),
)

#: Each tag name's readers, in table order.
_READERS: dict[str, tuple[Callable[[Attrs, _Found], None], ...]] = {
    tag: tuple(s.read for s in SIGNALS if s.tag == tag) for tag in dict.fromkeys(s.tag for s in SIGNALS)
}

#: Every word a deciding tag holds, from the table: what head reading looks for.
DECIDING_WORDS: tuple[str, ...] = tuple(dict.fromkeys(word for s in SIGNALS for word in s.words))
#: The tag names any signal lives in.
SIGNAL_TAGS: tuple[str, ...] = tuple(_READERS)


def facts_from_tags(tags: list[tuple[str, dict[str, str]]], page_url: str) -> HeadFacts:
    """What the tags (name, lower-cased attributes) say; `page_url` resolves relative hrefs."""
    found = _Found(page_url)
    for name, attrs in tags:
        for read in _READERS.get(name, ()):
            read(attrs, found)
    problems = found.problems
    canonicals = found.canonicals
    if len(canonicals) > 1:
        problems.append(f"{len(canonicals)} different canonical links; search engines ignore them all")
    alternates, conflicts = _one_url_a_language(found.alternates)
    return HeadFacts(
        noindex=found.noindex,
        canonical=canonicals[0] if len(canonicals) == 1 else None,
        canonical_conflict=len(canonicals) > 1,
        refresh=found.refresh,
        alternates=alternates,
        modified=found.modified,
        problem="; ".join(problems) or None,
        hreflang_conflicts=conflicts,
    )


def _one_url_a_language(alternates: list[Alternate]) -> tuple[tuple[Alternate, ...], tuple[str, ...]]:
    """The alternates less every language given two URLs or more (language codes in any
    case are one language), and those languages. Which of the URLs is the language's
    page cannot be told, and search engines ignore a cluster that says both (a theme
    that writes 13 links of its own language to 13 pages does exactly that)."""
    urls: dict[str, set[str]] = {}
    for alternate in alternates:
        urls.setdefault(alternate.hreflang.lower(), set()).add(alternate.href)
    conflicts = tuple(lang for lang, hrefs in urls.items() if len(hrefs) > 1)
    if not conflicts:
        return tuple(alternates), ()
    return tuple(a for a in alternates if a.hreflang.lower() not in conflicts), conflicts
