"""The library's main entry point, `build` (the read-only views of what it lists are `listing`).

Every check that can fail on bad input runs before the first byte is written,
so an error leaves the output directory exactly as it was. Page fates come
from `pipeline.flow.Pipeline` alone, so what `list`, `explain` and `check` say is
what `build` does.
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapgen._types import Notice, Warn
from sitemapgen.commands.report import BuildResult, sorted_skips
from sitemapgen.config.settings import Config
from sitemapgen.config.words import RobotsTxt
from sitemapgen.deploy.manifest import ManifestWriter, fingerprint_settings, has_manifest
from sitemapgen.entry import Row
from sitemapgen.errors import EnvironmentFailure, SitemapgenError
from sitemapgen.hosts.load import effective_config
from sitemapgen.output.outdir import ClaimedOutput, check_docroot, check_output, claim_output
from sitemapgen.output.published import own_name, published_others
from sitemapgen.output.robots import RobotsOutcome, update_robots_txt
from sitemapgen.output.stylesheet import named_by, remove_stylesheet
from sitemapgen.output.writer import WriteResult, write_rows
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.forms import Forms
from sitemapgen.pipeline.hreflang import Reciprocity
from sitemapgen.protocol import INDEX_NAME
from sitemapgen.skips import Skip, SkipReason, skip_warning
from sitemapgen.urls import at_host_root, page_url

if TYPE_CHECKING:
    from sitemapgen.deploy.changes import Changes
    from sitemapgen.deploy.include import Included
    from sitemapgen.deploy.previous import Previous

logger = logging.getLogger("sitemapgen")


def build(
    config: Config,
    *,
    on_warning: Warn | None = None,
    on_progress: Callable[[int], None] | None = None,
    dry_run: bool = False,
    changes_file: Path | None = None,
    on_skip: Callable[[Skip], None] | None = None,
    published_in: Path | None = None,
) -> BuildResult:
    """Write the sitemaps and index for `config`; the library's entry point.

    Raises `SitemapgenError` for bad input before anything is written. Files
    that cannot be listed are counted in the result and, where the user
    should look at them, reported through `on_warning` (default: logging).
    `on_progress` hears the number of pages walked so far, every few hundred. With
    `dry_run` the content store is only read, and robots.txt left alone (what `check` uses).
    With `config.previous`, what changed since that deploy is in the result's
    summary, and with `changes_file` written there as JSON (after publishing).
    `on_skip` hears every file left out, and why. An optional include that cannot be read keeps
    the entries of the index published in `published_in` (default: the output directory).
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

    def skip(item: Skip) -> None:
        skipped[item.reason] += 1
        message = skip_warning(item)
        if message is not None:
            counted_warn(message)
        if on_skip is not None:
            on_skip(item)

    if config.max_removed is not None and config.previous is None and not dry_run:
        counted_warn(
            f"max_removed {config.max_removed:g}% (--max-removed) guards nothing without previous (--previous),"
            " the deploy whose URLs it counts: give both, or neither"
        )
    with claim_output(out, warn) as claimed:
        # Inside the claim: a bad .sitemapignore or an unusable store must not leave
        # behind the output directory this run created.
        config, host = effective_config(config, counted_warn)
        included = _included(config, published_in or out, counted_warn) if config.include else None
        pipeline = Pipeline(config, host, warn=counted_warn, dry_run=dry_run)
        try:
            written, robots, changes = _write(
                config, out, pipeline, claimed, skip, counted_warn, on_progress, dry_run, included
            )
            if included is not None and (message := included.overlap_warning()) is not None:
                counted_warn(message)
            if not written.sitemaps:
                why = ", ".join(r.counted(n) for r, n in sorted_skips(skipped).items())
                none = "no .html or .htm files" + (" and no documents" if config.documents else "")
                raise SitemapgenError(f"no pages to list under {config.docroot} ({why or none}); nothing written")
            for message in pipeline.undated_warnings():
                counted_warn(message)
            change_summary = _changes_said(changes, changes_file)
        finally:
            pipeline.close()
    listed = sum(s.urls for s in written.sitemaps)
    return BuildResult(
        listed,
        sorted_skips(skipped),
        written,
        warnings,
        dict(pipeline.sources_used.most_common()),
        robots,
        change_summary,
        pipeline.undated,
        pipeline.documents_listed,
        tuple(included.children) if included is not None else (),
    )


def _changes_said(changes: Changes | None, changes_file: Path | None) -> str | None:
    """What changed since the previous deploy, in a few words, written to `changes_file` too
    (after publishing); None without ``--previous``."""
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


def _included(config: Config, out: Path, warn: Warn) -> Included:
    """The other builds' sitemaps the index lists (``include``), read and checked before anything is written."""
    from sitemapgen.deploy.include import read_included  # with urllib3: only when there are some

    others = published_others(out)
    return read_included(config.include, config.base_url, own_name=own_name, published=others, warn=warn)


def _write(
    config: Config,
    out: Path,
    pipeline: Pipeline,
    claimed: ClaimedOutput,
    on_skip: Callable[[Skip], None],
    warn: Warn,
    on_progress: Callable[[int], None] | None,
    dry_run: bool,
    included: Included | None = None,
) -> tuple[WriteResult, RobotsOutcome | None, Changes | None]:
    """Write and publish (the part of `build` under the output directory's claim)."""
    reciprocity = Reciprocity(config.base_url, Forms(config, pipeline.host))
    previous = pipeline.previous
    changes, manifest = _deploy_memory(config, out, previous)

    def skip(item: Skip) -> None:
        on_skip(item)
        if changes is not None and not item.relpath.endswith("/"):
            # The writer's own skips name the URL (no relpath holds "://"); the others, the file.
            url = item.relpath if "://" in item.relpath else page_url(config.base_url, item.relpath, config.url_style)
            changes.left_out(url, item.reason.value)

    rows = pipeline.rows(skip, on_progress, manifest.add if manifest is not None else None)
    if config.read_heads and config.hreflang:
        rows = reciprocity.filter(rows)
    rows = _remembered(rows, changes, included)

    before_publish = functools.partial(_before_publish, config, out, pipeline, changes, manifest, dry_run, included)
    styled_before = named_by(out / INDEX_NAME)  # the index this build replaces named sitemap.xsl

    try:
        written = write_rows(
            rows,
            out,
            base_url=config.base_url,
            limits=config.limits,
            on_skip=skip,
            on_warning=warn,
            before_publish=before_publish,
            stylesheet=config.stylesheet,
            others=included.entries if included is not None else (),
            aside=lambda: pipeline.walked,
        )
    except OSError as e:  # a full disk, a read-only mount: what was published stays as it was
        pipeline.abort()
        raise EnvironmentFailure(
            f"{e.filename or out}: cannot write the sitemaps: {e.strerror or e}; nothing new was published"
        ) from e
    except BaseException:
        pipeline.abort()
        raise
    finally:
        if manifest is not None:
            manifest.discard()
    if not (config.stylesheet or styled_before or dry_run) and written.sitemaps:
        _unstyled(out, warn)
    for line in reciprocity.lines():
        warn(line)
    if not written.sitemaps or dry_run:
        pipeline.abort()
        claimed.release_if_empty()
    if not written.sitemaps or config.robots_txt is RobotsTxt.OFF or dry_run:
        return written, None, changes
    return written, _robots_txt(config, written, warn), changes


def _remembered(rows: Iterator[Row], changes: Changes | None, included: Included | None) -> Iterator[Row]:
    """`rows`, seen by the previous deploy's changes (``--previous``) and followed by the included
    sitemaps' URLs for them (``include``), where there are such."""
    if changes is not None:
        rows = _seen(rows, changes)
    if included is not None:
        rows = _with_included(rows, included, changes)
    return rows


def _unstyled(out: Path, warn: Warn) -> None:
    """The stylesheet is off, and neither the new index nor the one it replaced names it: remove
    the ``sitemap.xsl`` an earlier build wrote, if it is still as written, and say so."""
    removed = remove_stylesheet(out)
    if removed is not None:
        warn(Notice(f"{removed}: removed (stylesheet is off, and no index names it any more)"))


def _robots_txt(config: Config, written: WriteResult, warn: Warn) -> RobotsOutcome:
    """Name the published indexes in the docroot's robots.txt, where it is the host's (under the
    output directory's lock: one writer at a time), and say what became of it."""
    index_urls = [config.base_url + path.name for path in written.indexes]
    if not at_host_root(config.base_url):
        warn(
            f"{config.docroot / 'robots.txt'}: served at {config.base_url}robots.txt, where"
            " crawlers never look (only the host's root counts), so sitemapgen leaves it alone; drop robots_txt"
            f" (--robots-txt) here, and name the index in the root's robots.txt: Sitemap: {index_urls[0]}"
        )
        return RobotsOutcome.NOT_AT_ROOT
    robots = update_robots_txt(
        config.docroot, config.base_url, index_urls, create=config.robots_txt is RobotsTxt.CREATE, on_warning=warn
    )
    if robots is RobotsOutcome.MISSING:
        warn(
            f"{config.docroot}: no robots.txt to update, so none names the sitemap index;"
            " robots_txt 'create' (--robots-txt create) writes one"
        )
    return robots


def _deploy_memory(
    config: Config, out: Path, previous: Previous | None
) -> tuple[Changes | None, ManifestWriter | None]:
    """What this build compares with the previous deploy, and the manifest it publishes.

    The manifest is also kept current without --previous where one of ours is
    there: left as an older build wrote it, it would give the next --previous
    build that build's lastmods.
    """
    changes = manifest = None
    if previous is not None:
        from sitemapgen.deploy.changes import Changes

        changes = Changes(previous)
    if previous is not None or has_manifest(out):
        manifest = ManifestWriter(config.base_url, fingerprint_settings(config.content_ignore, config.content_select))
    return changes, manifest


def _before_publish(
    config: Config,
    out: Path,
    pipeline: Pipeline,
    changes: Changes | None,
    manifest: ManifestWriter | None,
    dry_run: bool,
    included: Included | None = None,
) -> None:
    """Every new chunk is on disk and nothing is published yet: refuse (the drop guard), or
    make durable what goes with the new sitemaps."""
    if changes is not None and included is not None:
        included.settle(changes, config.base_url)
    if changes is not None and config.max_removed is not None:
        changes.guard(config.max_removed)
    if dry_run:
        return
    if manifest is not None:
        manifest.publish(out)
    if config.indexnow_key is not None:
        from sitemapgen.deploy.indexnow import write_key_file

        write_key_file(config.docroot, config.indexnow_key)
    pipeline.commit()  # the store keeps this build's lastmods only if the build is published


def _with_included(rows: Iterator[Row], included: Included, changes: Changes | None) -> Iterator[Row]:
    """The rows, each looked up among the included sitemaps' URLs; those URLs told to `changes`
    first, but for a sitemap the previous deploy's index lists and that was not read there."""
    if changes is not None:
        unread = changes.previous.unread  # not read in the previous deploy: not compared
        for loc, (lastmod, child) in included.urls.items():
            if child not in unread:
                changes.see(loc, lastmod)
    return included.rows(rows)


def _seen(rows: Iterator[Row], changes: Changes) -> Iterator[Row]:
    """The rows, each told to `changes` as it passes to the writer."""
    see = changes.see
    for row in rows:
        see(row.loc, row.lastmod_text)
        yield row


def build_elsewhere(
    config: Config, out: Path, *, on_warning: Warn | None = None, on_skip: Callable[[Skip], None] | None = None
) -> BuildResult:
    """Build into `out` instead of the configured output, changing no state (for `check`).

    The content store stays the configured output's: it is where `build` keeps
    its lastmods, and where they must be read from to compare like with like; so
    is the published index, whose entries an unreadable optional include keeps.
    """
    published = config.output_dir
    config = replace(config, out_dir=out, state_file=config.state_path)
    return build(config, on_warning=on_warning, dry_run=True, on_skip=on_skip, published_in=published)
