"""What the tags of a page's head mean: one table, one entry per signal.

A signal is a kind of ``<meta>`` or ``<link>`` tag that can change whether or how a page is
listed (noindex, canonical, redirect, hreflang, a modified time). Each entry names its tag, the
words one of which a tag's text (lower-cased) holds wherever it carries the signal, and the code
that reads it, in two steps: what the tag says (read once per tag text, as a site repeats its
tags on every page) and what that means on one page (where its URL resolves relative hrefs).
Head reading (`head.py`, `scanner.py`) derives its prefilters from those words (`marks_of`): a
head or tag holding none of them, and no ``&`` that could spell one, is never parsed. So adding
a signal is one `Signal` entry and its two functions; `tests/test_signals.py` checks both
directions (every word reaches its reader; no reader acts on a tag without one). This is the one
place a head's words are spelled: the compiled scanner (`_scan.c`) is told the tag names and
`RAW_TEXT` at import, and the image finder skips `RAW_TEXT` too.

Deciding what the facts mean for a page (is a canonical "elsewhere"?) is `pipeline/decide.py`'s job.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from sitemapgen.entry import Alternate
from sitemapgen.hrefs import Href, page_origin, read_href
from sitemapgen.protocol import LANGUAGE


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

    @property
    def title(self) -> str | None:  # the page's <title>, where read (`LabelledFacts`)
        return None

    @property
    def description(self) -> str | None:  # its <meta name="description">, where read
        return None

    def with_lang(self, lang: str | None) -> HeadFacts:
        """These facts with `lang`: `dataclasses.replace(self, lang=lang)`, for a third of its cost
        (every page with hreflang links pays it)."""
        return HeadFacts(*(*_BEFORE_LANG(self), lang))


@dataclass(frozen=True, slots=True)
class LabelledFacts(HeadFacts):
    """`HeadFacts` with the title and description (`labels.LABELS`), made only when they are read."""

    title: str | None = None
    description: str | None = None

    def with_lang(self, lang: str | None) -> HeadFacts:  # every page pays it where labels are read
        return LabelledFacts(*(*_BEFORE_LANG(self), lang, self.title, self.description))


@dataclass(slots=True)
class _Found:
    """What the readers have found so far in one head (mutable while reading)."""

    page_url: str
    #: The page URL's scheme and host, when it is in normal form (see hrefs.page_origin), once an
    #: hreflang link asks (`origin_known`): most pages have none, and it costs a regex a page.
    origin: str | None = None
    origin_known: bool = False
    noindex: bool = False
    canonicals: list[str] = field(default_factory=list)
    refresh: str | None = None
    alternates: list[Alternate] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)  # (hreflang, href) of `alternates`
    languages: dict[str, str] = field(default_factory=dict)  # the first href of each language, lower case
    conflicted: bool = False  # a language of `alternates` has two hrefs or more
    modified: str | None = None
    problems: list[str] = field(default_factory=list)
    title: str | None = None
    description: str | None = None


Attrs = Mapping[str, str]
#: A tag as head reading finds it: its name and its attributes, names lower-cased.
Tag = tuple[str, dict[str, str]]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Signal(Generic[T]):
    """One kind of tag that can decide something, and how to read it, in two steps.

    `says` reads what a tag says, before any page is known (None: this tag does
    not carry the signal); `apply` takes that to one page's findings. A site
    repeats its tags page after page (twenty hreflang links to each language's
    home, a robots meta), so head reading runs `says` once per tag text (see
    `scanner._TAGS`) and only `apply`, with what depends on the page's URL, per page.
    """

    name: str
    tag: str  # "meta" or "link"
    #: Lower-case words, one of which is in the text of every tag that carries this signal.
    words: tuple[str, ...]
    says: Callable[[Attrs], T | None]
    apply: Callable[[T, _Found], None]


#: What one tag says for one signal: that signal's `apply` and the value to give it.
Said = tuple[Callable[[Any, _Found], None], Any]


def _tokens(value: str) -> set[str]:
    return set(value.replace(",", " ").lower().split())


def _has_token(value: str, token: str) -> bool:
    """Whether `token` (lower case) is one of `value`'s words: `token in _tokens(value)`, without
    making the set in the common cases (``rel="canonical"``; no such word at all)."""
    if value == token:
        return True
    return token in value.lower() and token in _tokens(value)


_ROBOTS_NAMES = frozenset({"robots", "googlebot"})


def _says_noindex(attrs: Attrs) -> bool | None:
    if attrs.get("name", "").strip().lower() in _ROBOTS_NAMES and _tokens(attrs.get("content", "")) & {
        "noindex",
        "none",
    }:
        return True
    return None


def _apply_noindex(_: bool, found: _Found) -> None:
    found.noindex = True


#: What comes before a refresh's URL: the delay, a separator, ``url=``, and an opening quote.
_REFRESH_HEAD = re.compile(r"""\s*\d*\.?\d*\s*[;,]?\s*(?:url\s*=\s*)?(['"]?)""", re.IGNORECASE)


def refresh_url(content: str) -> str:
    """The URL of a refresh's `content`: what follows the delay, a separator, ``url=`` and an
    opening quote, less trailing white space and, after an opening quote, the same quote at
    its end (with no closing quote, the opening one belongs to the URL).

    In one pass: the pattern it replaces (``(['"]?)(.*?)\\2\\s*$`` after the head) tried
    the whole rest at each character, quadratic in a long run of white space (seconds for
    one 64 KiB page). A test holds the two to the same answers."""
    head = _REFRESH_HEAD.match(content)
    assert head is not None  # every part of it may be empty
    quote, rest = head.group(1), content[head.end() :].rstrip()
    if quote and rest.endswith(quote):
        return rest[:-1]
    return quote + rest


def _says_refresh(attrs: Attrs) -> Href | None:
    if attrs.get("http-equiv", "").strip().lower() == "refresh":
        url = refresh_url(attrs.get("content", ""))
        if url.strip():
            return read_href(url)
    return None


def _apply_refresh(target: Href, found: _Found) -> None:
    if found.refresh is None:  # the first that resolves
        found.refresh = target.resolve(found.page_url)


#: (attribute, value) pairs that mark a meta tag's content as the page's modified time.
_MODIFIED = (("property", "article:modified_time"), ("name", "last-modified"), ("itemprop", "datemodified"))


def _says_modified(attrs: Attrs) -> str | None:
    content = attrs.get("content", "").strip()
    if content:
        for attr, value in _MODIFIED:
            if attrs.get(attr, "").strip().lower() == value:
                return content
    return None


def _apply_modified(content: str, found: _Found) -> None:
    if found.modified is None:
        found.modified = content


def _says_canonical(attrs: Attrs) -> Href | None:
    return read_href(attrs.get("href", "")) if _has_token(attrs.get("rel", ""), "canonical") else None


def _apply_canonical(target: Href, found: _Found) -> None:
    href = target.resolve(found.page_url)
    if href is not None and href not in found.canonicals:
        found.canonicals.append(href)


class _Hreflang(NamedTuple):
    """What an hreflang link says. A named tuple, as `Href` is: a link read for the first time
    makes one, and a frozen dataclass costs three times as much to make."""

    lang: str
    href: str  # as written
    target: Href | None  # None: the language is not one (`LANGUAGE`)
    folded: str  # the language in lower case: one language in any case (see `_one_url_a_language`)
    #: What the link gives on a page of each origin, when that settles it (see `_apply_hreflang`).
    taken: dict[str | None, tuple[tuple[str, str], Alternate]]


def _says_hreflang(attrs: Attrs) -> _Hreflang | None:
    if "hreflang" not in attrs or not _has_token(attrs.get("rel", ""), "alternate"):
        return None
    lang = attrs["hreflang"].strip()
    href = attrs.get("href", "")
    return _Hreflang(lang, href, read_href(href) if _is_language(lang) else None, lang.lower(), {})


@functools.lru_cache(maxsize=256)
def _is_language(lang: str) -> bool:
    """Whether `lang` is one (`LANGUAGE`): asked once per language, not once per link."""
    return LANGUAGE.match(lang) is not None


#: How many origins a link's `taken` keeps: a site has one or two.
_TAKEN_KEPT = 4


def _apply_hreflang(link: _Hreflang, found: _Found) -> None:
    """Take an hreflang link on a page. A link read once is met on every page of its cluster or
    site (twenty to a head): an absolute href, or a path from the root, gives the same alternate
    on every page of an origin, so that is kept with the link, not made again."""
    if not found.origin_known:
        found.origin, found.origin_known = page_origin(found.page_url), True
    taken = link.taken.get(found.origin)
    if taken is None:
        target = link.target
        href = None if target is None else target.resolve(found.page_url)
        if target is None or href is None:
            found.problems.append(f"hreflang link ignored: hreflang={link.lang!r} href={link.href!r}")
            return
        taken = (link.lang, href), Alternate(link.lang, href)
        if (target.fixed or (target.rooted and found.origin is not None)) and len(link.taken) < _TAKEN_KEPT:
            link.taken[found.origin] = taken
    key, alternate = taken
    if key in found.seen:
        return
    found.seen.add(key)
    found.alternates.append(alternate)
    if found.languages.setdefault(link.folded, key[1]) != key[1]:
        found.conflicted = True


#: Every signal, in the order its tags are read; head reading's marks come from it (`MARKS`).
SIGNALS: tuple[Signal[Any], ...] = (
    Signal("noindex", "meta", ("robots", "googlebot"), _says_noindex, _apply_noindex),
    Signal("refresh", "meta", ("refresh",), _says_refresh, _apply_refresh),
    Signal("modified", "meta", ("modified",), _says_modified, _apply_modified),
    Signal("canonical", "link", ("canonical",), _says_canonical, _apply_canonical),
    Signal("hreflang", "link", ("hreflang",), _says_hreflang, _apply_hreflang),
)

#: Each tag name's (says, apply), in table order.
Readers = dict[str, tuple[tuple[Callable[[Attrs], Any], Callable[[Any, _Found], None]], ...]]


def readers_of(signals: Iterable[Signal[Any]]) -> Readers:
    """Each tag name's (says, apply) in `signals`, in their order."""
    signals = tuple(signals)
    tags = dict.fromkeys(s.tag for s in signals)
    return {tag: tuple((s.says, s.apply) for s in signals if s.tag == tag) for tag in tags}


_READERS = readers_of(SIGNALS)


def marks_of(signals: Iterable[Signal[Any]]) -> tuple[str, ...]:
    """What a tag that may carry one of `signals` holds: one of their words (each once), or, last,
    a '&' that could spell one as a character reference."""
    return (*dict.fromkeys(word for s in signals for word in s.words), "&")


#: What a tag that may decide holds, from the table: what head reading looks for; and its words.
MARKS = marks_of(SIGNALS)
DECIDING_WORDS: tuple[str, ...] = MARKS[:-1]
#: The tag names any signal lives in.
SIGNAL_TAGS: tuple[str, ...] = tuple(_READERS)
#: The elements html.parser reads as raw text, not markup: every reader of a page (the head
#: scanners, Python and C, and the image finder) skips each whole, so a tag inside one is none.
RAW_TEXT: tuple[str, ...] = ("script", "style")


def said_by(name: str, attrs: Attrs, readers: Readers | None = None) -> tuple[Said, ...]:
    """What a tag (name, lower-cased attributes) says, for every signal it carries (of `readers`,
    where given: `labels.READERS`): no page's URL is needed, so a tag read before need not be
    read again."""
    said = []
    for says, apply in (_READERS if readers is None else readers).get(name, ()):
        value = says(attrs)
        if value is not None:
            said.append((apply, value))
    return tuple(said)


def facts_from_tags(tags: list[Tag], page_url: str, readers: Readers | None = None) -> HeadFacts:
    """What the tags (name, lower-cased attributes) say (of `readers`, see `said_by`); `page_url`
    resolves relative hrefs."""
    return facts_from_said([(tag, said_by(*tag, readers)) for tag in tags], page_url)


def facts_from_said(tags: Sequence[tuple[object, tuple[Said, ...]]], page_url: str) -> HeadFacts:
    """What the head whose tags are `tags`, each with what it says (as `said_by` gives), says on
    the page at `page_url`."""
    said = canonical_said(tags, page_url)
    if said is None:
        return _found_facts(tags, page_url)
    return _SAYS_NOTHING if said == (None, None) else HeadFacts(canonical=said[0], modified=said[1])


def canonical_said(tags: Sequence[tuple[object, tuple[Said, ...]]], page_url: str) -> tuple[str | None, ...] | None:
    """The canonical and modified time that the head of `tags` (see `facts_from_said`) says on
    the page at `page_url`, where that is all it says; else None. Most heads say no more (every
    generator writes the one, many the other): taken without `_found_facts`' bookkeeping, and
    a plain page's decision asks no more of its head (`pipeline.quick.HeadRead`)."""
    canonical = modified = None
    for _, said in tags:
        for apply, value in said:
            if apply is _apply_canonical:
                href = value.resolve(page_url)
                if href is not None and href != canonical:
                    if canonical is not None:  # a second canonical: a problem to say
                        return None
                    canonical = href
            elif apply is _apply_modified:
                if modified is None:
                    modified = value
            else:
                return None
    return canonical, modified


_SAYS_NOTHING = HeadFacts()
_FIELDS = tuple(f.name for f in dataclasses.fields(HeadFacts))
#: The fields before `lang`, read in one C call (`with_lang`).
_BEFORE_LANG: Callable[[HeadFacts], tuple[Any, ...]] = operator.attrgetter(*_FIELDS[: _FIELDS.index("lang")])


def _found_facts(tags: Iterable[tuple[object, tuple[Said, ...]]], page_url: str) -> HeadFacts:
    """`facts_from_said`, every signal taken by its own `apply`."""
    found = _Found(page_url)
    for _, said in tags:
        for apply, value in said:
            apply(value, found)
    problems = found.problems
    canonicals = found.canonicals
    if len(canonicals) > 1:
        problems.append(f"{len(canonicals)} different canonical links; search engines ignore them all")
    alternates, conflicts = _one_url_a_language(found.alternates) if found.conflicted else (tuple(found.alternates), ())
    facts = HeadFacts(
        noindex=found.noindex,
        canonical=canonicals[0] if len(canonicals) == 1 else None,
        canonical_conflict=len(canonicals) > 1,
        refresh=found.refresh,
        alternates=alternates,
        modified=found.modified,
        problem="; ".join(problems) or None,
        hreflang_conflicts=conflicts,
    )
    if found.title is None and found.description is None:
        return facts
    kept: dict[str, Any] = {name: getattr(facts, name) for name in _FIELDS}
    return LabelledFacts(**kept, title=found.title, description=found.description)


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
