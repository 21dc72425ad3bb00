"""How the command line explains its own use: the help, printed once and whole at any width, and
what an unknown option is taken for."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer

from sitemapgen.cli.program import app

from ..conftest import CliRunner
from ..helpers import error_line

GROUP = typer.main.get_command(app)
COMMANDS = sorted(getattr(GROUP, "commands", {}))


def _params(command: str) -> list[Any]:
    click_command = GROUP.commands[command] if command else GROUP  # type: ignore[attr-defined]
    return list(click_command.params)


def test_sitemapgen_alone_prints_the_help_once(cli: CliRunner) -> None:
    run = cli()
    assert run.code == 2  # a usage error, answered with the help
    assert run.err == ""
    assert run.out.count("Usage: sitemapgen [OPTIONS] COMMAND [ARGS]...") == 1
    for command in COMMANDS:
        assert len(re.findall(rf"^  {command}  ", run.out, flags=re.MULTILINE)) == 1, command
    assert run.out == cli("--help").out  # the same help as asked for, no more


def test_the_commands_are_listed_in_the_order_the_readme_gives_them(cli: CliRunner) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Commands at a glance") :]
    documented = re.findall(r"^\| `sitemapgen (\w+)", table, flags=re.MULTILINE)
    listed = re.findall(r"^  (\w+)  ", cli("--help").out.split("Commands:")[1], flags=re.MULTILINE)
    assert listed == documented == ["build", "check", "list", "explain", "validate", "verify", "diff", "indexnow"]


@pytest.mark.parametrize("columns", [80, 100, 120])
@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_reads_whole(command: str, columns: int, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    run = cli(*([command] if command else []), "--help")
    assert run.code == 0
    lines = run.out.splitlines()
    assert [line for line in lines if len(line) > columns] == []  # nothing runs past the terminal
    assert "…" not in run.out  # nor is cut to fit it
    flowing = " ".join(run.out.split())
    assert flowing.count("[default: ") == len(re.findall(r"\[default: [^\]\s]+\]", flowing))  # each default whole
    # no type words: <bool>, <str>, <path>, <list[Path]>, <directory|index|...>, {docroot}
    assert set(re.findall(r"<[^>\s]*>", run.out)) <= {"<head>"}
    assert re.findall(r"\{\w+\}", run.out) == []
    for param in _params(command):
        if param.param_type_name == "argument":  # by its metavar, in the usage line and its section
            name = param.metavar or ""
            assert re.fullmatch(r"[A-Z][A-Z_]*", name), name
            assert re.search(rf"^Usage: .* {name}(\.\.\.)?( |$)", run.out, flags=re.MULTILINE), name
            assert re.search(rf"^  {name}(\.\.\.)?  ", run.out, flags=re.MULTILINE), name
            continue
        for option in [*param.opts, *param.secondary_opts]:  # each one whole, where its entry starts
            assert re.search(rf"^  (-\w, )?(--[\w-]+ / )?{option}( |,|$)", run.out, flags=re.MULTILINE), option
        if not getattr(param, "is_flag", False):  # and what to write after it: URL, DIR, N, SOURCE[,SOURCE...]
            long = next(opt for opt in param.opts if opt.startswith("--"))
            shown = re.search(rf"^  (?:-\w, )?{long} (\S+)", run.out, flags=re.MULTILINE)
            assert shown is not None, param.opts
            assert re.fullmatch(r"[A-Z][A-Z_]*([|,\[\].]+[A-Z_]*)*", shown.group(1)), shown.group(1)


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        pytest.param(["build", "DOCROOT", "--foo"], [], id="nothing-close"),
        pytest.param(["build", "DOCROOT", "--fast"], [], id="nothing-close-either"),
        pytest.param(["build", "DOCROOT", "--to"], [], id="nothing-close-though-short"),
        pytest.param(["build", "DOCROOT", "--hst"], ["--host"], id="a-letter-left-out"),
        pytest.param(["build", "DOCROOT", "--format"], ["--lastmod-format"], id="its-end"),
        pytest.param(["build", "DOCROOT", "--ur"], ["--url-style"], id="its-start"),
        pytest.param(["build", "DOCROOT", "--lastmod-fromat"], ["--lastmod-format"], id="a-typo-not-its-prefix"),
        pytest.param(["build", "DOCROOT", "--quite"], ["--quiet"], id="swapped-letters"),
        pytest.param(["build", "DOCROOT", "--out-dir"], ["--out"], id="longer"),
        pytest.param(
            ["build", "DOCROOT", "--max"],
            ["--max-urls-per-sitemap", "--max-bytes-per-sitemap", "--max-sitemaps-per-index", "--max-removed"],
            id="a-prefix",
        ),
        pytest.param(["validate", "a.xml", "--base"], ["--base-url"], id="validate"),
        pytest.param(["indexnow", "changes.json", "--dryrun"], ["--dry-run"], id="indexnow"),
        pytest.param(["--vers"], ["--version"], id="before-the-command"),
    ],
)
def test_an_unknown_option_is_offered_only_close_matches(
    args: list[str], meant: list[str], cli: CliRunner, tmp_path: Path
) -> None:
    docroot = tmp_path / "site"
    docroot.mkdir()
    run = cli(*(str(docroot) if arg == "DOCROOT" else arg for arg in args))
    assert run.code == 2
    line = error_line(run.err)
    command = "sitemapgen " + args[0] if not args[0].startswith("-") else "sitemapgen"
    unknown = args[-1]
    if meant:
        listed = meant[0] if len(meant) == 1 else f"{', '.join(meant[:-1])} or {meant[-1]}"
        suggestion = f". Did you mean {listed}?"
    else:
        suggestion = ""
    assert line == f"No such option: {unknown}{suggestion} (see {command} --help)"
    assert list(docroot.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "why"),
    [
        pytest.param(
            ["build", "DOCROOT", "--exclude", "x/"],
            ": exclude has no flag; set it in sitemapgen.toml (exclude = ...) or [tool.sitemapgen]",
            id="a-config-key",
        ),
        pytest.param(
            ["check", "DOCROOT", "--robots-txt", "create"],
            ": it is an option of sitemapgen build only; leave it out here",
            id="check-a-build-option",
        ),
        pytest.param(
            ["list", "DOCROOT", "-q"],
            ": it is an option of sitemapgen build only; leave it out here",
            id="list-a-short-build-option",
        ),
        pytest.param(
            ["explain", "DOCROOT", "x.html", "--json"],
            ": it is an option of sitemapgen build only; leave it out here",
            id="explain-a-build-option",
        ),
    ],
)
def test_an_unknown_option_that_is_something_else_says_what(
    args: list[str], why: str, cli: CliRunner, tmp_path: Path
) -> None:
    docroot = tmp_path / "site"
    docroot.mkdir()
    run = cli(*(str(docroot) if arg == "DOCROOT" else arg for arg in args))
    assert run.code == 2
    unknown = next(arg for arg in args if arg.startswith("-"))
    command = f"sitemapgen {args[0]}"
    assert error_line(run.err) == f"No such option: {unknown}{why} (see {command} --help)"
    assert list(docroot.iterdir()) == []


@pytest.mark.parametrize(
    ("option", "value", "choices", "meant"),
    [
        (
            "--host",
            "netlfy",
            "'plain', 'netlify', 'cloudflare', 'vercel', 'firebase', 'serve'",
            " (did you mean 'netlify'?)",
        ),
        ("--chunking", "bogus", "'stable', 'fill'", ""),
        ("--url-style", "dir", "'directory', 'index', 'extensionless', 'clean'", " (did you mean 'directory'?)"),
        ("--lastmod-format", "dates", "'datetime', 'date'", " (did you mean 'date'?)"),
    ],
)
def test_a_value_not_among_the_choices_is_said_once_with_the_close_one(
    option: str, value: str, choices: str, meant: str, cli: CliRunner, tmp_path: Path
) -> None:
    docroot = tmp_path / "site"
    docroot.mkdir()
    run = cli("build", str(docroot), "--base-url", "https://example.com/", option, value)
    assert run.code == 2
    assert error_line(run.err) == (
        f"Invalid value for '{option}': '{value}' is not one of {choices}{meant} (see sitemapgen build --help)"
    )
    assert list(docroot.iterdir()) == []
