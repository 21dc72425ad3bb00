"""The reusable GitHub Action (`action.yml`) and its example workflow (`examples/github-workflow.yml`):
their shape, that their steps run what they say, and that each option the example passes changes
what is published for the example site (`examples/mkdocs-site`, built with the real MkDocs)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import BASE
from .helpers import git, html, locs, make_tree, published

TOP = Path(__file__).parent.parent
ACTION = TOP / "action.yml"
WORKFLOW = TOP / "examples" / "github-workflow.yml"
EXAMPLE_SITE = TOP / "examples" / "mkdocs-site"
VENV_BIN = Path(sys.executable).parent  # where this venv's `sitemapgen` and `mkdocs` are


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


# --- the example workflow, on the example site -------------------------------------------------

OLD, NEW = "2024-01-02T03:04:05+00:00", "2025-06-07T08:09:10+00:00"


def _workflow_steps() -> list[dict[str, Any]]:
    jobs = _load(WORKFLOW)["jobs"]
    return [step for job in jobs.values() for step in job["steps"]]


def _action_with() -> dict[str, str]:
    [step] = [step for step in _workflow_steps() if str(step.get("uses", "")).startswith("./")]
    return {key: str(value) for key, value in step["with"].items()}


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site as a repository: every file committed at OLD, then about.md changed at NEW."""
    repo = tmp_path_factory.mktemp("example") / "origin"
    shutil.copytree(EXAMPLE_SITE, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the site", date=OLD)
    with open(repo / "docs" / "about.md", "a", encoding="utf-8") as f:
        f.write("\nA line added later.\n")
    git(repo, "commit", "-q", "-am", "about: a line", date=NEW)
    return repo


def _checkout(origin: Path, into: Path, fetch_depth: int) -> Path:
    """What actions/checkout does with this fetch-depth (0: the whole history)."""
    depth = [] if fetch_depth == 0 else ["--depth", str(fetch_depth)]
    subprocess.run(["git", "clone", "-q", *depth, origin.as_uri(), into], check=True, capture_output=True)
    return into


def _build_site(work: Path, remove_mkdocs_sitemap: bool = True) -> subprocess.CompletedProcess[str]:
    """The workflow's "Build the site" step, with real MkDocs (optionally without its `rm`)."""
    pytest.importorskip("mkdocs")
    script = _step(_workflow_steps(), "Build the site")["run"]
    if not remove_mkdocs_sitemap:
        script = script.split(" && rm ")[0]
    done = _bash(script, work)
    assert done.returncode == 0, done.stderr
    return done


def _publish(work: Path, tmp_path: Path, args: list[str], name: str) -> tuple[object, ...]:
    """The action's build step on a copy of the built site (times kept), with the example's inputs
    but `args`: what it publishes (each URL, its lastmod; robots.txt) and what it warned."""
    given = _action_with()
    docroot = work / f"{given['docroot']}-{name}"
    shutil.copytree(work / given["docroot"], docroot)
    env = {"RUNNER_TEMP": str(_runner(tmp_path / name)), "DOCROOT": docroot.name, "BASE_URL": given["base-url"]}
    env |= {"CONFIG": given.get("config", ""), "ARGS": shlex.join(args)}
    done = _bash(_step(_action()["runs"]["steps"], "Build the sitemaps")["run"], work, **env)
    assert done.returncode == 0, done.stderr
    robots = docroot / "robots.txt"
    pages = [(url.loc, url.lastmod) for url in published(docroot, given["base-url"])]
    warnings = [  # in the docroot's own name, as the workflow would print them
        line.replace(docroot.name, given["docroot"]) for line in done.stderr.splitlines() if line.startswith("warning:")
    ]
    return pages, robots.read_text(encoding="utf-8") if robots.exists() else None, warnings


def _options(args: str) -> list[list[str]]:
    """The example's args, one option (with its value) an item."""
    words = shlex.split(args)
    options: list[list[str]] = []
    for word in words:
        if word.startswith("-"):
            options.append([word])
        else:
            options[-1].append(word)
    return options


def test_the_example_workflow_dates_each_page_by_its_source_and_names_the_sitemap(origin: Path, tmp_path: Path) -> None:
    work = _checkout(origin, tmp_path / "work", 0)
    _build_site(work)
    args = [word for option in _options(_action_with()["args"]) for word in option]
    pages, robots, warnings = _publish(work, tmp_path, args, "all")
    base = _action_with()["base-url"]
    assert pages == [  # each page dated by the last commit of its Markdown source (sitemapgen.toml)
        (base, OLD),
        (base + "about/", NEW),
        (base + "guide/", OLD),
        (base + "guide/install/", OLD),
    ]
    assert robots == f"Sitemap: {base}sitemap.xml\n"
    assert warnings == []


def test_each_option_of_the_example_workflow_changes_what_is_published(origin: Path, tmp_path: Path) -> None:
    """Each option the example passes, left out in turn, publishes something else; so do a
    shallow checkout (no fetch-depth: 0) and the site without sitemapgen.toml; MkDocs' own
    sitemap left in place (no `rm`) gives a warning."""
    full = _checkout(origin, tmp_path / "full", _step_with_fetch_depth())
    _build_site(full)
    options = _options(_action_with()["args"])
    assert options, "the example passes no option: nothing to check"
    everything = [word for option in options for word in option]
    baseline = _publish(full, tmp_path, everything, "all")[:2]  # the pages with their lastmod; robots.txt
    for option in options:
        rest = [word for other in options if other is not option for word in other]
        assert _publish(full, tmp_path, rest, "without" + option[0])[:2] != baseline, option
    shallow = _checkout(origin, tmp_path / "shallow", 1)
    _build_site(shallow)
    assert _publish(shallow, tmp_path, everything, "shallow")[:2] != baseline
    (full / "sitemapgen.toml").unlink()
    assert _publish(full, tmp_path, everything, "no-config")[:2] != baseline
    kept = _checkout(origin, tmp_path / "kept", 0)
    _build_site(kept, remove_mkdocs_sitemap=False)
    pages, robots, warnings = _publish(kept, tmp_path, everything, "kept")
    assert (pages, robots) == baseline
    assert warnings != []  # MkDocs' sitemap.xml.gz stays beside ours: the `rm` is what silences it


def _step_with_fetch_depth() -> int:
    [checkout] = [step for step in _workflow_steps() if step.get("uses") == "actions/checkout@v4"]
    depth = checkout["with"]["fetch-depth"]
    assert isinstance(depth, int)
    return depth
