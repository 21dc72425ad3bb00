"""Lastmod source 'content': when the page's content was first seen, remembered by the
previous deploy's manifest or by the local content store (`store`)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.config.words import LastmodSource
from sitemapgen.lastmod.base import Source
from sitemapgen.lastmod.store import (
    SELECT_LIMIT,
    ContentStore,
    TooLargeToSelect,
    content_digest,
    epoch_warning,
    source_date_epoch,
)
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Page
from sitemapgen.skips import display

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config
    from sitemapgen.deploy.previous import Previous


class ContentLastmod(Source):
    """When the page's content (less `content_ignore`, within `content_select`) was first seen.

    Remembered by the previous deploy's manifest, when the build was given one
    that has it (a fresh CI checkout has nothing else), else by the local
    content store. With a previous deploy and no local store, none is started.
    """

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.ignore = [re.compile(p.encode("utf-8")) for p in config.content_ignore]
        self.select = config.content_select
        later = config.lastmod[config.lastmod.index(LastmodSource.CONTENT) + 1 :]
        self.instead = (
            f"{' or '.join(repr(source.value) for source in later)} dates it instead"
            if later
            else "it is listed without a lastmod"
        )
        epoch = source_date_epoch()
        self.build_time = epoch if epoch is not None else datetime.now(UTC).replace(microsecond=0)
        said = epoch_warning(epoch, datetime.now(UTC)) if epoch is not None else None
        if said is not None:
            warn(said)
        self.epoch_said = said is not None
        self.state_path = config.state_path
        self.previous = previous if previous is not None and previous.has_manifest else None
        no_store = previous is not None and not config.state_path.exists()
        self.store = (
            None
            if no_store
            else ContentStore(config.state_path, build_time=self.build_time, on_warning=warn, readonly=dry_run)
        )

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> bytes | None:
        try:
            return content_digest(page.path, self.ignore, self.select)
        except OSError as e:
            warn(f"{display(page.relpath)}: cannot read for lastmod 'content': {e.strerror or e}")
        except TooLargeToSelect as e:
            warn(
                f"{display(page.relpath)}: {e.size:,} bytes, over the {SELECT_LIMIT:,} that content_select"
                f" parses, so lastmod 'content' does not date it; {self.instead}"
            )
        return None

    def date_document(self, page: Page, warn: Warn) -> bytes | None:
        """The document's bytes as they are: `content_ignore` and `content_select` are for HTML."""
        try:
            return content_digest(page.path, ())
        except OSError as e:
            warn(f"{display(page.relpath)}: cannot read for lastmod 'content': {e.strerror or e}")
        return None

    def finish(self, loc: str, key: bytes) -> datetime:
        stored = self.store.lastmod(loc, key) if self.store is not None else self.build_time
        if self.previous is None:
            return stored
        kept = self.previous.kept_lastmod(loc, key)  # the live site is the truth: new there is new
        return kept if kept is not None else self.build_time

    def said(self, when: float) -> bool:
        return self.epoch_said and when == self.build_time.timestamp()

    def odd_dates(self, future: bool) -> str:
        keep = [
            *(["the previous deploy"] if self.previous is not None else []),
            *(["the content store"] if self.store is not None else []),
        ]
        redo = [
            *(["build once without --previous"] if self.previous is not None else []),
            *([f"delete {self.state_path}"] if self.store is not None else []),
        ]
        return (
            f"{' and '.join(keep)} {'keep' if len(keep) > 1 else 'keeps'} the date a build first saw their"
            f" content (a build whose clock or SOURCE_DATE_EPOCH was wrong) until it changes;"
            f" {' and '.join(redo)} to date them anew"
        )

    def commit(self) -> None:
        if self.store is not None:
            self.store.commit()

    def abort(self) -> None:
        if self.store is not None:
            self.store.abort()
