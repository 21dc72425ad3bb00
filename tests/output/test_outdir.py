"""The output directory: one writer at a time, readers wait for it, and only this process holds the lock."""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sitemapgen.cli.program import main
from sitemapgen.errors import SitemapgenError
from sitemapgen.output.outdir import JOURNAL_NAME, claim_output, output_lock

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    error_line,
    html,
    locs,
)


@pytest.fixture
def short_wait(monkeypatch: pytest.MonkeyPatch) -> float:
    """A run waits this long for the output directory, not minutes."""
    monkeypatch.setattr("sitemapgen.output.outdir.LOCK_TIMEOUT", 0.3)
    return 0.3


def _busy(what: str, out: Path) -> str:
    return f"error: {what} {out} (pid {os.getpid()}); waited 0.3 s, try again when it has finished\n"


def test_a_second_build_waits_then_says_which_build_holds_the_output(
    site: SiteFactory, cli: CliRunner, short_wait: float
) -> None:
    root = site({"a.html": html()})
    with output_lock(root):
        run = cli("build", root, "--base-url", BASE)
    assert run.code == 3
    assert run.err == _busy("a build is running in", root)
    assert not (root / "sitemap.xml").exists()
    assert cli("build", root, "--base-url", BASE).code == 0  # released


@pytest.mark.parametrize("command", ["check", "list"])
def test_a_reader_waits_for_a_build_then_says_which_build_holds_the_output(
    site: SiteFactory, cli: CliRunner, short_wait: float, command: str
) -> None:
    root = site({"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    with output_lock(root):
        run = cli(command, root, "--base-url", BASE)
    assert (run.code, run.out, run.err) == (3, "", _busy("a build is running in", root))
    assert cli(command, root, "--base-url", BASE).code == 0  # released


def test_a_build_waits_for_readers_and_does_not_call_them_a_build(
    site: SiteFactory, cli: CliRunner, short_wait: float
) -> None:
    root = site({"a.html": html()})
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # as a check or a list holds it while it reads
        run = cli("build", root, "--base-url", BASE)
    finally:
        os.close(fd)
    assert (run.code, run.err) == (3, _busy("a check or list is reading", root))
    assert not (root / "sitemap.xml").exists()


def test_a_second_build_started_during_a_build_publishes_after_it(site: SiteFactory, tmp_path: Path) -> None:
    """The second waits (saying so, once) and publishes when the first lets go of the directory."""
    root = site({"a.html": html()})
    argv = [sys.executable, "-m", "sitemapgen", "build", str(root), "--base-url", BASE, "--jobs", "1"]
    with output_lock(root):
        waiting = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        time.sleep(2.5)
        assert waiting.poll() is None
    err = waiting.communicate(timeout=60)[1]
    assert waiting.returncode == 0
    assert err.splitlines()[0] == (
        f"warning: a build is running in {root} (pid {os.getpid()}); waiting for it to finish (at most 600 s)"
    )
    assert err.splitlines()[1].startswith("sitemapgen: listed 1 page in 1 sitemap;")
    assert locs(root, BASE) == [BASE + "a.html"]


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


@pytest.mark.forks
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


def test_a_run_that_made_the_directory_but_lost_the_lock_removes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    """Another run locks the new directory between this run's mkdir and its lock: this run
    says so and leaves the directory, the other's to write into, where it is."""
    out = tmp_path / "new"
    real_flock = fcntl.flock
    other: list[int] = []

    def another_run_first(fd: int, operation: int) -> None:
        if not other:
            other.append(os.open(out, os.O_RDONLY | os.O_DIRECTORY))
            real_flock(other[0], fcntl.LOCK_EX)
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", another_run_first)
    try:
        with pytest.raises(SitemapgenError, match="^a build is running in "), claim_output(out):
            pass
        assert out.is_dir()
    finally:
        for fd in other:
            os.close(fd)


def test_a_directory_removed_before_this_run_locked_it_is_claimed_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    """The run that made the directory removes it again (it failed, or had nothing to write)
    after this run found it there and before this run's lock: a lock on it would guard
    nothing, so this run makes the directory again, and locks that one."""
    out = tmp_path / "out"
    out.mkdir()  # the other run's
    real_flock = fcntl.flock
    removed: list[Path] = []

    def removed_first(fd: int, operation: int) -> None:
        if not removed:
            removed.append(out)
            out.rmdir()
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", removed_first)
    with claim_output(out) as claimed:
        assert claimed.created  # this run's own, now
        with pytest.raises(SitemapgenError, match="^a build is running in "), output_lock(out):
            pass  # the lock held is on the directory at `out`


def test_a_failed_run_removes_its_directory_before_it_lets_go_of_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_wait: float
) -> None:
    """Removed while still locked: no other run can have locked it, to write into it, when it goes."""
    out = tmp_path / "new"
    locked_then: list[bool] = []
    real_rmdir = Path.rmdir

    def rmdir_seeing_the_lock(self: Path) -> None:
        try:
            with output_lock(self):
                locked_then.append(False)
        except SitemapgenError:
            locked_then.append(True)
        real_rmdir(self)

    monkeypatch.setattr(Path, "rmdir", rmdir_seeing_the_lock)
    with pytest.raises(KeyError), claim_output(out):
        raise KeyError("a failure")
    assert locked_then == [True]
    assert not out.exists()


#: Rounds of the race below; and how long each injected delay lasts, in seconds.
RACE_ROUNDS = 50
RACE_DELAY = 0.02


def _build_at_the_barrier(argv: list[str], barrier: int, err: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Fork a process that waits on `barrier` (a pipe), then runs `sitemapgen ARGV`, as ``python -m
    sitemapgen`` does, with its stderr in `err`; its pid.

    Two system calls in it are slowed, as a loaded machine may slow them, so that the
    interleaving that broke two runs into a new directory happens every round, not one in
    ten: each mkdir waits RACE_DELAY before it runs (two runs that start together both
    pass any check made before it), and a flock that gets the lock waits RACE_DELAY before
    it returns (the run that loses the lock is done before the winner writes anything).
    """
    real_mkdir, real_flock = os.mkdir, fcntl.flock

    def slow_mkdir(path: str | os.PathLike[str], mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        time.sleep(RACE_DELAY)
        real_mkdir(path, mode, dir_fd=dir_fd)

    def slow_flock(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        time.sleep(RACE_DELAY)

    child = os.fork()
    if child == 0:  # pragma: no cover - the child's coverage is not collected
        code = 99
        try:
            sys.stdout = open(os.devnull, "w", encoding="utf-8")
            sys.stderr = open(err, "w", encoding="utf-8")
            monkeypatch.setattr(os, "mkdir", slow_mkdir)  # in this child only: it never returns
            monkeypatch.setattr(fcntl, "flock", slow_flock)
            os.read(barrier, 1)
            code = main(argv)
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    return child


@pytest.mark.forks  # each build in a child forked from this process
@pytest.mark.parametrize("parent_missing", [False, True], ids=["new-out", "new-parent-too"])
def test_two_builds_into_a_new_output_directory_publish_one_whole_set(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parent_missing: bool
) -> None:
    """Two builds started together into a directory that does not exist yet (issue 30): every
    round, both publish the same whole set, one after the other (the second waits for the
    first). Before the fix, the run that lost the lock removed the directory the winner had
    locked, and neither published."""
    pages = [f"p{n}.html" for n in range(3)]
    root = site({page: html(page) for page in pages})
    # Once here first: what a build imports on its way is then imported before each fork, not in each child.
    assert cli("build", root, "--base-url", BASE, "--out", tmp_path / "warm", "--jobs", "1").code == 0
    failures: list[str] = []
    for n in range(RACE_ROUNDS):
        here = tmp_path / f"round-{n}"
        here.mkdir()
        out = here / "new" / "out" if parent_missing else here / "out"
        argv = ["build", str(root), "--base-url", BASE, "--out", str(out), "--jobs", "1"]
        summary = "sitemapgen: listed 3 pages in 1 sitemap; "
        errs = [here / f"stderr-{i}" for i in (1, 2)]
        barrier, go = os.pipe()
        try:
            children = [_build_at_the_barrier(argv, barrier, err, monkeypatch) for err in errs]
            os.write(go, b"go")  # one byte each: both start at once
            codes = [os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) for child in children]
        finally:
            os.close(barrier)
            os.close(go)
        runs = sorted(zip(codes, (err.read_text(encoding="utf-8") for err in errs), strict=True))
        wrote = [code == 0 and err.startswith(summary) and err.count("\n") == 1 for code, err in runs]
        if wrote != [True, True]:
            failures.append(f"round {n}: exit codes and stderr {runs}")
            continue
        listed = sorted(locs(out, BASE))  # the index and its sitemaps, parsed and validated
        if listed != [BASE + page for page in pages] or (out / JOURNAL_NAME).exists():
            failures.append(f"round {n}: published {listed}, journal left: {(out / JOURNAL_NAME).exists()}")
    assert not failures, f"{len(failures)} of {RACE_ROUNDS} rounds failed: {failures[:3]}"
