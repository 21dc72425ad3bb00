"""The reusable GitHub Action (`action.yml`): its shape, and that its steps run what they say."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import BASE
from .helpers import html, locs, make_tree

TOP = Path(__file__).parent.parent
ACTION = TOP / "action.yml"
VENV_BIN = Path(sys.executable).parent  # where this venv's `sitemapgen` is


def _load(path: Path) -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")  # PyYAML, installed with the [mkdocs] extra that make test installs
    loaded = yaml.safe_load(path.read_text())
    assert isinstance(loaded, dict)
    return loaded


def _action() -> dict[str, Any]:
    return _load(ACTION)


def _step(steps: list[dict[str, Any]], name: str) -> dict[str, Any]:
    [step] = [step for step in steps if step.get("name") == name]
    return step


def _runner(tmp_path: Path) -> Path:
    """A $RUNNER_TEMP in which the action's venv is this one (the install step's own test makes one)."""
    runner = tmp_path / "runner"
    (runner / "sitemapgen-venv").mkdir(parents=True)
    (runner / "sitemapgen-venv" / "bin").symlink_to(VENV_BIN)
    return runner


def _bash(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    path = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env={**os.environ, "PATH": path, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_action_is_a_composite_action_whose_inputs_are_all_used_and_declared() -> None:
    action = _action()
    assert {"name", "description", "inputs", "runs"} <= set(action)
    runs = action["runs"]
    assert isinstance(runs, dict)
    assert runs["using"] == "composite"
    inputs = action["inputs"]
    assert isinstance(inputs, dict)
    assert all("description" in spec for spec in inputs.values())
    text = ACTION.read_text()
    used = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", text))
    assert used == set(inputs)
    for step in runs["steps"]:
        assert "run" in step, step  # no action of its own (setup-python would switch the job's Python)
        assert step.get("shell") == "bash"  # a composite step must name its shell
        assert "${{" not in step["run"]  # inputs reach scripts as environment variables only


def test_the_build_step_runs_the_build_it_describes(tmp_path: Path) -> None:
    """The action's own scripts, run by bash with the environment the runner would give them."""
    steps = _action()["runs"]["steps"]
    root = make_tree(tmp_path / "public", {"index.html": html(), "a b.html": html()})
    env = {"RUNNER_TEMP": str(_runner(tmp_path)), "DOCROOT": str(root), "BASE_URL": BASE, "CONFIG": ""}
    env["ARGS"] = "--lastmod-format date --jobs 1"
    done = _bash(_step(steps, "Build the sitemaps")["run"], tmp_path, **env)
    assert done.returncode == 0, done.stderr
    assert locs(root, BASE) == [BASE, BASE + "a%20b.html"]
    done = _bash(_step(steps, "Validate what was written")["run"], tmp_path, **env)
    assert done.returncode == 0, done.stderr


INSTALL = "Install sitemapgen (this action's own checkout) in a venv of its own"


def test_the_install_step_refuses_a_python_too_old_or_missing_in_one_line(tmp_path: Path) -> None:
    runner = tmp_path / "runner"
    runner.mkdir()
    script = _step(_action()["runs"]["steps"], INSTALL)["run"]
    python = str(tmp_path / "no-such-python3")
    done = _bash(script, tmp_path, RUNNER_TEMP=str(runner), GITHUB_ACTION_PATH=str(TOP), PYTHON=python)
    assert done.returncode == 1
    assert done.stdout == (
        f"::error::sitemapgen needs Python 3.11 or newer; {python} is not found:"
        " run actions/setup-python before this action, or set its python input\n"
    )
    assert list(runner.iterdir()) == []  # nothing made


@pytest.mark.slow  # installs sitemapgen's dependencies from the package index, as the runner does
def test_the_install_step_leaves_the_jobs_python_alone(tmp_path: Path) -> None:
    """The job's python3 (a fresh venv here, first on PATH) has no more packages after the step
    than before; sitemapgen runs from the venv the step made under $RUNNER_TEMP."""
    caller = tmp_path / "job-python"
    subprocess.run([sys.executable, "-m", "venv", caller], check=True)

    def packages() -> str:
        listed = [str(caller / "bin" / "python"), "-m", "pip", "list", "--format=freeze"]
        return subprocess.run(listed, capture_output=True, text=True, check=True).stdout

    before = packages()
    source = tmp_path / "action"  # a copy: pip builds in the tree it installs
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "action.yml"):
        shutil.copy2(TOP / name, source / name)
    shutil.copytree(TOP / "sitemapgen", source / "sitemapgen", ignore=shutil.ignore_patterns("__pycache__"))
    runner = tmp_path / "runner"
    runner.mkdir()
    script = _step(_action()["runs"]["steps"], INSTALL)["run"]
    env = {"RUNNER_TEMP": str(runner), "GITHUB_ACTION_PATH": str(source), "PYTHON": "python3"}
    env["PATH"] = f"{caller / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert packages() == before
    version = [str(runner / "sitemapgen-venv" / "bin" / "sitemapgen"), "--version"]
    assert subprocess.run(version, capture_output=True, text=True, check=True).stdout.strip()
