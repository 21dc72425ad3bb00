"""The library's main entry point, `build` (the read-only views of what it lists are `listing`).

Every check that can fail on bad input runs before the first byte is written,
so an error leaves the output directory exactly as it was. Page fates come
from `pipeline.flow.Pipeline` alone, so what `list`, `explain` and `check` say is
what `build` does.
"""

from __future__ import annotations

import functools
import logging
import os
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.commands.report import BuildResult, sorted_skips
from sitemapgen.config.settings import Config
from sitemapgen.config.words import RobotsTxt
from sitemapgen.deploy.memory import DeployMemory, read_previous_deploy
from sitemapgen.errors import EnvironmentFailure, SitemapgenError
from sitemapgen.hosts.load import effective_config
from sitemapgen.output.htmlmap import HtmlSitemap
from sitemapgen.output.llms import Labelled
from sitemapgen.output.outdir import ClaimedOutput, check_docroot, check_output, claim_output
from sitemapgen.output.published import own_name, published_others
from sitemapgen.output.robots import RobotsOutcome, name_indexes
from sitemapgen.output.stylesheet import named_by, unstyle
from sitemapgen.output.writer import WriteResult, write_rows
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.forms import Forms
from sitemapgen.pipeline.hreflang import Reciprocity
from sitemapgen.protocol import INDEX_NAME
from sitemapgen.skips import Skip, SkipReason, skip_warning

if TYPE_CHECKING:
    from sitemapgen.deploy.include import Included
    from sitemapgen.entry import Block, Row

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
        included = None
        if config.include:
            from sitemapgen.deploy.include import read_included  # with urllib3: only when there are some

            others = published_others(published_in or out)
            included = read_included(
                config.include, config.base_url, own_name=own_name, published=others, warn=counted_warn
            )
        previous = read_previous_deploy(config, counted_warn)
        try:
            pipeline = Pipeline(config, host, warn=counted_warn, dry_run=dry_run, previous=previous)
            memory = DeployMemory.of(config, out, previous)
            run = _Run(
                config=config,
                out=out,
                published=published_in or out,
                pipeline=pipeline,
                memory=memory,
                included=included,
                dry_run=dry_run,
            )
            written, robots = _write(run, claimed, on_skip=skip, warn=counted_warn, on_progress=on_progress)
            if included is not None and (message := included.overlap_warning()) is not None:
                counted_warn(message)
            if not written.sitemaps:
                why = ", ".join(r.counted(n) for r, n in sorted_skips(skipped).items())
                none = "no .html or .htm files" + (" and no documents" if config.documents else "")
                raise SitemapgenError(f"no pages to list under {config.docroot} ({why or none}); nothing written")
            for message in pipeline.undated_warnings():
                counted_warn(message)
            change_summary = run.memory.said(changes_file)
        finally:
            if previous is not None:
                previous.close()
    return BuildResult(
        listed=sum(s.urls for s in written.sitemaps),
        skipped=sorted_skips(skipped),
        written=written,
        warnings=warnings,
        lastmod_sources=dict(pipeline.sources_used.most_common()),
        robots_txt=robots,
        changes=change_summary,
        no_lastmod=pipeline.undated,
        documents=pipeline.documents_listed,
        included=tuple(included.children) if included is not None else (),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Run:
    """One build under the output directory's claim: what its steps share."""

    config: Config
    out: Path
    published: Path  # where the published output is: `out`, or what `check` compares with
    pipeline: Pipeline
    memory: DeployMemory
    included: Included | None
    dry_run: bool


def _page_rows(
    run: _Run, skip: Callable[[Skip], None], on_progress: Callable[[int], None] | None
) -> Iterator[Row | Block]:
    """The pipeline's rows, each page dated by its content told to the deploy memory's manifest."""
    manifest = run.memory.manifest
    return run.pipeline.rows(skip, on_progress, manifest.add if manifest is not None else None)


def _html_sitemap(run: _Run, skip: Callable[[Skip], None], warn: Warn) -> HtmlSitemap:
    """The build's HTML sitemap (off, but for the files of an earlier one, unless `html_sitemap`),
    its pages decided as the site's pages are; the walk told which files of the published output
    are an earlier map's, proved ours, to pass over."""
    config, pipeline = run.config, run.pipeline

    def decide(name: str, path: Path) -> Row | None:
        outcome = pipeline.own_page(name, str(path))  # listed at the base URL, as the index is
        for message in outcome.warnings:
            warn(message)
        if outcome.skip is not None:
            skip(outcome.skip)
            return None
        assert outcome.row is not None
        run.memory.saw(outcome.row)  # after the rows the memory sees as they pass: told here
        return outcome.row

    html = HtmlSitemap.prepare(
        run.out, on=config.html_sitemap, home=config.base_url, decide=decide, site_name=config.site_name
    )
    published = html
    if run.published != run.out:
        # `check`: refused where a build would be (a map there that is not ours)
        published = HtmlSitemap.prepare(run.published, on=config.html_sitemap, home="", decide=decide)
    under = Path(os.path.relpath(run.published.resolve(), config.docroot.resolve()))
    if not under.parts or under.parts[0] != "..":
        pipeline.own_pages = frozenset((under / name).as_posix().removeprefix("./") for name in published.ours())
    return html


def _write(
    run: _Run,
    claimed: ClaimedOutput,
    *,
    on_skip: Callable[[Skip], None],
    warn: Warn,
    on_progress: Callable[[int], None] | None,
) -> tuple[WriteResult, RobotsOutcome | None]:
    """Write and publish (the part of `build` under the output directory's claim)."""
    config, out, pipeline, memory, included = run.config, run.out, run.pipeline, run.memory, run.included
    reciprocity = Reciprocity(config.base_url, Forms(config, pipeline.host))

    def skip(item: Skip) -> None:
        on_skip(item)
        memory.left_out(item)

    labelled = Labelled(config.base_url) if config.llms_txt else None
    html = _html_sitemap(run, skip, warn)
    rows = _page_rows(run, skip, on_progress)
    if config.read_heads and config.hreflang:
        rows = reciprocity.filter(rows)
    rows = memory.remembered(rows, included)
    styled_before = named_by(out / INDEX_NAME)  # the index this build replaces named sitemap.xsl

    try:
        written = write_rows(
            rows,
            out,
            base_url=config.base_url,
            limits=config.limits,
            on_skip=skip,
            on_warning=warn,
            before_publish=functools.partial(_before_publish, run),
            stylesheet=config.stylesheet,
            text_sitemap=config.text_sitemap,
            llms=labelled,
            site_name=config.site_name,
            html=html,
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
        # The rows' generators end here, in this thread, and the worker pool with them
        # (`util.parallel.ordered_map`). Left to the garbage collector, an interrupted build's
        # ended in whichever thread collected them: in the pool's own, which then waited on itself.
        if isinstance(rows, Generator):
            rows.close()
        memory.discard()
    if not (config.stylesheet or styled_before or run.dry_run) and written.sitemaps:
        unstyle(out, warn)
    for line in reciprocity.lines():
        warn(line)
    if not written.sitemaps or run.dry_run:
        pipeline.abort()
        claimed.release_if_empty()
    if not written.sitemaps or config.robots_txt is RobotsTxt.OFF or run.dry_run:
        return written, None
    return written, name_indexes(config, written.indexes, warn=warn)


def _before_publish(run: _Run) -> None:
    """Every new chunk is on disk and nothing is published yet: refuse (the drop guard), or
    make durable what goes with the new sitemaps."""
    run.memory.before_publish(run.included, out=run.out, dry_run=run.dry_run)
    if run.dry_run:
        return
    if run.config.indexnow_key is not None:
        from sitemapgen.deploy.indexnow import write_key_file

        write_key_file(run.config.docroot, run.config.indexnow_key)
    run.pipeline.commit()  # the store keeps this build's lastmods only if the build is published


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
