"""The site options are declared once and every command that reads a site takes them all."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer

from sitemapgen.cli.options import SITE_OPTIONS
from sitemapgen.cli.program import app
from sitemapgen.config.settings import Config

from ..conftest import CliRunner

SITE_COMMANDS = ("build", "check", "list", "explain")


def _flags(command: str) -> set[str]:
    group = typer.main.get_command(app)
    click_command = group.commands[command]  # type: ignore[attr-defined]
    return {opt for param in click_command.params for opt in param.opts if opt.startswith("--")}


def test_every_site_option_sets_a_config_field() -> None:
    fields = {f.name for f in dataclasses.fields(Config)}
    assert set(SITE_OPTIONS) <= fields


@pytest.mark.parametrize("command", SITE_COMMANDS)
def test_every_command_that_reads_a_site_takes_every_site_option(command: str) -> None:
    # build's own: what it writes besides the sitemaps, and how it reports
    own = {"--robots-txt", "--json", "--quiet", "--summary-md", "--no-summary-md", "--help"}
    own |= {"--max-removed", "--indexnow-key", "--changes-file"}  # a deploy's: publish or refuse, tell IndexNow
    shared = _flags("build") - own
    assert {"--out", "--max-bytes-per-sitemap", "--config", "--lastmod", "--jobs"} <= shared
    assert shared <= _flags(command)


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
