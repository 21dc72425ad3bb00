"""The command line: typer over the library, and nothing more.

The options that decide what is listed and how it is written are the settings
declared once on `Config` (`config.declare`); `_site_command` gives each command
the flags of the settings it reads, so a `build` line works as a `check`, `list`
or `explain` line by changing the verb (less the flags they have no use for).

Exit codes, and how an error, Ctrl-C or SIGTERM becomes one line, are in
`exits`; the live page count a build shows is in `progress`.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from sitemapgen._version import __version__
from sitemapgen.cli import exits, options
from sitemapgen.cli.progress import progress
from sitemapgen.cli.usage import Command, Group
from sitemapgen.cli.verify import verify_command
from sitemapgen.commands.build import build as run_build
from sitemapgen.commands.explain import explain
from sitemapgen.commands.listing import iter_listing
from sitemapgen.config.declare import settings_of
from sitemapgen.config.loader import load_config
from sitemapgen.config.settings import Config
from sitemapgen.errors import SitemapgenError
from sitemapgen.urls import normalize_base_url
from sitemapgen.util.streams import GONE, echo, put, takes_unicode

app = typer.Typer(
    cls=Group,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Turn a built static-site directory into XML sitemaps that every search engine accepts.",
)


def _version(value: bool) -> None:
    if value:
        echo(f"sitemapgen {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Turn a built static-site directory into XML sitemaps that every search engine accepts."""


def _warn(message: str) -> None:
    echo(f"warning: {message}", err=True)


def _site_command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a command that reads a site: DOCROOT, `--config` and the flag of every setting
    declared for `name` (`config.declare`) are added to its parameters, and it is called with
    `settings`, the `Config` they make.

    typer reads a command's parameters from its signature and has no other way to share options
    between commands, so the signature is drawn from the declarations.
    """
    declared = [
        (s.name, flag, s.declared.help)
        for s in settings_of(Config)
        if (flag := s.declared.flag) is not None and name in flag.commands
    ]
    kinds = {list: list[str], ",": str}  # a repeated flag, a comma list (split in `run`)
    typed = {
        key: Annotated[kinds.get(flag.kind, flag.kind) | None, options.option(flag, text)]
        for key, flag, text in declared
    }
    flags = {key: flag.name for key, flag, _ in declared}
    commas = {key for key, flag, _ in declared if flag.kind == ","}

    def register(command: Callable[..., None]) -> Callable[..., None]:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "settings"]
        keyword = inspect.Parameter.KEYWORD_ONLY
        parameters = [
            inspect.Parameter("docroot", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=options.DocrootArg),
            *(p for p in own if p.kind is not keyword),
            inspect.Parameter("config_file", keyword, default=None, annotation=options.ConfigOpt),
            *(inspect.Parameter(key, keyword, default=None, annotation=option) for key, option in typed.items()),
            *(p for p in own if p.kind is keyword),
        ]

        def run(**kwargs: Any) -> None:
            given = {key: value for key in flags if (value := kwargs.pop(key)) is not None}
            for key in given.keys() & commas:  # a list in one flag: --lastmod git,mtime
                given[key] = [part.strip() for part in given[key].split(",")]
            docroot, config_file = kwargs.pop("docroot"), kwargs.pop("config_file")
            with exits.handled(), exits.flags_named(flags):
                settings = load_config(docroot, config_file=config_file, **given)
            command(settings=settings, **kwargs)

        run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
        run.__doc__, run.__name__ = command.__doc__, command.__name__
        app.command(name, cls=Command)(run)
        return command

    return register


@_site_command("build")
def build_command(
    settings: Config,
    *,
    quiet: options.QuietOpt = False,
    json_output: options.JsonOpt = False,
    summary_md: options.SummaryMdOpt = None,
    no_summary_md: options.NoSummaryMdOpt = False,
    changes_file: options.ChangesFileOpt = None,
) -> None:
    """Write DOCROOT/sitemap.xml (the index) and gzipped sitemap-N.xml.gz files."""
    from sitemapgen.commands.ci import CiReport
    from sitemapgen.util.github import in_github_actions, put_summary

    annotate = (lambda line: echo(line, err=json_output)) if in_github_actions() else None  # stdout: not into JSON
    ci = CiReport(docroot=settings.docroot, annotate=annotate)

    def warn(message: str) -> None:
        _warn(message)
        ci.add(message)

    with exits.handled(), progress(not quiet and not json_output) as on_progress:
        if changes_file is not None and settings.previous is None:
            raise SitemapgenError("--changes-file: needs --previous (what to compare with)")
        result = run_build(settings, on_warning=warn, on_progress=on_progress, changes_file=changes_file)
    ci.close()
    with exits.handled():
        put_summary(ci.markdown(result), to=summary_md, off=no_summary_md, done=" (the sitemaps were published)")
    if json_output:
        lost = echo(json.dumps(result.as_json(), indent=2))
        if lost is not None and lost.errno not in GONE:  # a reader that left asked for nothing more
            _warn(f"cannot print the result to stdout: {lost.strerror or lost} (the sitemaps were published)")
    elif not quiet:
        echo(f"sitemapgen: {result.summary()}", err=True)


@_site_command("check")
def check_command(settings: Config, *, quiet: options.QuietOpt = False) -> None:
    """Exit 1, with a short account, if the sitemaps on disk are missing or not what build would write now."""
    from sitemapgen.commands.check import check

    with exits.handled():
        result = check(settings, on_warning=_warn if not quiet else (lambda _: None))
    if not (quiet and result.current):
        for line in result.lines:
            echo(line)
    if not result.current:
        raise typer.Exit(exits.EXIT_PROBLEM)


@app.command("diff", cls=Command)
def diff_command(
    old: Annotated[
        str, typer.Argument(metavar="OLD", help="The earlier deploy: an index URL, or an output directory or index.")
    ],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The later one, the same way.")],
    *,
    json_output: Annotated[bool, typer.Option("--json", help="The diff as one JSON object.")] = False,
) -> None:
    """Print the URLs added (+), removed (-) and with a changed lastmod (~) between two deploys."""
    from sitemapgen.commands.diff import diff

    with exits.handled(), diff(old, new, on_warning=_warn) as changes:
        if json_output:
            exits.delivered(echo(json.dumps(changes.as_json(), indent=1, ensure_ascii=not takes_unicode(sys.stdout))))
            return
        for line in changes.lines():
            exits.delivered(echo(line))
        echo(f"sitemapgen: {changes.counts()}", err=True)


@app.command("indexnow", cls=Command)
def indexnow_command(
    changes_file: options.ChangesArg,
    *,
    key: options.KeyOpt,
    endpoint: options.EndpointOpt = None,
    key_location: options.KeyLocationOpt = None,
    check_key: options.CheckKeyOpt = True,
    dry_run: options.DryRunOpt = False,
) -> None:
    """Tell IndexNow (Bing, Yandex, Seznam, Naver...) the URLs a deploy added, changed or removed."""
    from sitemapgen.commands.indexnow import indexnow

    with exits.handled(), exits.flags_named({"key": "--key", "endpoint": "--endpoint"}):
        submission = indexnow(
            changes_file,
            key=key,
            endpoint=endpoint,
            key_location=key_location,
            check_key=check_key,
            dry_run=dry_run,
            on_status=lambda line: echo(f"sitemapgen: {line}", err=True),
        )
    if dry_run and submission.plan.urls:
        for body in submission.plan.bodies():
            echo(f"POST {submission.plan.endpoint}")
            echo(json.dumps(body, indent=1, ensure_ascii=not takes_unicode(sys.stdout)))
    else:
        echo(f"sitemapgen: {submission.summary()}", err=True)


@app.command("validate", cls=Command)
def validate_command(
    paths: Annotated[
        # readable=False: a file that cannot be read is a problem `validate` reports (exit 1), not a usage error
        list[Path], typer.Argument(metavar="SITEMAP", help="Sitemap files or indexes, gzipped or not.", readable=False)
    ],
    *,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            metavar="URL",
            help="The URL the files' directory is served at: checks the location and one-host rules against it.",
        ),
    ] = None,
    quiet: options.QuietOpt = False,
) -> None:
    """Check sitemaps (any tool's) against the protocol. Exit 1 if anything is wrong."""
    from sitemapgen.commands.validate import validate  # lxml: imported only for this command

    with exits.handled():
        with exits.flags_named({"base_url": "--base-url"}):
            base = normalize_base_url(base_url) if base_url is not None else None
        report = validate(paths, base_url=base)
    for problem in report.problems:
        echo(str(problem))
    for note in () if quiet else report.notes:
        echo(f"note: {note}", err=True)
    if not quiet or report.problems:
        echo(report.closing(), err=True)
    if not report.ok:
        raise typer.Exit(exits.EXIT_PROBLEM)


app.command("verify", cls=Command)(verify_command)


@_site_command("list")
def list_command(
    settings: Config,
    *,
    json_output: Annotated[
        bool, typer.Option("--json", help="One JSON object a line instead of tab-separated.")
    ] = False,
) -> None:
    """Print what build would list, in its order, one page a line: URL, lastmod, changefreq, priority, source file."""
    stdout, ascii_only = sys.stdout, not takes_unicode(sys.stdout)
    with exits.handled():
        exits.delivered(put(stdout, "", flush=False))  # closed (``>&-``): nothing to walk the site for
        for item in iter_listing(settings, on_warning=_warn):
            line = json.dumps(item.as_json(), ensure_ascii=ascii_only) if json_output else item.line()
            exits.delivered(put(stdout, line + "\n", flush=False))  # buffered: a million pages
        exits.delivered(put(stdout, ""))


@_site_command("explain")
def explain_command(
    settings: Config,
    pages: Annotated[
        list[str],
        typer.Argument(
            metavar="PAGE",
            help="Pages to explain: paths relative to DOCROOT, paths to files in it, or URLs under the base URL.",
        ),
    ],
) -> None:
    """Say why each page is or is not in the sitemap, as build would decide. Exit 1 if any is not."""
    with exits.handled():
        answers = explain(settings, pages, on_warning=_warn)
    for answer in answers:
        for line in answer.lines:
            echo(line)
    if not all(answer.listed for answer in answers):
        raise typer.Exit(exits.EXIT_PROBLEM)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI with `argv` and return the exit code instead of exiting.

    Usage errors are one line too (exit 2), with a pointer to ``--help``;
    no arguments at all prints the help once, as a usage error (`usage.Group`).
    """
    with exits.sigterm_as_interrupt():
        try:
            code = app(args=argv, prog_name="sitemapgen", standalone_mode=False)
        except typer.exceptions.TyperException as e:
            return exits.usage_failure(e)
        except typer.Abort:
            echo("interrupted", err=True)
            return exits.EXIT_INTERRUPTED
        except KeyboardInterrupt as e:  # outside a command (while parsing): still not a traceback
            return exits.stopped(e)
    return code if isinstance(code, int) else exits.EXIT_OK
