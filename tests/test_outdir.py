"""The output directory: one writer at a time."""

from __future__ import annotations

from sitemapgen.outdir import output_lock

from .conftest import BASE, CliRunner, SiteFactory
from .helpers import html


def test_a_second_run_on_the_same_output_fails_fast(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    with output_lock(root):
        run = cli("build", root, "--base-url", BASE)
    assert run.code == 2
    assert run.err == f"error: another sitemapgen run is writing to {root}; try again when it has finished\n"
    assert not (root / "sitemap.xml").exists()
    assert cli("build", root, "--base-url", BASE).code == 0  # released


def test_a_failed_run_removes_the_output_directory_it_created(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"404.html": html()})  # nothing to list
    out = root.parent / "new" / "out"
    run = cli("build", root, "--base-url", BASE, "--out", out)
    assert run.code == 2
    assert not out.exists()
    assert out.parent.exists()  # only the directory it was asked for is its own to remove


def test_an_output_directory_that_cannot_be_made_is_one_line(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    blocker = root.parent / "a-file"
    blocker.write_text("not a directory")
    run = cli("build", root, "--base-url", BASE, "--out", blocker / "out")
    assert (run.code, run.err) == (2, f"error: --out: cannot create {blocker / 'out'}: Not a directory\n")
