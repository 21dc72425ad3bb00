"""The command line's options, declared once: every command that reads a site takes `SITE_OPTIONS`.

Each option sets the `Config` field it is filed under, so a flag's name and its
field cannot drift apart, and `build`, `check`, `list` and `explain` cannot
drift from each other (`cli.program._site_command` adds them all to each).
`indexnow`'s own are here too. Every option that takes a value has a metavar
that says what to write (`URL`, `DIR`, `N`, `SOURCE[,SOURCE...]`), so its help
shows no Python type.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from sitemapgen.config.words import Chunking, HostName, LastmodSource, RobotsTxt
from sitemapgen.protocol import LastmodFormat
from sitemapgen.urls import UrlStyle

DocrootArg = Annotated[
    Path,
    typer.Argument(
        metavar="DOCROOT",
        help="The built site: the directory a static server serves at the base URL.",
        show_default=False,
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        metavar="URL",
        help="Absolute URL the docroot is served at, e.g. https://example.com/docs/.",
        show_default=False,
    ),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="TOML config file. Default: ./sitemapgen.toml, else [tool.sitemapgen] in ./pyproject.toml.",
        show_default=False,
    ),
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help="Where the files are (served at the base URL). Default: the docroot.",
        show_default=False,
    ),
]
UrlStyleOpt = Annotated[
    UrlStyle | None,
    typer.Option(
        "--url-style",
        metavar="STYLE",
        help="directory: a/index.html -> a/ (default); index: keep index.html; extensionless: a/b.html -> a/b;"
        " clean (with --host): a/index.html -> a, a/b.html -> a/b.",
        show_default=False,
    ),
]
LastmodFormatOpt = Annotated[
    LastmodFormat | None,
    typer.Option(
        "--lastmod-format",
        metavar="FORMAT",
        help="datetime: 2004-10-26T08:56:39+00:00 (default); date: 2004-10-26.",
        show_default=False,
    ),
]
LastmodOpt = Annotated[
    str | None,
    typer.Option(
        "--lastmod",
        metavar="SOURCE[,SOURCE...]",
        help="Where lastmod comes from, first answer wins: a comma list of"
        f" {', '.join(source.value for source in LastmodSource)}. Default: mtime.",
        show_default=False,
    ),
]
StateFileOpt = Annotated[
    Path | None,
    typer.Option("--state-file", metavar="FILE", help="The content store for --lastmod content.", show_default=False),
]
ReadHeadsOpt = Annotated[
    bool | None,
    typer.Option(
        "--read-heads/--no-read-heads",
        help="Read each page's <head> for noindex, canonical, redirects, hreflang (default: on).",
        show_default=False,
    ),
]
ImagesOpt = Annotated[
    bool | None,
    typer.Option(
        "--images/--no-images",
        help="List the images each page shows, for Google Images (reads whole pages; default: off).",
        show_default=False,
    ),
]
MaxUrlsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-urls-per-sitemap", metavar="N", help="Lower the 50,000-URL limit per sitemap file.", show_default=False
    ),
]
MaxBytesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-bytes-per-sitemap",
        metavar="N",
        help="Bytes (uncompressed) per sitemap file: default 10,485,760, at most 52,428,800.",
        show_default=False,
    ),
]
MaxPerIndexOpt = Annotated[
    int | None,
    typer.Option(
        "--max-sitemaps-per-index",
        metavar="N",
        help="Sitemaps per index file: default 1,000, at most 50,000.",
        show_default=False,
    ),
]
ChunkingOpt = Annotated[
    Chunking | None,
    typer.Option(
        "--chunking",
        metavar="MODE",
        help="stable: one page's change rewrites one sitemap file (default); fill: fill each file to the limits.",
        show_default=False,
    ),
]
RobotsOpt = Annotated[
    RobotsTxt | None,
    typer.Option(
        "--robots-txt",
        metavar="MODE",
        help="update: add or update the Sitemap: line in DOCROOT/robots.txt; create: also create it; off (default).",
        show_default=False,
    ),
]
JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Processes reading pages (default: one per CPU this process may use; 1: no workers).",
        show_default=False,
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but warnings and errors.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]

PreviousOpt = Annotated[
    str | None,
    typer.Option(
        "--previous",
        metavar="URL|PATH",
        help="The previous deploy: its index URL (https://example.com/sitemap.xml) or an earlier output's"
        " directory or index. Lastmods of unchanged pages carry over (lastmod 'content'); build says what changed.",
        show_default=False,
    ),
]
MaxRemovedOpt = Annotated[
    float | None,
    typer.Option(
        "--max-removed",
        metavar="PERCENT",
        help="Refuse to publish (exit 1) if more than this percent of the previous deploy's URLs would go.",
        show_default=False,
    ),
]
IndexNowKeyOpt = Annotated[
    str | None,
    typer.Option(
        "--indexnow-key",
        metavar="KEY",
        help="Write DOCROOT/KEY.txt for IndexNow, to deploy with the site (then: sitemapgen indexnow).",
        show_default=False,
    ),
]
SummaryMdOpt = Annotated[
    Path | None,
    typer.Option(
        "--summary-md",
        metavar="FILE",
        help="Write a Markdown summary here (default in GitHub Actions: $GITHUB_STEP_SUMMARY).",
        show_default=False,
        dir_okay=False,
    ),
]
NoSummaryMdOpt = Annotated[bool, typer.Option("--no-summary-md", help="Write no Markdown summary, even in CI.")]
ChangesFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--changes-file",
        metavar="FILE",
        help="With --previous: write what changed (added, removed and why, changed) here as JSON.",
        show_default=False,
        dir_okay=False,
    ),
]
HostOpt = Annotated[
    HostName | None,
    typer.Option(
        "--host",
        metavar="HOST",
        help=f"The static host the site is published on ({', '.join(host.value for host in HostName)}): list each"
        " page in the URL form it serves, and leave out what its own files redirect or mark noindex."
        " plain (default): any static server, --url-style decides.",
        show_default=False,
    ),
]
HostConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--host-config",
        metavar="FILE",
        help="The host's file at the project's top: netlify.toml, vercel.json, firebase.json, serve.json."
        " Default: in the docroot, else beside it.",
        show_default=False,
        dir_okay=False,
    ),
]
IncludeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--include",
        metavar="URL",
        help="Another build's sitemap or sitemap index to list in the index, served at URL on the base URL's host;"
        " FILE=URL reads it from FILE (a local build's output). Repeat for more; replaces include in the config.",
        show_default=False,
    ),
]

# `indexnow`'s
ChangesArg = Annotated[
    Path,
    typer.Argument(metavar="CHANGES_FILE", help="What changed, from build --previous --changes-file.", dir_okay=False),
]
KeyOpt = Annotated[
    str, typer.Option("--key", metavar="KEY", help="The IndexNow key (build --indexnow-key put KEY.txt live).")
]
EndpointOpt = Annotated[
    str | None,
    typer.Option(
        "--endpoint",
        metavar="URL",
        help="Where to submit (default: IndexNow's shared endpoint, api.indexnow.org).",
        show_default=False,
    ),
]
KeyLocationOpt = Annotated[
    str | None,
    typer.Option(
        "--key-location", metavar="URL", help="The key file's URL (default: https://HOST/KEY.txt).", show_default=False
    ),
]
CheckKeyOpt = Annotated[
    bool,
    typer.Option(
        "--check-key/--no-check-key", help="First check that the key file is live (default: on).", show_default=False
    ),
]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Print the requests; send nothing.")]

#: Every option that changes what is listed or how it is written, by the `Config`
#: field it sets. Every command that reads a site takes all of them.
SITE_OPTIONS: Mapping[str, Any] = {
    "base_url": BaseUrlOpt,
    "out_dir": OutOpt,
    "url_style": UrlStyleOpt,
    "lastmod_format": LastmodFormatOpt,
    "lastmod": LastmodOpt,
    "state_file": StateFileOpt,
    "read_heads": ReadHeadsOpt,
    "images": ImagesOpt,
    "max_urls_per_sitemap": MaxUrlsOpt,
    "max_bytes_per_sitemap": MaxBytesOpt,
    "max_sitemaps_per_index": MaxPerIndexOpt,
    "chunking": ChunkingOpt,
    "jobs": JobsOpt,
    "previous": PreviousOpt,
    "host": HostOpt,
    "host_config": HostConfigOpt,
    "include": IncludeOpt,
}
