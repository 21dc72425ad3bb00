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
from typing import Annotated

import typer

from sitemapgen.cli.exits import EXIT_PROBLEM, flags_named, handled, put_summary
from sitemapgen.cli.options import JsonOpt, NoSummaryMdOpt, QuietOpt, SummaryMdOpt
from sitemapgen.cli.progress import counted
from sitemapgen.cli.streams import echo, takes_unicode
from sitemapgen.commands.verify import CONCURRENCY, CRAWLER, SAMPLE, TIMEOUT
from sitemapgen.util.github import in_github_actions

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
        for line in report.github_errors():
            echo(line, err=json_output)
    put_summary(summary_md, no_summary_md, report.markdown())
    if json_output:
        echo(json.dumps(report.as_json(), indent=1, ensure_ascii=not takes_unicode(sys.stdout)))
    else:
        for line in report.lines(report.problems, EXAMPLES):
            echo(line)
        for line in [] if quiet else report.lines(report.notes, 3):
            echo(f"note: {line}", err=True)
    if not quiet or not report.ok:
        echo(f"sitemapgen: {report.closing()}", err=True)
    if not report.ok:
        raise typer.Exit(EXIT_PROBLEM)
