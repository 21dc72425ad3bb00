"""From a page's path under the docroot to the absolute URL a crawler fetches, and back.

Paths are percent-encoded from their raw bytes (RFC 3986), so any name the
filesystem allows, including names that are not valid UTF-8, maps to one URL
that a static server turns back into the same file (`served_files`). XML
escaping happens later, in the writer, exactly once. An href of a page's head
becomes a URL in `hrefs`.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import os
import re
from urllib.parse import quote, unquote_to_bytes, urlsplit

from sitemapgen.errors import ConfigError
from sitemapgen.protocol import MIN_URL_LENGTH

#: Characters left as they are in a path: RFC 3986 unreserved characters (which
#: `quote` always keeps) plus the sub-delims, ':' and '@' that `pchar` allows.
#: Everything else, including '%', '?', '#', '"', '<', '>' and space, is encoded.
_PATH_SAFE = "/!$&'()*+,;=:@"
_PERCENT_RUN = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$")

INDEX_NAMES = ("index.html", "index.htm")
PAGE_SUFFIXES = (".html", ".htm")


class UrlStyle(enum.Enum):
    """How a file's path becomes the path of its URL."""

    #: ``a/index.html`` -> ``a/``; ``a/b.html`` -> ``a/b.html`` (what every static server serves)
    DIRECTORY = "directory"
    #: ``a/index.html`` -> ``a/index.html``: the URL is the file's path
    INDEX = "index"
    #: ``a/index.html`` -> ``a/``; ``a/b.html`` -> ``a/b`` (needs a server that maps it back)
    EXTENSIONLESS = "extensionless"
    #: ``a/index.html`` -> ``a``; ``a/b.html`` -> ``a/b`` (cleanUrls on Vercel, Firebase, serve)
    CLEAN = "clean"


def is_page_name(name: str) -> bool:
    """Whether a file name is one of the HTML pages a sitemap lists."""
    return name.lower().endswith(PAGE_SUFFIXES)


def _host_of(host: str) -> str:
    """A base URL's host as it goes in the URL: IDNA-encoded, or an IPv6 literal in brackets."""
    if ":" in host:  # an IPv6 literal; urlsplit has already checked the brackets
        return f"[{host}]"
    try:
        netloc_host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError as e:
        raise ConfigError("base_url", f"has an invalid host name {host!r}") from e
    if not _HOST.match(netloc_host):
        raise ConfigError("base_url", f"has an invalid host name {host!r}")
    return netloc_host


def normalize_base_url(raw: str) -> str:
    """Check a base URL and give it the one spelling every page URL starts with.

    The result has a lower-case scheme and host (IDNA-encoded), keeps an
    explicit port, and its path is percent-encoded and ends in ``/``, so that
    joining it with an encoded relative path can never produce ``//`` or lose a
    segment.
    """
    if not isinstance(raw, str) or not raw:
        raise ConfigError("base_url", "must be a URL such as https://example.com/")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as e:
        raise ConfigError("base_url", f"is not a valid URL ({e}), got {raw!r}") from e
    if raw.strip() != raw or any(ch.isspace() for ch in parts.netloc):
        raise ConfigError("base_url", f"must not contain white space outside its path, got {raw!r}")
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ConfigError("base_url", f"must start with http:// or https://, got {raw!r}")
    host = parts.hostname
    if not host:
        raise ConfigError("base_url", f"has no host, got {raw!r}")
    if parts.username is not None or parts.password is not None:
        raise ConfigError("base_url", f"must not carry a user name or password, got {raw!r}")
    if parts.query or parts.fragment or raw.endswith(("?", "#")):
        raise ConfigError("base_url", f"must not have a query or fragment, got {raw!r}")
    netloc_host = _host_of(host)
    netloc = netloc_host if port is None else f"{netloc_host}:{port}"
    path = quote(parts.path or "/", safe=_PATH_SAFE + "%")
    if _PERCENT_RUN.search(path):
        raise ConfigError("base_url", f"has a '%' that is not followed by two hex digits, got {raw!r}")
    if not path.endswith("/"):
        path += "/"
    url = f"{scheme}://{netloc}{path}"
    if len(url) < MIN_URL_LENGTH:
        raise ConfigError(
            "base_url",
            f"is shorter than the {MIN_URL_LENGTH} characters the sitemap schema requires of a URL, got {raw!r}",
        )
    return url


#: The characters percent-encoding leaves as they are (unreserved characters and _PATH_SAFE):
#: a name or path of them alone (`_PLAIN`), and a run of any others (`_UNPLAIN`).
_KEPT = r"A-Za-z0-9_.~!$&'()*+,;=:@/-"
_PLAIN = re.compile(f"[{_KEPT}]*+")
_UNPLAIN = re.compile(f"[^{_KEPT}]+")
_PERCENT = tuple(f"%{byte:02X}" for byte in range(256))


def _encoded(text: str) -> str:
    """`text` percent-encoded from its raw bytes (surrogate escapes are the bytes), as `quote`
    encodes them, but only the runs that need it: not a Python call for each byte of the name."""
    if _PLAIN.fullmatch(text):
        return text
    return _UNPLAIN.sub(_percent_run, text)


def _percent_run(run: re.Match[str]) -> str:
    return "".join([_PERCENT[byte] for byte in os.fsencode(run.group())])


@functools.lru_cache(maxsize=1024)
def _encoded_directory(head: str) -> str:
    # A directory's pages come one after another: its encoded path is worked out once. Most
    # need no encoding, and a site of folders with a page each misses the cache every time.
    return _encoded(head)


def url_name(name: str, style: UrlStyle = UrlStyle.DIRECTORY) -> str:
    """The last segment of a page's URL path, before encoding ("" for an index page).

    Two files of one directory share a URL exactly when this is the same for
    both (encoding is one-to-one), so the walk compares these, cheaply.
    """
    if style is not UrlStyle.INDEX and name in INDEX_NAMES:
        return ""
    if style is UrlStyle.EXTENSIONLESS or style is UrlStyle.CLEAN:
        for suffix in PAGE_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                return name[: -len(suffix)]
    return name


def url_path(relpath: str, style: UrlStyle = UrlStyle.DIRECTORY) -> str:
    """The encoded URL path, relative to the base URL, of the page at `relpath`.

    `relpath` uses ``/`` separators and may hold surrogate escapes for bytes
    that are not UTF-8; they are encoded as the original bytes. Encoding works
    byte by byte, so the directory part and the name are encoded apart.
    """
    head, _, name = relpath.rpartition("/")
    if style is UrlStyle.CLEAN and head and name in INDEX_NAMES:
        return _encoded_directory(head + "/")[:-1]
    directory = _encoded_directory(head + "/") if head else ""
    return directory + _encoded(url_name(name, style))


def encoded_path(path: str) -> str:
    """A decoded URL path (``a/b c``) percent-encoded from its raw bytes, as `url_path` encodes."""
    return quote(os.fsencode(path), safe=_PATH_SAFE)


def decoded_path(path: str) -> str:
    """A URL path (``a/b%20c``) percent-decoded to the file name's bytes (``a/b c``), as a static
    server decodes it: bytes that are not UTF-8 become surrogate escapes, as a file name's do."""
    return path if _PLAIN.fullmatch(path) else os.fsdecode(unquote_to_bytes(path))  # most need no decoding


def at_host_root(base_url: str) -> bool:
    """Whether `base_url` is its host's root: the one place crawlers read a robots.txt from."""
    return urlsplit(base_url).path in ("", "/")


def page_url(base_url: str, relpath: str, style: UrlStyle = UrlStyle.DIRECTORY) -> str:
    """The absolute URL of the page at `relpath`; `base_url` must be normalized."""
    return base_url + url_path(relpath, style)


#: What may follow a base URL in a URL whose path `urlsplit` gives as written: no query, no
#: fragment, none of the characters it deletes.
_PATH_ONLY = re.compile(r"[^?#\t\r\n]*+")


def path_past_base(url: str, base_url: str) -> str | None:
    """The path of `url` past the path of `base_url`, both as `urlsplit` reads them; None when
    `url` is not under `base_url`. Asked of every canonical and hreflang link that names this
    site: where `base_url` is normalized and `url` is it and more path, that path is the rest
    of `url` as written, found without splitting either."""
    if not url.startswith(base_url):
        return None
    rest = url[len(base_url) :]
    if _PATH_ONLY.fullmatch(rest) is not None and _splits_as_written(base_url):
        return rest
    path, base_path = urlsplit(url).path, urlsplit(base_url).path
    return path[len(base_path) :] if path.startswith(base_path) else None


@functools.lru_cache(maxsize=16)
def _splits_as_written(base_url: str) -> bool:
    """Whether `urlsplit` reads `base_url` as a host and, from the '/' after it, a path that runs
    to its end: then, with more path after it, the path it reads is the base's and the rest, as
    written. (Without a host, more path may make one: "/" and "/e.org/a" are "//e.org/a".)"""
    parts = urlsplit(base_url)
    return bool(parts.netloc) and parts.path.startswith("/") and _PATH_ONLY.fullmatch(base_url) is not None


@dataclasses.dataclass(frozen=True, slots=True)
class Served:
    """The files a static server answers a URL path with, in the order it tries them.

    `direct` files answer the URL itself (200); `redirected` ones only after the
    server redirects it (``/a`` to ``/a/`` when ``a`` is a directory): a URL that
    redirects is never one to list.
    """

    direct: tuple[str, ...]
    redirected: tuple[str, ...] = ()


def served_files(url: str, base_url: str, style: UrlStyle) -> Served | None:
    """The docroot relpaths a plain static server may answer `url` with; None when `url`
    is not under `base_url` (another site, or a part of this host the docroot is not).

    ``/a/`` is ``a/index.html`` (or ``.htm``); ``/a.html`` is ``a.html``; in the
    extensionless style ``/a`` is ``a.html`` (or ``.htm``) too; ``/a`` is also
    ``a/index.html`` after a redirect. The path is percent-decoded to the file
    name's bytes; a path with a ``..`` or ``.`` segment or a NUL names no file.
    """
    rest = path_past_base(url, base_url)
    return None if rest is None else served_name(decoded_path(rest), style)


def served_name(name: str, style: UrlStyle) -> Served:
    """`served_files` of a URL whose path past the base URL is `name`, percent-decoded."""
    segments = name.split("/")
    if "\0" in name or ".." in segments or "." in segments or "" in segments[:-1]:
        return Served(())
    if name == "" or name.endswith("/"):
        return Served(tuple(name + index for index in INDEX_NAMES))
    direct: list[str] = [name] if is_page_name(name) else []
    if style is UrlStyle.EXTENSIONLESS or style is UrlStyle.CLEAN:  # as try_files $uri $uri.html
        direct += [name + suffix for suffix in PAGE_SUFFIXES]
    indexes = tuple(f"{name}/{index}" for index in INDEX_NAMES)
    if style is UrlStyle.CLEAN:  # /a is a/index.html itself, not a redirect to /a/
        return Served((*direct, *indexes))
    return Served(tuple(direct), indexes)
