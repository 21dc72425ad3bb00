"""Builds killed at each file operation in turn (`util.faults`), for the outputs beside the index
that a build replaces whole: each file there must be the old one or the new one, never a mix,
and the next run, which proves them ours, must go ahead."""

from __future__ import annotations

import multiprocessing
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import sitemapgen
from sitemapgen.config.settings import Config
from sitemapgen.util.faults import FAULT_ENV

from ..conftest import BASE
from ..helpers import make_tree

T = TypeVar("T")


def killed_build(docroot: Path, fault_at: int, **config: object) -> int:
    """A build of `docroot` with `config` in a forked child that SIGKILLs itself at its
    `fault_at`-th file operation (0: none); its exit code."""

    def child() -> None:
        os.environ[FAULT_ENV] = str(fault_at)
        sitemapgen.build(Config(docroot, BASE, **config), on_warning=lambda _: None)  # type: ignore[arg-type]

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(30)
    return process.exitcode if process.exitcode is not None else -999


def kill_everywhere(
    tmp_path: Path, page: Callable[[str], str], files: Callable[[Path], list[T]], **config: object
) -> tuple[Path, list[T], list[T], set[tuple[int, bool]]]:
    """A site of six pages (`page` of each name) built with `config`, then three more pages: builds
    of it killed at each file operation in turn until one runs to its end. After each kill every
    file beside the index (by `files`) is the old one or the new one (a build not killed writes),
    and the next run goes ahead and leaves no temporary file. Returns the run that ended, the old
    files, the new ones, and which (position, is new) were seen."""
    saved = make_tree(tmp_path / "saved", {f"p{i}.html": page(str(i)) for i in range(6)})
    assert killed_build(saved, 0, **config) == 0
    old = files(saved)
    for name in ("a", "q", "r"):
        (saved / f"{name}.html").write_text(page(name), encoding="utf-8")
    reference = tmp_path / "reference"
    shutil.copytree(saved, reference)
    assert killed_build(reference, 0, **config) == 0
    new = files(reference)
    fault_at, seen = 1, set()
    while True:
        root = tmp_path / f"run-{fault_at}"
        shutil.copytree(saved, root)
        code = killed_build(root, fault_at, **config)
        assert code in (0, -9), f"fault {fault_at}: exit {code}"
        for i, file in enumerate(files(root)):
            assert file in (old[i : i + 1] + new[i : i + 1]), f"fault {fault_at}: file {i + 1}"
            seen.add((i, file == new[i]))
        if code == 0:
            break
        assert killed_build(root, 0, **config) == 0, f"fault {fault_at}"  # the next run proves them ours
        assert files(root) == new
        assert not [p.name for p in root.iterdir() if p.name.endswith(".tmp") or p.name == ".sitemapgen-journal"]
        shutil.rmtree(root)
        fault_at += 1
    assert files(root) == new
    assert fault_at > 10
    return root, old, new, seen
