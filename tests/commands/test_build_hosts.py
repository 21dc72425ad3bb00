"""`build` inside other programs: beside another build in a thread, in a `multiprocessing.Pool`
worker, beside a host's live thread. Each gives the bytes a build alone gives, and leaves the
host's own hooks as they were."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import sitemapgen
from sitemapgen import Config
from sitemapgen.util.parallel import INLINE

from ..helpers import html, make_tree, output_files

PAGES = 1_100  # past the pages a build reads in its own process before it starts workers
BASES = ("https://a.example.com/", "https://b.example.org/docs/")


def _site(root: Path, name: str) -> Path:
    assert PAGES > INLINE
    return make_tree(root, {f"d{i // 100}/{name}{i}.html": html(f"{name} {i}") for i in range(PAGES)})


def _build(docroot: Path, base_url: str, out: Path, jobs: int = 2) -> tuple[dict[str, bytes], list[str]]:
    warnings: list[str] = []
    sitemapgen.build(Config(docroot=docroot, base_url=base_url, out_dir=out, jobs=jobs), on_warning=warnings.append)
    return output_files(out), warnings


@pytest.mark.forks  # alone, each build forks its workers
def test_builds_in_threads_each_give_what_they_give_alone(tmp_path: Path) -> None:
    """Two builds at once in one process used to share the workers' function (one site's pages
    under the other's base URL, or decided against the other's docroot) and the thread hook."""
    sites = [_site(tmp_path / name, name) for name in ("a", "b")]
    alone = [
        _build(site, base, tmp_path / f"alone-{i}") for i, (site, base) in enumerate(zip(sites, BASES, strict=True))
    ]
    assert all(files and not warnings for files, warnings in alone)
    heard: list[BaseException | None] = []
    before = threading.excepthook

    def host_hook(args: threading.ExceptHookArgs) -> None:
        heard.append(args.exc_value)

    threading.excepthook = host_hook
    try:
        with ThreadPoolExecutor(2) as threads:
            for n in range(8):
                pair = [threads.submit(_build, sites[i], BASES[i], tmp_path / f"pair{n}-{i}") for i in (0, 1)]
                assert [future.result() for future in pair] == alone, n
        assert threading.excepthook is host_hook
        failing = threading.Thread(target=_fail)
        failing.start()
        failing.join()
        assert [str(e) for e in heard] == ["the host's own error"]
    finally:
        threading.excepthook = before


def _fail() -> None:
    raise RuntimeError("the host's own error")


def _build_in_worker(docroot: str, base_url: str, out: str) -> tuple[dict[str, bytes], list[str]]:
    return _build(Path(docroot), base_url, Path(out))


@pytest.mark.forks  # the pool's worker is forked from this process
def test_a_build_in_a_pool_worker(tmp_path: Path) -> None:
    """A daemonic process may have no children: the build reads its pages in that process."""
    site = _site(tmp_path / "a", "a")
    alone = _build(site, BASES[0], tmp_path / "alone", jobs=1)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        in_worker = pool.apply(_build_in_worker, (str(site), BASES[0], str(tmp_path / "worker")))
    assert in_worker == alone
    assert in_worker[1] == []


_BESIDE_A_THREAD = """
import os, sys, threading
from pathlib import Path
import sitemapgen

forks = []
os.register_at_fork(before=lambda: forks.append(os.getpid()))
stop = threading.Event()
host = threading.Thread(target=stop.wait)  # a server's or a watcher's thread
host.start()
try:
    config = sitemapgen.Config(docroot=Path(sys.argv[1]), base_url=sys.argv[2], out_dir=Path(sys.argv[3]), jobs=2)
    sitemapgen.build(config, on_warning=print)
finally:
    stop.set()
    host.join()
print("forks:", len(forks))
"""


def _beside_a_thread(tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    site = _site(tmp_path / "a", "a")
    out = tmp_path / "threaded"
    # "always", not "error": Python 3.12 drops the fork warning made an error without a word
    argv = [sys.executable, "-W", "always::DeprecationWarning", "-c", _BESIDE_A_THREAD, str(site), BASES[0], str(out)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120), site, out


def test_a_build_beside_a_live_thread_starts_no_worker(tmp_path: Path) -> None:
    """A fork while another thread runs can deadlock the child: the build reads its pages itself."""
    done, site, out = _beside_a_thread(tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "forks: 0\n", "")
    assert output_files(out) == _build(site, BASES[0], tmp_path / "alone", jobs=1)[0]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="Python warns of a fork in a threaded process from 3.12 on")
def test_no_fork_warning_beside_a_live_thread(tmp_path: Path) -> None:
    done, _, _ = _beside_a_thread(tmp_path)
    assert "DeprecationWarning" not in done.stderr
    assert (done.returncode, done.stderr) == (0, "")


_HELD_TO_ONE_CPU = """
import os, sys
from pathlib import Path
import sitemapgen

os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # as taskset or a CI runner's cpuset does
forks = []
os.register_at_fork(before=lambda: forks.append(os.getpid()))
config = sitemapgen.Config(docroot=Path(sys.argv[1]), base_url=sys.argv[2], out_dir=Path(sys.argv[3]))
sitemapgen.build(config, on_warning=print)
print("forks:", len(forks))
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux's")
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one CPU: the machine's count is the affinity's")
def test_default_workers_are_the_cpus_the_affinity_allows(tmp_path: Path) -> None:
    """A process held to one CPU starts no worker by default (it started one per CPU of the machine)."""
    site = _site(tmp_path / "a", "a")
    argv = [sys.executable, "-c", _HELD_TO_ONE_CPU, str(site), BASES[0], str(tmp_path / "held")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "forks: 0\n", "")
    assert output_files(tmp_path / "held") == _build(site, BASES[0], tmp_path / "alone", jobs=1)[0]
