"""What a deciding tag says on every page of a build, for the compiled run of a heads-on batch.

`_scan.head_block` (see `quick.HeadRead`) finds a page's deciding tags and looks each up by its
text, or by its shape on the page (its text with the page's URL, or an end of its path, replaced),
but spells no word of the signal table: what a tag it has not met says is asked of a `TagJudge`,
which reads it as the scanner reads it and asks `signals` what it means, and keeps the answer
where it holds on every page of the build.
"""

from __future__ import annotations

import os
import re

from sitemapgen.entry import Alternate, link_elements
from sitemapgen.hrefs import Href, page_origin, read_href
from sitemapgen.pages.scanner import Read, keep, read_found
from sitemapgen.pages.signals import SIGNALS, canonical_said
from sitemapgen.pipeline.decide import Decider
from sitemapgen.urls import INDEX_NAMES, decoded_path, served_files

#: What `TagJudge.known` holds at most (full, it starts again; see `scanner.keep`).
_KNOWN_MOST = 4_096

#: What a tag naming a canonical link, or an hreflang link, says it with (`signals.said_by`).
_CANONICAL, _HREFLANG = (next(s.apply for s in SIGNALS if s.name == name) for name in ("canonical", "hreflang"))
_LINKS = (_CANONICAL, _HREFLANG)

#: An hreflang link as `_scan.head_block` makes a cluster of it: its ``<xhtml:link>`` element, its
#: language folded (one language in any case) and its URL; or, known by a shape, the element
#: before and after the part of the page's URL the shape replaced, its language folded, and its
#: URL before that part.
Link = tuple[bytes, str, str] | tuple[bytes, bytes, str, str]
#: What an hreflang link says on a page: a `Link`, or True where the row shows none (`hreflang = false`).
Linked = Link | bool
#: A canonical naming the page's folder as a file (Sphinx 7's dirhtml names ``/a/b.html`` for
#: ``a/b/``), known by the folder's shape (see `_scan.head_block`): the ends of the files a server
#: answers it with after the folder's path, and the end of its URL after the page's URL less its
#: last '/'. The page is listed at its own URL, noted, where no such file is.
Missing = tuple[tuple[bytes, ...], str]
#: A canonical naming an index page's own file (Sphinx's ``/a/index.html`` for ``a/``), known by
#: the file's shape (see `_scan.head_block`): the file's name. The page is listed under that URL.
Declared = tuple[str]
#: Where a folder's shape replaced the page's URL less its last '/' (see `Missing`), a file's
#: the page's URL and its file's name (see `Declared`), and a start's a start of the page's URL to a
#: '/' (see `TagJudge._started`).
_FOLDER, _FILE, _START = "\0\2", "\0\3", "\0\4"
#: What a URL may go on with after a start of the page's URL, for its link to be kept by its shape:
#: characters no URL's normal form changes in a path (no '%', no query), and no dot segment.
_PLAIN_REST = re.compile(r"[A-Za-z0-9._~/-]*")


class TagJudge:
    """What a deciding tag says, asked by `_scan.head_block` of each tag it does not know (a call
    of it), and what is known of tags (`known`), which it looks up."""

    def __init__(self, decider: Decider) -> None:
        config = decider.config
        self.base_url = config.base_url
        self.own_base = decider.own_base  # the base URL, normalized as a head's URLs are
        #: Whether a row shows hreflang links: where it shows none (`hreflang = false`), a link that is
        #: a URL on every page says nothing, and is known so by the shapes and texts `_link` keeps.
        self.hreflang = config.hreflang
        self.check_canonical = config.check_canonical
        self.style = config.url_style
        #: What is known of a deciding tag, by its text or its shape (see `__call__`).
        self.known: dict[str, bool | Link | Missing | Declared] = {}
        self.met: set[int] = set()  # the hashes of the tags met once (see `scanner.keep`)
        #: The tags read since the last page a run handed back, by their texts: that page's are
        #: among them, and are not read again (`quick.HeadRead.batch` clears it).
        self.fresh: dict[str, list[Read]] = {}

    def read(self, tags: list[str]) -> list[Read]:
        """`scanner.read_found` of `tags`, those read since the last page a run handed back not
        read again (`fresh`)."""
        found: list[Read] = []
        start = 0  # the first tag not yet read
        for at, text in enumerate(tags):
            read = self.fresh.get(text)
            if read is not None:
                found += read_found(tags[start:at]) + read
                start = at + 1
        return found + read_found(tags[start:]) if start < len(tags) else found

    def __call__(self, text: str, loc: str, shape: str | None) -> bool | Link | Missing | Declared:
        """Whether the deciding tag `text` says nothing on the page at `loc` that its row would show,
        as `quick.HeadRead` takes a head (nothing, a modified time, a canonical naming the page), or the
        hreflang link it says alone (`_link`; True where the row shows none); `shape`: the tag with a
        part of `loc` replaced (see `_scan.head_block`), or None. What holds on every page is kept
        (`known`): by its text, once met twice (most tags are a page's own, met on no other page),
        what a tag says that names no canonical, or says more; by its shape, that a tag whose
        canonical or hreflang link is the page's URL written whole names the page so: so does each
        tag of that shape on its own page, the rest of its text the same. A tag of a folder's or a
        file's shape may be a canonical naming the page's folder as a file, or its own file (`_named`)."""
        found = self.fresh[text] = read_found([text])
        named = self._named(found, text, loc, shape)
        if named is not None:
            return named
        shape = None if shape is None or _FOLDER in shape or _FILE in shape else shape  # else as a tag of none
        link = self._link(found, text, loc, shape)  # the run adds what x-default the build adds
        if link is not None:
            return link
        fine = found if self.hreflang else _unlinked(found)
        return self._fine(fine, text, loc, None if shape is None or _START in shape else shape)

    def _fine(self, found: list[Read], text: str, loc: str, shape: str | None) -> bool:
        """Whether the tag `text` (`found`) says nothing on the page at `loc` that its row would
        show, kept where that holds on every page (see `__call__`)."""
        said = canonical_said(found, loc)
        fine = said is not None and said[0] in (None, self._own(loc))
        hrefs = {apply: value for apply, value in found[0][1] if apply in _LINKS} if found else {}
        # (A value with a character reference is not as written: the page's URL in the tag may not be its href.)
        whole = shape is not None and "\0\0" not in shape and "&" not in text
        if whole and (
            (said is None and getattr(hrefs.get(_HREFLANG), "href", None) == loc)
            or (fine and getattr(hrefs.get(_CANONICAL), "text", None) == loc)
        ):
            keep(self.known, shape or "", fine, _KNOWN_MOST, None)
        elif said is None or _CANONICAL not in hrefs:  # else what its canonical means depends on the page
            keep(self.known, text, fine, _KNOWN_MOST, self.met)
        return fine

    def _named(self, found: list[Read], text: str, loc: str, shape: str | None) -> Missing | Declared | None:
        """What the tag `text`, of a folder's or a file's shape, says on every page of it (`_missing`,
        `_declared`), kept by its shape; else None."""
        if shape is None or (_FOLDER not in shape and _FILE not in shape):
            return None
        named = self._missing(found, text, loc, shape) if _FOLDER in shape else self._declared(found, text, loc, shape)
        if named is not None:
            keep(self.known, shape, named, _KNOWN_MOST, None)
        return named

    def _link(self, found: list[Read], text: str, loc: str, shape: str | None) -> Linked | None:
        """The hreflang link that the one tag `found` (`text`) says alone on the page at `loc`, where
        its URL is absolute or a path from the root (the same on every page: `signals._apply_hreflang`
        takes both so, the second after the page's origin, which is the base URL's on every page a
        run lists), as `head_block` takes it; else None. An absolute URL is kept (`known`) by its
        shape where that holds on every page: the page's whole URL or an end of it (`_whole_or_end`),
        or a start of it (`_started`); else by its text. A path from the root is kept by its text,
        and by its shape, a start's or an end's, where that holds on every page (`_from_root`).
        (By its text at once, not once met twice as other tags are: a link is met on each page of
        its cluster, and a theme writes its links to each language's home on every page of a site.)"""
        said = found[0][1] if len(found) == 1 else ()
        if len(said) != 1 or said[0][0] is not _HREFLANG or (target := said[0][1].target) is None:
            return None
        lang, folded, href = said[0][1].lang, said[0][1].folded, target.fixed
        if href is None and target.rooted and (origin := page_origin(loc)) is not None:
            link = (lang, folded, origin + target.text)
            return self._from_root(text, shape, link=link, written=target.text, loc=loc)
        if href is None:
            return None
        link = (lang, folded, href)
        if shape is not None and _START in shape:
            kept = self._kept(text, *link)  # by its text too: its URL on any page
            return self._started(text, shape, link=link, written=href, loc=loc) or kept
        return self._whole_or_end(text, shape, link=link) or self._kept(text, *link)

    def _whole_or_end(self, text: str, shape: str | None, *, link: tuple[str, str, str]) -> Linked | None:
        """The `link` (its language, folded, and absolute URL) that the tag `text` says, kept by its
        `shape` where it ends with the part of the page's URL that the shape replaced and holds no
        character reference: the page's whole URL, or an end of its path from a '/', after a start
        that makes a URL of it with any such end, as every path's characters are a URL's (`_KEPT`):
        such a link holds on every page, the part its own; so most of a cluster's links are one
        shape for a whole site (a language's folder, then the page's path). Else None."""
        if shape is None or "&" in text:
            return None
        lang, folded, href = link
        at = shape.index("\0")
        whole = shape[at + 1 : at + 2] != "\0"
        part = _replaced(text, shape, "\0" if whole else "\0\0")
        start = href[: len(href) - len(part)]
        if not href.endswith(part) or (start != "" if whole else read_href(start + "/").fixed is None):
            return None
        return self._shaped(shape, lang, folded, marked=start + "\0", other=start)

    def _from_root(self, text: str, shape: str | None, *, link: tuple[str, str, str], written: str, loc: str) -> Linked:
        """The `link` (its language, folded, and URL: the page's origin, then `written`) that the tag
        `text` says, written as a path from the root: kept by its text (it is that URL on any page
        of a run), and by its `shape` where that is a start's (`_started`) or an end's (`_ended`)
        and holds on every page, which it is then known by."""
        kept = self._kept(text, *link)
        started = self._started(text, shape, link=link, written=written, loc=loc)
        return started or self._ended(text, shape, link=link, written=written) or kept

    def _started(
        self, text: str, shape: str | None, *, link: tuple[str, str, str], written: str, loc: str
    ) -> Linked | None:
        """The `link` (its language, folded, and URL) that the tag `text` says, written as `written`
        (the URL whole, or its path from the root), kept by its `shape` where that is a start's: a
        start of the page's URL `loc` to a '/' (or of its path from the root), after a quote,
        replaced. It is kept where the value is that start, then a rest, and the URL is so on every
        page: every start of a page's URL that holds the base URL is normal (a path's characters
        are a URL's, and the run makes no shape of a path from the root with a ';', which
        `hrefs.read_href` does not take), and the rest holds only characters that no URL's normal
        form changes, and no dot segment. So the links of a theme's language switcher to each
        language's home (``/site/de/``) are known once a language for every site of a generator,
        not once a site. Else None."""
        if shape is None or _START not in shape:
            return None
        lang, folded, href = link
        at = shape.index(_START)
        part = _replaced(text, shape, _START)
        rest = written[len(part) :]
        end = at + len(written)  # where the value ends, written so
        if not written.startswith(part) or text[at + len(part) : end] != rest or text[end : end + 1] != text[at - 1]:
            return None
        if "&" in text or _PLAIN_REST.fullmatch(rest) is None or {".", ".."} & set(rest.split("/")):
            return None
        if not href.endswith(rest) or not loc.startswith(href[: len(href) - len(rest)]):
            return None
        return self._shaped(shape, lang, folded, marked="\0" + rest, other=rest)

    def _ended(self, text: str, shape: str | None, *, link: tuple[str, str, str], written: str) -> Linked | None:
        """The `link` (its language, folded, and URL) that the tag `text` says, written as `written`,
        a path from the root, kept by its `shape` where that is an end's (an end of the page's URL
        from a '/' of its path, then a quote, replaced): the value as written, a start (none, or a
        path from the root with no '/' at its end), then that end. Every page's end is a path's
        (with no ';', as the run makes them), so the value is a path from the root on every page,
        and its URL the page's origin, the start, the page's end. So a page's link to itself
        written from the root (Zensical's) is one shape for a whole site. Else None."""
        if shape is None or "\0\0" not in shape or "&" in text:
            return None
        lang, folded, href = link
        at = shape.index("\0\0")
        part = _replaced(text, shape, "\0\0")
        start = written[: len(written) - len(part)]
        if not written.endswith(part) or text[at - len(start) : at] != start:
            return None
        if start and (start[0] != "/" or start[-1] == "/" or {".", ".."} & set(start.split("/"))):
            return None  # (a path from the root on every page, the end any page's)
        url = href[: len(href) - len(part)]  # the origin, then that rest
        return self._shaped(shape, lang, folded, marked=url + "\0", other=url)

    def _shaped(self, shape: str, lang: str, folded: str, *, marked: str, other: str) -> Linked:
        """The link of `lang` (`folded`) kept by its `shape`: its element before and after where
        `marked` (its URL, a NUL for the part of the page's URL the shape replaced) holds the NUL,
        and `other`, the rest of its URL (see `Link`); True where the row shows no link."""
        shaped: Linked = True
        if self.hreflang:
            before, after = link_elements((Alternate(lang, marked),)).encode().split(b"\0")
            shaped = (before, after, folded, other)
        keep(self.known, shape, shaped, _KNOWN_MOST, None)
        return shaped

    def _kept(self, text: str, lang: str, folded: str, href: str) -> Linked:
        """The link to `href` that the tag `text` says, kept by its text; True where the row shows
        no link."""
        link: Linked = (link_elements((Alternate(lang, href),)).encode(), folded, href) if self.hreflang else True
        keep(self.known, text, link, _KNOWN_MOST, None)
        return link

    def _missing(self, found: list[Read], text: str, loc: str, shape: str) -> Missing | None:
        """What the canonical the one tag `found` (`text`) says alone on the page at `loc` (a folder's
        URL), written as that URL less its last '/' and an end (`_folder_end`), is on every page of
        that shape (`shape`: see `_scan.head_block`), where the decision leaves the canonical out
        as no file's (`Decider._canonical`) unless one of the files a server answers it with is
        there: the ends of those after the folder's path, and of the URL (see `Missing`); else
        None. Such a URL is normal on every page as on this one (its normal form is the URL as
        written, on this one), and names the files of its folder's path and those ends on each."""
        said = canonical_said(found, loc)
        end = _folder_end(found, text, loc, shape) if self.check_canonical and said is not None else None
        if end is None or said is None or said[0] != self._own(loc)[:-1] + end:
            return None
        served = served_files(said[0], self.own_base, self.style)
        folder = self._path(loc)[:-1]
        files = () if served is None else (*served.direct, *served.redirected)
        # Each beside the folder, not in it (so never the page): the folder's path, then more of a name.
        if not files or not all(
            file.startswith(folder) and file[len(folder) : len(folder) + 1] not in ("", "/") for file in files
        ):
            return None
        return tuple(os.fsencode(file[len(folder) :]) for file in files), end

    def _declared(self, found: list[Read], text: str, loc: str, shape: str) -> Declared | None:
        """What the canonical the one tag `found` (`text`) says alone on the page at `loc` (an index
        page's folder URL), written as that URL and its file's name (`shape`: see
        `_scan.head_block`), is on every page of that shape, where the decision lists the page under
        it (`Decider._canonical`: the page's own file): the name (see `Declared`); else None."""
        said = canonical_said(found, loc)
        written = _replaced(text, shape, _FILE)
        name = written[len(loc) :]
        tag = found[0][1] if len(found) == 1 else ()
        if not self.check_canonical or said is None or len(tag) != 1 or tag[0][0] is not _CANONICAL or "&" in text:
            return None
        if not written.startswith(loc) or name not in INDEX_NAMES or tag[0][1].text != written:
            return None
        served = served_files(said[0] or "", self.own_base, self.style)
        answers = served is not None and served.direct[:1] == (self._path(loc) + name,)  # its own file
        return (name,) if said[0] == self._own(loc) + name and answers else None

    def _own(self, loc: str) -> str:
        """The page's URL `loc` as a head's URLs are normalized: the base URL so, then its path."""
        return self.own_base + loc[len(self.base_url) :]

    def _path(self, loc: str) -> str:
        """The docroot path the page's URL `loc` names past the base URL (percent-decoded)."""
        return decoded_path(loc[len(self.base_url) :])


def _unlinked(found: list[Read]) -> list[Read]:
    """`found` less the hreflang links that say nothing where the run copies none (`hreflang =
    false`: `Decider.decide` reads no cluster): those whose URL is absolute or a path from the root,
    which is a URL on every page; a link of another href may be ignored with a warning there."""
    return [
        (tag, tuple(pair for pair in said if pair[0] is not _HREFLANG or not _fixed(pair[1].target)))
        for tag, said in found
    ]


def _fixed(target: Href | None) -> bool:
    """Whether an hreflang link's `target` (None: no language) is a URL on every page."""
    return target is not None and (target.fixed is not None or target.rooted)


def _replaced(text: str, shape: str, mark: str) -> str:
    """What the `mark` of `shape` (the tag `text`, a part of the page's URL replaced) stands for."""
    at = shape.index(mark)
    return text[at : at + len(text) - len(shape) + len(mark)]


def _folder_end(found: list[Read], text: str, loc: str, shape: str) -> str | None:
    """The end of the URL the one tag `found` (`text`) says alone as its canonical, written as the
    URL `loc` less its last '/' and that end, which holds no '/' first, no '%', no quote and no
    character reference, and ends the value (`shape`: the tag, that URL replaced); else None."""
    said = found[0][1] if len(found) == 1 else ()
    if len(said) != 1 or said[0][0] is not _CANONICAL or "&" in text:
        return None
    folder = loc[:-1]
    written: str = said[0][1].text
    end = written[len(folder) :]
    if not (written.startswith(folder) and end and end[0] != "/" and not any(c in end for c in "%'\"")):
        return None
    at = shape.index(_FOLDER) + len(_FOLDER)
    return end if shape[at : at + len(end)] == end and shape[at + len(end) : at + len(end) + 1] in ("'", '"') else None
