"""The MkDocs plugin and the Sphinx extension: a real site built by the real generator, with them.

Skipped only when the extra is not installed (`make` installs both). What a user
reads (errors, warnings, the advice in them) is checked on the real programs'
own output: ``sphinx-build`` and ``mkdocs build`` run as processes.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import CliRunner
from ..helpers import published

BASE = "https://example.org/"

_PAGES = {
    "index": ("Frobnicate", "A tool that frobnicates."),
    "install": ("Install", "pip install it."),
    "usage": ("Usage", "Run it."),
}


def _run(program: str, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m program args...`, as a user runs sphinx-build or mkdocs: its exit status and output."""
    argv = [sys.executable, "-m", program, *map(str, args)]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def _mkdocs_project(root: Path, plugin: str) -> Path:
    docs = root / "docs"
    (docs / "guide").mkdir(parents=True)
    for name, (title, text) in _PAGES.items():
        (docs / ("guide/" if name == "usage" else "") / f"{name}.md").write_text(f"# {title}\n\n{text}\n")
    (docs / "draft.md").write_text("# Draft\n\nNot yet.\n")
    config = root / "mkdocs.yml"
    config.write_text(f"site_name: Frobnicate\nsite_url: {BASE}\nplugins:\n{plugin}")
    return config


def _mkdocs_build(config: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(config)))


def test_the_mkdocs_plugin_writes_the_sitemaps_and_mkdocs_writes_none(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    config = _mkdocs_project(tmp_path, "  - sitemapgen:\n      exclude: ['draft/']\n      lastmod_format: date\n")
    _mkdocs_build(config)
    site = tmp_path / "site"
    urls = published(site, BASE)  # the index and every sitemap, validated against the XSDs
    assert [u.loc.removeprefix(BASE) for u in urls] == ["", "guide/usage/", "install/"]
    assert all(u.lastmod is not None and len(u.lastmod) == 10 for u in urls)  # lastmod_format: date
    assert not (site / "sitemap.xml.gz").exists()  # MkDocs' own, every page dated with the build's day


def test_a_bad_mkdocs_option_fails_the_build_in_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("mkdocs")
    from mkdocs.exceptions import Abort

    config = _mkdocs_project(tmp_path, "  - sitemapgen:\n      chunking: sideways\n")
    with pytest.raises(Abort):  # how MkDocs ends a build a plugin failed
        _mkdocs_build(config)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        "sitemapgen: mkdocs.yml: plugins.sitemapgen.chunking: must be one of 'stable', 'fill', got 'sideways'"
    ]
    assert not (tmp_path / "site" / "sitemap.xml").exists()


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_an_unknown_mkdocs_option_fails_the_build_in_one_line_before_anything_is_built(
    tmp_path: Path, strict: bool
) -> None:
    pytest.importorskip("mkdocs")
    _mkdocs_project(tmp_path, "  - search\n  - sitemapgen:\n      chunkng: fill\n")
    run = _run("mkdocs", "build", *(["--strict"] if strict else []), cwd=tmp_path)
    assert run.returncode == 1
    said = [line.split(maxsplit=2)[2] for line in run.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert said == ["sitemapgen: mkdocs.yml: plugins.sitemapgen.chunkng: unknown key (did you mean 'chunking'?)"]
    assert not (tmp_path / "site").exists()  # failed as MkDocs read its config: nothing built


def _sphinx_project(root: Path, extra: str = "") -> Path:
    src = root / "src"
    src.mkdir()
    toctree = "\n".join(f"   {name}" for name in _PAGES if name != "index")
    for name, (title, text) in _PAGES.items():
        body = f"{title}\n{'=' * len(title)}\n\n{text}\n"
        if name == "index":
            body += f"\n.. toctree::\n\n{toctree}\n"
        (src / f"{name}.rst").write_text(body)
    (src / "conf.py").write_text(
        f'project = "Frobnicate"\nextensions = ["sitemapgen.sphinx"]\nhtml_baseurl = "{BASE}"\n{extra}'
    )
    return src


def _sphinx_build(src: Path, out: Path, builder: str) -> int:
    from sphinx.cmd.build import build_main

    return build_main(["-q", "-b", builder, "-d", str(out.parent / f"doctrees-{builder}"), str(src), str(out)])


@pytest.mark.parametrize(
    ("builder", "listed"),
    [
        # html: Sphinx gives index.html the canonical /index.html, and it is listed so
        ("html", ["index.html", "genindex.html", "install.html", "usage.html"]),
        ("dirhtml", ["", "genindex/", "install/", "usage/"]),
    ],
)
def test_the_sphinx_extension_writes_the_sitemaps(tmp_path: Path, builder: str, listed: list[str]) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, 'sitemapgen_lastmod = ["mtime"]\n')
    out = tmp_path / builder
    assert _sphinx_build(src, out, builder) == 0
    urls = published(out, BASE)
    assert [u.loc.removeprefix(BASE) for u in urls] == listed  # search.html: noindex, left out


_ERROR = "ERROR: sitemapgen: conf.py: "


@pytest.mark.parametrize(
    ("line", "said"),
    [
        pytest.param(
            'sitemapgen_chunking = "sideways"',
            "sitemapgen_chunking: must be one of 'stable', 'fill', got 'sideways'",
            id="bad-value",
        ),
        pytest.param(
            'sitemapgen_chunkng = "fill"',
            "sitemapgen_chunkng: no such setting (did you mean sitemapgen_chunking?)",
            id="typo",
        ),
        pytest.param(
            'sitemapgen_max_urls = 1000\nsitemapgen_exclude = ["draft/"]',
            "sitemapgen_max_urls: no such setting (the extension reads sitemapgen_ and a key of sitemapgen.toml:"
            " base_url, exclude, rules,",  # no close one (base_url is not): every one
            id="no-close-name",
        ),
    ],
)
def test_a_bad_sphinx_setting_fails_the_build_in_one_line(tmp_path: Path, line: str, said: str) -> None:
    pytest.importorskip("sphinx")
    src = _sphinx_project(tmp_path, line + "\n")
    run = _run("sphinx", "-q", "-N", "-b", "html", src, tmp_path / "html", cwd=tmp_path)
    assert run.returncode == 2, run.stderr  # bad input, as the CLI says it
    [error] = run.stderr.splitlines()  # no crash report: no versions, traceback, "please open an issue"
    assert error.startswith(_ERROR + said), error
    assert list((tmp_path / "html").rglob("*.html")) == []  # said before a source was read, not after the build


def test_every_line_the_sphinx_extension_writes_starts_with_its_name(tmp_path: Path) -> None:
    """The lines a build prints with the extension and not without it: a warning, the summary."""
    pytest.importorskip("sphinx")
    stray = '<!DOCTYPE html><html><head><title>x</title><link rel="canonical" href="https://elsewhere.example/">'
    printed = {}
    for name, extensions in (("with", '["sitemapgen.sphinx"]'), ("without", "[]")):
        (tmp_path / name).mkdir()
        src = _sphinx_project(tmp_path / name, 'html_extra_path = ["extra"]\n')
        (src / "extra").mkdir()
        (src / "extra" / "stray.html").write_text(stray)  # copied as is: a page with another host's canonical
        conf = src / "conf.py"
        conf.write_text(conf.read_text().replace('["sitemapgen.sphinx"]', extensions))
        run = _run("sphinx", "-N", "-b", "html", "src", "html", cwd=tmp_path / name)
        assert run.returncode == 0, run.stderr
        printed[name] = (run.stdout + run.stderr).replace(str(tmp_path / name), "ROOT").splitlines()
    ours = [line for line in printed["with"] if line not in printed["without"]]
    assert ours.pop(1) == "build succeeded, 1 warning."  # Sphinx's own count, the one line of its that differs
    assert ours == [
        # search.html: Sphinx's search page, as the extension knows (the CLI: noindex, its head says)
        "sitemapgen: listed 4 pages in 1 sitemap; skipped 1 directory excluded by pattern,"
        " 1 canonical on another host, 1 search page; lastmod from 4 mtime;"
        " wrote ROOT/html/sitemap.xml and ROOT/html/sitemap-1.xml.gz",  # stdout
        "WARNING: sitemapgen: 1 skipped, canonical on another host; e.g. stray.html to https://elsewhere.example/",
    ]


_MKDOCS_ADVICE = (
    "MkDocs writes sitemap.xml.gz on every build unless sitemapgen runs as its plugin: add sitemapgen to"
    " plugins in mkdocs.yml (plugins: [search, sitemapgen]), or delete sitemap.xml.gz after `mkdocs build`"
)


def _warnings(err: str) -> list[str]:
    return [line.removeprefix("warning: ") for line in err.splitlines() if line.startswith("warning: ")]


@pytest.mark.parametrize("advice", ["delete", "plugin"])
def test_the_cli_on_mkdocs_output_says_what_to_do_and_once_done_says_nothing(
    tmp_path: Path, cli: CliRunner, advice: str
) -> None:
    """MkDocs' own theme writes no generator meta: its site is known by the comment that ends its pages."""
    pytest.importorskip("mkdocs")
    config = _mkdocs_project(tmp_path, "  - search\n")
    site = tmp_path / "site"
    assert _run("mkdocs", "build", "--strict", cwd=tmp_path).returncode == 0
    run = cli("build", site, "--base-url", BASE)
    assert run.code == 0, run.err
    assert _warnings(run.err) == [
        f"{site}: MkDocs' sitemap.xml.gz stays beside ours (sitemapgen removes only what it wrote), and a crawler"
        f" that finds it reads a sitemap there; {_MKDOCS_ADVICE}"
    ]
    assert run.err.endswith("; replaced MkDocs' sitemap.xml\n")  # the summary: expected, so no warning

    if advice == "delete":
        assert _run("mkdocs", "build", "--strict", cwd=tmp_path).returncode == 0
        (site / "sitemap.xml.gz").unlink()
    else:
        config.write_text(config.read_text().replace("  - search\n", "  - search\n  - sitemapgen\n"))
        built = _run("mkdocs", "build", "--strict", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        assert "WARNING" not in built.stderr
        assert not (site / "sitemap.xml.gz").exists()
    again = cli("build", site, "--base-url", BASE)
    assert again.code == 0, again.err
    assert _warnings(again.err) == []
    assert again.err.endswith("; replaced MkDocs' sitemap.xml\n" if advice == "delete" else ".xml.gz unchanged\n")
    assert [u.loc.removeprefix(BASE) for u in published(site, BASE)] == ["", "draft/", "guide/usage/", "install/"]


def test_nothing_is_said_of_mkdocs_sitemaps_when_the_build_then_fails(tmp_path: Path, cli: CliRunner) -> None:
    pytest.importorskip("mkdocs")
    _mkdocs_project(tmp_path, "  - search\n")
    site = tmp_path / "site"
    assert _run("mkdocs", "build", "--strict", cwd=tmp_path).returncode == 0
    before = {p.name: p.read_bytes() for p in site.iterdir() if p.is_file()}
    Path("sitemapgen.toml").write_text('exclude = ["*.html"]\n')  # every page left out: nothing to publish
    run = cli("build", site, "--base-url", BASE)
    assert run.code == 2
    assert _warnings(run.err) == []  # nothing replaced, nothing published: no advice about it
    assert run.err.startswith("error: no pages to list under ")
    assert {p.name: p.read_bytes() for p in site.iterdir() if p.is_file()} == before


def test_the_mkdocs_plugin_names_what_an_earlier_build_left_and_once_it_is_gone_says_nothing(tmp_path: Path) -> None:
    """A dirty build keeps what an earlier build without the plugin wrote: MkDocs' sitemap.xml.gz."""
    pytest.importorskip("mkdocs")
    config = _mkdocs_project(tmp_path, "  - search\n")
    site = tmp_path / "site"
    assert _run("mkdocs", "build", cwd=tmp_path).returncode == 0
    config.write_text(config.read_text().replace("  - search\n", "  - search\n  - sitemapgen\n"))
    run = _run("mkdocs", "build", "--dirty", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    ours = [line.split("-  ", 1)[1] for line in run.stderr.splitlines() if "-  sitemapgen: " in line]
    assert ours[0] == (
        f"sitemapgen: {site}: MkDocs' sitemap.xml.gz stays beside ours (sitemapgen removes only what it wrote),"
        f" and a crawler that finds it reads a sitemap there; {_MKDOCS_ADVICE}"
    )
    assert ours[1].endswith("; replaced MkDocs' sitemap.xml")
    assert len(ours) == 2

    (site / "sitemap.xml.gz").unlink()
    again = _run("mkdocs", "build", "--dirty", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert [line for line in again.stderr.splitlines() if "-  sitemapgen: " in line and "WARNING" in line] == []


def test_the_mkdocs_plugin_lists_the_documents_mkdocs_copies(tmp_path: Path) -> None:
    """MkDocs copies a PDF under docs/ into the site as it is: the plugin's `documents` option
    lists it under that exact path, beside the pages."""
    pytest.importorskip("mkdocs")
    from ..pipeline.test_documents import pdf

    config = _mkdocs_project(tmp_path, "  - sitemapgen:\n      exclude: ['draft/']\n      documents: ['*.pdf']\n")
    (tmp_path / "docs" / "files").mkdir()
    (tmp_path / "docs" / "files" / "Frobnicate manual.pdf").write_bytes(pdf("Frobnicate"))
    _mkdocs_build(config)
    urls = published(tmp_path / "site", BASE)
    assert [u.loc.removeprefix(BASE) for u in urls] == ["", "files/Frobnicate%20manual.pdf", "guide/usage/", "install/"]
