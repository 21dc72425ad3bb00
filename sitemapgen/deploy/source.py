"""Reading a deployed set of sitemaps, wherever it is: a URL, or a local directory or file.

Shared by the previous deploy (`previous`) and the other sitemaps a build lists in its index
(`include`), so both read with the same limits and the same rules for hostile input: a file
is read, or inflated if it is gzip, to the protocol's size limit and no further (`util.fetch`,
`util.gunzip`); a FIFO or a device is never waited on (`util.safeio`); entities are never
expanded, no DTD is loaded and nothing is fetched by the parser; a file an index lists is read
only from below the index's own directory.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote, urljoin, urlsplit

from sitemapgen.errors import SitemapgenError
from sitemapgen.protocol import MAX_BYTES_PER_SITEMAP, SITEMAP_NS
from sitemapgen.util.fetch import FetchError, Unreachable, get, inflate, is_url, stream
from sitemapgen.util.safeio import NotRegularFile, open_regular, read_regular

_NS = "{" + SITEMAP_NS + "}"


class SourceError(SitemapgenError):
    """A set of sitemaps that is there but cannot be read: one line naming the file or URL.

    `machine` is true when the machine or the network failed (no connection, a timeout, a
    server error, a disk's read error), not the content.
    """

    def __init__(self, message: str, *, machine: bool = False) -> None:
        super().__init__(message)
        self.machine = machine


def _fetch_failed(e: FetchError) -> SourceError:
    return SourceError(f"{e}", machine=isinstance(e, Unreachable))


class Place:
    """Where the previous output is read from: a URL's directory or a local directory."""

    def __init__(self, source: str) -> None:
        self.source = source
        if is_url(source):
            self.index_url: str | None = source + "sitemap.xml" if source.endswith("/") else source
            self.index_path: Path | None = None
        else:
            path = Path(source)
            if not path.exists():
                raise SourceError(f"{source}: no such file or directory")
            self.index_url = None
            self.index_path = path / "sitemap.xml" if path.is_dir() else path

    @property
    def index_name(self) -> str:
        return self.index_url or str(self.index_path)

    def read_index(self) -> bytes | None:
        return self._read(self.index_url, self.index_path, MAX_BYTES_PER_SITEMAP)

    def read_beside(self, relative: str, limit: int) -> bytes | None:
        """A file below the index's directory, `relative` to it (percent-encoded, no dot segments)."""
        segments = relative.split("/")
        if relative.startswith("/") or any(
            unquote(s) in ("", ".", "..") or "/" in unquote(s) or "\0" in unquote(s) for s in segments
        ):
            raise SourceError(f"{self.index_name}: lists {relative!r}, which is not a file below it")
        if self.index_url is not None:
            return self._read(self.where(relative), None, limit)
        return self._read(None, Path(self.where(relative)), limit)

    @contextlib.contextmanager
    def open_beside(self, relative: str) -> Iterator[BinaryIO | None]:
        """A file beside the index as a stream (None if it is not there): read as it comes, never whole."""
        if self.index_url is not None:
            try:
                with stream(self.where(relative)) as body:
                    yield body
            except FetchError as e:
                raise _fetch_failed(e) from None
            return
        path = Path(self.where(relative))
        try:
            f = open(open_regular(path), "rb")
        except FileNotFoundError:
            yield None
            return
        except OSError as e:
            raise SourceError(f"{path}: cannot read: {e.strerror or e}", machine=True) from None
        with f:
            yield f

    def on_the_host(self, base_url: str, loc: str) -> str | None:
        """Where to read `loc`, a URL on the base URL's host outside its folder (another build's
        sitemap the index lists), as the host is read here: the index's URL with the base URL's
        path swapped for `loc`'s. None when that cannot be told: the index is a local file, or
        its URL does not end with the base URL's path (a mirror serving the folder elsewhere)."""
        base_path = urlsplit(base_url).path
        if self.index_url is None or urlsplit(loc)[:2] != urlsplit(base_url)[:2]:
            return None
        served = directory(self.index_url)
        if not served.endswith(base_path):
            return None
        return served[: len(served) - len(base_path)] + urlsplit(loc).path

    def read_url(self, url: str, limit: int) -> bytes | None:
        """The file at `url` (see `on_the_host`), read as the index is; None if it is not there."""
        return self._read(url, None, limit)

    def where(self, relative: str) -> str:
        if self.index_url is not None:
            return urljoin(self.index_url, relative)
        assert self.index_path is not None
        return str(self.index_path.parent.joinpath(*(unquote(s) for s in relative.split("/"))))

    @staticmethod
    def _read(url: str | None, path: Path | None, limit: int) -> bytes | None:
        if url is not None:
            try:
                return get(url, limit=limit)
            except FetchError as e:
                raise _fetch_failed(e) from None
        assert path is not None
        try:
            data = read_regular(path, limit=limit + 1)
        except FileNotFoundError:
            return None
        except OSError as e:  # a FIFO, a directory, a device given as the file: the input's fault
            machine = not isinstance(e, NotRegularFile | IsADirectoryError)
            raise SourceError(f"{path}: cannot read: {e.strerror or e}", machine=machine) from None
        if len(data) > limit:
            raise SourceError(f"{path}: larger than {limit:,} bytes; not read")
        try:
            return inflate(data, limit, str(path))
        except FetchError as e:
            raise SourceError(f"{e}") from None


def entries(data: bytes, where: str) -> tuple[str, Iterator[tuple[str, str | None]]]:
    """The root's kind ("urlset" or "sitemapindex") and its entries, (loc, lastmod), read as a stream.

    Each entry is cleared once read, so a 50 MB sitemap costs its bytes and
    one entry's elements, not a whole tree. Entities are never expanded, no
    DTD is loaded, nothing is fetched.
    """
    from lxml import etree  # imported only when a deployed set is read

    kinds = {f"{_NS}urlset": ("urlset", f"{_NS}url"), f"{_NS}sitemapindex": ("sitemapindex", f"{_NS}sitemap")}
    events = etree.iterparse(
        io.BytesIO(data),
        events=("start", "end"),
        tag=(*kinds, f"{_NS}url", f"{_NS}sitemap"),  # only these reach Python: a third of the work
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
    )
    try:
        event, root = next(events)
    except etree.XMLSyntaxError as e:
        raise SourceError(f"{where}: not a sitemap: {e.msg}") from None
    except StopIteration:
        event, root = "", None
    if root is None or event != "start" or root.tag not in kinds or root.getparent() is not None:
        raise SourceError(f"{where}: not a sitemap or sitemap index")
    _refuse_dtd(root, where)
    kind, entry = kinds[root.tag]
    loc_tag, lastmod_tag = f"{_NS}loc", f"{_NS}lastmod"

    def listed() -> Iterator[tuple[str, str | None]]:
        try:
            for event, element in events:
                if event != "end" or element.tag != entry:
                    continue
                loc = lastmod = None
                for child in element:
                    if child.tag == loc_tag:
                        loc = child.text
                    elif child.tag == lastmod_tag:
                        lastmod = child.text
                root.clear()  # the entries read so far: a stream keeps none of them
                yield (loc or "").strip(), lastmod.strip() if lastmod is not None else None
        except etree.XMLSyntaxError as e:
            raise SourceError(f"{where}: not a sitemap: {e.msg}") from None

    return kind, listed()


def _refuse_dtd(root: Any, where: str) -> None:
    """Refuse a document whose DTD would load something or declare entities (`validate`'s rule)."""
    docinfo = root.getroottree().docinfo
    if docinfo.system_url or docinfo.public_id:
        raise SourceError(f"{where}: an external DTD is not allowed (it was not fetched)")
    if docinfo.internalDTD is not None and any(True for _ in docinfo.internalDTD.iterentities()):
        raise SourceError(f"{where}: entity declarations are not allowed (nothing was expanded, read or fetched)")


def directory(url: str) -> str:
    """The folder a URL is in, with its last ``/``: what a sitemap there may list (the location rule)."""
    return url[: url.rfind("/") + 1]
