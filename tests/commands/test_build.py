"""The library API, as a Python user calls it."""

from __future__ import annotations

import gc
import multiprocessing
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import sitemapgen
import sitemapgen.cli.program
from sitemapgen import ChangeFreq, Config, LastmodSource, Rule, SkipReason
from sitemapgen.output.published import read_published
from sitemapgen.output.retired import RETIRED_NAME, read_retired
from sitemapgen.util.faults import FAULT_ENV, Faults

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    fetch,
    html,
    locs,
    make_tree,
    output_files,
    published,
    read_index,
    static_server,
)


def test_build_from_python(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"index.html": html(), "docs/a.html": html(), "404.html": html()})
    warnings: list[str] = []
    result = sitemapgen.build(
        Config(docroot=root, base_url="https://example.com", rules=(Rule("docs/", 0.9, ChangeFreq.WEEKLY),)),
        on_warning=warnings.append,
    )
    assert result.listed == 2
    assert result.skipped == {SkipReason.EXCLUDED: 1}
    assert [s.path.name for s in result.written.sitemaps] == ["sitemap-1.xml.gz"]
    assert result.written.indexes == (root / "sitemap.xml",)
    assert result.summary().startswith(
        "listed 2 pages in 1 sitemap; skipped 1 excluded by pattern; lastmod from 2 mtime; wrote "
    )
    assert warnings == []
    urls = published(root, "https://example.com/")
    assert [(u.loc, u.priority, u.changefreq) for u in urls] == [
        ("https://example.com/", None, None),
        ("https://example.com/docs/a.html", "0.9", "weekly"),
    ]


def test_iter_entries_writes_nothing(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    entries = list(sitemapgen.iter_entries(Config(docroot=root, base_url="https://example.com/")))
    assert [e.loc for e in entries] == ["https://example.com/a.html"]
    assert sorted(p.name for p in root.iterdir()) == ["a.html"]


def test_warnings_go_to_logging_by_default(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    (root / "b.html").symlink_to("missing")
    sitemapgen.build(Config(docroot=root, base_url="https://example.com/"))
    assert [r.getMessage() for r in caplog.records] == ["b.html: skipped, broken symlink"]
    assert locs(root, "https://example.com/") == ["https://example.com/a.html"]


def test_undecodable_names_are_shown_escaped_in_warnings(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {"a.html": html()})
    (root / "b\udcff.html").symlink_to("missing")
    warnings: list[str] = []
    sitemapgen.build(Config(docroot=root, base_url="https://example.com/"), on_warning=warnings.append)
    assert warnings == ["b\\xff.html: skipped, broken symlink"]


def _kind(i: int) -> str:
    if i % 50 == 0:
        return "noindex"
    if i % 77 == 0:
        return "canonical"
    if i % 101 == 0:
        return "bad-hreflang"
    return "plain"


def _big_site(root: Path, n: int) -> Path:
    for i in range(n):
        directory = root / f"d{i // 500:02}"
        if i % 500 == 0:
            directory.mkdir(parents=True)
        kind = _kind(i)
        if kind == "noindex":
            text = '<head><meta name="robots" content="noindex"></head>'
        elif kind == "canonical":
            text = '<head><link rel="canonical" href="/d00/p1.html"></head>'  # a plain page'
        elif kind == "bad-hreflang":
            text = '<head><link rel="alternate" hreflang="bad language" href="/x"></head>'  # a warning, from a worker
        else:
            text = f'<head><title>{i}</title><link rel="alternate" hreflang="en" href="/en/{i}"></head><body>'
        (directory / f"p{i}.html").write_text(text)
        os.utime(directory / f"p{i}.html", (1_600_000_000 + i, 1_600_000_000 + i))
    return root


def _walk_skips(root: Path) -> int:
    """In every directory of `root`: a duplicate URL, an excluded page, a broken symlink.
    So the walk's own skips and warnings fall among the pages of every worker batch."""
    directories = sorted(p for p in root.iterdir() if p.is_dir())
    for directory in directories:
        (directory / "index.html").write_text("<head></head>")
        (directory / "index.htm").write_text("<head></head>")  # same URL: skipped, with a warning
        (directory / "404.html").write_text("")  # excluded by default, counted
        (directory / "p2x.html").symlink_to("missing")  # broken, with a warning
    return len(directories)


@pytest.mark.forks  # else no worker starts
@pytest.mark.parametrize("jobs", [2, 3])  # each against jobs=1, no worker processes
def test_worker_processes_change_nothing_but_speed(ram_tmp: Path, jobs: int) -> None:
    root = _big_site(ram_tmp / "site", 6_000)  # more than the pages processed before workers start
    directories = _walk_skips(root)
    outputs = []
    for n in (1, jobs):
        out = ram_tmp / f"out-{n}"
        warnings: list[str] = []
        result = sitemapgen.build(
            Config(docroot=root, base_url="https://example.com/", out_dir=out, jobs=n), on_warning=warnings.append
        )
        outputs.append((output_files(out), result.listed, dict(result.skipped), warnings))
    assert outputs[0] == outputs[1]
    files, listed, skipped, warnings = outputs[0]
    kinds = [_kind(i) for i in range(6_000)]
    assert listed == kinds.count("plain") + kinds.count("bad-hreflang") + directories
    assert skipped == {
        SkipReason.EXCLUDED: directories,
        SkipReason.NOINDEX: kinds.count("noindex"),
        SkipReason.CANONICAL: kinds.count("canonical"),
        SkipReason.BROKEN_SYMLINK: directories,
        SkipReason.DUPLICATE_URL: directories,
    }
    # The plain pages' clusters do not name themselves, and no <html lang> says how; their
    # links name pages that do not exist: one line each for all of them, at the end.
    plain = kinds.count("plain")
    assert len(warnings) == kinds.count("bad-hreflang") + 2 * directories + 2
    assert warnings[-2].startswith(f"{plain:,} pages: hreflang links do not name the page itself")
    assert warnings[-1].startswith(f"{plain:,} hreflang links on {plain:,} pages dropped")
    assert sum("hreflang link ignored" in w for w in warnings) == kinds.count("bad-hreflang")
    # In walk order, whichever process found them: directory by directory.
    assert warnings[0] == "d00/index.htm: skipped, same URL as an earlier page (d00/index.html)"
    assert "d00/p2x.html: skipped, broken symlink" in warnings
    directories_warned = [w.split("/")[0] for w in warnings[:-2]]
    assert directories_warned == sorted(directories_warned)


def test_open_files_stay_bounded(ram_tmp: Path) -> None:
    root = _big_site(ram_tmp / "site", 10_000)
    code = (
        "import resource, sitemapgen; resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256));"
        f"r = sitemapgen.build(sitemapgen.Config(docroot={str(root)!r}, base_url='https://example.com/', jobs=2),"
        " on_warning=lambda m: None); print(r.listed)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    kinds = [_kind(i) for i in range(10_000)]
    assert done.stdout.strip() == str(kinds.count("plain") + kinds.count("bad-hreflang"))


@pytest.mark.parametrize(
    "step",
    [pytest.param(1, id="first-chunk-open"), pytest.param(3, id="first-rename"), pytest.param(12, id="mid-build")],
)
def test_ctrl_c_with_workers_is_quiet_and_publishes_nothing_half_done(ram_tmp: Path, step: int) -> None:
    """Ctrl-C, sent by the fault hook to the whole process group (as a terminal does) at a
    chosen file operation: with workers running, one quiet line, exit 130, nothing published."""
    root = _big_site(ram_tmp / "site", 20_000)
    out = ram_tmp / "out"
    cmd = [sys.executable, "-m", "sitemapgen", "build", str(root), "--base-url", "https://example.com/"]
    # Small sitemaps, so chunk files are opened and closed all through the walk, with workers running.
    cmd += ["--out", str(out), "--max-urls-per-sitemap", "100", "--jobs", "2"]
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, FAULT_ENV: f"{step}:INT"},
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    assert done.returncode == 130, done.stderr
    *warnings, last = done.stderr.splitlines()
    assert last == "interrupted"  # and no traceback, from it or its workers: only the pages' own warnings
    # (and, when the walk finished before the interrupt, the counted lines said once at its end)
    assert all(
        line.startswith("warning: ") and ("hreflang link ignored" in line or " pages: hreflang links do not" in line)
        for line in warnings
    ), warnings
    assert not out.exists()  # it created the directory, and removed it again, empty


@pytest.mark.forks  # else no worker starts
def test_a_build_stopped_in_the_writer_ends_its_workers_before_it_raises(
    ram_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the writer while workers run: when `build` raises, its workers are gone, though
    the caller still holds the exception (as the command's exit handling does, in a cycle) and no
    garbage was collected. Left to the collector, they were ended in whichever thread collected:
    on Python 3.13, the worker pool's own, which then waited on itself forever."""
    root = _big_site(ram_tmp / "site", 6_000)
    step = Faults.step

    def interrupted(faults: Faults) -> None:
        step(faults)
        if faults.count == 3:  # the first rename: the walk, and the workers, are far from done
            raise KeyboardInterrupt

    monkeypatch.setattr(Faults, "step", interrupted)
    config = Config(docroot=root, base_url="https://example.com/", out_dir=ram_tmp / "out", jobs=2)
    gc.disable()
    try:
        with pytest.raises(KeyboardInterrupt) as held:  # and held on to, as a caller may
            sitemapgen.build(replace(config, max_urls_per_sitemap=100), on_warning=lambda message: None)
        assert multiprocessing.active_children() == [], held
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("fault", "code", "last"),
    [
        pytest.param("40:TERM", 143, "terminated", id="sigterm-to-the-process"),
        pytest.param("40", -9, None, id="sigkill-to-the-process"),
    ],
)
def test_a_signal_mid_build_leaves_no_worker_no_lock_and_no_litter(
    ram_tmp: Path, fault: str, code: int, last: str | None
) -> None:
    """`kill PID` (or SIGKILL) while workers run: the old set stays whole; the caller's pipes close
    when the process ends (no worker keeps them); the lock is free at once; nothing is left behind."""
    root = _big_site(ram_tmp / "site", 6_000)
    out = ram_tmp / "out"
    args = ["build", str(root), "--base-url", "https://example.com/", "--out", str(out)]
    args += ["--max-urls-per-sitemap", "100", "--quiet"]
    # The builds in this process without workers: the same set (test_worker_processes_change_nothing_but_speed).
    sitemapgen.cli.program.main([*args, "--jobs", "1"])
    before = output_files(out)
    for path in list(root.rglob("p1*.html")):
        os.utime(path, (1_700_000_000, 1_700_000_000))  # a new generation to write
    with subprocess.Popen(
        [sys.executable, "-m", "sitemapgen", *args, "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, FAULT_ENV: fault},
    ) as killed:
        err = killed.stderr.read() if killed.stderr else ""  # EOF: every holder of the pipe is gone
        assert killed.wait(timeout=30) == code, err
    if last is not None:
        assert err.splitlines()[-1] == last
    assert "Traceback" not in err
    after = output_files(out)
    listed = ["sitemap.xml", *read_published(out)]
    assert {name: after[name] for name in listed} == before  # the old set, whole
    if code != -9:  # it cleaned up itself: no new chunk, no temp file, no journal
        assert sorted(os.listdir(out)) == sorted(listed)
    assert sitemapgen.cli.program.main([*args, "--jobs", "1"]) == 0  # the lock went with the process
    # The journal tidied up; the files the previous index listed stay until the next build.
    retired = read_retired(out, read_published(out))
    assert retired
    assert sorted(os.listdir(out)) == sorted(["sitemap.xml", *read_published(out), RETIRED_NAME, *retired])


def _dies(batch: object) -> object:
    os._exit(9)  # as the OOM killer would end a worker


@pytest.mark.forks  # else no worker starts
def test_a_worker_that_dies_is_a_clear_error(ram_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _big_site(ram_tmp / "site", 5_000)
    out = ram_tmp / "out"
    sitemapgen.build(Config(docroot=root, base_url="https://example.com/", out_dir=out, jobs=1))
    before = output_files(out)

    monkeypatch.setattr(sys.modules["sitemapgen.util.parallel"], "_run", _dies)
    with pytest.raises(sitemapgen.SitemapgenError, match="a worker process died"):
        sitemapgen.build(Config(docroot=root, base_url="https://example.com/", out_dir=out, jobs=2))
    assert output_files(out) == before  # the published set is the old one, whole


@pytest.mark.parametrize(
    ("style", "listed", "duplicates"),
    [
        pytest.param("directory", ["", "a.htm", "a.html"], ["index.htm"], id="directory"),
        pytest.param("index", ["index.html", "index.htm", "a.htm", "a.html"], [], id="index"),
        pytest.param("extensionless", ["", "a"], ["index.htm", "a.html"], id="extensionless"),
    ],
)
def test_files_that_share_a_url_are_listed_once(
    tmp_path: Path, style: str, listed: list[str], duplicates: list[str]
) -> None:
    from sitemapgen.urls import UrlStyle

    root = make_tree(tmp_path / "site", {"index.html": html(), "index.htm": html(), "a.htm": html(), "a.html": html()})
    warnings: list[str] = []
    config = Config(docroot=root, base_url="https://example.com/", url_style=UrlStyle(style))
    result = sitemapgen.build(config, on_warning=warnings.append)
    assert locs(root, "https://example.com/") == ["https://example.com/" + path for path in listed]
    assert result.skipped.get(SkipReason.DUPLICATE_URL, 0) == len(duplicates)
    assert [w.partition(":")[0] for w in warnings] == duplicates
    for name in duplicates:
        assert "same URL as an earlier page" in sitemapgen.explain(config, [name])[0].lines[0]


@pytest.mark.parametrize(
    "tag",
    [
        pytest.param('<link rel="alternate" hreflang="de" href="https://example.com/de/%zz.html">', id="bad-escape"),
        pytest.param('<link rel="alternate" hreflang="fr" href="https://exa mple.com/fr/">', id="space-in-host"),
        pytest.param('<link rel="alternate" hreflang="it" href="https://example.com:99999/it/">', id="port-range"),
        pytest.param('<link rel="alternate" hreflang="nl" href="https://example.com/%">', id="lone-percent"),
        pytest.param('<link rel="alternate" hreflang="pt" href="https://exa<mple.com/">', id="angle-in-host"),
        pytest.param('<meta property="article:modified_time" content="2024-01-02T03:04:05+15:00">', id="offset"),
    ],
)
def test_nothing_invalid_from_a_head_is_published(tmp_path: Path, tag: str) -> None:
    """What a head says that RFC 3986 or the XSDs refuse is dropped with a warning naming the
    page, never copied into the sitemap; the valid alternate beside it is kept."""
    good = '<link rel="alternate" hreflang="es" href="/">'  # the page itself
    root = make_tree(tmp_path / "site", {"index.html": f'<html lang="es"><head>{tag}{good}</head><body></body></html>'})
    warnings: list[str] = []
    result = sitemapgen.build(
        Config(docroot=root, base_url="https://example.com/", lastmod=(LastmodSource.META, LastmodSource.MTIME)),
        on_warning=warnings.append,
    )
    assert result.listed == 1
    [url] = published(root, "https://example.com/")  # each file validated against the XSDs
    assert url.alternates == (("es", "https://example.com/"),)
    # No page gave a readable modified time: the last warning says that 'meta' dated none.
    assert len(warnings) == 2
    assert warnings[0].startswith("index.html: ")
    assert warnings[1].startswith("lastmod 'meta' dated none of the 1 page (mtime dated them): ")


def test_build_writes_index_and_gzipped_chunk(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"index.html": html(), "a/b/index.html": html(), "a/b.html": html(), "style.css": "x"})
    for page, mtime in (("index.html", 1_600_000_000), ("a/b/index.html", 1_700_000_000), ("a/b.html", 1_650_000_000)):
        os.utime(root / page, (mtime, mtime))
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert run.out == ""
    assert run.err.count("\n") == 1
    assert "listed 3 pages in 1 sitemap" in run.err
    # The index's lastmod is the newest page's (a/b/index.html).
    assert read_index(root / "sitemap.xml") == [(BASE + "sitemap-1.xml.gz", "2023-11-14T22:13:20+00:00")]
    assert locs(root, BASE) == [BASE, BASE + "a/b.html", BASE + "a/b/"]
    assert (root / "sitemap-1.xml.gz").read_bytes()[:2] == b"\x1f\x8b"


def test_base_url_with_path_and_port_served_from_a_parent(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"index.html": html("home"), "guide/ü x.html": html("guide")})
    with static_server(tmp_path) as served:
        base = served + "public/"
        assert cli("build", root, "--base-url", base.removesuffix("/")).code == 0
        urls = locs(root, base)
        assert urls == [base, base + "guide/%C3%BC%20x.html"]
        assert [loc for loc, _ in read_index(root / "sitemap.xml")] == [base + "sitemap-1.xml.gz"]
        assert fetch(urls[1]) == html("guide").encode()
        assert fetch(read_index(root / "sitemap.xml")[0][0]) == (root / "sitemap-1.xml.gz").read_bytes()


def test_every_url_of_the_sample_site_resolves_on_a_static_server(cli: CliRunner, tmp_path: Path) -> None:
    import shutil

    sample = Path(__file__).parents[2] / "sample_site"
    root = tmp_path / "sample"
    shutil.copytree(sample, root, ignore=shutil.ignore_patterns("sitemap*.xml*"))
    config = sample.parent / "sample_site.toml"
    with static_server(root) as served:
        assert cli("build", root, "--config", config, "--base-url", served).code == 0
        urls = published(root, served)
        assert len(urls) >= 10
        for url in urls:
            path = root / unquote(urlsplit(url.loc).path).lstrip("/")
            if url.loc.endswith("/"):
                path = path / "index.html"
            assert fetch(url.loc) == path.read_bytes(), url.loc
        listed = {unquote(u.loc[len(served) :]) for u in urls}
        assert "drafts/next-post.html" not in listed
        assert "404.html" not in listed
        assert "docs/café.html" in listed


def test_no_pages_is_an_error_and_writes_nothing(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"404.html": html(), "x.css": ""})
    run = cli("build", root, "--base-url", BASE, "--out", tmp_path / "new")
    assert run.code == 2
    assert run.err == f"error: no pages to list under {root} (1 excluded by pattern); nothing written\n"
    assert not (tmp_path / "new").exists()
