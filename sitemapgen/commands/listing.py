"""What `build` would list, page by page, writing nothing: `iter_listing` (the `list` command)
and `iter_entries`. Page fates come from `pipeline.flow.Pipeline`, as `build`'s do, so the two
cannot disagree."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sitemapgen._types import Warn
from sitemapgen.config.settings import Config
from sitemapgen.config.words import LastmodSource
from sitemapgen.deploy.memory import read_previous_deploy
from sitemapgen.entry import Entry, format_priority
from sitemapgen.hosts.load import effective_config
from sitemapgen.output.outdir import check_docroot, reading
from sitemapgen.pipeline.decide import Outcome
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.skips import Skip, display, skip_warning

logger = logging.getLogger("sitemapgen")


@dataclass(frozen=True, slots=True)
class Listing:
    """A page that would be listed: its entry, source file and lastmod source."""

    relpath: str
    entry: Entry
    lastmod_source: LastmodSource | None
    lastmod_text: str | None = None  # the lastmod as the sitemap writes it

    def as_json(self) -> dict[str, str | None]:
        """`list --json`'s object: the file's name as text, undecodable bytes as backslash escapes."""
        changefreq, priority = self._rules()
        return {
            "url": self.entry.loc,
            "lastmod": self.lastmod_text,
            "changefreq": changefreq,
            "priority": priority,
            "file": self.relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"),
            "lastmod_source": self.lastmod_source.value if self.lastmod_source else None,
        }

    def line(self) -> str:
        """`list`'s line: URL, lastmod, changefreq, priority, file, tab-separated; one page, one line,
        whatever the file's name."""
        fields = (self.entry.loc, self.lastmod_text, *self._rules(), display(self.relpath))
        return "\t".join(field or "" for field in fields)

    def _rules(self) -> tuple[str | None, str | None]:
        entry = self.entry
        changefreq = entry.changefreq.value if entry.changefreq else None
        return changefreq, format_priority(entry.priority) if entry.priority is not None else None


def _listed(config: Config, warn: Warn, on_skip: Callable[[Skip], None]) -> Iterator[Outcome]:
    """The listed pages' outcomes, in the order `build` writes them; warnings said, skips passed on."""
    check_docroot(config)
    with reading(config.output_dir, warn):  # what a running build's store and robots.txt say once it is done
        config, host = effective_config(config, warn)
        previous = read_previous_deploy(config, warn)
        try:
            pipeline = Pipeline(config, host, warn=warn, dry_run=True, previous=previous)
            try:
                for outcome in pipeline.outcomes():
                    for message in outcome.warnings:
                        warn(message)
                    if outcome.skip is not None:
                        on_skip(outcome.skip)
                    else:
                        yield outcome
                for message in pipeline.undated_warnings():  # what build says once every page is dated
                    warn(message)
            finally:
                pipeline.abort()
        finally:
            if previous is not None:
                previous.close()


def iter_listing(config: Config, *, on_warning: Warn | None = None) -> Iterator[Listing]:
    """What `build` would list, page by page, in the order it writes them, writing nothing.

    Files it passes over that deserve a warning in `build` get one here too, and
    so does every page with something to say.
    """
    warn = on_warning or logger.warning

    def on_skip(item: Skip) -> None:
        message = skip_warning(item)
        if message is not None:
            warn(message)

    for outcome in _listed(config, warn, on_skip):
        assert outcome.entry is not None
        source = LastmodSource(outcome.lastmod_source) if outcome.lastmod_source is not None else None
        lastmod_text = outcome.row.lastmod_text if outcome.row is not None else None
        yield Listing(outcome.relpath, outcome.entry, source, lastmod_text)


def iter_entries(
    config: Config, *, on_skip: Callable[[Skip], None] | None = None, on_warning: Warn | None = None
) -> Iterator[Entry]:
    """Every sitemap entry of the docroot, in the order `build` writes them, writing nothing."""
    for outcome in _listed(config, on_warning or logger.warning, on_skip or (lambda _: None)):
        assert outcome.entry is not None
        yield outcome.entry
