"""Check sitemap files and indexes, ours or any other tool's, against the protocol.

Problems are data (`Problem(path, line, message)`), collected rather than
raised, so one run reports everything wrong with a set of files. The XSDs are
the official ones, shipped in the package, so this works offline.

The files may come from anywhere, so reading them is guarded. A file is read
only to the protocol's size limit plus one byte (a gzip bomb is inflated about
a MiB further), and every gzip member is checked to its CRC and length trailer. A
FIFO or a directory is refused without waiting on it. Entity declarations are
refused, so nothing is expanded, read or fetched. An index can make us read
only files below its own directory, never through a symlink out of it, each
file once, and never round a cycle.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lxml import etree

from sitemapgen.errors import os_failure
from sitemapgen.protocol import (
    DEFAULT_BYTES_PER_SITEMAP,
    DEFAULT_SITEMAPS_PER_INDEX,
    LOC,
    MAX_BYTES_PER_SITEMAP,
    MAX_SITEMAPS_PER_INDEX,
    MAX_URL_LENGTH,
    MAX_URLS_PER_SITEMAP,
    SITEMAP_NS,
)

_URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")

#: How deep indexes may list indexes. The protocol does not say (Google has said it follows no
#: nested index); a bound keeps a long chain of distinct files from exhausting the stack.
MAX_INDEX_DEPTH = 8
#: Bytes of a gzip file inflated at a time: deflate expands at most 1,032:1, so about 1 MiB.
_CHUNK = 1 << 10
_GZIP_MAGIC = b"\x1f\x8b"
# As safeio.open_regular, which has no dir_fd: never wait on a FIFO; the kind is checked after open.
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
# Directories are only walked through: O_PATH needs no read permission on them, as a path lookup needs none.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)
#: Read failures that are the machine's, not the file's: exit 3, not a Problem.
_MACHINE_ERRNOS = frozenset({errno.EIO, errno.ENOMEM, errno.ENFILE, errno.EMFILE, errno.ENOBUFS})
_ZLIB_REASONS = {
    "incorrect data check": "its CRC-32 does not match its data",
    "incorrect length check": "its length trailer does not match its data",
    "incorrect header check": "not a gzip member",
}
_NO_ENTITIES = "entity declarations are not allowed (nothing was expanded, read or fetched)"
_NO_EXTERNAL_DTD = "an external DTD is not allowed (it was not fetched)"


class _Unreadable(Exception):
    """Why a file's content cannot be checked; becomes a Problem, never leaves this module."""


class _Escapes(Exception):
    """A listed file resolves (through a symlink) outside the directory it must be in."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong, where it is."""

    path: Path
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"


@dataclass
class Report:
    """Everything one validation found."""

    problems: list[Problem] = field(default_factory=list)
    #: Within the current protocol, but past what its 2008 text (and consumers that follow it) accept.
    notes: list[Problem] = field(default_factory=list)
    files: int = 0
    urls: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


@cache
def _schema(name: str) -> etree.XMLSchema:
    with resources.as_file(resources.files("sitemapgen") / "schemas" / name) as path:
        return etree.XMLSchema(etree.parse(str(path)))


def _open_file(name: str | Path, *, dir_fd: int | None = None, follow_symlinks: bool = True) -> io.BufferedReader:
    """`name` opened for reading if it is a regular file; a FIFO is refused, never waited on."""
    fd = os.open(name, _READ_FLAGS if follow_symlinks else _READ_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((what for test, what in _KINDS if test(mode)), "not a regular file")
            raise _Unreadable(f"not a file: it is {kind}")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "rb")


def _open_below(directory: Path, parts: Sequence[str]) -> io.BufferedReader:
    """The file `directory`/`parts` opened for reading, only if it really is below `directory`.

    A symlink inside the directory is followed (a deploy may link its files)
    as long as it resolves below it. The resolved path is then opened one
    component at a time, following no link, so a link swapped in after the
    check is refused instead of followed out.
    """
    top = os.path.realpath(directory)
    target = os.path.realpath(os.path.join(top, *parts))
    if target != top and os.path.commonpath((top, target)) != top:
        raise _Escapes(target)
    *dirs, name = os.path.relpath(target, top).split(os.sep)
    dir_fd = os.open(top, _DIR_FLAGS)
    try:
        for part in dirs:
            inner = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
            os.close(dir_fd)
            dir_fd = inner
        return _open_file(name, dir_fd=dir_fd, follow_symlinks=False)
    finally:
        os.close(dir_fd)


def _identity(f: io.BufferedReader) -> tuple[int, int]:
    """Which file this is, whatever the path (symlinks, hard links) that led to it."""
    st = os.fstat(f.fileno())
    return st.st_dev, st.st_ino


def _read_limited(f: io.BufferedReader, limit: int) -> bytes:
    """The content, gunzipped if it is gzip; `_Unreadable` as soon as it passes `limit` bytes.

    A plain file is read to `limit` + 1 bytes at most, a gzip file inflated to
    about a MiB past the limit at most, so neither a huge file nor a gzip bomb
    is held in memory.
    """
    if f.peek(2)[:2] == _GZIP_MAGIC:
        return _gunzip(f, limit)
    data = f.read(limit + 1)
    if len(data) > limit:
        raise _too_large(limit)
    return data


def _too_large(limit: int) -> _Unreadable:
    return _Unreadable(f"larger than {limit:,} bytes uncompressed")


def _gunzip(f: io.BufferedReader, limit: int) -> bytes:
    """Inflate every gzip member of `f`, each checked to its CRC and length, to at most `limit` bytes.

    What follows a member must be another member: trailing garbage, even
    zeros, is corrupt, as a strict client (Go's gzip reader) finds it. Input
    goes in small chunks, so a bomb is stopped about a MiB past the limit, and
    the pieces are joined only when all is read.
    """
    pieces: list[bytes] = []
    size = 0
    member = 1
    inflater = zlib.decompressobj(wbits=31)  # gzip framing: zlib checks the CRC-32 and ISIZE trailer
    data = b""
    try:
        while True:
            if inflater.eof:
                data = inflater.unused_data or f.read(_CHUNK)
                if not data:
                    return b"".join(pieces)
                member += 1
                inflater = zlib.decompressobj(wbits=31)
            elif not data:
                data = f.read(_CHUNK)
                if not data:
                    raise _Unreadable(f"truncated gzip: member {member} ends before its CRC and length trailer")
            piece = inflater.decompress(data)  # all of it: no output is left pending in zlib
            size += len(piece)
            if size > limit:
                raise _too_large(limit)
            pieces.append(piece)
            data = b""
    except zlib.error as e:
        reason = str(e).rpartition(": ")[2]  # "Error -3 while decompressing data: incorrect data check"
        raise _Unreadable(f"corrupt gzip: member {member}: {_ZLIB_REASONS.get(reason, reason)}") from e


def _check_url(url: str, what: str) -> list[str]:
    problems = []
    if len(url) > MAX_URL_LENGTH:
        problems.append(f"{what} is {len(url):,} characters; the protocol requires fewer than 2,048")
    if not _URI_CHARS.match(url):
        bad = sorted({ch for ch in url if not _URI_CHARS.match(ch)})
        problems.append(f"{what} {url!r} has characters that must be percent-encoded (RFC 3986): {''.join(bad)!r}")
    if _BAD_PERCENT.search(url):
        problems.append(f"{what} {url!r} has a '%' not followed by two hex digits")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        problems.append(f"{what} {url!r} is not an absolute http(s) URL")
    return problems


def _directory(url: str) -> str:
    return url.rpartition("/")[0] + "/"


def _segments(url: str) -> list[str]:
    """The URL's path segments, percent-decoded as a server decodes them; dot segments kept.

    Bytes that are not UTF-8 decode as the file system's own names do
    (surrogateescape), so a segment can be opened as a file name.
    """
    return [unquote(segment, errors="surrogateescape") for segment in urlsplit(url).path.split("/")]


def _resolved(segments: Sequence[str]) -> list[str]:
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


def _below(url: str, directory: str) -> list[str] | None:
    """The resolved path segments of `url` below `directory` (a URL ending in '/'); None if not below.

    Compared after percent-decoding and resolving dot segments, so neither
    ``../`` nor ``%2e%2e/`` passes for a path under the directory.
    """
    target, base = urlsplit(url), urlsplit(directory)
    if (target.scheme, target.netloc) != (base.scheme, base.netloc):
        return None
    inside = _resolved(_segments(directory))[:-1]
    path = _resolved(_segments(url))
    if len(path) <= len(inside) or path[: len(inside)] != inside:
        return None
    return path[len(inside) :]


def _unservable(segments: Sequence[str]) -> str | None:
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


def _is_entity_expansion(error: etree._LogEntry) -> bool:
    """Whether libxml2 stopped because entities expanded past its limits (billion laughs).

    Its other resource limits (a token over 10,000,000 bytes) are a plain
    syntax error, so the message is read too.
    """
    if error.type == etree.ErrorTypes.ERR_ENTITY_LOOP:
        return True
    return error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT and "entity" in error.message.lower()


def _unsafe_dtd(root: etree._Element) -> str | None:
    """Why the document's DTD is refused, or None: it may not declare entities or load anything.

    The parser expanded, read and fetched nothing; this makes the attempt a
    problem rather than something passed over (or an XSD validator's crash on
    an unexpanded entity).
    """
    docinfo = root.getroottree().docinfo
    if docinfo.system_url or docinfo.public_id:
        return _NO_EXTERNAL_DTD
    if docinfo.internalDTD is not None and any(True for _ in docinfo.internalDTD.iterentities()):
        return _NO_ENTITIES
    return None


class _Validator:
    def __init__(self, base_url: str | None) -> None:
        self.report = Report()
        self.base_url = base_url
        self.host: str | None = urlsplit(base_url).netloc if base_url else None
        self.seen: set[int] = set()
        # Every file read, by identity: where an index listed it ("path:line"), None if named.
        self.done: dict[tuple[int, int], str | None] = {}
        self.reading: list[tuple[int, int]] = []  # the chain of indexes being read: a cycle returns to one

    def problem(self, path: Path, line: int | None, message: str) -> None:
        self.report.problems.append(Problem(path, line, message))

    def note(self, path: Path, message: str) -> None:
        self.report.notes.append(Problem(path, None, f"{message}; older consumers (the 2008 protocol) may refuse it"))

    def cannot_read(self, path: Path, error: OSError) -> None:
        """A file that cannot be opened or read: the file's problem, or the machine's (exit 3)."""
        if error.errno in _MACHINE_ERRNOS:
            raise os_failure(path, "read", error) from error
        self.problem(path, None, f"cannot read: {error.strerror or error}")

    def named(self, path: Path, own_url: str | None) -> None:
        """Validate a file named by the caller, unless it was already read (named twice, or listed)."""
        try:
            f = _open_file(path)
        except FileNotFoundError:
            self.problem(path, None, "no such file")
            return
        except _Unreadable as e:
            self.problem(path, None, str(e))
            return
        except OSError as e:
            self.cannot_read(path, e)
            return
        with f:
            key = _identity(f)
            if key not in self.done:
                self._read(path, own_url, f, key, None, 0)

    def _read(
        self,
        path: Path,
        own_url: str | None,
        f: io.BufferedReader,
        key: tuple[int, int],
        listed_at: str | None,
        depth: int,
    ) -> None:
        self.report.files += 1
        self.done[key] = listed_at
        self.reading.append(key)
        try:
            root = self._parse(path, f)
            if root is None:
                return
            if root.tag == f"{{{SITEMAP_NS}}}urlset":
                self._urlset(path, root, own_url)
            elif root.tag == f"{{{SITEMAP_NS}}}sitemapindex":
                self._index(path, root, own_url, depth)
            else:
                self.problem(
                    path, root.sourceline, f"root element {root.tag} is neither urlset nor sitemapindex of {SITEMAP_NS}"
                )
        finally:
            self.reading.pop()

    def _parse(self, path: Path, f: io.BufferedReader) -> etree._Element | None:
        """The file's root element; None (and a problem) if it cannot be read or is not safe, well-formed XML."""
        try:
            data = _read_limited(f, MAX_BYTES_PER_SITEMAP)
        except _Unreadable as e:
            self.problem(path, None, str(e))
            return None
        except OSError as e:
            self.cannot_read(path, e)
            return None
        if not data.lstrip().startswith(b"<"):
            self.problem(path, 1, "not XML")
            return None
        if len(data) > DEFAULT_BYTES_PER_SITEMAP:
            self.note(path, f"{len(data):,} bytes uncompressed, more than {DEFAULT_BYTES_PER_SITEMAP:,}")
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
        try:
            root = etree.fromstring(data, parser)
        except etree.XMLSyntaxError as e:
            if any(_is_entity_expansion(error) for error in e.error_log):
                self.problem(path, None, _NO_ENTITIES)  # expansion past libxml2's limits: billion laughs
            else:
                self.problem(path, e.lineno, f"not well-formed XML (unescaped & or <?): {e.msg}")
            return None
        unsafe = _unsafe_dtd(root)
        if unsafe is not None:
            self.problem(path, None, unsafe)
            return None
        for number, raw in enumerate(data.splitlines(), 1):
            for loc in LOC.findall(raw):
                for ch in (b"'", b'"', b">"):
                    if ch in loc:
                        self.problem(path, number, f"{ch.decode()!r} in <loc> must be entity-escaped")
        return root

    def _schema_errors(self, path: Path, root: etree._Element, xsd: str) -> None:
        schema = _schema(xsd)
        if not schema.validate(root):
            for error in schema.error_log:
                self.problem(path, error.line, f"schema: {error.message}")

    def _locs(self, path: Path, root: etree._Element, tag: str, own_url: str | None) -> Iterator[tuple[str, int]]:
        for element in root.iterfind(f"{{{SITEMAP_NS}}}{tag}/{{{SITEMAP_NS}}}loc"):
            url = (element.text or "").strip()
            line = element.sourceline
            for message in _check_url(url, "loc"):
                self.problem(path, line, message)
            host = urlsplit(url).netloc
            if self.host is None:
                self.host = host
            elif host != self.host:
                self.problem(path, line, f"loc {url!r} is on host {host!r}; a sitemap lists one host ({self.host!r})")
            if own_url is not None and _below(url, _directory(own_url)) is None:
                unread = "; not read" if tag == "sitemap" else ""
                self.problem(
                    path,
                    line,
                    f"loc {url!r} is outside {_directory(own_url)}, where this file lives (location rule){unread}",
                )
            yield url, line or 0

    def _urlset(self, path: Path, root: etree._Element, own_url: str | None) -> None:
        self._schema_errors(path, root, "sitemap-with-extensions.xsd")
        count = 0
        for url, line in self._locs(path, root, "url", own_url):
            count += 1
            key = hash(url)
            if key in self.seen:
                self.problem(path, line, f"loc {url!r} is listed more than once")
            self.seen.add(key)
        self.report.urls += count
        if count > MAX_URLS_PER_SITEMAP:
            self.problem(path, None, f"{count:,} URLs; a sitemap may list at most {MAX_URLS_PER_SITEMAP:,}")

    def _index(self, path: Path, root: etree._Element, own_url: str | None, depth: int) -> None:
        self._schema_errors(path, root, "siteindex.xsd")
        entries = list(self._locs(path, root, "sitemap", own_url))
        if len(entries) > MAX_SITEMAPS_PER_INDEX:
            self.problem(path, None, f"{len(entries):,} sitemaps; an index may list at most {MAX_SITEMAPS_PER_INDEX:,}")
        elif len(entries) > DEFAULT_SITEMAPS_PER_INDEX:
            self.note(path, f"{len(entries):,} sitemaps, more than {DEFAULT_SITEMAPS_PER_INDEX:,}")
        directory = _directory(own_url) if own_url else None
        for url, line in entries:
            self._entry(path, line, url, directory, depth + 1)

    def _entry(self, index: Path, line: int, url: str, directory: str | None, depth: int) -> None:
        """Validate a file the index lists, if it is found below the index's own directory.

        With the index's URL known, the entry's path below that URL is the
        file's path below the index's directory; without it, the entry's last
        segment names a file beside the index.
        """
        segments = _segments(url)
        if directory is None:
            parts = segments[-1:]
        else:
            below = _below(url, directory)
            if below is None:
                return  # outside: _locs said so (location rule)
            parts = below
        why = _unservable(segments)
        if why is not None:
            self.problem(index, line, f"lists {url}, whose path {why}; not read")
            return
        if depth > MAX_INDEX_DEPTH:
            self.problem(index, line, f"lists {url}, below {MAX_INDEX_DEPTH} levels of indexes; not read")
            return
        local = index.parent.joinpath(*parts)
        try:
            f = _open_below(index.parent, parts)
        except FileNotFoundError:
            self.problem(index, line, f"lists {url}, but {local} does not exist")
            return
        except _Escapes as e:
            self.problem(index, line, f"lists {url}, but {local} leads to {e.target}, outside {index.parent}; not read")
            return
        except _Unreadable as e:
            self.problem(local, None, str(e))
            return
        except OSError as e:
            self.cannot_read(local, e)
            return
        with f:
            key = _identity(f)
            if key in self.reading:
                cycle = "itself" if key == self.reading[-1] else f"{url}, which lists this index: a cycle"
                self.problem(index, line, f"lists {cycle}; not read again")
            elif key in self.done:
                first = self.done[key]
                if first is not None:  # a file also named by the caller was read then: no problem in that
                    self.problem(index, line, f"lists {url} again, as {first} did; read once")
            else:
                self._read(local, url, f, key, f"{index}:{line}", depth)


def validate(paths: list[Path], *, base_url: str | None = None) -> Report:
    """Validate sitemap files or indexes (and every sitemap an index lists).

    With `base_url`, each named file is taken to be served at base_url + its
    name, so the location rule and the one-host rule are checked against it.
    A file named twice, or named and also listed by an index, is read once.
    """
    validator = _Validator(base_url)
    for path in paths:
        validator.named(path, base_url + path.name if base_url else None)
    return validator.report
