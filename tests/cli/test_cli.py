"""What only the command line does: its entry points, help and version, the one-line error and
its exit code for bad flags, bad config, a hostile tree and a failing machine, signals, progress on
a terminal, and what `list` prints. What a build writes is tested beside the module that decides it
(tests/commands, tests/output, tests/pipeline, ...), most of it through this same CLI."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import sitemapgen
from sitemapgen.output.published import read_published

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    error_line,
    html,
    make_tree,
    output_files,
    published,
    run_unprivileged,
)


def test_python_dash_m_and_console_script(site: SiteFactory) -> None:
    root = site({"a.html": html()})
    for cmd in ([sys.executable, "-m", "sitemapgen"], [str(Path(sys.executable).parent / "sitemapgen")]):
        ok = subprocess.run([*cmd, "build", str(root), "--base-url", BASE], capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr
        bad = subprocess.run([*cmd, "build", str(root), "--base-url", "ftp://x"], capture_output=True, text=True)
        assert bad.returncode == 2
        assert bad.stderr.startswith("error: --base-url: must start with http:// or https://")
        assert "Traceback" not in bad.stderr


def test_a_build_loads_no_pydantic(site: SiteFactory) -> None:
    """Reading the command line costs no more than it must: typer from 0.29 on coerces each
    option through pydantic, which a run then loads (0.2 s and 9 MiB more; pyproject.toml keeps
    typer below it)."""
    root = site({f"d{i}/p.html": html(f"page {i}") for i in range(3)})
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['sitemapgen', 'build', {str(root)!r}, '--base-url', {BASE!r}, '--quiet']\n"
        "try:\n"
        "    runpy.run_module('sitemapgen', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('pydantic', 'pydantic_core')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert published(root, BASE)


def test_usage_errors_exit_2_without_traceback(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    for args in (["build", root, "--nope"], ["build"], ["frobnicate"], ["build", root, "--url-style", "pretty"]):
        run = cli(*args)
        assert run.code == 2, args
        # One line, "error: " and the message as every error is (not "error: sitemapgen build: ..."),
        # not typer's five-line box; the command's help named at its end.
        assert not error_line(run.err).startswith("sitemapgen"), run.err
        assert run.err.endswith(f"(see sitemapgen{' build' if args[0] == 'build' else ''} --help)\n"), run.err
    assert sorted(p.name for p in root.iterdir()) == ["a.html"]


def test_interrupt_exits_130(site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    root = site({"a.html": html()})

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("sitemapgen.cli.program.run_build", interrupted)
    run = cli("build", root, "--base-url", BASE)
    assert (run.code, run.err) == (130, "interrupted\n")


def test_help_and_version(cli: CliRunner) -> None:
    run = cli("build", "--help")
    assert run.code == 0
    assert "--base-url" in run.out
    version = cli("--version")
    assert (version.code, version.out) == (0, f"sitemapgen {sitemapgen.__version__}\n")
    bare = cli()  # no arguments: a usage error (exit 2), answered with the help
    assert bare.code == 2
    assert "Usage: sitemapgen [OPTIONS] COMMAND [ARGS]..." in bare.out
    assert all(command in bare.out for command in ("build", "check", "validate", "list", "explain"))


OK = 'base_url = "https://example.com/"\n'  # a valid start for each bad config
BAD_CONFIGS = [
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = 1.5\n',
        "priority in the 1st [[rules]] block: must be between 0.0 and 1.0, got 1.5",
        id="priority-1.5",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = -0.1\n',
        "priority in the 1st [[rules]] block: must be between 0.0 and 1.0, got -0.1",
        id="priority-negative",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = "high"\n',
        "priority in the 1st [[rules]] block: must be a number between 0.0 and 1.0, got 'high'",
        id="priority-string",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = true\n',
        "priority in the 1st [[rules]] block: must be a number",
        id="priority-bool",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "a"\n[[rules]]\npattern = "*"\nchangefreq = "fortnightly"\n',
        "pattern in the 1st [[rules]] block: rule for 'a' sets neither priority nor changefreq",
        id="rule-sets-nothing",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\nchangefreq = "fortnightly"\n',
        "changefreq in the 1st [[rules]] block: must be one of 'always', 'hourly', 'daily', 'weekly', 'monthly',"
        " 'yearly', 'never', got 'fortnightly'",
        id="unknown-changefreq",
    ),
    pytest.param(
        OK + 'exlude = ["x"]\n',
        "exlude: unknown key (did you mean 'exclude'?)",
        id="unknown-key",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\nprority = 0.5\n',
        "prority in the 1st [[rules]] block: unknown key (did you mean 'priority'?)",
        id="unknown-rule-key",
    ),
    pytest.param(
        OK + "[[rules]]\npriority = 0.5\n",
        "pattern in the 1st [[rules]] block: is missing",
        id="rule-without-pattern",
    ),
    pytest.param(OK + "exclude = [\n", "invalid TOML: ", id="toml-syntax"),
    pytest.param(
        OK + 'exclude = ["a\\\\"]\n',
        "the 1st item of exclude: invalid pattern 'a\\\\'",
        id="invalid-exclude-pattern",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "!"\npriority = 0.5\n',
        "pattern in the 1st [[rules]] block: invalid pattern '!'",
        id="invalid-rule-pattern",
    ),
    pytest.param(
        OK + 'exclude = "drafts/"\n',
        """exclude: must be a list of patterns, got 'drafts/' (a list is written exclude = ["drafts/"])""",
        id="exclude-not-a-list",
    ),
    pytest.param(
        OK + 'exclude = "drafts/, tmp/"\n',
        "exclude: must be a list of patterns, got 'drafts/, tmp/'"
        """ (a list is written exclude = ["drafts/", "tmp/"])""",
        id="exclude-comma-string",
    ),
    pytest.param(
        OK + 'lastmod = "git,mtime"\n',
        """lastmod: must be a list of sources, got 'git,mtime' (a list is written lastmod = ["git", "mtime"])""",
        id="lastmod-comma-string",
    ),
    pytest.param(
        OK + 'lastmod = ["git, mtime"]\n',
        """lastmod: must be a list of sources, got ['git, mtime'] (a list is written lastmod = ["git", "mtime"])""",
        id="lastmod-comma-item",
    ),
    pytest.param(
        OK + "content_ignore = 'v\\d{1,3}'\n",
        """content_ignore: must be a list of regular expressions, got 'v\\\\d{1,3}'"""
        """ (a list is written content_ignore = ["v\\\\d{1,3}"])""",
        id="content-ignore-string",
    ),
    pytest.param(
        OK + 'content_select = "main, article"\n',
        """content_select: must be a list of CSS selectors, got 'main, article'"""
        """ (a list is written content_select = ["main, article"])""",
        id="content-select-string",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = 0.5\n[[rules]]\npattern = "docs/"\npriority = 2\n',
        "priority in the 2nd [[rules]] block: must be between 0.0 and 1.0, got 2",
        id="second-rule",
    ),
    pytest.param(
        OK + '[[sitemaps]]\nname = "docs"\npattern = "docs/"\n[[sitemaps]]\nname = "Blog"\npattern = "blog/"\n',
        "name in the 2nd [[sitemaps]] block: must be lower-case letters",
        id="second-section",
    ),
    pytest.param(
        OK + '[[git_sources]]\nmatch = "^(.*)$"\nsource = ""\n',
        "source in the 1st [[git_sources]] block: must be a non-empty string or a list of them",
        id="git-source",
    ),
    pytest.param(
        OK + "rules = [1]\n",
        "the 1st item of rules: must be a table with pattern, got 1",
        id="rules-inline-array",
    ),
    pytest.param(
        'base_url = "example.com"\n',
        "base_url: must start with http:// or https://, got 'example.com'",
        id="base-url-no-scheme",
    ),
    pytest.param('base_url = "https:///docs/"\n', "base_url: has no host, got 'https:///docs/'", id="base-url-no-host"),
    pytest.param(
        OK + "max_urls_per_sitemap = 50001\n",
        "max_urls_per_sitemap: must be between 1 and 50,000, got 50,001",
        id="over-protocol-limit",
    ),
    pytest.param(
        OK + "max_bytes_per_sitemap = 52428801\n",
        "max_bytes_per_sitemap: must be between 1,024 and 52,428,800, got 52,428,801",
        id="over-current-byte-limit",
    ),
    pytest.param(
        OK + "max_sitemaps_per_index = 50001\n",
        "max_sitemaps_per_index: must be between 1 and 50,000, got 50,001",
        id="over-current-index-limit",
    ),
    pytest.param(
        OK + 'url_style = "clean"\n',
        "url_style: 'clean' needs a host that serves a/index.html at /a (set host)",
        id="clean-needs-host",
    ),
    pytest.param(
        OK + 'url_style = "pretty"\n',
        "url_style: must be one of 'directory', 'index', 'extensionless', 'clean', got 'pretty'",
        id="bad-url-style",
    ),
    pytest.param(
        "base_url = 'https://example.com/'\nexclude = ['\\u00e9']\n\xff", "cannot read config file", id="not-utf8"
    ),
]


@pytest.mark.parametrize(("content", "message"), BAD_CONFIGS)
def test_bad_config_is_one_line_exit_2_and_writes_nothing(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, content: str, message: str
) -> None:
    root = site({"a.html": html()})
    before = sorted(p.name for p in root.rglob("*"))
    config = tmp_path / "bad.toml"
    config.write_bytes(
        content.encode("utf-8", "surrogateescape") if "\xff" not in content else content.encode("latin-1")
    )
    run = cli("build", root, "--config", config)
    assert run.code == 2
    assert run.err.startswith(f"error: {config}: {message}"), run.err
    assert run.err.count("\n") == 1
    assert "Traceback" not in run.err
    assert sorted(p.name for p in root.rglob("*")) == before


BAD_FLAGS = [
    pytest.param(["--base-url", "ftp://example.com/"], "--base-url: must start with http:// or https://", id="ftp"),
    pytest.param(["--base-url", "https://"], "--base-url: has no host", id="no-host"),
    pytest.param(["--base-url", "//example.com/"], "--base-url: must start with http:// or https://", id="no-scheme"),
    pytest.param(["--base-url", "https://example.com:99999/"], "--base-url: is not a valid URL", id="bad-port"),
    pytest.param(
        ["--base-url", "https://example.com/?a=1"], "--base-url: must not have a query or fragment", id="query"
    ),
    pytest.param(
        ["--base-url", "https://ex ample.com/"], "--base-url: must not contain white space outside its path", id="space"
    ),
    pytest.param(
        ["--base-url", "https://user:pw@example.com/"], "--base-url: must not carry a user name", id="userinfo"
    ),
    pytest.param(["--base-url", "https://exa_mple.com/"], "--base-url: has an invalid host name", id="bad-host"),
    pytest.param(
        ["--base-url", "https://example.com/%zz/"], "--base-url: has a '%' that is not followed", id="bad-percent"
    ),
    pytest.param([], "base_url: is not set: pass --base-url URL or set base_url in sitemapgen.toml", id="missing"),
    pytest.param(
        ["--base-url", BASE, "--max-urls-per-sitemap", "0"], "--max-urls-per-sitemap: must be between 1", id="zero-urls"
    ),
    pytest.param(
        ["--base-url", BASE, "--max-bytes-per-sitemap", "52428801"],
        "--max-bytes-per-sitemap: must be between",
        id="big-bytes",
    ),
    pytest.param(
        ["--base-url", BASE, "--max-sitemaps-per-index", "50001"],
        "--max-sitemaps-per-index: must be between",
        id="big-index",
    ),
    pytest.param(["--base-url", BASE, "--config", "nope.toml"], "nope.toml: no such config file", id="missing-config"),
]


@pytest.mark.parametrize(("args", "message"), BAD_FLAGS)
def test_bad_flags_are_one_line_exit_2_and_write_nothing(
    site: SiteFactory, cli: CliRunner, args: list[str], message: str
) -> None:
    root = site({"a.html": html()})
    run = cli("build", root, *args)
    assert run.code == 2
    assert run.err.startswith(f"error: {message}"), run.err
    assert run.err.count("\n") == 1
    assert sorted(p.name for p in root.iterdir()) == ["a.html"]


def test_progress_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sitemapgen.cli.progress import progress

    with progress(True) as off:
        assert off is None  # pytest's stderr is not a terminal: CI logs stay clean
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    threads = threading.active_count()
    with progress(True) as on:
        assert on is not None
        on(1000)
        # No refresh thread: the build forks its workers while this display is up.
        assert threading.active_count() == threads
    with progress(False) as quiet:
        assert quiet is None


def test_list(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"index.html": html(), "ü.html": html(), "no.html": '<meta name="robots" content="noindex">'})
    os.utime(root / "index.html", (1_600_000_000, 1_600_000_000))
    os.utime(root / "ü.html", (1_700_000_000, 1_700_000_000))
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\n[[rules]]\npattern = "/index.html"\npriority = 1.0\n')
    run = cli("list", root, "--config", config)
    assert run.code == 0
    assert run.out.splitlines()[0] == f"{BASE}\t2020-09-13T12:26:40+00:00\t\t1.0\tindex.html"
    assert len(run.out.splitlines()) == 2
    rows = [json.loads(line) for line in cli("list", root, "--config", config, "--json").out.splitlines()]
    assert rows[1] == {
        "url": BASE + "%C3%BC.html",
        "lastmod": "2023-11-14T22:13:20+00:00",
        "changefreq": None,
        "priority": None,
        "file": "ü.html",
        "lastmod_source": "mtime",
    }
    assert not (root / "sitemap.xml").exists()


def test_odd_names_stay_on_one_line_in_list_and_warnings(site: SiteFactory, cli: CliRunner) -> None:
    files: dict[str | bytes, str | bytes] = {
        "new\nline.html": html(),
        "tab\there.html": html(),
        b"raw\xff.html": html(),
    }
    root = site(files)
    (root / "broken\nlink.html").symlink_to("nowhere")
    run = cli("list", root, "--base-url", BASE)
    assert run.code == 0
    assert [line.split("\t")[-1] for line in run.out.splitlines()] == [
        "new\\nline.html",
        "raw\\xff.html",
        "tab\\there.html",
    ]
    assert "warning: broken\\nlink.html: skipped, broken symlink\n" in run.err
    rows = [json.loads(line) for line in cli("list", root, "--base-url", BASE, "--json").out.splitlines()]
    assert [r["file"] for r in rows] == ["new\nline.html", "raw\\xff.html", "tab\there.html"]


def _readonly_out(root: Path) -> list[str]:
    out = root.parent / "out"
    out.mkdir()
    return ["--out", str(out)]


def _out_under_readonly(root: Path) -> list[str]:
    (root.parent / "ro").mkdir()
    return ["--out", str(root.parent / "ro" / "out")]


def _readonly_docroot_robots(root: Path) -> list[str]:
    out = root.parent / "out"
    out.mkdir()
    os.chmod(out, 0o777)
    return ["--out", str(out), "--robots-txt", "create"]


def _unwritable_store(root: Path) -> list[str]:
    out = root.parent / "out"
    out.mkdir()
    os.chmod(out, 0o777)
    (root.parent / "ro").mkdir()
    return ["--out", str(out), "--lastmod", "content", "--state-file", str(root.parent / "ro" / "state.sqlite")]


@pytest.mark.forks  # run_unprivileged forks this process
@pytest.mark.parametrize(
    ("setup", "said"),
    [
        pytest.param(
            _readonly_out, "out/.sitemapgen-journal: cannot create the journal: Permission denied", id="ro-out"
        ),
        pytest.param(_out_under_readonly, "--out: cannot create", id="out-under-ro"),
        pytest.param(_readonly_docroot_robots, "robots.txt: cannot write: Permission denied", id="ro-docroot-robots"),
        pytest.param(_unwritable_store, "state.sqlite: cannot open the lastmod state store", id="ro-store"),
    ],
)
def test_what_the_machine_refuses_is_one_line_and_exit_3(
    tmp_path: Path, setup: Callable[[Path], list[str]], said: str
) -> None:
    """Permissions as an unprivileged user meets them (the tests drop to nobody when run as root)."""
    root = make_tree(tmp_path / "site", {"a.html": html(), "b.html": html()})
    extra = setup(root)
    code, err = run_unprivileged(["build", str(root), "--base-url", BASE, *extra], [root, tmp_path])
    assert code == 3, err
    assert said in error_line(err)
    assert "Traceback" not in err
    assert sorted(p.name for p in root.iterdir()) == ["a.html", "b.html"]
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]
    out = tmp_path / "out"
    if out.is_dir():  # only where the sitemaps were published before robots.txt failed: whole
        assert sorted(p.name for p in out.iterdir()) == sorted(
            [*(["sitemap.xml"] if (out / "sitemap.xml").exists() else []), *read_published(out)]
        )


def _fifo(path: Path) -> None:
    os.mkfifo(path)  # no writer: a blocking read would wait forever


@pytest.mark.parametrize(
    ("files", "args", "said"),
    [
        pytest.param(
            {}, ["--state-file", ""], "--state-file: must be a file path, got the directory '.'", id="state-empty"
        ),
        pytest.param(
            {}, ["--state-file", "{root}"], "--state-file: must be a file path, got the directory", id="state-dir"
        ),
        pytest.param(
            {"c.toml": 'base_url = "https://example.com/"\nstate_file = "a\\u0000b"\n'},
            ["--config", "{root}/c.toml"],
            "state_file: must be a file path, got 'a\\x00b'",
            id="state-nul",
        ),
        pytest.param(
            {"c.toml": 'base_url = "https://example.com/"\n"bad\\nkey" = 1\n'},
            ["--config", "{root}/c.toml"],
            "'bad\\nkey': unknown key",
            id="key-with-a-newline",
        ),
        pytest.param({"c.toml": _fifo}, ["--config", "{root}/c.toml"], "not a regular file", id="config-fifo"),
        pytest.param(
            {".sitemapignore": _fifo}, [], ".sitemapignore: cannot read: not a regular file", id="ignore-fifo"
        ),
    ],
)
def test_hostile_input_is_one_line_exit_2_and_nothing_written(
    site: SiteFactory, cli: CliRunner, files: dict[str, str | Callable[[Path], None]], args: list[str], said: str
) -> None:
    root = site({"a.html": html()})
    for name, content in files.items():
        if callable(content):
            content(root / name)
        else:
            (root / name).write_text(content)
    before = sorted(p.name for p in root.iterdir())
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", *(a.format(root=root) for a in args))
    assert run.code == 2, run.err
    assert said in error_line(run.err)
    assert sorted(p.name for p in root.iterdir()) == before


def _limited_run(cmd: list[str], mib: int) -> subprocess.CompletedProcess[str]:
    """`cmd` in a process whose address space is `mib` MiB (``ulimit -v``), without coverage's
    start-up hook (``make test``), which would take part of it."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))

    env = {k: v for k, v in os.environ.items() if not k.startswith("COV_CORE_")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, preexec_fn=limit, env=env)


def _smallest(code: str) -> int:
    """The smallest address space, in MiB, in which this Python runs `code`."""
    for mib in range(8, 64):
        if _limited_run([sys.executable, "-c", code], mib).returncode == 0:
            return mib
    pytest.skip("this Python does not start in under 64 MiB of address space")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_too_little_memory_is_one_line_exit_3_and_nothing_published(site: SiteFactory, jobs: str) -> None:
    """From the smallest address space Python starts in, up: while loading the program, parsing
    the command line, or building, the run ends in one line and exit
    3, or succeeds; never a traceback, and the sitemaps are the last build's or the new ones."""
    root = site({f"d{i % 5}/p{i}.html": html(f"page {i}") for i in range(60)})
    cmd = [sys.executable, "-m", "sitemapgen", "build", str(root), "--base-url", BASE, "--jobs", jobs]
    cmd += ["--lastmod", "content", "--state-file", str(root.parent / "state.sqlite")]
    assert subprocess.run(cmd, capture_output=True, timeout=120).returncode == 0
    before = output_files(root)
    codes = set()
    # Below the entry point's own few imports, no code of ours runs (Python's own MemoryError):
    # the entry point is kept light (no typing, the package face lazy) so that this gap is small.
    smallest = _smallest("import sitemapgen.__main__")
    assert smallest - _smallest("pass") <= 2
    # Every MiB, not every few: a compiled extension may fail its own way at one limit only (as
    # pydantic's core, which typer 0.29 loads, aborted at 44 MiB on CPython 3.12). From one MiB
    # up: `-m` takes runpy, a little more than the import alone.
    for mib in range(smallest + 1, smallest + 80):
        done = _limited_run(cmd, mib)
        codes.add(done.returncode)
        if done.returncode == 0:
            break
        assert done.returncode == 3, (mib, done.stderr)
        line = error_line(done.stderr)
        assert "out of memory" in line or line.startswith(("a worker process died", "the worker pool stopped")), (
            mib,
            line,
        )
        assert output_files(root) == before, mib
    assert codes == {0, 3}  # it failed in the smallest, and succeeded once it had enough
    assert published(root, BASE)  # whole and valid


@pytest.mark.parametrize(
    ("error", "said"),
    [
        pytest.param(MemoryError(), "error: out of memory (allow this process more memory)", id="memory"),
        pytest.param(OSError(5, "Input/output error", "/x/y.html"), "error: /x/y.html: Input/output error", id="eio"),
        pytest.param(OSError(28, "No space left on device"), "error: No space left on device", id="enospc"),
    ],
)
def test_the_machine_failing_anywhere_is_one_line_exit_3(
    site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, error: BaseException, said: str
) -> None:
    root = site({"a.html": html()})

    def failing(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr("sitemapgen.cli.program.run_build", failing)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 3
    assert error_line(run.err).startswith(said.removeprefix("error: "))


def test_sigterm_exits_143(site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    root = site({"a.html": html()})

    def terminated(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts this

    monkeypatch.setattr("sitemapgen.cli.program.run_build", terminated)
    run = cli("build", root, "--base-url", BASE)
    assert (run.code, run.err) == (143, "terminated\n")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back


def test_verify_draws_a_bar_on_a_terminal_once_it_has_taken_a_second() -> None:
    """A real terminal (a pty) on stderr: a run of 2 s shows "N/12 pages"; the same run's
    stdout, and a run without a terminal, show none."""
    import pty

    from ..faultserver import Route, serving

    page = b"<!DOCTYPE html><html><head><title>p</title></head><body></body></html>"
    with serving() as server:
        urls = "".join(f"<url><loc>{server.url}p{n}.html</loc></url>" for n in range(12))
        xml = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'.encode()
        server.set("/sitemap.xml", Route(200, {"Content-Type": "application/xml"}, xml))
        for n in range(12):
            server.set(f"/p{n}.html", Route(200, {"Content-Type": "text/html"}, page, delay=0.15))
        argv = [sys.executable, "-m", "sitemapgen", "verify", server.url + "sitemap.xml", "--concurrency", "1"]
        main, terminal = pty.openpty()
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal)
        os.close(terminal)
        shown = b""
        with contextlib.suppress(OSError):  # EIO once the child has closed the terminal
            while chunk := os.read(main, 4096):
                shown += chunk
        os.close(main)
        out = child.communicate()[0]
        plain = subprocess.run(argv, capture_output=True, check=False)
    assert child.returncode == 0
    bar = re.compile(rb"\d+/12\b")
    assert bar.search(shown), shown
    assert not bar.search(out)
    assert not bar.search(plain.stderr)


def test_the_command_collects_garbage_less_often_than_a_program_that_calls_the_library() -> None:
    """The ``sitemapgen`` command's process is its own: it sets the collector's thresholds
    (`util.parallel.collect_less`); importing the package sets nothing."""
    code = (
        "import atexit, gc, sys\n"
        "default = gc.get_threshold()\n"
        "import sitemapgen, sitemapgen.__main__\n"
        "assert gc.get_threshold() == default, 'importing changed the thresholds'\n"
        "atexit.register(lambda: print(gc.get_threshold()[0], default[0]))\n"
        "sys.argv = ['sitemapgen', '--version']\n"
        "sitemapgen.__main__.run()\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    ours, default = map(int, run.stdout.split()[-2:])
    assert ours > default
