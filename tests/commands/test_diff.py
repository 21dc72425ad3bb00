"""`sitemapgen diff OLD NEW`: its messages name what the user gave, never a build's `--previous`."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import BASE, CliRunner
from ..helpers import html, make_tree, static_server


@pytest.fixture
def built(tmp_path: Path, cli: CliRunner) -> Path:
    """A real build's output: an index, a sitemap and two pages."""
    root = make_tree(tmp_path / "built", {"index.html": html(), "a.html": html()})
    assert cli("build", root, "--base-url", BASE, "--quiet").code == 0
    return root


@pytest.mark.parametrize("side", ["old", "new"])
def test_a_deploy_that_is_not_there_is_named_as_the_user_gave_it(
    tmp_path: Path, cli: CliRunner, built: Path, side: str
) -> None:
    missing = tmp_path / "nothere"
    run = cli("diff", missing, built) if side == "old" else cli("diff", built, missing)
    which = "the earlier deploy" if side == "old" else "the later deploy"
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: {missing}: no such file or directory ({which})\n"


@pytest.mark.parametrize("side", ["old", "new"])
def test_a_file_that_is_not_a_sitemap_names_the_file_and_the_deploy(
    tmp_path: Path, cli: CliRunner, built: Path, side: str
) -> None:
    junk = tmp_path / "junk.xml"
    junk.write_text('<?xml version="1.0"?>\n<rss/>\n')
    run = cli("diff", junk, built) if side == "old" else cli("diff", built, junk)
    which = "the earlier deploy" if side == "old" else "the later deploy"
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: {junk}: not a sitemap or sitemap index ({which})\n"


def test_a_later_deploy_with_no_index_is_an_error_naming_it(tmp_path: Path, cli: CliRunner, built: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("diff", built, empty)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: {empty / 'sitemap.xml'}: no sitemap index there (the later deploy)\n"


def test_an_earlier_deploy_with_no_index_is_said_and_everything_counts_as_added(
    tmp_path: Path, cli: CliRunner, built: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("diff", empty, built)
    assert run.code == 0
    assert run.out.splitlines() == [f"+ {BASE}", f"+ {BASE}a.html"]
    assert run.err.splitlines() == [
        f"warning: {empty / 'sitemap.xml'}: no sitemap index there (the earlier deploy),"
        " so every URL of the later deploy counts as added",
        "sitemapgen: +2 -0 ~0",
    ]


def test_an_earlier_deploy_the_network_fails_is_the_machine_s_exit_3(
    tmp_path: Path, cli: CliRunner, built: Path
) -> None:
    with static_server(tmp_path) as url:
        pass  # the port is free again: nothing listens there now
    run = cli("diff", url + "sitemap.xml", built)
    assert (run.code, run.out) == (3, "")
    assert run.err == f"error: {url}sitemap.xml: cannot connect: Connection refused (the earlier deploy)\n"
