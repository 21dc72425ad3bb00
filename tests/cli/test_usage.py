"""How the command line explains its own use: the help, printed once."""

from __future__ import annotations

import re

import typer

from sitemapgen.cli.program import app

from ..conftest import CliRunner

GROUP = typer.main.get_command(app)
COMMANDS = sorted(getattr(GROUP, "commands", {}))


def test_sitemapgen_alone_prints_the_help_once(cli: CliRunner) -> None:
    run = cli()
    assert run.code == 2  # a usage error, answered with the help
    assert run.err == ""
    assert run.out.count("Usage: sitemapgen [OPTIONS] COMMAND [ARGS]...") == 1
    for command in COMMANDS:
        assert len(re.findall(rf"^  {command}  ", run.out, flags=re.MULTILINE)) == 1, command
    assert run.out == cli("--help").out  # the same help as asked for, no more
