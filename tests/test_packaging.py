"""The built wheel ships what the installed tool needs: the XSDs, py.typed, the license, and the
compiled scanner where a C compiler is (and installs without it where none is)."""

from __future__ import annotations

import contextlib
import email.parser
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import c_compiler

REPO = Path(__file__).parent.parent
SCHEMAS = REPO / "sitemapgen" / "schemas"

# What `validate` and the writer load at run time, by name.
REQUIRED_SCHEMAS = ["sitemap.xsd", "siteindex.xsd", "sitemap-with-extensions.xsd", "xhtml1-strict.xsd", "xml.xsd"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    """A wheel built from a copy of the source (so the work tree gets no build/ nor egg-info),
    offline: no build isolation, this environment's setuptools."""
    with _built(tmp_path_factory, {}) as archive:
        yield archive


@contextlib.contextmanager
def _built(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Iterator[zipfile.ZipFile]:
    """`wheel`, built with `env` added to the environment."""
    work = tmp_path_factory.mktemp("packaging")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    shutil.copytree(
        REPO / "sitemapgen", src / "sitemapgen", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so")
    )
    dist = work / "dist"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(dist),
            str(src),
        ],
        cwd=work,
        # the build is not measured
        env={**{k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = dist.glob("static_sitemapgen-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield archive


def _dist_info(wheel: zipfile.ZipFile) -> str:
    (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return metadata.removesuffix("METADATA")


def test_the_wheel_ships_the_schemas_and_py_typed(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for schema in REQUIRED_SCHEMAS:
        assert f"sitemapgen/schemas/{schema}" in names
    for path in sorted(SCHEMAS.glob("*.xsd")):  # and every other one there is, unchanged
        assert wheel.read(f"sitemapgen/schemas/{path.name}") == path.read_bytes()
    assert "sitemapgen/py.typed" in names


def test_the_wheel_declares_and_includes_the_license(wheel: zipfile.ZipFile) -> None:
    info = _dist_info(wheel)
    metadata = email.parser.Parser().parsestr(wheel.read(info + "METADATA").decode("utf-8"))
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert wheel.read(info + "licenses/LICENSE") == (REPO / "LICENSE").read_bytes()


def test_the_wheel_requires_rich(wheel: zipfile.ZipFile) -> None:
    """The CLI's progress display imports it."""
    metadata = email.parser.Parser().parsestr(wheel.read(_dist_info(wheel) + "METADATA").decode("utf-8"))
    assert "rich>=13" in metadata.get_all("Requires-Dist", [])


def test_the_compiled_scanner_is_built_where_a_compiler_is_and_left_out_where_none_is(
    wheel: zipfile.ZipFile, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if c_compiler() is None:
        pytest.skip("no C compiler here: only the pure-Python half of this test could run")
    compiled = [n for n in wheel.namelist() if n.startswith("sitemapgen/pages/_scan.") and n.endswith(".so")]
    assert len(compiled) == 1, wheel.namelist()
    # Optional: where building it fails, the install goes on without it, and the scanner reads
    # every head in Python (tests/pages run the head tests both ways).
    with _built(tmp_path_factory, {"CC": "false", "LDSHARED": "false"}) as archive:
        names = archive.namelist()
    assert "sitemapgen/pages/scanner.py" in names
    assert not [n for n in names if n.endswith(".so")]
