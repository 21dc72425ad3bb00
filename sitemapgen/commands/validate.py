"""Check sitemap files and indexes, ours or any other tool's, against the protocol.

Problems are data (`Problem(path, line, message)`), collected rather than
raised, so one run reports everything wrong with a set of files. The XSDs are
the official ones, shipped in the package, so this works offline.

The files may come from anywhere, so reading them is guarded (`validate_read`).
A file is read, or inflated if it is gzip, only to the protocol's size limit
plus one byte, and every gzip member is checked to its CRC and length trailer.
A FIFO or a directory is refused without waiting on it. Entity declarations are
refused, so nothing is expanded, read or fetched. An index can make us read
only files below its own directory, never through a symlink out of it, each
file once, and never round a cycle. What a URL must be, and where it leads, is
`validate_urls`'; what the XSDs refuse is said in the author's words by `validate_schema`.

One cause is one problem: a `<loc>` that is not an absolute URL is not also on a
wrong host or outside its location, nor too short for the schema. The problems of each
file come in line order.
"""

from __future__ import annotations

import errno
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree

from sitemapgen.commands.validate_read import (
    NO_ENTITIES,
    Escapes,
    Unreadable,
    identity,
    is_entity_expansion,
    open_below,
    open_file,
    read_limited,
    unsafe_dtd,
)
from sitemapgen.commands.validate_schema import schema_problems
from sitemapgen.commands.validate_urls import (
    below,
    check_url,
    directory_of,
    is_absolute,
    not_found,
    path_segments,
    unservable,
)
from sitemapgen.errors import SitemapgenError, os_failure
from sitemapgen.lastmod.base import FUTURE_SLACK, parse_datetime
from sitemapgen.output.published import published_others
from sitemapgen.protocol import (
    DEFAULT_BYTES_PER_SITEMAP,
    DEFAULT_SITEMAPS_PER_INDEX,
    LOC,
    MAX_BYTES_PER_SITEMAP,
    MAX_SITEMAPS_PER_INDEX,
    MAX_URLS_PER_SITEMAP,
    SITEMAP_NS,
)
from sitemapgen.skips import plural

#: How deep indexes may list indexes. The protocol does not say (Google has said it follows no
#: nested index); a bound keeps a long chain of distinct files from exhausting the stack.
MAX_INDEX_DEPTH = 8
#: A lastmod in a form the schema takes (W3C Datetime: a date, or a date and time with its offset).
_LASTMOD = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?")
#: Read failures that are the machine's, not the file's: exit 3, not a Problem.
_MACHINE_ERRNOS = frozenset({errno.EIO, errno.ENOMEM, errno.ENFILE, errno.EMFILE, errno.ENOBUFS})


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

    def closing(self) -> str:
        """The line that ends a report: ``2 files, 10 URLs: ok`` (or how many problems)."""
        verdict = "ok" if self.ok else plural(len(self.problems), "problem")
        return f"{plural(self.files, 'file')}, {plural(self.urls, 'URL')}: {verdict}"


@cache
def _schema(name: str) -> etree.XMLSchema:
    with resources.as_file(resources.files("sitemapgen") / "schemas" / name) as path:
        return etree.XMLSchema(etree.parse(str(path)))


class _Validator:
    def __init__(self, base_url: str | None) -> None:
        self.report = Report()
        self.base_url = base_url
        self.host: str | None = urlsplit(base_url).netloc.lower() if base_url else None  # RFC 3986: any case
        self.seen: set[int] = set()
        # Every file read, by identity: where an index listed it ("path:line"), None if named.
        self.done: dict[tuple[int, int], str | None] = {}
        self.reading: list[tuple[int, int]] = []  # the chain of indexes being read: a cycle returns to one
        self.others: dict[Path, set[str]] = {}  # `_included`, by directory

    def problem(self, path: Path, line: int | None, message: str) -> None:
        self.report.problems.append(Problem(path, line, message))

    def note(self, path: Path, message: str) -> None:
        self.report.notes.append(Problem(path, None, f"{message}; older consumers (the 2008 protocol) may refuse it"))

    def future_lastmods(self, path: Path, root: etree._Element, tag: str) -> None:
        """A note for the file's lastmods in the future (more than a day past this machine's
        clock), with their count and the first: the protocol takes any date, so it is not a
        problem, but search engines ignore a lastmod that cannot be true."""
        limit = datetime.now(UTC) + FUTURE_SLACK
        found: list[tuple[int | None, str]] = []
        for element in root.iterfind(f"{{{SITEMAP_NS}}}{tag}/{{{SITEMAP_NS}}}lastmod"):
            text = (element.text or "").strip()
            when = parse_datetime(text) if _LASTMOD.fullmatch(text) else None
            if when is not None and when > limit:
                found.append((element.sourceline, text))
        if found:
            line, text = found[0]
            more = f" (and {len(found) - 1:,} more in this file)" if len(found) > 1 else ""
            message = f"lastmod {text} is in the future{more}; search engines ignore a lastmod that cannot be true"
            self.report.notes.append(Problem(path, line, message))

    def cannot_read(self, path: Path, error: OSError) -> None:
        """A file that cannot be opened or read: the file's problem, or the machine's (exit 3)."""
        if error.errno in _MACHINE_ERRNOS:
            raise os_failure(path, "read", error) from error
        self.problem(path, None, f"cannot read: {error.strerror or error}")

    def named(self, path: Path, own_url: str | None) -> None:
        """Validate a file named by the caller, unless it was already read (named twice, or listed)."""
        try:
            f = open_file(path)
        except FileNotFoundError:
            self.problem(path, None, "no such file")
            return
        except Unreadable as e:
            self.problem(path, None, str(e))
            return
        except OSError as e:
            self.cannot_read(path, e)
            return
        with f:
            key = identity(f)
            if key not in self.done:
                self._read(path, own_url, f, listed_at=None, depth=0)

    def _read(
        self, path: Path, own_url: str | None, f: io.BufferedReader, *, listed_at: str | None, depth: int
    ) -> None:
        """Validate the file `f` at `path`, not read before (its identity is checked by the caller)."""
        key = identity(f)
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
            data = read_limited(f, MAX_BYTES_PER_SITEMAP)
        except Unreadable as e:
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
            if any(is_entity_expansion(error) for error in e.error_log):
                self.problem(path, None, NO_ENTITIES)  # expansion past libxml2's limits: billion laughs
            else:
                self.problem(path, e.lineno, f"not well-formed XML (unescaped & or <?): {e.msg}")
            return None
        unsafe = unsafe_dtd(root)
        if unsafe is not None:
            self.problem(path, None, unsafe)
            return None
        # Over the bytes, not a list of their lines: a 50 MB sitemap's lines would be as much again.
        for match in LOC.finditer(data):
            # '"' and '>' are not URL characters: the URL's own check says to percent-encode them
            if b"'" in match.group(1):
                self.problem(path, data.count(b"\n", 0, match.start()) + 1, '"\'" in <loc> must be entity-escaped')
        return root

    def _checked(
        self, path: Path, root: etree._Element, xsd: str, tag: str, *, own_url: str | None
    ) -> list[tuple[str, int]]:
        """The schema's problems and each `<loc>`'s, one per cause: a `<loc>` whose URL is
        wrong is not also reported for the length the schema allows it; its URLs are returned."""
        found = list(schema_problems(root, _schema(xsd)))
        flagged: set[etree._Element] = set()
        urls = list(self._locs(path, root, tag, own_url=own_url, flagged=flagged))
        for problem in found:
            if problem.element is None or problem.element not in flagged:
                self.problem(path, problem.line, problem.message)
        return urls

    def _locs(
        self, path: Path, root: etree._Element, tag: str, *, own_url: str | None, flagged: set[etree._Element]
    ) -> Iterator[tuple[str, int]]:
        """Each entry's URL and line, with what is wrong with it: its form, then, for an
        absolute URL, the one-host rule, then (on its host) the location rule."""
        for element in root.iterfind(f"{{{SITEMAP_NS}}}{tag}/{{{SITEMAP_NS}}}loc"):
            url = (element.text or "").strip()
            line = element.sourceline
            problems = check_url(url, "loc")
            absolute = is_absolute(url)
            for message in problems:
                self.problem(path, line, message if absolute or tag != "sitemap" else f"{message}; not read")
            if problems:
                flagged.add(element)
            if absolute:
                self._placed(path, line, url, tag, own_url=own_url)
            yield url, line or 0

    def _placed(self, path: Path, line: int | None, url: str, tag: str, *, own_url: str | None) -> None:
        """The one-host rule, then the location rule, for an absolute URL: one problem at most.
        An index of ours lists other builds' sitemaps (``include``) anywhere on its host."""
        unread = "; not read" if tag == "sitemap" and own_url is not None else ""
        host = urlsplit(url).netloc.lower()
        if self.host is None:
            self.host = host
        elif host != self.host:
            self.problem(
                path, line, f"loc {url!r} is on host {host!r}; a sitemap lists one host ({self.host!r}){unread}"
            )
            return
        if own_url is not None and below(url, directory_of(own_url)) is None and url not in self._included(path.parent):
            self.problem(
                path,
                line,
                f"loc {url!r} is outside {directory_of(own_url)}, where this file lives (location rule){unread}",
            )

    def _urlset(self, path: Path, root: etree._Element, own_url: str | None) -> None:
        self.future_lastmods(path, root, "url")
        count = 0
        for url, line in self._checked(path, root, "sitemap-with-extensions.xsd", "url", own_url=own_url):
            count += 1
            key = hash(url)
            if key in self.seen:
                self.problem(path, line, f"loc {url!r} is listed more than once")
            self.seen.add(key)
        self.report.urls += count
        if count > MAX_URLS_PER_SITEMAP:
            self.problem(path, None, f"{count:,} URLs; a sitemap may list at most {MAX_URLS_PER_SITEMAP:,}")

    def _index(self, path: Path, root: etree._Element, own_url: str | None, depth: int) -> None:
        entries = self._checked(path, root, "siteindex.xsd", "sitemap", own_url=own_url)
        self.future_lastmods(path, root, "sitemap")
        if len(entries) > MAX_SITEMAPS_PER_INDEX:
            self.problem(path, None, f"{len(entries):,} sitemaps; an index may list at most {MAX_SITEMAPS_PER_INDEX:,}")
        elif len(entries) > DEFAULT_SITEMAPS_PER_INDEX:
            self.note(path, f"{len(entries):,} sitemaps, more than {DEFAULT_SITEMAPS_PER_INDEX:,}")
        directory = directory_of(own_url) if own_url else None
        for url, line in entries:
            if is_absolute(url) and not self._elsewhere(path, line, url, directory):  # else as _locs said
                self._entry(path, line, url, directory, depth=depth + 1)

    def _elsewhere(self, index: Path, line: int, url: str, directory: str | None) -> bool:
        """Whether `url` is another build's sitemap that an index of ours lists (``include``), not
        here: served by that build (ours read and checked it as it built), so a note."""
        if url not in self._included(index.parent):
            return False
        inside = below(url, directory) if directory is not None else None
        if inside is not None and os.path.lexists(index.parent.joinpath(*inside)):
            return False
        self.report.notes.append(Problem(index, line, f"lists {url}, another build's sitemap (include), not here"))
        return True

    def _included(self, directory: Path) -> set[str]:
        """Other builds' sitemaps that an index of ours in `directory` lists (``include``)."""
        if directory not in self.others:
            self.others[directory] = {loc for loc, _ in published_others(directory)}
        return self.others[directory]

    def _entry(self, index: Path, line: int, url: str, directory: str | None, *, depth: int) -> None:
        """Validate a file the index lists, if it is found below the index's own directory.

        With the index's URL known, the entry's path below that URL is the
        file's path below the index's directory; without it, the entry's last
        segment names a file beside the index.
        """
        segments = path_segments(url)
        if directory is None:
            parts = segments[-1:]
        else:
            inside = below(url, directory)
            if inside is None:
                return  # outside: _locs said so (location rule)
            parts = inside
        why = unservable(segments)
        if why is not None:
            self.problem(index, line, f"lists {url}, whose path {why}; not read")
            return
        if depth > MAX_INDEX_DEPTH:
            self.problem(index, line, f"lists {url}, below {MAX_INDEX_DEPTH} levels of indexes; not read")
            return
        local = index.parent.joinpath(*parts)
        try:
            f = open_below(index.parent, parts)
        except FileNotFoundError:
            self.problem(index, line, f"lists {url}, but {local} does not exist")
            return
        except Escapes as e:
            self.problem(index, line, f"lists {url}, but {local} leads to {e.target}, outside {index.parent}; not read")
            return
        except Unreadable as e:
            self.problem(local, None, str(e))
            return
        except OSError as e:
            self.cannot_read(local, e)
            return
        with f:
            key = identity(f)
            if key in self.reading:
                cycle = "itself" if key == self.reading[-1] else f"{url}, which lists this index: a cycle"
                self.problem(index, line, f"lists {cycle}; not read again")
            elif key in self.done:
                first = self.done[key]
                if first is not None:  # a file also named by the caller was read then: no problem in that
                    self.problem(index, line, f"lists {url} again, as {first} did; read once")
            else:
                self._read(local, url, f, listed_at=f"{index}:{line}", depth=depth)


def validate(paths: list[Path], *, base_url: str | None = None) -> Report:
    """Validate sitemap files or indexes (and every sitemap an index lists).

    With `base_url`, each named file is taken to be served at base_url + its
    name, so the location rule and the one-host rule are checked against it.
    A file named twice, or named and also listed by an index, is read once.
    """
    for path in paths:
        if not os.path.lexists(path) or os.path.isdir(path):
            raise SitemapgenError(not_found(path))
    validator = _Validator(base_url)
    for path in paths:
        validator.named(path, base_url + path.name if base_url else None)
    # Each file's problems together, in line order (what concerns the whole file first), the
    # files in the order their first problem was found.
    files: dict[Path, int] = {}
    for problem in validator.report.problems:
        files.setdefault(problem.path, len(files))
    validator.report.problems.sort(key=lambda problem: (files[problem.path], problem.line or 0))
    return validator.report
