"""A build's deploy memory: the previous deploy it reads (``previous``), what changed since
(`Changes`), and the manifest it publishes beside its sitemaps (`ManifestWriter`).

`read_previous_deploy` is the step that reads the previous deploy (over the network, often),
before the walk: the lastmod chain takes its manifest, and `DeployMemory` its listing. The
memory then sees each row on its way to the writer, and each file left out, and before the
new sitemaps are published it settles the included sitemaps' URLs and guards the drop.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.config.settings import Config
from sitemapgen.deploy.manifest import ManifestWriter, fingerprint_settings, has_manifest
from sitemapgen.entry import Block, Row
from sitemapgen.errors import EnvironmentFailure
from sitemapgen.skips import Skip
from sitemapgen.urls import page_url

if TYPE_CHECKING:
    from sitemapgen.deploy.changes import Changes
    from sitemapgen.deploy.include import Included
    from sitemapgen.deploy.previous import Previous


def read_previous_deploy(config: Config, warn: Warn) -> Previous | None:
    """The previous deploy (``previous``), read before the walk; None without one. The caller
    closes it once done with its diff."""
    if config.previous is None:
        return None
    from sitemapgen.deploy.previous import read_previous  # with urllib3: only when there is one

    settings = fingerprint_settings(config.content_ignore, config.content_select)
    return read_previous(config.previous, config.base_url, warn=warn, settings=settings)


@dataclass(frozen=True, slots=True)
class DeployMemory:
    """What this build compares with the previous deploy (`changes`, with ``previous``), and
    the manifest it publishes (`manifest`).

    The manifest is also kept current without ``previous`` where one of ours is there: left
    as an older build wrote it, it would give the next ``previous`` build that build's lastmods.
    """

    config: Config
    changes: Changes | None
    manifest: ManifestWriter | None

    @classmethod
    def of(cls, config: Config, out: Path, previous: Previous | None) -> DeployMemory:
        """The memory of a build of `config` into `out`, `previous` the deploy before it."""
        changes = manifest = None
        if previous is not None:
            from sitemapgen.deploy.changes import Changes

            changes = Changes(previous)
        if previous is not None or has_manifest(out):
            manifest = ManifestWriter(
                config.base_url, fingerprint_settings(config.content_ignore, config.content_select)
            )
        return cls(config, changes, manifest)

    def left_out(self, item: Skip) -> None:
        """A file (or, from the writer, a URL) left out: told to the changes, a folder's skip aside."""
        if self.changes is not None and not item.relpath.endswith("/"):
            # The writer's own skips name the URL (no relpath holds "://"); the others, the file.
            config = self.config
            url = item.relpath if "://" in item.relpath else page_url(config.base_url, item.relpath, config.url_style)
            self.changes.left_out(url, item.reason.value)

    def remembered(self, rows: Iterator[Row | Block], included: Included | None) -> Iterator[Row | Block]:
        """`rows`, seen by the previous deploy's changes (``previous``) and followed by the included
        sitemaps' URLs for them (``include``), where there are such."""
        changes = self.changes
        if changes is not None:
            rows = _seen(rows, changes)
        if included is not None:
            rows = _with_included(rows, included, changes)
        return rows

    def saw(self, row: Row) -> None:
        """A row the writer adds after `remembered`'s (the HTML sitemap's pages): told to the changes."""
        if self.changes is not None:
            self.changes.see(row.loc, row.lastmod_text)

    def before_publish(self, included: Included | None, *, out: Path, dry_run: bool) -> None:
        """Every new chunk is on disk and nothing is published yet: refuse (the drop guard,
        ``max_removed``), or make the manifest durable beside the new sitemaps."""
        changes = self.changes
        if changes is not None and included is not None:
            included.settle(changes, self.config.base_url)
        if changes is not None and self.config.max_removed is not None:
            changes.guard(self.config.max_removed)
        if not dry_run and self.manifest is not None:
            self.manifest.publish(out)

    def discard(self) -> None:
        """Let go of the manifest's data (after writing, published or not)."""
        if self.manifest is not None:
            self.manifest.discard()

    def said(self, changes_file: Path | None) -> str | None:
        """What changed since the previous deploy, in a few words, written to `changes_file` too
        (after publishing); None without ``previous``."""
        changes = self.changes
        if changes is None:
            return None
        if changes_file is not None:
            try:
                changes.write_json(changes_file)
            except OSError as e:
                raise EnvironmentFailure(
                    f"{changes_file}: cannot write the changes: {e.strerror or e} (the sitemaps were published)"
                ) from e
        return changes.summary()


def _with_included(rows: Iterator[Row | Block], included: Included, changes: Changes | None) -> Iterator[Row | Block]:
    """The rows, each looked up among the included sitemaps' URLs; those URLs told to `changes`
    first, but for a sitemap the previous deploy's index lists and that was not read there."""
    if changes is not None:
        unread = changes.previous.unread  # not read in the previous deploy: not compared
        for loc, (lastmod, child) in included.urls.items():
            if child not in unread:
                changes.see(loc, lastmod)
    return included.rows(rows)


def _seen(rows: Iterator[Row | Block], changes: Changes) -> Iterator[Row | Block]:
    """The rows, each told to `changes` as it passes to the writer."""
    see = changes.see
    for row in rows:
        if isinstance(row, Block):
            for loc, text in zip(row.locs, row.texts, strict=True):
                see(loc, text)
        else:
            see(row.loc, row.lastmod_text)
        yield row
