"""What a page's ``<head>`` says about whether and how it belongs in a sitemap.

Only the bytes up to ``</head>`` (or ``<body``) are read, at most `max_bytes`,
so a large page costs no more than a small one. beautifulsoup4 is the reference
reader of those bytes; broken or binary input yields a `HeadFacts` with a
`problem`, never an exception, and the page is then kept as if it said nothing.
"""

from __future__ import annotations

import codecs
import dataclasses
import re
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import bs4
from bs4.filter import SoupStrainer  # bs4 >= 4.13

DEFAULT_MAX_BYTES = 65_536
_READ_STEP = 16_384
_HEAD_END = re.compile(rb"</head|<body", re.IGNORECASE)
_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_REFRESH_URL = re.compile(r"""^\s*(\d*\.?\d*)\s*[;,]?\s*(?:url\s*=\s*)?(['"]?)(.*?)\2\s*$""", re.IGNORECASE | re.DOTALL)
#: xsd:language, which the XHTML schema requires of hreflang ("x-default" fits too).
_LANGUAGE = re.compile(r"^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$")
_ROBOTS_NAMES = frozenset({"robots", "googlebot"})
_MODIFIED = (("property", "article:modified_time"), ("name", "last-modified"), ("itemprop", "datemodified"))
_HREF_SAFE = "/!$&'()*+,;=:@%~"
_QUERY_SAFE = _HREF_SAFE + "?"


@dataclass(frozen=True, slots=True)
class Alternate:
    """One ``<link rel="alternate" hreflang href>``: href absolute and percent-encoded."""

    hreflang: str
    href: str


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


def read_head_bytes(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[bytes, bool]:
    """The page's bytes up to the end of its head, and whether that end was found.

    Reads in steps so a short head on a long page costs one small read.
    """
    data = b""
    with open(path, "rb") as f:
        while len(data) < max_bytes:
            chunk = f.read(min(_READ_STEP, max_bytes - len(data)))
            if not chunk:
                return data, True  # the whole file is the head
            start = max(0, len(data) - 6)
            data += chunk
            end = _HEAD_END.search(data, start)
            if end:
                return data[: end.start()], True
    return data, False


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """The encoding of a head and the length of its BOM, as a browser would decide.

    BOM first, then UTF-16 without a BOM (a NUL beside an ASCII '<'), then a
    ``<meta charset>`` or http-equiv content-type, then UTF-8.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, len(bom)
    if len(data) >= 2 and data[0] == 0x3C and data[1] == 0:
        return "utf-16-le", 0
    if len(data) >= 2 and data[0] == 0 and data[1] == 0x3C:
        return "utf-16-be", 0
    found = _META_CHARSET.search(data)
    if found:
        label = found.group(1).decode("ascii", "replace").lower()
        try:
            name = codecs.lookup(label).name
        except LookupError:
            return "utf-8", 0
        # A meta tag that could be read as ASCII cannot be UTF-16 (HTML spec: use UTF-8).
        return ("utf-8" if name.startswith("utf-16") else name), 0
    return "utf-8", 0


def decode_head(data: bytes) -> str:
    """Decode head bytes; undecodable bytes become U+FFFD, never an error."""
    encoding, skip = sniff_encoding(data)
    return data[skip:].decode(encoding, "replace")


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


def _attr(tag: bs4.Tag, name: str) -> str:
    value = tag.get(name)
    if isinstance(value, list):
        return " ".join(value)
    return value or ""


def _tokens(value: str) -> set[str]:
    return {t.strip().lower() for t in re.split(r"[,\s]+", value) if t.strip()}


def _absolute(href: str, page_url: str) -> str | None:
    href = href.strip()
    if not href:
        return None
    try:
        joined = urljoin(page_url, href)
    except ValueError:
        return None
    if urlsplit(joined).scheme not in ("http", "https"):
        return None
    return normalize_url(joined)


def parse_head(text: str, page_url: str) -> HeadFacts:
    """Read the signals from head text; `page_url` resolves relative hrefs."""
    soup = bs4.BeautifulSoup(text, "html.parser", parse_only=SoupStrainer(["meta", "link"]))
    noindex = False
    canonicals: list[str] = []
    refresh: str | None = None
    alternates: list[Alternate] = []
    problems: list[str] = []
    modified: str | None = None
    for tag in soup.find_all(["meta", "link"]):
        if not isinstance(tag, bs4.Tag):
            continue
        if tag.name == "meta":
            name = _attr(tag, "name").strip().lower()
            content = _attr(tag, "content")
            if name in _ROBOTS_NAMES and _tokens(content) & {"noindex", "none"}:
                noindex = True
            if _attr(tag, "http-equiv").strip().lower() == "refresh" and refresh is None:
                match = _REFRESH_URL.match(content)
                if match and match.group(3).strip():
                    refresh = _absolute(match.group(3), page_url)
            if modified is None:
                for attr, value in _MODIFIED:
                    if _attr(tag, attr).strip().lower() == value and content.strip():
                        modified = content.strip()
                        break
        else:
            rel = _tokens(_attr(tag, "rel"))
            if "canonical" in rel:
                href = _absolute(_attr(tag, "href"), page_url)
                if href is not None and href not in canonicals:
                    canonicals.append(href)
            if "alternate" in rel and tag.has_attr("hreflang"):
                lang = _attr(tag, "hreflang").strip()
                href = _absolute(_attr(tag, "href"), page_url)
                if not _LANGUAGE.match(lang) or href is None:
                    problems.append(f"hreflang link ignored: hreflang={lang!r} href={_attr(tag, 'href')!r}")
                elif all(a.hreflang != lang or a.href != href for a in alternates):
                    alternates.append(Alternate(lang, href))
    if len(canonicals) > 1:
        problems.append(f"{len(canonicals)} different canonical links; search engines ignore them all")
    return HeadFacts(
        noindex=noindex,
        canonical=canonicals[0] if len(canonicals) == 1 else None,
        canonical_conflict=len(canonicals) > 1,
        refresh=refresh,
        alternates=tuple(alternates),
        modified=modified,
        problem="; ".join(problems) or None,
    )


def read_head(path: str, page_url: str, max_bytes: int = DEFAULT_MAX_BYTES) -> HeadFacts:
    """Read and parse the head of the page at `path`. Raises OSError if it cannot be read."""
    data, complete = read_head_bytes(path, max_bytes)
    facts = parse_head(decode_head(data), page_url)
    if complete:
        return facts
    note = f"no end of <head> in the first {max_bytes:,} bytes; read only those"
    return dataclasses.replace(facts, problem=f"{facts.problem}; {note}" if facts.problem else note)
