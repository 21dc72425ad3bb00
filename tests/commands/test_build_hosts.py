"""`build` inside other programs: beside another build in a thread, in a `multiprocessing.Pool`
worker, beside a host's live thread. Each gives the bytes a build alone gives, and leaves the
host's own hooks as they were."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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
