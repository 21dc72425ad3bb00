"""The output directory: one writer at a time, and only this process holds the lock."""

from __future__ import annotations

import errno
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sitemapgen.output.outdir import JOURNAL_NAME, output_lock

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    error_line,
    html,
    locs,
)


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


def test_a_forked_child_never_holds_the_lock(tmp_path: Path) -> None:
    """A worker forked while the lock is held must not keep it after the run has let go."""
    ready_r, ready_w = os.pipe()
    with output_lock(tmp_path):
        child = os.fork()
        if child == 0:  # a worker that outlives the run
            os.write(ready_w, b"x")  # the fork hooks have run
            time.sleep(5)
            os._exit(0)
        os.read(ready_r, 1)
    os.close(ready_r)
    os.close(ready_w)
    try:
        with output_lock(tmp_path):  # the kernel would refuse if the child still shared the lock
            pass
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda p: p.symlink_to(p.parent / "nowhere"), "--out: a symlink to nothing", id="dangling"),
        pytest.param(lambda p: p.write_text("x"), "--out: not a directory", id="a-file"),
    ],
)
def test_an_unusable_out_is_one_line(
    site: SiteFactory, cli: CliRunner, make: Callable[[Path], object], message: str
) -> None:
    root = site({"a.html": html()})
    out = root.parent / "out"
    make(out)
    run = cli("build", root, "--base-url", BASE, "--out", out)
    assert run.code == 2
    assert error_line(run.err).startswith(message)
    assert not (root.parent / "nowhere").exists()


def test_a_full_disk_at_the_journals_first_line_leaves_no_journal(
    site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty journal left behind would be refused by every later run ("not a journal")."""
    root = site({"a.html": html()})
    real_write = os.write

    def full(fd: int, data: bytes) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(JOURNAL_NAME):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 3
    assert error_line(run.err) == f"{root / JOURNAL_NAME}: cannot write the journal: No space left on device"
    assert not (root / JOURNAL_NAME).exists()
    monkeypatch.setattr(os, "write", real_write)
    assert cli("build", root, "--base-url", BASE).code == 0  # the next run is not blocked


def test_out_dir_outside_the_docroot(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"a.html": html()})
    out = tmp_path / "dist" / "maps"
    assert cli("build", root, "--base-url", BASE, "--out", out).code == 0
    assert locs(out, BASE) == [BASE + "a.html"]
    assert not (root / "sitemap.xml").exists()


def test_missing_docroot(cli: CliRunner, tmp_path: Path) -> None:
    run = cli("build", tmp_path / "nope", "--base-url", BASE)
    assert (run.code, run.err) == (2, f"error: docroot not found: {tmp_path / 'nope'}\n")
    assert not (tmp_path / "nope").exists()


def test_docroot_that_is_a_file(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    run = cli("build", tmp_path / "f", "--base-url", BASE)
    assert (run.code, run.err) == (2, f"error: docroot not a directory: {tmp_path / 'f'}\n")


def test_out_inside_the_docroot_is_refused(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    run = cli("build", root, "--base-url", BASE, "--out", root / "maps")
    assert run.code == 2
    assert "location rule" in run.err
    assert not (root / "maps").exists()
