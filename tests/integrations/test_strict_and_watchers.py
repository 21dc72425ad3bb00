"""The plugins as their hosts run them for a writer: strict (``mkdocs build --strict``,
``sphinx-build -W``), served (``mkdocs serve``) and watched (``sphinx-autobuild``), each the real
program in a process of its own, stopped with Ctrl-C (SIGINT) as a user stops it.

A healthy first build with ``lastmod: [content]`` passes strict: starting the store is said at
info level. A serve session leaves nothing in the temporary directory; a watcher settles after
one edit, as the store is kept where it does not look and left untouched when nothing changed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import pytest

from ..helpers import _free_port, fetch, published, read_index, wait_until_watched
from .test_plugins import BASE, _mkdocs_project, _run, _sphinx_project

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


def test_a_first_sphinx_build_with_a_content_store_passes_warnings_as_errors(tmp_path: Path) -> None:
    """The store is kept in Sphinx's doctree directory, with Sphinx's own state between builds."""
    pytest.importorskip("sphinx")
    _sphinx_project(tmp_path, 'sitemapgen_lastmod = ["content"]\n')
    doctrees = tmp_path / "doctrees"
    argv = ("sphinx", "-W", "-b", "dirhtml", "-d", doctrees, "src", "out")
    first = _run(*argv, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr == ""
    said = [m["store"] for line in first.stdout.splitlines() if (m := _STARTING.match(line))]
    assert said == [str(doctrees / "sitemapgen-state-out.sqlite")]
    assert (doctrees / "sitemapgen-state-out.sqlite").is_file()
    assert [u.loc.removeprefix(BASE) for u in published(tmp_path / "out", BASE)] == [
        "",
        "genindex/",
        "install/",
        "usage/",
    ]
    again = _run(*argv, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert not _STARTING.search(again.stdout)


class _Program:
    """A long-running program (a server), its output read as it comes; stopped with SIGINT."""

    def __init__(self, *argv: str | Path, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", *map(str, argv)],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, done: Callable[[], bool], seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while not done():
            if self.process.poll() is not None:
                self.reader.join(5)
                raise AssertionError("the program ended:\n" + "\n".join(self.lines))
            if time.monotonic() > deadline:
                raise AssertionError("waited in vain; it printed:\n" + "\n".join(self.lines))
            time.sleep(0.1)

    def count(self, text: str) -> int:
        return sum(text in line for line in list(self.lines))

    def __enter__(self) -> _Program:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        """Ctrl-C, as a user ends a session; then what it printed is all there."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        finally:
            self.reader.join(10)
            assert self.process.stdout is not None
            self.process.stdout.close()


@pytest.mark.parametrize("mode", ["--strict", "--dirty"])
def test_a_mkdocs_serve_session_serves_the_sitemaps_and_leaves_nothing_in_the_temporary_directory(
    tmp_path: Path, mode: str
) -> None:
    pytest.importorskip("mkdocs")
    project = tmp_path / "project"
    _mkdocs_project(project, "  - search\n  - sitemapgen:\n      lastmod: [content]\n")
    temp = tmp_path / "temp"
    temp.mkdir()
    port = _free_port()
    env = {**os.environ, "TMPDIR": str(temp)}  # where mkdocs serve builds the site, and we keep our store
    with _Program("mkdocs", "serve", mode, "-a", f"127.0.0.1:{port}", cwd=project, env=env) as serve:
        serve.wait_for(lambda: serve.count("Serving on http://127.0.0.1:") == 1)
        served = f"http://127.0.0.1:{port}/"
        index = temp / "index.xml"
        index.write_bytes(fetch(served + "sitemap.xml"))
        listed = [loc for loc, _ in read_index(index)]
        assert listed == [served + "sitemap-1.xml.gz"]
        assert fetch(listed[0])[:2] == b"\x1f\x8b"
        index.unlink()
        assert [p.name for p in temp.iterdir()] != []  # the session's site and store are there now
        page = project / "docs" / "install.md"
        page.write_text(page.read_text() + "\nAnd then some.\n")
        serve.wait_for(lambda: serve.count("sitemapgen: listed 4 pages") == 2)  # rebuilt, the store kept
    assert serve.process.returncode == 0, "\n".join(serve.lines)
    assert sorted(temp.iterdir()) == []  # MkDocs removed its site; we removed our store
    ours = [line for line in serve.lines if "sitemapgen" in line]
    assert [line for line in ours if line.startswith(("WARNING", "ERROR"))] == []  # --dirty: MkDocs warns of its own
    assert _levels(serve.lines) == [("INFO", f"{temp}/.sitemapgen-state-{_site_dir(serve.lines, temp)}.sqlite")]


def _site_dir(lines: list[str], temp: Path) -> str:
    """The name of the temporary directory `mkdocs serve` built in, from the path it printed."""
    [name] = {m[1] for line in lines if (m := re.search(re.escape(str(temp)) + r"/(mkdocs_\w+)", line))}
    return name


def test_sphinx_autobuild_with_a_content_store_builds_once_an_edit_and_settles(tmp_path: Path) -> None:
    """The usual layout: the output in ``docs/_build/html``, in the ``docs`` it watches."""
    pytest.importorskip("sphinx_autobuild")
    src = _sphinx_project(tmp_path, 'sitemapgen_lastmod = ["content"]\nexclude_patterns = ["_build"]\n')
    out = src / "_build" / "html"
    with _Program("sphinx_autobuild", "--port", "0", src, out, cwd=tmp_path) as watcher:
        watcher.wait_for(lambda: watcher.count("Waiting to detect changes") == 1)
        assert watcher.count("build succeeded") == 1
        wait_until_watched(watcher.process.pid, src)  # an edit before the watch is up would go unseen
        page = src / "usage.rst"
        page.write_text(page.read_text() + "\nAnd then some.\n")
        watcher.wait_for(lambda: watcher.count("build succeeded") == 2)
        time.sleep(8)  # a store it rewrote would be seen, and built again, well within this
        assert (watcher.count("build succeeded"), watcher.count("Detected changes")) == (2, 1), "\n".join(watcher.lines)
    assert [u.loc.removeprefix(BASE) for u in published(out, BASE)] == [
        "index.html",
        "genindex.html",
        "install.html",
        "usage.html",
    ]
