"""`verify --against`: the sitemaps the host serves are the ones the build wrote, byte for byte.

The build's output directory says what was deployed: its index files (as `output.published`
reads them back: only what this tool can prove it wrote) and every chunk they list. Each is
compared with what the host serves at its URL after HTTP's own content coding is removed; a
file not served is named (a deploy that missed a chunk), and so is one served with other bytes
(an old index still cached by a CDN, another build's file). An IndexNow key file the build wrote
(``KEY.txt`` holding its own name) must be served with the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from sitemapgen.config.checks import is_indexnow_key
from sitemapgen.deploy.indexnow import key_file_name, key_url
from sitemapgen.deploy.source import directory
from sitemapgen.errors import SitemapgenError
from sitemapgen.live.report import Report
from sitemapgen.output.published import our_indexes, read_published
from sitemapgen.protocol import MAX_BYTES_PER_SITEMAP, SITEMAP_NS
from sitemapgen.util.fetch import Client, FetchError
from sitemapgen.util.safeio import read_regular

_FIRST_LOC = re.compile(rb"<sitemap><loc>([^<]*)</loc>")


class Deployed:
    """What the build in `out` wrote: its index files and chunks, and the URL folder they are
    served from (read from its index). Raises `SitemapgenError` where `out` holds no build."""

    def __init__(self, out: Path) -> None:
        if not out.is_dir():
            raise SitemapgenError(f"{out}: not a directory (--against takes the build's output directory)")
        self.out = out
        self.indexes = our_indexes(out)
        if not self.indexes:
            raise SitemapgenError(f"{out}: no sitemap index written by sitemapgen here (sitemap.xml)")
        first = _FIRST_LOC.search(self.indexes[0][1])
        if first is None:
            raise SitemapgenError(f"{out}/sitemap.xml: lists no sitemap")
        self.folder = directory(first.group(1).decode("utf-8", "replace"))
        self.chunks = read_published(out)

    def files(self) -> list[tuple[str, Path]]:
        """(URL, local file) of every file the build published: the indexes, then the chunks."""
        return [(self.folder + path.name, path) for path, _ in self.indexes] + [
            (self.folder + name, self.out / name) for name in self.chunks
        ]

    def key_files(self) -> list[str]:
        """The IndexNow keys whose key file the build wrote here (``KEY.txt`` holding ``KEY``)."""
        keys = []
        for path in sorted(self.out.iterdir()):
            key = path.stem
            if path.name != key_file_name(key) or not is_indexnow_key(key):
                continue
            try:
                if read_regular(path, limit=1024, follow_symlinks=False).strip() == key.encode():
                    keys.append(key)
            except OSError:
                continue
        return keys


def compare(client: Client, deployed: Deployed, served: Mapping[str, Path], report: Report) -> None:
    """Each published file against what the host serves (`served`: the copies already fetched)."""
    for url, local in deployed.files():
        try:
            mine = read_regular(local, limit=MAX_BYTES_PER_SITEMAP + 1, follow_symlinks=False)
        except OSError as e:
            raise SitemapgenError(f"{local}: cannot read: {e.strerror or e}") from None
        copy = served.get(url)
        theirs = copy.read_bytes() if copy is not None else _fetch(client, url, local, report)
        if theirs is None or theirs == mine:
            continue
        index = b"<sitemapindex" in theirs[:4096] and SITEMAP_NS.encode() in theirs[:4096]
        why = "an old index, still cached (purge the CDN)" if index else "an old copy (a CDN cache?) or another build"
        report.problem(
            url,
            "deploy-differs",
            f"served with other bytes than {local} ({len(theirs):,} bytes served, {len(mine):,} built): {why}",
        )
    for key in deployed.key_files():
        url = key_url(deployed.folder, key)
        try:
            answer = client.request(url, limit=1024, tries=3)
        except FetchError as e:
            report.problem(url, "indexnow-key", f"{str(e).removeprefix(url + ': ')}: IndexNow cannot verify the key")
            continue
        if answer.status != 200:
            report.problem(url, "indexnow-key", f"answers HTTP {answer.status}: deploy the key file before submitting")
        elif answer.body.strip() != key.encode():
            report.problem(url, "indexnow-key", "does not hold the key: IndexNow would refuse the submission (403)")


def _fetch(client: Client, url: str, local: Path, report: Report) -> bytes | None:
    try:
        answer = client.request(url, limit=MAX_BYTES_PER_SITEMAP, tries=3)
    except FetchError as e:
        report.problem(url, "deploy-missing", f"{local} was built, but {str(e).removeprefix(url + ': ')}")
        return None
    if answer.status != 200:
        report.problem(url, "deploy-missing", f"{local} was built, but it answers HTTP {answer.status}: not deployed")
        return None
    return answer.body
