"""Check sitemap files and indexes, ours or any other tool's, against the protocol.

Problems are data (`Problem(path, line, message)`), collected rather than
raised, so one run reports everything wrong with a set of files. The XSDs are
the official ones, shipped in the package, so this works offline.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree

from .config import MAX_BYTES_PER_SITEMAP, MAX_SITEMAPS_PER_INDEX, MAX_URLS_PER_SITEMAP
from .urls import MAX_URL_LENGTH

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_RAW_LOC = re.compile(rb"<loc>([^<]*)</loc>")


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
    files: int = 0
    urls: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


@cache
def _schema(name: str) -> etree.XMLSchema:
    with resources.as_file(resources.files("sitemapgen") / "schemas" / name) as path:
        return etree.XMLSchema(etree.parse(str(path)))


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        # Bounded: a gzip bomb stops one byte past the protocol's limit.
        inflater = zlib.decompressobj(wbits=31)
        out: bytes = inflater.decompress(data, MAX_BYTES_PER_SITEMAP + 1)
        return out
    return data


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


class _Validator:
    def __init__(self, base_url: str | None) -> None:
        self.report = Report()
        self.base_url = base_url
        self.host: str | None = urlsplit(base_url).netloc if base_url else None
        self.seen: set[int] = set()

    def problem(self, path: Path, line: int | None, message: str) -> None:
        self.report.problems.append(Problem(path, line, message))

    def file(self, path: Path, own_url: str | None) -> None:
        self.report.files += 1
        try:
            data = _read(path)
        except (OSError, EOFError, zlib.error) as e:
            self.problem(path, None, f"cannot read: {e}")
            return
        if len(data) > MAX_BYTES_PER_SITEMAP:
            self.problem(path, None, f"larger than {MAX_BYTES_PER_SITEMAP:,} bytes uncompressed")
            return
        if not data.lstrip().startswith(b"<?xml") and not data.lstrip().startswith(b"<"):
            self.problem(path, 1, "not XML")
            return
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        try:
            root = etree.fromstring(data, parser)
        except etree.XMLSyntaxError as e:
            self.problem(path, e.lineno, f"not well-formed XML (unescaped & or <?): {e.msg}")
            return
        for number, raw in enumerate(data.splitlines(), 1):
            for loc in _RAW_LOC.findall(raw):
                for ch in (b"'", b'"', b">"):
                    if ch in loc:
                        self.problem(path, number, f"{ch.decode()!r} in <loc> must be entity-escaped")
        if root.tag == f"{{{NS}}}urlset":
            self._urlset(path, root, own_url)
        elif root.tag == f"{{{NS}}}sitemapindex":
            self._index(path, root, own_url)
        else:
            self.problem(path, root.sourceline, f"root element {root.tag} is neither urlset nor sitemapindex of {NS}")

    def _schema_errors(self, path: Path, root: etree._Element, xsd: str) -> None:
        schema = _schema(xsd)
        if not schema.validate(root):
            for error in schema.error_log:
                self.problem(path, error.line, f"schema: {error.message}")

    def _locs(self, path: Path, root: etree._Element, tag: str, own_url: str | None) -> Iterator[tuple[str, int]]:
        for element in root.iterfind(f"{{{NS}}}{tag}/{{{NS}}}loc"):
            url = (element.text or "").strip()
            line = element.sourceline
            for message in _check_url(url, "loc"):
                self.problem(path, line, message)
            host = urlsplit(url).netloc
            if self.host is None:
                self.host = host
            elif host != self.host:
                self.problem(path, line, f"loc {url!r} is on host {host!r}; a sitemap lists one host ({self.host!r})")
            if own_url is not None and not url.startswith(_directory(own_url)):
                self.problem(
                    path, line, f"loc {url!r} is outside {_directory(own_url)}, where this file lives (location rule)"
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

    def _index(self, path: Path, root: etree._Element, own_url: str | None) -> None:
        self._schema_errors(path, root, "siteindex.xsd")
        entries = list(self._locs(path, root, "sitemap", own_url))
        if len(entries) > MAX_SITEMAPS_PER_INDEX:
            self.problem(path, None, f"{len(entries):,} sitemaps; an index may list at most {MAX_SITEMAPS_PER_INDEX:,}")
        directory = _directory(own_url) if own_url else None
        for url, line in entries:
            if directory is not None and url.startswith(directory):
                relative = url[len(directory) :]
            else:
                relative = url.rpartition("/")[2]
            local = path.parent / relative
            if not local.is_file():
                self.problem(path, line, f"lists {url}, but {local} does not exist")
                continue
            if local.resolve() == path.resolve():
                self.problem(path, line, "lists itself")
                continue
            self.file(local, url)


def validate(paths: list[Path], *, base_url: str | None = None) -> Report:
    """Validate sitemap files or indexes (and every sitemap an index lists).

    With `base_url`, each named file is taken to be served at base_url + its
    name, so the location rule and the one-host rule are checked against it.
    """
    validator = _Validator(base_url)
    for path in paths:
        own_url = base_url + path.name if base_url else None
        if not path.exists():
            validator.problem(path, None, "no such file")
            continue
        validator.file(path, own_url)
    return validator.report
