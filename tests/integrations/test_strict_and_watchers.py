"""The plugins in their hosts' strict modes: ``mkdocs build --strict``, ``sphinx-build -W``.

A healthy first build with ``lastmod: [content]`` passes strict: starting the store is said at
info level.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..helpers import published
from .test_plugins import BASE, _mkdocs_project, _run

_STARTING = re.compile(r"sitemapgen: (?P<store>\S+): no lastmod state store yet; starting one")


def _levels(lines: list[str]) -> list[tuple[str, str]]:
    """(level, store) for each line that says the content store is started, as MkDocs prints it."""
    return [(line.split()[0], m["store"]) for line in lines if (m := _STARTING.search(line))]


def test_a_first_mkdocs_build_with_a_content_store_passes_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    _mkdocs_project(tmp_path, "  - search\n  - sitemapgen:\n      lastmod: [content]\n")
    store = tmp_path / ".sitemapgen-state-site.sqlite"
    first = _run("mkdocs", "build", "--strict", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert _levels(first.stderr.splitlines()) == [("INFO", str(store))]  # said, and no warning
    assert [u.loc.removeprefix(BASE) for u in published(tmp_path / "site", BASE)] == [
        "",
        "draft/",
        "guide/usage/",
        "install/",
    ]
    again = _run("mkdocs", "build", "--strict", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert _levels(again.stderr.splitlines()) == []
