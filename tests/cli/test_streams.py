"""What the command line does when its stdout or stderr goes away (``| head -1``, ``>&-``, a
closed terminal) or cannot take a character (``PYTHONIOENCODING``): the printing stops or is
escaped, never the work. Real processes on real pipes, descriptors and a pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import BASE, SiteFactory
from ..helpers import html, locs

CLI = [sys.executable, "-m", "sitemapgen"]
#: More than a pipe holds (64 KiB), so the writer is still writing when its reader goes.
WARNINGS = 2_000
PAGES = 1_500


def _env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHONIOENCODING", "GITHUB_"))}
    return {**env, **extra}


def _noisy_site(site: SiteFactory) -> Path:
    """20 pages and WARNINGS broken symlinks, each one a warning line."""
    root = site({f"p{i}.html": html(f"p{i}") for i in range(20)})
    for i in range(WARNINGS):
        os.symlink(f"nowhere{i}", root / f"broken{i:04}.html")
    return root


def _expected(n: int) -> list[str]:
    return sorted(f"{BASE}p{i}.html" for i in range(n))


def _first_line_then_close(args: list[str | Path], *, stderr: int | None, tmp_path: Path) -> tuple[bytes, int, str]:
    """``sitemapgen ARGS | head -1``: read one line of stdout, close the pipe, wait; (the line,
    the exit code, stderr when it was not the pipe)."""
    err_file = tmp_path / "stderr.txt"
    with (
        open(err_file, "wb") as err,
        subprocess.Popen(
            [*CLI, *map(str, args)], stdout=subprocess.PIPE, stderr=stderr if stderr is not None else err, env=_env()
        ) as proc,
    ):
        assert proc.stdout is not None
        line = proc.stdout.readline()
        proc.stdout.close()
        code = proc.wait(timeout=120)
    return line, code, err_file.read_text(encoding="utf-8")


def test_build_piped_to_head_publishes_and_exits_0(site: SiteFactory, tmp_path: Path) -> None:
    """``build ... 2>&1 | head -1``: the warning after head exits no longer aborts the build."""
    root = _noisy_site(site)
    line, code, _ = _first_line_then_close(
        ["build", root, "--base-url", BASE], stderr=subprocess.STDOUT, tmp_path=tmp_path
    )
    assert line == b"warning: broken0000.html: skipped, broken symlink\n"
    assert code == 0
    assert sorted(locs(root, BASE)) == _expected(20)


def test_build_with_stderr_gone_still_reports_on_stdout(site: SiteFactory, tmp_path: Path) -> None:
    """stderr's reader goes after the first warning: the rest of the warnings are dropped, the
    build goes on, and its JSON result still reaches stdout."""
    root = _noisy_site(site)
    with subprocess.Popen(
        [*CLI, "build", str(root), "--base-url", BASE, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        assert proc.stderr.readline() == b"warning: broken0000.html: skipped, broken symlink\n"
        proc.stderr.close()
        out = proc.stdout.read()
        assert proc.wait(timeout=120) == 0
    assert json.loads(out)["listed"] == 20
    assert sorted(locs(root, BASE)) == _expected(20)


def test_list_piped_to_head_stops_quietly(site: SiteFactory, tmp_path: Path) -> None:
    """``list | head -1``: 141, as ``ls | head -1``; no traceback, no "Exception ignored"."""
    root = site({f"p{i:04}.html": html(f"p{i}") for i in range(PAGES)})
    line, code, err = _first_line_then_close(["list", root, "--base-url", BASE], stderr=None, tmp_path=tmp_path)
    assert line.startswith(f"{BASE}p0000.html\t".encode())
    assert (code, err) == (141, "")


def _closed_stdout() -> None:
    os.close(1)


@pytest.mark.parametrize(
    "how",
    [
        pytest.param({"stdout": subprocess.PIPE}, id="reader-gone-at-once"),
        pytest.param({"stdout": subprocess.DEVNULL, "preexec_fn": _closed_stdout}, id="closed-fd"),
    ],
)
def test_list_with_stdout_closed_exits_quietly(site: SiteFactory, how: dict[str, object]) -> None:
    root = site({"a.html": html("a"), "b.html": html("b")})
    with subprocess.Popen(
        [*CLI, "list", str(root), "--base-url", BASE],
        stderr=subprocess.PIPE,
        env=_env(),
        **how,  # type: ignore[call-overload]
    ) as proc:
        if proc.stdout is not None:
            proc.stdout.close()
        err = proc.stderr.read() if proc.stderr is not None else b""
        assert (proc.wait(timeout=60), err) == (141, b"")


def test_diff_with_stdout_closed_exits_quietly(site: SiteFactory, tmp_path: Path) -> None:
    root = site({"a.html": html("a")})
    old = tmp_path / "old"
    assert subprocess.run([*CLI, "build", root, "--base-url", BASE, "--out", old], env=_env()).returncode == 0
    (root / "b.html").write_text(html("b"))
    assert subprocess.run([*CLI, "build", root, "--base-url", BASE], env=_env()).returncode == 0
    with subprocess.Popen(
        [*CLI, "diff", str(old), str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read()
        assert (proc.wait(timeout=60), err) == (141, b"")


def test_build_with_stderr_closed_publishes(site: SiteFactory) -> None:
    """``build 2>&-``: no stderr for the warnings or the live count, the same sitemaps, exit 0."""
    root = _noisy_site(site)
    proc = subprocess.run(
        [*CLI, "build", str(root), "--base-url", BASE],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(2),
        env=_env(),
    )
    assert proc.returncode == 0
    assert sorted(locs(root, BASE)) == _expected(20)


def test_list_to_a_full_disk_says_so(site: SiteFactory) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    root = site({f"p{i:04}.html": html(f"p{i}") for i in range(PAGES)})
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [*CLI, "list", str(root), "--base-url", BASE], stdout=full, stderr=subprocess.PIPE, text=True, env=_env()
        )
    assert (proc.returncode, proc.stderr) == (3, "error: cannot print to stdout: No space left on device\n")


NAMES = ["café.html", "日本.html"]  # one latin-1 can write, one it cannot
BROKEN = "naïve-日本.html"


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "ascii:strict"])
def test_any_encoding_escapes_what_it_cannot_write(site: SiteFactory, encoding: str) -> None:
    """File names in warnings, `list`, `list --json` and `explain`, in a stream's own encoding:
    what it cannot write as a backslash escape (JSON's ``\\u`` escapes in JSON), exit 0."""
    root = site({name: html(name) for name in NAMES})
    os.symlink("nowhere", root / BROKEN)
    charset = encoding.split(":")[0]

    def run(*args: str) -> tuple[str, str]:
        proc = subprocess.run([*CLI, *args], capture_output=True, env=_env(PYTHONIOENCODING=encoding))
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.decode(charset), proc.stderr.decode(charset)  # strict: every byte in the charset

    def shown(text: str) -> str:
        return text.encode(charset, "backslashreplace").decode(charset)

    site_args = (str(root), "--base-url", BASE)
    _, warned = run("build", *site_args)
    assert f"warning: {shown(BROKEN)}: skipped, broken symlink\n" in warned
    listed, warned = run("list", *site_args)
    assert sorted(line.split("\t")[-1] for line in listed.splitlines()) == sorted(map(shown, NAMES))
    assert warned == f"warning: {shown(BROKEN)}: skipped, broken symlink\n"
    rows, _ = run("list", *site_args, "--json")
    assert sorted(json.loads(row)["file"] for row in rows.splitlines()) == sorted(NAMES)
    explained, _ = run("explain", *site_args, *NAMES)
    assert all(shown(name) in explained for name in NAMES)
    assert "Traceback" not in explained


def test_a_terminal_that_goes_away_stops_the_progress_not_the_build(site: SiteFactory) -> None:
    """stderr on a terminal (the live page count, in ASCII that cannot draw the spinner) closed
    after its first bytes: the build publishes, exit 0."""
    root = _noisy_site(site)
    master, slave = pty.openpty()
    with subprocess.Popen(
        [*CLI, "build", str(root), "--base-url", BASE, "--jobs", "1"],
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=_env(PYTHONIOENCODING="ascii:strict"),
    ) as proc:
        os.close(slave)
        try:
            assert os.read(master, 100)
        finally:
            os.close(master)
        assert proc.wait(timeout=120) == 0
    assert sorted(locs(root, BASE)) == _expected(20)


def test_build_json_to_a_full_disk_warns_and_exits_0(site: SiteFactory) -> None:
    """The sitemaps were published: exit 0, and stderr says that the result could not be printed."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    root = site({"a.html": html("a")})
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [*CLI, "build", str(root), "--base-url", BASE, "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
    assert (proc.returncode, proc.stderr) == (
        0,
        "warning: cannot print the result to stdout: No space left on device (the sitemaps were published)\n",
    )
    assert locs(root, BASE) == [f"{BASE}a.html"]


@pytest.mark.parametrize("args", [["check"], ["explain", "a.html"]], ids=["check", "explain"])
def test_a_verdict_stands_when_stdout_went_away(site: SiteFactory, args: list[str]) -> None:
    """`check` (current) and `explain` (listed) whose reader left exit 0, their verdict, not 1
    for a broken pipe."""
    root = site({"a.html": html("a")})
    assert subprocess.run([*CLI, "build", root, "--base-url", BASE, "-q"], env=_env()).returncode == 0
    with subprocess.Popen(
        [*CLI, args[0], str(root), *args[1:], "--base-url", BASE],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read()
        assert (proc.wait(timeout=60), err) == (0, b"")
