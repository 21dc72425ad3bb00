"""From an href of a page's head to the one absolute URL it names, in the spelling our `loc`s use.

Hrefs are resolved as RFC 3986 (5.2) says and normalized (`normalize_url`), so that a canonical
or an hreflang link compares equal to the URL this site's page is listed under; what no one can
fetch as written is None, never guessed at. Paths to URLs, and back to files, are in `urls`.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

_HREF_SAFE = "/!$&'()*+,;=:@%~"
_QUERY_SAFE = _HREF_SAFE + "?"


def normalize_url(url: str) -> str:
    """One spelling per URL, so a head's href compares equal to our own `loc`.

    Lower-case scheme and host, default port dropped, fragment dropped,
    non-ASCII and spaces percent-encoded, existing escapes kept in upper case.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        pass
    try:
        port = parts.port
    except ValueError:
        port = None
    if ":" in host:
        host = f"[{host}]"
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    path = re.sub(r"%[0-9a-fA-F]{2}", lambda m: m.group(0).upper(), quote(parts.path or "/", safe=_HREF_SAFE))
    query = quote(parts.query, safe=_QUERY_SAFE) if parts.query else ""
    return urlunsplit((scheme, host, path, query, ""))


#: An absolute URL already in the form `normalize_url` gives: no need to redo it.
_NORMAL_URL = re.compile(
    r"https?://[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]++|%[0-9A-F]{2})*+"
)


#: What `normalize_url` gives for a URL that is valid by RFC 3986 (with a host name, or an
#: IPv6 literal, and a port in range): anything else it gives is not a URL to publish.
_VALID_URL = re.compile(
    r"https?://(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])"
    r"(?::[0-9]{1,5})?/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]++|%[0-9A-F]{2})*+"
    r"(?:\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]++|%[0-9A-F]{2})*+)?"
)


def resolve_href(href: str, page_url: str) -> str | None:
    """An href of a page's head as an absolute, normalized http(s) URL; None if it is not one.

    None too for what no one can fetch as written and RFC 3986 refuses: a '%'
    that is not an escape (``%zz``), a host with a space or another character
    no host name has, a port out of range. Such an href is never published
    (the XSDs refuse it too), and never guessed at: which URL was meant is
    unknown.
    """
    href = href.strip()
    if not href:
        return None
    if _NORMAL_URL.fullmatch(href):
        return href
    if _PATH_REFERENCE.fullmatch(href) and "//" not in href and _is_normal(page_url):
        return _joined_path(href, page_url)
    return _resolved(href, page_url)


@functools.lru_cache(maxsize=16)
def _is_normal(url: str) -> bool:
    """Whether `url` is in normal form: asked once a page, not once for each of its links."""
    return _NORMAL_URL.fullmatch(url) is not None


#: A path-only reference (``/de/``, ``./install/``, ``../fr/page.html``) in normal form: no
#: scheme (no ':' in its first segment), no authority, query or fragment, nothing to escape.
#: (Without empty segments or ';' too: urljoin drops the first, where RFC 3986 keeps them, and
#: reads the second as the start of "params", a URL part RFC 3986 no longer has.)
_PATH_REFERENCE = re.compile(
    r"(?!//)(?:[A-Za-z0-9\-._~!$&'()*+,=@]++|%[0-9A-F]{2})*+(?:/(?:[A-Za-z0-9\-._~!$&'()*+,=:@]++|%[0-9A-F]{2})*+)*+"
)


def _joined_path(href: str, page_url: str) -> str:
    """A path reference resolved against a normal page URL as RFC 3986 (5.2) does, without
    `urljoin`: multilingual heads carry ten or twenty of them (hreflang), and this is what
    `_resolved` gives for them (a property test checks it)."""
    origin = page_origin(page_url)
    assert origin is not None  # asked only of a page URL in normal form (`_is_normal`)
    path = href if href.startswith("/") else page_url[len(origin) : page_url.rindex("/") + 1] + href
    if "." in path:
        segments = path.split("/")
        kept: list[str] = []
        for segment in segments[1:]:
            if segment == "..":
                if kept:
                    kept.pop()
            elif segment != ".":
                kept.append(segment)
        if segments[-1] in (".", ".."):
            kept.append("")
        path = "/" + "/".join(kept)
    return origin + path


class Href(NamedTuple):
    """An href as read once, for every page whose head carries it (see `read_href`): which of
    `resolve_href`'s ways it takes that no page changes is settled here, not once per page.
    (A named tuple: a tag read for the first time makes one, and a frozen dataclass costs
    three times as much to make.)"""

    text: str  # stripped
    fixed: str | None = None  # an absolute URL in normal form: what it is on any page
    rooted: bool = False  # a normal path from the root without dot segments: the page's origin + text

    def resolve(self, page_url: str) -> str | None:
        """`resolve_href(self.text, page_url)`, the same URL, for less."""
        if self.fixed is not None:
            return self.fixed
        if self.rooted and (origin := page_origin(page_url)) is not None:
            return origin + self.text
        return resolve_href(self.text, page_url)


def read_href(href: str) -> Href:
    """An href of a head, ready to resolve against any page (see `Href`)."""
    text = href.strip()
    if not text.startswith("/") and _NORMAL_URL.fullmatch(text):
        return Href(text, text, False)
    rooted = (
        text.startswith("/")
        and _PATH_REFERENCE.fullmatch(text) is not None
        and "//" not in text
        and ("/." not in text or not any(segment in (".", "..") for segment in text.split("/")))
    )
    return Href(text, None, rooted)


@functools.lru_cache(maxsize=16)
def page_origin(page_url: str) -> str | None:
    """The scheme and host of a page URL in normal form (what `_joined_path` keeps), or None."""
    if not _is_normal(page_url):
        return None
    return page_url[: page_url.index("/", page_url.index("//") + 2)]


def _resolved(href: str, page_url: str) -> str | None:
    """`resolve_href` for any href: joined by `urljoin`, normalized, checked against RFC 3986."""
    try:
        joined = urljoin(page_url, href)
        parts = urlsplit(joined)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or (port is not None and not 0 < port < 65536):
        return None
    url = normalize_url(joined)
    return url if _VALID_URL.fullmatch(url) else None
