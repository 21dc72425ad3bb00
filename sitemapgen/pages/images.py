"""The images a page shows, for Google's image extension (``<image:image><image:loc>``).

Read only when the config's `images` is on: it costs a read of the whole page. One pass
of one regular expression over the decoded page (`_TOKENS`) finds, in page order, the
tags that can show an image and skips what html.parser skips (comments, the text of
scripts and styles) and every other tag whole, so an ``<img`` inside an attribute value
or a script is no image. beautifulsoup4 with html.parser is the reference reader: a
differential test checks that both find the same tags (`image_tags`).

Each image is one URL (`choose`), the one a crawler wants, the largest rendition:

- an ``<img>``: the largest candidate of its ``srcset`` (by ``w`` descriptor, else by
  ``x`` density, its ``src`` counting as ``1x`` as the HTML standard says), else its
  ``src``; lazy-loading's ``data-srcset`` and ``data-src`` stand for ``srcset`` and ``src``
  (a lazy image's ``src`` is its placeholder). One inside ``<noscript>`` counts too.
- a ``<picture>``: the largest candidate of its ``<source srcset>`` and its ``<img>``;
- ``<meta property="og:image" content>``.

Each URL is resolved as the page's other hrefs are (`hrefs.resolve_href`), against the
page's ``<base href>`` if it has one; ``data:`` URIs, URLs that cannot be fetched as
written, and images of 1x1 pixel (``width="1" height="1"``: tracking pixels) are left
out, and each URL is listed once, where it first appears. What robots.txt disallows and
the 1,000 a page may list are the decision's (`pipeline.decide`).
"""

from __future__ import annotations

import html
import os
import re
from typing import NamedTuple

from sitemapgen.hrefs import resolve_href
from sitemapgen.pages.encoding import decode_head
from sitemapgen.pages.signals import RAW_TEXT
from sitemapgen.protocol import MAX_URL_LENGTH
from sitemapgen.util.safeio import read_page

#: The most of a page read for its images: a page larger than this is read only so far, and said so.
PAGE_MAX_BYTES = 16 * 1_048_576
_READ_STEP = 1_048_576

#: The attributes that can name an image, or say a tag shows none: the rest are not kept.
_KEPT = frozenset(("src", "srcset", "data-src", "data-srcset", "width", "height", "property", "content", "href"))
#: A quoted or unquoted run of a tag's attributes, up to its '>' (quoted values may hold one).
_ATTRS = r"""(?:[^>"']++|"[^"]*+"|'[^']*+')*+"""
#: Elements whose content a browser shows as text or not at all (a title, a text area, a
#: template's inert content...): an ``<img`` inside is no image. Each is skipped whole, as the
#: raw-text ones are (`signals.RAW_TEXT`, which html.parser skips too).
_TEXT_ONLY = ("title", "textarea", "xmp", "noembed", "noframes", "template")
#: The tags of interest: an image's (its sources, its picture), the og:image meta, and the base.
_TAGS = ("img", "source", "picture", "meta", "base")
#: What comes before each token (below) in one match, so that Python sees only the tokens:
#: text, and every '<' that starts none of them; a start tag of another name is skipped whole,
#: so a '<img' in its attribute values is no tag (as html.parser reads it).
_BETWEEN = (
    r"(?:[^<]++|<(?!(?i:" + "|".join((*_TAGS, *RAW_TEXT, *_TEXT_ONLY)) + r")(?=[\s/>])"
    r"|/(?i:picture)\s*>|!)(?:[a-zA-Z][^\s/>]*+" + _ATTRS + r">)?"
    # Any other '<!' (a CDATA section, a doctype) is a bogus comment to the next '>', as browsers read it.
    r"|<!(?!--)[^>]*+>)*+"
)
#: One token of a page, in order, after `_BETWEEN`: a comment, a raw-text element (a script
#: or style, skipped whole, as html.parser skips them: no group) or a text-only one, a
#: tag of interest (its name in group 1, its attributes in group 2), a ``</picture>`` (group
#: 3); else a '<' that is none of these after all (a quote left open), or the end of the page.
_TOKENS = re.compile(
    _BETWEEN
    + r"(?:<(?:!--.*?--!?>"
    + "".join(
        rf"|(?i:{name})(?=[\s/>])" + _ATTRS + rf">(?:[^<]++|<(?!/\s*(?i:{name})\s*>))*+(?:</\s*(?i:{name})\s*>)?"
        for name in (*RAW_TEXT, *_TEXT_ONLY)
    )
    + r"|(?i:("
    + "|".join(_TAGS)
    + r"))(?=[\s/>])("
    + _ATTRS
    + r")>"
    r"|/(?i:(picture))\s*>"
    r"|)|\Z)",
    re.DOTALL,
)
_ATTR = re.compile(r"""([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
#: What a page without images lacks, in its bytes (lower-cased): every tag and word above.
_MARKS = (b"<img", b"<source", b"og:image")

#: A tag of interest: its name (lower case) and the attributes of `_KEPT` it has (last wins).
Tag = tuple[str, dict[str, str]]


class ImageTags(NamedTuple):
    """What `image_tags` finds: the first ``<base href>``, and the tags of each image in page
    order (a ``<picture>``'s sources and img together, an ``<img>`` or an og:image meta alone)."""

    base: str | None
    images: list[list[Tag]]


def may_show_images(data: bytes) -> bool:
    """Whether page bytes may hold an image tag: False settles it without decoding (UTF-16,
    which writes ASCII otherwise, is always decoded)."""
    if b"\x00" in data:
        return True
    lowered = data.lower()
    for mark in _MARKS:  # a plain loop: cheaper than any() over a generator, per page
        if mark in lowered:
            return True
    return False


def _attrs(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, double, single, bare in _ATTR.findall(text):
        key = key.lower()
        if key in _KEPT:
            value = double or single or bare
            found[key] = html.unescape(value) if "&" in value else value
    return found


def image_tags(text: str) -> ImageTags:
    """The image tags of a decoded page, as html.parser reads them (see the module's docstring)."""
    base: str | None = None
    images: list[list[Tag]] = []
    picture: list[Tag] | None = None
    for match in _TOKENS.finditer(text):
        name = match.group(1)
        if name is None:
            if match.group(3) is not None:
                picture = None
            continue
        name = name.lower()
        attrs = _attrs(match.group(2))
        if name == "img":
            if picture is not None:
                picture.append((name, attrs))
            else:
                images.append([(name, attrs)])
        elif name == "source":
            if picture is not None:
                picture.append((name, attrs))
        elif name == "picture":
            picture = []
            images.append(picture)
        elif name == "meta":
            if attrs.get("property", "").strip().lower() == "og:image" and "content" in attrs:
                images.append([(name, attrs)])
        elif base is None and "href" in attrs:
            base = attrs["href"]
    return ImageTags(base, images)


def srcset_candidates(value: str) -> list[tuple[str, str, float]]:
    """A ``srcset``'s candidates as the HTML standard parses them: (URL, "w" or "x", size).
    A candidate whose descriptors are not one width or one density is dropped, as browsers do."""
    found: list[tuple[str, str, float]] = []
    at, end = 0, len(value)
    while True:
        while at < end and (value[at] in " \t\n\r\f,"):
            at += 1
        if at >= end:
            return found
        start = at
        while at < end and value[at] not in " \t\n\r\f":
            at += 1
        url = value[start:at]
        descriptors = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = _descriptors_end(value, at)
            descriptors, at = value[at:comma], comma + 1
        size = _descriptor(descriptors.split())
        if url and size is not None:
            found.append((url, *size))


def _descriptors_end(value: str, at: int) -> int:
    """Where a candidate's descriptors end: the next comma outside parentheses, or the end."""
    depth = 0
    for i in range(at, len(value)):
        char = value[i]
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            return i
    return len(value)


_WIDTH = re.compile(r"[0-9]+w")
_DENSITY = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?x")


def _descriptor(tokens: list[str]) -> tuple[str, float] | None:
    """A candidate's size from its descriptors (none: ``1x``); None for what no browser takes."""
    widths = [t for t in tokens if t[-1:] == "w"]
    densities = [t for t in tokens if t[-1:] == "x"]
    if len(widths) + len(densities) != len([t for t in tokens if t[-1:] != "h"]) or len(widths) + len(densities) > 1:
        return None
    if widths:
        return ("w", float(widths[0][:-1])) if _WIDTH.fullmatch(widths[0]) and int(widths[0][:-1]) > 0 else None
    if densities:
        if not _DENSITY.fullmatch(densities[0]) or float(densities[0][:-1]) <= 0:
            return None
        return "x", float(densities[0][:-1])
    return "x", 1.0


def _is_one_pixel(value: str | None) -> bool:
    return value is not None and value.strip().lower().removesuffix("px").strip() in ("1", "1.0")


def _candidates(image: list[Tag]) -> list[tuple[str, str, float]] | None:
    """Every candidate URL of an image's tags, with its descriptor; None for a 1x1 image."""
    candidates: list[tuple[str, str, float]] = []
    for name, attrs in image:
        if name == "meta":
            candidates.append((attrs["content"], "x", 1.0))
            continue
        if name == "img" and _is_one_pixel(attrs.get("width")) and _is_one_pixel(attrs.get("height")):
            return None
        srcset = attrs.get("data-srcset") or attrs.get("srcset")
        own = srcset_candidates(srcset) if srcset else []
        src = (attrs.get("data-src") or attrs.get("src") or "").strip() if name == "img" else ""
        if src and not any(kind == "w" or size == 1.0 for _, kind, size in own):
            own.append((src, "x", 1.0))  # the standard's "src is 1x" (no width descriptors, no 1x)
        candidates += own
    return candidates


def choose(image: list[Tag], base: str) -> str | None:
    """The one URL of an image's tags (see the module's docstring), resolved against `base`;
    None when it shows no image worth listing. Widths beat densities; the first of equals wins."""
    best: tuple[str, str, float] | None = None
    for text, kind, size in _candidates(image) or ():
        url = _resolved(text, base)
        if url is None:
            continue
        if best is None or (kind == best[1] and size > best[2]) or (kind == "w" and best[1] == "x"):
            best = (url, kind, size)
    return None if best is None else best[0]


def _resolved(text: str, base: str) -> str | None:
    text = text.strip()
    if text[:5].lower() == "data:":
        return None
    url = resolve_href(text, base)
    return url if url is not None and len(url) <= MAX_URL_LENGTH else None


def page_images(text: str, page_url: str) -> tuple[str, ...]:
    """The URLs of the images a decoded page shows, in page order, each once."""
    found = image_tags(text)
    base = page_url
    if found.base is not None:
        base = resolve_href(found.base, page_url) or page_url
    urls = (choose(image, base) for image in found.images)
    return tuple(dict.fromkeys(url for url in urls if url is not None))


def images_from_bytes(data: bytes, page_url: str) -> tuple[str, ...]:
    """`page_images` of a page's bytes, decoded as its head is (`encoding`)."""
    if not may_show_images(data):
        return ()
    return page_images(decode_head(data), page_url)


def read_page_images(path: str, page_url: str, *, fd: int | None = None) -> tuple[tuple[str, ...], str | None]:
    """The images of the page at `path` (or `fd`, open at any offset, left open), and a problem
    to report, or None. Raises OSError if it cannot be read."""
    return read_page(path, fd, lambda fd: _read_images(fd, page_url))


def _read_images(fd: int, page_url: str) -> tuple[tuple[str, ...], str | None]:
    pieces: list[bytes] = []
    read = 0
    while read <= PAGE_MAX_BYTES:  # one byte more than the most read: to tell that there is more
        piece = os.pread(fd, min(_READ_STEP, PAGE_MAX_BYTES + 1 - read), read)
        if not piece:
            break
        pieces.append(piece)
        read += len(piece)
    data = b"".join(pieces)
    problem = None
    if len(data) > PAGE_MAX_BYTES:
        data = data[:PAGE_MAX_BYTES]
        problem = f"larger than {PAGE_MAX_BYTES:,} bytes; images read from those only"
    return images_from_bytes(data, page_url), problem
