"""What a deciding tag says on every page of a build, for the compiled run of a heads-on batch.

`_scan.head_block` (see `quick.HeadRead`) finds a page's deciding tags and looks each up by its
text, or by its shape on the page (its text with the page's URL, or an end of its path, replaced),
but spells no word of the signal table: what a tag it has not met says is asked of a `TagJudge`,
which reads it as the scanner reads it and asks `signals` what it means, and keeps the answer
where it holds on every page of the build.
"""

from __future__ import annotations

from sitemapgen.entry import Alternate, link_elements
from sitemapgen.pages.scanner import Read, keep, read_found
from sitemapgen.pages.signals import SIGNALS, canonical_said
from sitemapgen.pipeline.decide import Decider
from sitemapgen.urls import page_origin, read_href

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


class TagJudge:
    """What a deciding tag says, asked by `_scan.head_block` of each tag it does not know (a call
    of it), and what is known of tags (`known`), which it looks up."""

    def __init__(self, decider: Decider) -> None:
        config = decider.config
        self.base_url = config.base_url
        self.own_base = decider.own_base  # the base URL, normalized as a head's URLs are
        #: Whether the run makes a page's cluster where it is the links as the head gives them
        #: (`Decider.cluster` adding no x-default).
        self.clusters = config.hreflang and config.hreflang_x_default is None
        #: What is known of a deciding tag, by its text or its shape (see `__call__`).
        self.known: dict[str, bool | Link] = {}
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

    def __call__(self, text: str, loc: str, shape: str | None) -> bool | Link:
        """Whether the deciding tag `text` says nothing on the page at `loc` that its row would show,
        as `quick.HeadRead` takes a head (nothing, a modified time, a canonical naming the page), or the
        hreflang link it says alone (`_link`); `shape`: the tag with a part of `loc` replaced (see
        `_scan.head_block`), or None. What holds on every page is kept (`known`): by its text, once
        met twice (most tags are a page's own, met on no other page), what a tag says that names no
        canonical, or says more; by its shape, that a tag whose canonical or hreflang link is the
        page's URL written whole names the page so: so does each tag of that shape on its own page,
        the rest of its text the same."""
        found = self.fresh[text] = read_found([text])
        link = self._link(found, text, loc, shape) if self.clusters else None
        if link is not None:
            return link
        said = canonical_said(found, loc)
        fine = said is not None and said[0] in (None, self.own_base + loc[len(self.base_url) :])
        hrefs = {apply: value for apply, value in found[0][1] if apply in _LINKS} if found else {}
        # (A value with a character reference is not as written: the page's URL in the tag may not be its href.)
        if (shape is not None and "\0\0" not in shape and "&" not in text) and (
            (said is None and getattr(hrefs.get(_HREFLANG), "href", None) == loc)
            or (fine and getattr(hrefs.get(_CANONICAL), "text", None) == loc)
        ):
            keep(self.known, shape, fine, _KNOWN_MOST, None)
        elif said is None or _CANONICAL not in hrefs:  # else what its canonical means depends on the page
            keep(self.known, text, fine, _KNOWN_MOST, self.met)
        return fine

    def _link(self, found: list[Read], text: str, loc: str, shape: str | None) -> Link | None:
        """The hreflang link that the one tag `found` (`text`) says alone on the page at `loc`, where
        its URL is absolute or a path from the root (the same on every page: `signals._apply_hreflang`
        takes both so, the second after the page's origin, which is the base URL's on every page a
        run lists), as `head_block` takes it; else None. A path from the root is kept by its text
        alone: with another page's part in it, it may not be one (a ';' is a URL's character, not a
        path's). An absolute URL is kept (`known`) by its shape where it ends with
        the part of the page's URL that the shape replaced and holds no character reference: the
        page's whole URL, or an end of its path from a '/', after a start that makes a URL of it
        with any such end, as every path's characters are a URL's (`_KEPT`): such a link holds on
        every page, the part its own; so most of a cluster's links are one shape for a whole site
        (a language's folder, then the page's path). Else by its text. (By its text at once, not once
        met twice as other tags are: a link is met on each page of its cluster, and a theme writes
        its links to each language's home on every page of a small site.)"""
        said = found[0][1] if len(found) == 1 else ()
        if len(said) != 1 or said[0][0] is not _HREFLANG or (target := said[0][1].target) is None:
            return None
        lang, folded, href = said[0][1].lang, said[0][1].folded, target.fixed
        if href is None and target.rooted and (origin := page_origin(loc)) is not None:
            return self._kept(text, lang, folded, origin + target.text)
        if href is None:
            return None
        if shape is not None and "&" not in text:
            at = shape.index("\0")
            whole = shape[at + 1 : at + 2] != "\0"
            part = text[at : at + len(text) - len(shape) + (1 if whole else 2)]
            start = href[: len(href) - len(part)]
            if href.endswith(part) and (start == "" if whole else read_href(start + "/").fixed is not None):
                before, after = link_elements((Alternate(lang, start + "\0"),)).encode().split(b"\0")
                shaped = (before, after, folded, start)
                keep(self.known, shape, shaped, _KNOWN_MOST, None)
                return shaped
        return self._kept(text, lang, folded, href)

    def _kept(self, text: str, lang: str, folded: str, href: str) -> Link:
        """The link to `href` that the tag `text` says, kept by its text."""
        link = (link_elements((Alternate(lang, href),)).encode(), folded, href)
        keep(self.known, text, link, _KNOWN_MOST, None)
        return link
