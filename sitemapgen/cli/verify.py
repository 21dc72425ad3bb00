"""`sitemapgen verify URL`: its options, and what it prints.

The problems go to stdout grouped by kind, each with its count and a few examples (``--json``
gives them all, one object); the notes and the closing line go to stderr. In GitHub Actions each
problem is also an ``::error`` annotation (capped, as `build`'s warnings are) and the summary
goes into the job's summary. The reading itself is `commands.verify`'s.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sitemapgen.cli.ci import MAX_ANNOTATIONS, cell, in_github_actions, put_summary, workflow_data
from sitemapgen.cli.exits import EXIT_PROBLEM, flags_named, handled
from sitemapgen.cli.options import JsonOpt, NoSummaryMdOpt, QuietOpt, SummaryMdOpt
from sitemapgen.cli.progress import counted
from sitemapgen.cli.streams import echo, takes_unicode
from sitemapgen.commands.verify import CONCURRENCY, CRAWLER, SAMPLE, TIMEOUT
from sitemapgen.skips import plural

if TYPE_CHECKING:  # the report's types, without importing the command's modules to start the CLI
    from collections.abc import Iterable

    from sitemapgen.live.report import Finding, Report

#: Examples shown for each kind of problem (``--json`` lists every one).
EXAMPLES = 5

UrlArg = Annotated[
    str,
    typer.Argument(
        metavar="URL",
        help="The live site's root (robots.txt, then its Sitemap: lines), or a sitemap or index"
        " (a path ending in .xml, .xml.gz or .txt).",
        show_default=False,
    ),
]
AgainstOpt = Annotated[
    Path | None,
    typer.Option(
        "--against",
        metavar="DIR",
        help="The build that was deployed (its output directory): the host must serve its files byte for byte.",
        show_default=False,
    ),
]
AllOpt = Annotated[bool, typer.Option("--all", help="Check every listed page, however many (wins over --sample).")]
SampleOpt = Annotated[
    int,
    typer.Option(
        "--sample",
        metavar="N",
        help="Check every listed page up to N, past that a sample of N (the same for the same sitemaps)."
        f" [default: {SAMPLE}]",
        show_default=False,
    ),
]
ConcurrencyOpt = Annotated[
    int,
    typer.Option(
        "--concurrency", metavar="N", help=f"Requests in flight at most. [default: {CONCURRENCY}]", show_default=False
    ),
]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help=f"The longest one request may take, connect to last byte. [default: {TIMEOUT:g}]",
        show_default=False,
    ),
]
CrawlerOpt = Annotated[
    str,
    typer.Option(
        "--crawler",
        metavar="NAME",
        help=f"Whose robots.txt group and X-Robots-Tag count (else *'s). [default: {CRAWLER}]",
        show_default=False,
    ),
]


def verify_command(
    url: UrlArg,
    *,
    against: AgainstOpt = None,
    all_pages: AllOpt = False,
    sample: SampleOpt = SAMPLE,
    concurrency: ConcurrencyOpt = CONCURRENCY,
    timeout: TimeoutOpt = TIMEOUT,
    crawler: CrawlerOpt = CRAWLER,
    json_output: JsonOpt = False,
    quiet: QuietOpt = False,
    summary_md: SummaryMdOpt = None,
    no_summary_md: NoSummaryMdOpt = False,
) -> None:
    """Read a live site as a search engine's crawler does: robots.txt, its sitemaps, every listed
    page. Exit 1 if a crawler would report a problem."""
    from sitemapgen.commands.verify import Crawl, verify  # HTTP, lxml: loaded for this command only

    flags = {name: f"--{name}" for name in ("url", "sample", "concurrency", "timeout", "crawler")}
    crawl = Crawl(
        sample=sample, all_pages=all_pages, concurrency=concurrency, timeout=timeout, crawler=crawler, against=against
    )
    with handled(), counted(not quiet and not json_output, "pages") as on_progress:
        with flags_named({**flags, "url": "URL"}):
            report = verify(url, crawl, on_progress=on_progress)
    if in_github_actions():
        for line in github_errors(report):
            echo(line, err=json_output)
    put_summary(summary_md, no_summary_md, markdown(report))
    if json_output:
        echo(json.dumps(report.as_json(), indent=1, ensure_ascii=not takes_unicode(sys.stdout)))
    else:
        for line in grouped(report.by_kind(report.problems), EXAMPLES):
            echo(line)
        if not quiet:
            for line in grouped(report.by_kind(report.notes), 3):
                echo(f"note: {line}", err=True)
    if not quiet or not report.ok:
        verdict = "ok" if report.ok else plural(len(report.problems), "problem")
        echo(
            f"sitemapgen: read {plural(report.sitemaps, 'sitemap')} listing {plural(report.listed, 'URL')},"
            f" fetched {plural(report.checked, 'page')}: {verdict}",
            err=True,
        )
    if not report.ok:
        raise typer.Exit(EXIT_PROBLEM)


def grouped(groups: Iterable[tuple[str, list[Finding]]], examples: int) -> list[str]:
    """Each kind's line (kind, count, what it means), then its first `examples` findings."""
    from sitemapgen.live.report import NOTES, PROBLEMS

    meanings = {**PROBLEMS, **NOTES}
    lines = []
    for kind, findings in groups:
        lines.append(f"{kind} ({len(findings):,}): {meanings[kind]}")
        lines += [f"  {_where(finding)}{finding.message}" for finding in findings[:examples]]
        if len(findings) > examples:
            lines.append(f"  ... and {len(findings) - examples:,} more (--json lists them all)")
    return lines


def _where(finding: Finding) -> str:
    return f"{finding.url}: " if finding.url else ""


def github_errors(report: Report) -> list[str]:
    """Each problem as a GitHub ``::error``, at most `MAX_ANNOTATIONS`, then how many were left out."""
    lines = [
        f"::error title={workflow_data('sitemapgen verify: ' + f.kind)}::{workflow_data(_where(f) + f.message)}"
        for f in report.problems[:MAX_ANNOTATIONS]
    ]
    if len(report.problems) > MAX_ANNOTATIONS:
        lines.append(
            f"::error::{len(report.problems) - MAX_ANNOTATIONS:,} more sitemapgen verify problems: see the log"
        )
    return lines


def markdown(report: Report) -> str:
    """The job summary: what was read, then each kind of problem with its count and examples."""
    from sitemapgen.live.report import PROBLEMS

    lines = [
        "## sitemapgen verify",
        "",
        "| what | count |",
        "| --- | ---: |",
        f"| sitemaps read | {report.sitemaps:,} |",
        f"| URLs listed | {report.listed:,} |",
        f"| pages fetched | {report.checked:,} |",
        f"| problems | {len(report.problems):,} |",
        f"| notes | {len(report.notes):,} |",
    ]
    if report.problems:
        lines += ["", "### Problems", "", "| kind | count | examples |", "| --- | ---: | --- |"]
        for kind, findings in report.by_kind(report.problems):
            shown = "<br>".join(f"`{cell(_where(f) + f.message)}`" for f in findings[:3])
            lines.append(f"| {cell(kind)}: {cell(PROBLEMS[kind])} | {len(findings):,} | {shown} |")
    return "\n".join(lines) + "\n"
