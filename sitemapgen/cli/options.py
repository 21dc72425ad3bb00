"""The commands' own options: how they report, and `indexnow`'s. The settings' flags are not
here: each is declared once, on its `Config` field (`config.declare`). Every option that takes a
value has a metavar that says what to write (`FILE`, `URL`), so its help shows no Python type;
a default is shown only where it is not None (typer's own rule), or in the help's words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from sitemapgen.config.declare import Flag, Panel, settings_of

OUTPUT = Panel.OUTPUT.value

DocrootArg = Annotated[
    Path,
    typer.Argument(metavar="DOCROOT", help="The built site: the directory a static server serves at the base URL."),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="TOML config file. Default: ./sitemapgen.toml, else [tool.sitemapgen] in ./pyproject.toml.",
    ),
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print nothing but warnings and errors.", rich_help_panel=OUTPUT)
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.", rich_help_panel=OUTPUT)]
SummaryMdOpt = Annotated[
    Path | None,
    typer.Option(
        "--summary-md",
        metavar="FILE",
        help="Write a Markdown summary here (default in GitHub Actions: $GITHUB_STEP_SUMMARY).",
        rich_help_panel=OUTPUT,
        dir_okay=False,
    ),
]
NoSummaryMdOpt = Annotated[
    bool, typer.Option("--no-summary-md", help="Write no Markdown summary, even in CI.", rich_help_panel=OUTPUT)
]
ChangesFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--changes-file",
        metavar="FILE",
        help="With --previous: write what changed (added, removed and why, changed) here as JSON.",
        rich_help_panel=Panel.DEPLOY.value,
        dir_okay=False,
    ),
]
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
        "--endpoint", metavar="URL", help="Where to submit (default: IndexNow's shared endpoint, api.indexnow.org)."
    ),
]
KeyLocationOpt = Annotated[
    str | None,
    typer.Option(
        "--key-location",
        metavar="URL",
        help="The key file's URL (default: BASE_URL/KEY.txt, where build --indexnow-key put it).",
    ),
]
CheckKeyOpt = Annotated[
    bool,
    typer.Option(
        "--check-key/--no-check-key", help="First check that the key file is live (default: on).", show_default=False
    ),
]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Print the requests; send nothing.")]


def option(flag: Flag, help_text: str) -> Any:
    """The typer option of a declared `Flag`."""
    names = [flag.names, *([flag.short] if flag.short else [])]
    return typer.Option(
        *names, metavar=flag.metavar, help=help_text, show_default=False, rich_help_panel=flag.panel.value
    )


def option_of(cls: type, name: str) -> Any:
    """The typer option of the field `name` of `cls`, as it is declared."""
    declared = next(setting.declared for setting in settings_of(cls) if setting.name == name)
    assert declared.flag is not None
    return option(declared.flag, declared.help)
