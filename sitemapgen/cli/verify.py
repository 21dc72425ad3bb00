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

from sitemapgen.cli.exits import EXIT_PROBLEM, flags_named, handled
from sitemapgen.cli.options import JsonOpt, NoSummaryMdOpt, QuietOpt, SummaryMdOpt, option_of
from sitemapgen.cli.progress import progress
from sitemapgen.commands.verify import CONCURRENCY, CRAWLER, SAMPLE, TIMEOUT, Crawl
from sitemapgen.util.github import in_github_actions, put_summary
from sitemapgen.util.streams import echo, takes_unicode

#: Examples shown for each kind of problem (``--json`` lists every one).
EXAMPLES = 5

UrlArg = Annotated[
    str,
    typer.Argument(
        metavar="URL",
        help="The live site's root (robots.txt, then its Sitemap: lines), or a sitemap or index"
        " (a path ending in .xml, .xml.gz or .txt).",
    ),
]


def verify_command(
    url: UrlArg,
    *,
    against: Annotated[Path | None, option_of(Crawl, "against")] = None,
    all_pages: Annotated[bool, option_of(Crawl, "all_pages")] = False,
    sample: Annotated[int, option_of(Crawl, "sample")] = SAMPLE,
    concurrency: Annotated[int, option_of(Crawl, "concurrency")] = CONCURRENCY,
    timeout: Annotated[float, option_of(Crawl, "timeout")] = TIMEOUT,
    crawler: Annotated[str, option_of(Crawl, "crawler")] = CRAWLER,
    json_output: JsonOpt = False,
    quiet: QuietOpt = False,
    summary_md: SummaryMdOpt = None,
    no_summary_md: NoSummaryMdOpt = False,
) -> None:
    """Read a live site as a search engine's crawler does: robots.txt, its sitemaps, every listed
    page. Exit 1 if a crawler would report a problem."""
    from sitemapgen.commands.verify import verify  # HTTP, lxml: loaded for this command only

    flags = {name: f"--{name}" for name in ("url", "sample", "concurrency", "timeout", "crawler")}
    crawl = Crawl(
        sample=sample, all_pages=all_pages, concurrency=concurrency, timeout=timeout, crawler=crawler, against=against
    )
    with handled(), progress(not quiet and not json_output, "pages", delay=1.0) as on_progress:
        with flags_named({**flags, "url": "URL"}):
            report = verify(url, crawl, on_progress=on_progress)
    if in_github_actions():
        for line in report.github_errors():
            echo(line, err=json_output)
    with handled():
        put_summary(report.markdown(), to=summary_md, off=no_summary_md)
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
