"""The library's entry points: `build`, and the read-only views `iter_entries` and `iter_listing`.

Every check that can fail on bad input runs before the first byte is written,
so an error leaves the output directory exactly as it was. Page fates come
from `pipeline.Pipeline` alone, so what `list`, `explain` and `check` say is
what `build` does.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from .clusters import Reciprocity
from .config import Config, RobotsTxt
from .decide import Outcome
from .entry import Entry
from .errors import EnvironmentFailure, SitemapgenError
from .lastmod import LastmodSource
from .outdir import check_docroot, check_output, claim_output
from .pipeline import Pipeline
from .report import BuildResult, sorted_skips
from .robots import update_robots_txt
from .skips import Skip, SkipReason, skip_warning
from .writer import write_rows

logger = logging.getLogger("sitemapgen")

Warn = Callable[[str], None]


def build(
    config: Config,
    *,
    on_warning: Warn | None = None,
    on_progress: Callable[[int], None] | None = None,
    dry_run: bool = False,
) -> BuildResult:
    """Write the sitemaps and index for `config`; the library's entry point.

    Raises `SitemapgenError` for bad input before anything is written. Files
    that cannot be listed are counted in the result and, where the user
    should look at them, reported through `on_warning` (default: logging).
    `on_progress` hears the number of pages walked so far, every few hundred. With
    `dry_run` the content store is only read, and robots.txt left alone (what `check` uses).
    """
    warn = on_warning or logger.warning
    check_docroot(config)
    out = check_output(config)
    skipped: Counter[SkipReason] = Counter()
    warnings = 0

    def counted_warn(message: str) -> None:
        nonlocal warnings
        warnings += 1
        warn(message)

    def on_skip(item: Skip) -> None:
        skipped[item.reason] += 1
        message = skip_warning(item)
        if message is not None:
            counted_warn(message)

    with claim_output(out) as claimed:
        # Inside the claim: a bad .sitemapignore or an unusable store must not leave
        # behind the output directory this run created.
        pipeline = Pipeline(config, warn=counted_warn, dry_run=dry_run)
        reciprocity = Reciprocity(config.base_url)
        rows = pipeline.rows(on_skip, on_progress)
        try:
            written = write_rows(
                reciprocity.filter(rows) if config.read_heads and config.hreflang else rows,
                out,
                base_url=config.base_url,
                max_urls=config.max_urls_per_sitemap,
                max_bytes=config.max_bytes_per_sitemap,
                max_sitemaps_per_index=config.max_sitemaps_per_index,
                chunking=config.chunking,
                sections=[section.name for section in config.sitemaps],
                on_skip=on_skip,
                on_warning=counted_warn,
                # The store keeps this build's lastmods only if the build is published.
                before_publish=None if dry_run else pipeline.commit,
            )
        except OSError as e:  # a full disk, a read-only mount: what was published stays as it was
            pipeline.abort()
            raise EnvironmentFailure(
                f"{e.filename or out}: cannot write the sitemaps: {e.strerror or e}; nothing new was published"
            ) from e
        except BaseException:
            pipeline.abort()
            raise
        for line in reciprocity.lines():
            counted_warn(line)
        if not written.sitemaps or dry_run:
            pipeline.abort()
            claimed.release_if_empty()
        if not written.sitemaps:
            why = ", ".join(r.counted(n) for r, n in sorted_skips(skipped).items())
            raise SitemapgenError(
                f"no pages to list under {config.docroot} ({why or 'no .html or .htm files'}); nothing written"
            )
        robots = False
        if config.robots_txt is not RobotsTxt.OFF and not dry_run:  # under the lock: one writer at a time
            index_urls = [config.base_url + path.name for path in written.indexes]
            robots = update_robots_txt(
                config.docroot,
                config.base_url,
                index_urls,
                create=config.robots_txt is RobotsTxt.CREATE,
                on_warning=counted_warn,
            )
    listed = sum(s.urls for s in written.sitemaps)
    return BuildResult(
        listed, sorted_skips(skipped), written, warnings, dict(pipeline.sources_used.most_common()), robots
    )


def build_elsewhere(config: Config, out: Path, *, on_warning: Warn | None = None) -> BuildResult:
    """Build into `out` instead of the configured output, changing no state (for `check`).

    The content store stays the configured output's: it is where `build` keeps
    its lastmods, and where they must be read from to compare like with like.
    """
    return build(replace(config, out_dir=out, state_file=config.state_path), on_warning=on_warning, dry_run=True)


@dataclass(frozen=True, slots=True)
class Listing:
    """A page that would be listed: its entry, source file and lastmod source."""

    relpath: str
    entry: Entry
    lastmod_source: LastmodSource | None
    lastmod_text: str | None = None  # the lastmod as the sitemap writes it


def _listed(config: Config, warn: Warn, on_skip: Callable[[Skip], None]) -> Iterator[Outcome]:
    """The listed pages' outcomes, in the order `build` writes them; warnings said, skips passed on."""
    check_docroot(config)
    pipeline = Pipeline(config, warn=warn, dry_run=True)
    try:
        for outcome in pipeline.outcomes():
            for message in outcome.warnings:
                warn(message)
            if outcome.skip is not None:
                on_skip(outcome.skip)
            else:
                yield outcome
    finally:
        pipeline.abort()


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
        lastmod_text = outcome.row[3] if outcome.row is not None else None
        yield Listing(outcome.relpath, outcome.entry, source, lastmod_text)


def iter_entries(
    config: Config, *, on_skip: Callable[[Skip], None] | None = None, on_warning: Warn | None = None
) -> Iterator[Entry]:
    """Every sitemap entry of the docroot, in the order `build` writes them, writing nothing."""
    for outcome in _listed(config, on_warning or logger.warning, on_skip or (lambda _: None)):
        assert outcome.entry is not None
        yield outcome.entry
