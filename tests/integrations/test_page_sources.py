"""`sitemapgen check`, run as docs/integrations.md tells a user (the plugin's settings as flags),
agrees with the MkDocs plugin and the Sphinx extension: they leave the page -> source map they
dated the pages by beside the sitemaps, where `check` finds it. Real builds in a git repository
whose commits have known dates (`test_git_dates`); a map that is not one sitemapgen wrote is
bad input, one line, and nothing is written through it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ..helpers import output_files
from .test_git_dates import BASE, _mkdocs_project, _run, _sphinx_build, _sphinx_project

MAP = "sitemapgen-sources.json"


def _check(docroot: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`sitemapgen check` with the plugin's settings as flags, as docs/integrations.md says."""
    argv = [sys.executable, "-m", "sitemapgen", "check", str(docroot), "--base-url", BASE, "--lastmod", "git,mtime"]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def _built(tmp_path: Path, generator: str) -> tuple[Path, Path]:
    """A project built by the real generator with the plugin and ``lastmod: [git, mtime]``: (project, docroot)."""
    root = tmp_path / "project"
    if generator == "mkdocs":
        pytest.importorskip("mkdocs")
        _mkdocs_project(root)
        assert (run := _run("mkdocs", "build", "--strict", cwd=root)).returncode == 0, run.stderr
        return root, root / "site"
    pytest.importorskip("sphinx")
    return root, _sphinx_build(_sphinx_project(root), generator)


@pytest.mark.parametrize(("generator", "pages"), [("mkdocs", 3), ("html", 5), ("dirhtml", 5)])
def test_check_says_current_after_an_unchanged_plugin_build(tmp_path: Path, generator: str, pages: int) -> None:
    root, docroot = _built(tmp_path, generator)
    run = _check(docroot, root)
    assert (run.returncode, run.stdout, run.stderr) == (0, f"current: 1 sitemap, {pages} pages\n", "")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        pytest.param('{"pages": {}}', "no 'sitemapgen-sources': 1, not the page-source map", id="another-json"),
        pytest.param("<html></html>", "not JSON, not the page-source map", id="not-json"),
        pytest.param(
            '{"sitemapgen-sources": 1, "directory": "../src", "pages": ["index.rst"], "every": []}',
            "pages: must map each page to its source file",
            id="bad-pages",
        ),
        pytest.param(
            '{"sitemapgen-sources": 1, "directory": "../src", "pages": {}, "every": [], "shows": {"a.html": "b.rst"}}',
            "shows: must map each page to the source files of what it shows",
            id="bad-shows",
        ),
    ],
)
def test_a_map_sitemapgen_did_not_write_is_bad_input_for_check(tmp_path: Path, content: str, said: str) -> None:
    root, docroot = _built(tmp_path, "html")
    (docroot / MAP).write_text(content)
    run = _check(docroot, root)
    assert run.returncode == 2, run.stderr
    [line] = run.stderr.splitlines()
    assert line.startswith(f"error: {docroot / MAP}: "), line
    assert said in line, line
    assert run.stdout == ""


def test_the_extension_writes_no_map_over_a_file_it_did_not_write(tmp_path: Path) -> None:
    """Refused before anything is written: the file stays as it was, and there is no sitemap."""
    pytest.importorskip("sphinx")
    root = _sphinx_project(tmp_path / "project")
    out = root / "out" / "html"
    out.mkdir(parents=True)
    (out / MAP).write_text('{"mine": true}\n')
    run = _run("sphinx", "-q", "-b", "html", "-d", root / "out/doctrees", root / "src", out, cwd=root)
    assert run.returncode == 2, run.stderr
    [line] = run.stderr.splitlines()
    assert line == f"ERROR: sitemapgen: {out / MAP}: no 'sitemapgen-sources': 1, not the page-source map" + (
        " sitemapgen writes there; move it away"
    )
    assert (out / MAP).read_text() == '{"mine": true}\n'
    assert output_files(out) == {MAP: b'{"mine": true}\n'}


def test_the_mkdocs_plugin_writes_no_map_through_a_symlink(tmp_path: Path) -> None:
    """A symlink where the map goes is not one sitemapgen wrote: the build fails in one line, and
    the file it points to (outside the site) is untouched. MkDocs cleans the site directory, so
    the link is put there by a plugin of the build, after MkDocs has cleaned it."""
    pytest.importorskip("mkdocs")
    root = tmp_path / "project"
    _mkdocs_project(root)
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"sitemapgen-sources": 1, "directory": ".", "pages": {}, "every": []}))
    (root / "hooks.py").write_text(
        "import os\n\ndef on_env(env, config, files):\n    os.makedirs(config.site_dir, exist_ok=True)\n"
        f"    os.symlink({str(target)!r}, os.path.join(config.site_dir, {MAP!r}))\n"
    )
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("plugins:\n", "hooks: [hooks.py]\nplugins:\n"))
    before = target.read_bytes()
    run = _run("mkdocs", "build", cwd=root)
    assert run.returncode == 1, run.stderr
    errors = [line.split("-  ", 1)[1] for line in run.stderr.splitlines() if line.startswith("ERROR")]
    assert errors == [
        f"sitemapgen: {root / 'site' / MAP}: a symlink, not the page-source map sitemapgen writes there; move it away"
    ]
    assert target.read_bytes() == before
    assert (root / "site" / MAP).is_symlink()
    assert not (root / "site" / "sitemap.xml").exists()
