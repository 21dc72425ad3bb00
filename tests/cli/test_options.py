"""The site options are declared once and every command that reads a site takes them all."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from sitemapgen.cli.program import app
from sitemapgen.config.declare import Panel, settings_of
from sitemapgen.config.settings import Config

from ..conftest import CliRunner

SITE_COMMANDS = ("build", "check", "list", "explain")


def _flags(command: str) -> set[str]:
    group = typer.main.get_command(app)
    click_command = group.commands[command]  # type: ignore[attr-defined]
    return {opt for param in click_command.params for opt in param.opts if opt.startswith("--")}


def _declared(command: str) -> set[str]:
    return {
        s.declared.flag.name for s in settings_of(Config) if s.declared.flag and command in s.declared.flag.commands
    }


@pytest.mark.parametrize("command", SITE_COMMANDS)
def test_a_site_command_takes_the_flags_declared_for_it(command: str) -> None:
    flags = _flags(command)
    assert _declared(command) <= flags
    settings = {s.declared.flag.name for s in settings_of(Config) if s.declared.flag}
    assert flags & settings == _declared(command)  # no setting's flag it was not declared for
    assert {"--config", "--base-url", "--out", "--lastmod", "--jobs", "--max-bytes-per-sitemap"} <= flags


@pytest.mark.parametrize("command", ["list", "explain"])
def test_list_and_explain_offer_no_option_they_ignore(cli: CliRunner, command: str) -> None:
    shown = cli(command, "--help").out
    for ignored in ("--chunking", "--max-sitemaps-per-index", "--max-urls-per-sitemap", "--include", "--robots-txt"):
        assert ignored not in _flags(command)
        assert ignored not in shown
    run = cli(command, "site", "--base-url", "https://example.com/", "--chunking", "fill")
    assert run.code == 2
    assert "it is an option of sitemapgen build and check only" in run.err
    # said so even where one of its own reads alike (--max-bytes-per-sitemap), not taken for a typo
    run = cli(command, "site", "--max-urls-per-sitemap", "3")
    assert run.code == 2
    assert "--max-urls-per-sitemap: it is an option of sitemapgen build and check only" in run.err
    assert "Did you mean" not in run.err


def test_build_help_shows_its_panels_at_80_columns(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    run = cli("build", "--help")
    assert run.code == 0
    lines = run.out.splitlines()
    assert max(map(len, lines)) <= 80
    titles = [line.rstrip(":") for line in lines if line.endswith(":") and not line.startswith(" ")]
    assert titles == ["Arguments", *(panel.value for panel in Panel)]
    first = run.out.split("\nPages:")[0]
    for flag in ("--base-url", "--config", "--out", "--url-style", "--lastmod SOURCE", "--robots-txt"):
        assert flag in first
    assert "--chunking" not in first
    assert "--previous" not in first


def test_help_shows_brackets_as_written(cli: CliRunner) -> None:
    run = cli("build", "--help")
    assert run.code == 0
    assert "[tool.sitemapgen]" in run.out.replace("\n", " ").replace("│", " ")


def test_images_is_a_flag_that_overrides_the_config_file(cli: CliRunner, tmp_path: Path) -> None:
    docroot = tmp_path / "public"
    docroot.mkdir()
    (docroot / "index.html").write_text('<!doctype html><title>t</title><body><img src="/a.png"></body>')
    config = tmp_path / "sitemapgen.toml"
    config.write_text('base_url = "https://example.com/"\nimages = true\n')
    for flags, shown in ((["--no-images"], []), ([], ["  image https://example.com/a.png"])):
        run = cli("explain", docroot, "index.html", "--config", config, *flags)
        assert run.code == 0, run.err
        assert [line for line in run.out.splitlines() if line.startswith("  image")] == shown
    config.write_text('base_url = "https://example.com/"\n')
    run = cli("explain", docroot, "index.html", "--config", config, "--images")
    assert [line for line in run.out.splitlines() if line.startswith("  image")] == [
        "  image https://example.com/a.png"
    ]
