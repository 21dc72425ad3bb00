"""The command line: typer over the library, and nothing more.

Exit codes are decided here and only here: 0 done, 1 `check`, `validate` or
`explain` found a problem, 2 bad input (any `SitemapgenError`, or a usage
error), 130 interrupted. Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from . import __version__
from .build import build as run_build
from .build import display, explain, iter_listing
from .config import Chunking, Config, LastmodFormat, RobotsTxt, load_config
from .errors import SitemapgenError
from .urls import UrlStyle, normalize_base_url

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Turn a built static-site directory into XML sitemaps that every search engine accepts.",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"sitemapgen {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Turn a built static-site directory into XML sitemaps that every search engine accepts."""


DocrootArg = Annotated[
    Path,
    typer.Argument(help="The built site: the directory a static server serves at the base URL.", show_default=False),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url", help="Absolute URL the docroot is served at, e.g. https://example.com/docs/.", show_default=False
    ),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="TOML config file. Default: ./sitemapgen.toml, else [tool.sitemapgen] in ./pyproject.toml.",
        show_default=False,
    ),
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", help="Where the files are (served at the base URL). Default: the docroot.", show_default=False
    ),
]
UrlStyleOpt = Annotated[
    UrlStyle | None,
    typer.Option(
        "--url-style",
        help="directory: a/index.html -> a/ (default); index: keep index.html; extensionless: a/b.html -> a/b.",
        show_default=False,
    ),
]
LastmodFormatOpt = Annotated[
    LastmodFormat | None,
    typer.Option(
        "--lastmod-format",
        help="datetime: 2004-10-26T08:56:39+00:00 (default); date: 2004-10-26.",
        show_default=False,
    ),
]
LastmodOpt = Annotated[
    str | None,
    typer.Option(
        "--lastmod",
        help="Where lastmod comes from, first answer wins: a comma list of mtime, git, meta, content. Default: mtime.",
        show_default=False,
    ),
]
StateFileOpt = Annotated[
    Path | None, typer.Option("--state-file", help="The content store for --lastmod content.", show_default=False)
]
ReadHeadsOpt = Annotated[
    bool | None,
    typer.Option(
        "--read-heads/--no-read-heads",
        help="Read each page's <head> for noindex, canonical, redirects, hreflang (default: on).",
        show_default=False,
    ),
]
MaxUrlsOpt = Annotated[
    int | None,
    typer.Option("--max-urls-per-sitemap", help="Lower the 50,000-URL limit per sitemap file.", show_default=False),
]
MaxBytesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-bytes-per-sitemap",
        help="Lower the 10,485,760-byte (uncompressed) limit per sitemap file.",
        show_default=False,
    ),
]
MaxPerIndexOpt = Annotated[
    int | None,
    typer.Option("--max-sitemaps-per-index", help="Lower the 1,000-sitemap limit per index file.", show_default=False),
]
ChunkingOpt = Annotated[
    Chunking | None,
    typer.Option(
        "--chunking",
        help="stable: one page's change rewrites one sitemap file (default); fill: fill each file to the limits.",
        show_default=False,
    ),
]
RobotsOpt = Annotated[
    RobotsTxt | None,
    typer.Option(
        "--robots-txt",
        help="update: add or update the Sitemap: line in DOCROOT/robots.txt; create: also create it; off (default).",
        show_default=False,
    ),
]
JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", help="Processes reading pages (default: one per CPU; 1: no workers).", show_default=False
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but warnings and errors.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]


def _warn(message: str) -> None:
    typer.echo(f"warning: {message}", err=True)


@contextlib.contextmanager
def _handled() -> Iterator[None]:
    """Turn the library's errors and Ctrl-C into a message and an exit code."""
    try:
        yield
    except SitemapgenError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None


#: The flag each Config field is set by: errors in a value name the flag.
_FLAGS = {
    "base_url": "--base-url",
    "out_dir": "--out",
    "url_style": "--url-style",
    "lastmod_format": "--lastmod-format",
    "lastmod": "--lastmod",
    "state_file": "--state-file",
    "read_heads": "--read-heads",
    "max_urls_per_sitemap": "--max-urls-per-sitemap",
    "max_bytes_per_sitemap": "--max-bytes-per-sitemap",
    "max_sitemaps_per_index": "--max-sitemaps-per-index",
    "chunking": "--chunking",
    "robots_txt": "--robots-txt",
    "jobs": "--jobs",
}


def _settings(docroot: Path, config: Path | None, **values: object) -> Config:
    """The `Config` from the config file and the flags that were given (not None)."""
    flags = {key: (value, _FLAGS[key]) for key, value in values.items() if value is not None}
    if "lastmod" in flags:
        value, flag = flags["lastmod"]
        flags["lastmod"] = ([part.strip() for part in str(value).split(",")], flag)
    return load_config(docroot, config_file=config, flags=flags)


@contextlib.contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A live page count on stderr, only when a person is watching a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.completed:,} pages"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task("walk", total=None)
        yield lambda n: progress.update(task, completed=n)


@app.command("build")
def build_command(
    docroot: DocrootArg,
    *,
    base_url: BaseUrlOpt = None,
    config: ConfigOpt = None,
    out: OutOpt = None,
    url_style: UrlStyleOpt = None,
    lastmod_format: LastmodFormatOpt = None,
    lastmod: LastmodOpt = None,
    state_file: StateFileOpt = None,
    read_heads: ReadHeadsOpt = None,
    max_urls_per_sitemap: MaxUrlsOpt = None,
    max_bytes_per_sitemap: MaxBytesOpt = None,
    max_sitemaps_per_index: MaxPerIndexOpt = None,
    chunking: ChunkingOpt = None,
    robots_txt: RobotsOpt = None,
    jobs: JobsOpt = None,
    quiet: QuietOpt = False,
    json_output: JsonOpt = False,
) -> None:
    """Write DOCROOT/sitemap.xml (the index) and gzipped sitemap-N.xml.gz files."""
    with _handled():
        settings = _settings(
            docroot,
            config,
            base_url=base_url,
            out_dir=out,
            url_style=url_style,
            lastmod_format=lastmod_format,
            lastmod=lastmod,
            state_file=state_file,
            read_heads=read_heads,
            max_urls_per_sitemap=max_urls_per_sitemap,
            max_bytes_per_sitemap=max_bytes_per_sitemap,
            max_sitemaps_per_index=max_sitemaps_per_index,
            chunking=chunking,
            robots_txt=robots_txt,
            jobs=jobs,
        )
        with _progress(not quiet and not json_output) as on_progress:
            result = run_build(settings, on_warning=_warn, on_progress=on_progress)
    if json_output:
        typer.echo(json.dumps(result.as_json(), indent=2))
    elif not quiet:
        typer.echo(f"sitemapgen: {result.summary()}", err=True)


@app.command("check")
def check_command(
    docroot: DocrootArg,
    *,
    base_url: BaseUrlOpt = None,
    config: ConfigOpt = None,
    out: OutOpt = None,
    url_style: UrlStyleOpt = None,
    lastmod_format: LastmodFormatOpt = None,
    lastmod: LastmodOpt = None,
    state_file: StateFileOpt = None,
    read_heads: ReadHeadsOpt = None,
    max_urls_per_sitemap: MaxUrlsOpt = None,
    max_bytes_per_sitemap: MaxBytesOpt = None,
    max_sitemaps_per_index: MaxPerIndexOpt = None,
    chunking: ChunkingOpt = None,
    jobs: JobsOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Exit 1, with a short account, if the sitemaps on disk are missing or not what build would write now."""
    from .check import check

    with _handled():
        settings = _settings(
            docroot,
            config,
            base_url=base_url,
            out_dir=out,
            url_style=url_style,
            lastmod_format=lastmod_format,
            lastmod=lastmod,
            state_file=state_file,
            read_heads=read_heads,
            max_urls_per_sitemap=max_urls_per_sitemap,
            max_bytes_per_sitemap=max_bytes_per_sitemap,
            max_sitemaps_per_index=max_sitemaps_per_index,
            chunking=chunking,
            jobs=jobs,
        )
        result = check(settings, on_warning=None if not quiet else (lambda _: None))
    if not (quiet and result.current):
        for line in result.lines:
            typer.echo(line)
    if not result.current:
        raise typer.Exit(EXIT_PROBLEM)


@app.command("validate")
def validate_command(
    paths: Annotated[list[Path], typer.Argument(help="Sitemap files or indexes, gzipped or not.")],
    *,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            help="The URL the files' directory is served at: checks the location and one-host rules against it.",
            show_default=False,
        ),
    ] = None,
    quiet: QuietOpt = False,
) -> None:
    """Check sitemaps (any tool's) against the protocol. Exit 1 if anything is wrong."""
    from .validate import validate  # lxml: imported only for this command

    with _handled():
        base = normalize_base_url(base_url) if base_url is not None else None
        report = validate(paths, base_url=base)
    for problem in report.problems:
        typer.echo(str(problem))
    if not quiet or report.problems:
        verdict = "ok" if report.ok else f"{len(report.problems):,} problems"
        typer.echo(f"{report.files:,} files, {report.urls:,} URLs: {verdict}", err=True)
    if not report.ok:
        raise typer.Exit(EXIT_PROBLEM)


@app.command("list")
def list_command(
    docroot: DocrootArg,
    *,
    base_url: BaseUrlOpt = None,
    config: ConfigOpt = None,
    url_style: UrlStyleOpt = None,
    lastmod_format: LastmodFormatOpt = None,
    lastmod: LastmodOpt = None,
    state_file: StateFileOpt = None,
    read_heads: ReadHeadsOpt = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="One JSON object a line instead of tab-separated.")
    ] = False,
) -> None:
    """Print what build would list, one page a line: URL, lastmod, changefreq, priority, source file."""
    from .writer import format_lastmod, format_priority

    with _handled():
        settings = _settings(
            docroot,
            config,
            base_url=base_url,
            url_style=url_style,
            lastmod_format=lastmod_format,
            lastmod=lastmod,
            state_file=state_file,
            read_heads=read_heads,
        )
        for item in iter_listing(settings, on_warning=_warn):
            entry = item.entry
            row = {
                "url": entry.loc,
                "lastmod": format_lastmod(entry.lastmod, settings.lastmod_format) if entry.lastmod else None,
                "changefreq": entry.changefreq.value if entry.changefreq else None,
                "priority": format_priority(entry.priority) if entry.priority is not None else None,
                "file": item.relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"),
                "lastmod_source": item.lastmod_source.value if item.lastmod_source else None,
            }
            if json_output:
                typer.echo(json.dumps(row, ensure_ascii=False))
            else:
                row["file"] = display(item.relpath)  # one page, one line, whatever the name
                fields = ("url", "lastmod", "changefreq", "priority", "file")
                typer.echo("\t".join("" if row[k] is None else str(row[k]) for k in fields))


@app.command("explain")
def explain_command(
    docroot: DocrootArg,
    pages: Annotated[
        list[str], typer.Argument(help="Pages to explain: paths relative to DOCROOT, or paths to files in it.")
    ],
    *,
    base_url: BaseUrlOpt = None,
    config: ConfigOpt = None,
    url_style: UrlStyleOpt = None,
    lastmod: LastmodOpt = None,
    state_file: StateFileOpt = None,
    read_heads: ReadHeadsOpt = None,
) -> None:
    """Say why each page is or is not in the sitemap, as build would decide. Exit 1 if any is not."""
    with _handled():
        settings = _settings(
            docroot,
            config,
            base_url=base_url,
            url_style=url_style,
            lastmod=lastmod,
            state_file=state_file,
            read_heads=read_heads,
        )
        answers = [explain(settings, page) for page in pages]
    for answer in answers:
        for line in answer.lines:
            typer.echo(line)
    if not all(answer.listed for answer in answers):
        raise typer.Exit(EXIT_PROBLEM)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI with `argv` and return the exit code instead of exiting.

    Typer runs in standalone mode, so usage errors are reported its usual way
    (exit 2); only the final `SystemExit` is turned into a return value.
    """
    try:
        app(args=argv, prog_name="sitemapgen")
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or EXIT_OK
        typer.echo(e.code, err=True)
        return 1
    return EXIT_OK


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
