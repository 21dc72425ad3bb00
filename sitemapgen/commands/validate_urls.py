"""What `validate` asks of a URL: its form (length, characters, percent-escapes, an absolute
http(s) URL), and where it leads: whether it lies below a directory (the location rule), and
whether its path can safely name a file there, compared as a server sees the path."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sitemapgen.protocol import MAX_URL_LENGTH

_URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def check_url(url: str, what: str) -> list[str]:
    """What is wrong with `url` as the protocol reads a URL (`what` names it in each message); [] if nothing."""
    problems = []
    if len(url) > MAX_URL_LENGTH:
        problems.append(f"{what} is {len(url):,} characters; the protocol requires fewer than 2,048")
    if not _URI_CHARS.match(url):
        bad = sorted({ch for ch in url if not _URI_CHARS.match(ch)})
        problems.append(f"{what} {url!r} has characters that must be percent-encoded (RFC 3986): {''.join(bad)!r}")
    if _BAD_PERCENT.search(url):
        problems.append(f"{what} {url!r} has a '%' not followed by two hex digits")
    if not is_absolute(url):
        problems.append(f"{what} {url!r} is not an absolute http(s) URL")
    return problems


def is_absolute(url: str) -> bool:
    """Whether `url` is an absolute http(s) URL: one a host and a location can be read from."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def directory_of(url: str) -> str:
    """The URL of the directory `url` lies in, ending in '/'."""
    return url.rpartition("/")[0] + "/"


def path_segments(url: str) -> list[str]:
    """The URL's path segments, percent-decoded as a server decodes them; dot segments kept.

    Bytes that are not UTF-8 decode as the file system's own names do
    (surrogateescape), so a segment can be opened as a file name.
    """
    return [unquote(segment, errors="surrogateescape") for segment in urlsplit(url).path.split("/")]


def resolved(segments: Sequence[str]) -> list[str]:
    """`segments` with '.' and '..' resolved (RFC 3986, 5.2.4): what a server serves."""
    out: list[str] = []
    for segment in segments:
        if segment == "..":
            if len(out) > 1:
                out.pop()
        elif segment != ".":
            out.append(segment)
    if segments and segments[-1] in (".", ".."):
        out.append("")
    return out


def below(url: str, directory: str) -> list[str] | None:
    """The resolved path segments of `url` below `directory` (a URL ending in '/'); None if not below.

    Compared after percent-decoding and resolving dot segments, so neither
    ``../`` nor ``%2e%2e/`` passes for a path under the directory; the scheme and the host
    in any case, as RFC 3986 (3.1, 3.2.2) compares them.
    """
    target, base = urlsplit(url), urlsplit(directory)
    if (target.scheme, target.netloc.lower()) != (base.scheme, base.netloc.lower()):  # RFC 3986: any case
        return None
    inside = resolved(path_segments(directory))[:-1]
    path = resolved(path_segments(url))
    if len(path) <= len(inside) or path[: len(inside)] != inside:
        return None
    return path[len(inside) :]


def unservable(segments: Sequence[str]) -> str | None:
    """Why a URL path cannot safely name a file below an index's directory; None if it can.

    Strict on purpose: a dot segment, an encoded '/', a backslash (a separator
    to some servers) or a NUL could each lead a server, or us, somewhere else.
    """
    names = segments[1:]
    if not names or not names[-1]:
        return "does not name a file"
    for name in names:
        if name in (".", ".."):
            return f"has a {name!r} segment (percent-encoded or not)"
        if not name:
            return "has an empty segment ('//')"
        for ch in ("/", "\\", "\0"):
            if ch in name:
                return f"has {ch!r} inside a segment (percent-encoded or not)"
    return None


def not_found(path: Path) -> str:
    """A named file that is not there, or a directory: bad input, said before anything is read. A
    URL (which a path spells with one slash) is named as given, with what to do; a directory, with
    the index a build writes there."""
    name = str(path)
    if path.is_dir():
        index = path / "sitemap.xml"
        hint = f"did you mean {index}?" if index.is_file() else "give a sitemap or an index in it, such as sitemap.xml"
        return f"{name}: a directory, not a sitemap ({hint})"
    for scheme in ("http:/", "https:/"):
        if name.startswith(scheme) and not name.startswith(scheme + "/"):
            url = scheme + "/" + name.removeprefix(scheme)
            return f"{url}: validate reads files, not URLs: download it first (curl -O {url})"
    return f"{name}: no such file"
