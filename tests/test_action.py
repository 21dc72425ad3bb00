"""The reusable GitHub Action (`action.yml`): its shape, and that its steps run what they say."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import BASE
from .helpers import html, locs, make_tree

ACTION = Path(__file__).parent.parent / "action.yml"


def _action() -> dict[str, object]:
    yaml = pytest.importorskip("yaml")  # PyYAML, installed with the [mkdocs] extra that make test installs
    loaded = yaml.safe_load(ACTION.read_text())
    assert isinstance(loaded, dict)
    return loaded


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
        if "run" in step:
            assert step.get("shell") == "bash"  # a composite step must name its shell
            assert "${{" not in step["run"]  # inputs reach scripts as environment variables only


def test_the_build_step_runs_the_build_it_describes(tmp_path: Path) -> None:
    """The action's own script, run by bash with the environment the runner would give it."""
    steps = _action()["runs"]["steps"]  # type: ignore[index]
    [build] = [step for step in steps if step.get("name") == "Build the sitemaps"]
    [check] = [step for step in steps if step.get("name") == "Validate what was written"]
    root = make_tree(tmp_path / "public", {"index.html": html(), "a b.html": html()})
    bin_dir = Path(sys.executable).parent  # where this venv's `sitemapgen` is
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env |= {"DOCROOT": str(root), "BASE_URL": BASE, "CONFIG": "", "ARGS": "--lastmod-format date --jobs 1"}
    done = subprocess.run(["bash", "-c", build["run"]], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert locs(root, BASE) == [BASE, BASE + "a%20b.html"]
    done = subprocess.run(["bash", "-c", check["run"]], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
