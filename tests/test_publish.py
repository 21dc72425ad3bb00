"""Publishing safely: crash safety, the lock, stable chunks, check, validate, list, robots.txt."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import shutil
import zlib
from pathlib import Path

import pytest

import sitemapgen
from sitemapgen.build import output_lock
from sitemapgen.config import Config
from sitemapgen.writer import FAULT_ENV, read_published

from .conftest import BASE, CliRunner, SiteFactory
from .helpers import html, index_paths, locs, make_tree, output_files, published, read_index


def _pages(out: Path) -> list[tuple[str, str | None]]:
    """(loc, lastmod) of every published entry; asserts every listed file is whole and valid."""
    return [(u.loc, u.lastmod) for u in published(out, BASE)]


def _killed_build(docroot: Path, out: Path, fault_at: int) -> int:
    """Run a build in a forked child that SIGKILLs itself at its `fault_at`-th file operation."""

    def child() -> None:
        os.environ[FAULT_ENV] = str(fault_at)
        config = Config(docroot=docroot, base_url=BASE, out_dir=out, max_urls_per_sitemap=10, read_heads=False)
        sitemapgen.build(config, on_warning=lambda _: None)

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(30)
    return process.exitcode if process.exitcode is not None else -999


def test_a_run_killed_at_any_file_operation_leaves_one_whole_generation(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {f"s{i % 3}/p{i:02}.html": html(f"{i}") for i in range(30)})
    for i, path in enumerate(sorted(root.rglob("*.html"))):
        os.utime(path, (1_600_000_000 + i, 1_600_000_000 + i))
    out = tmp_path / "out"
    assert _killed_build(root, out, 0) == 0  # 0: no fault; generation A
    old = sorted(_pages(out))
    saved = tmp_path / "saved"
    shutil.copytree(out, saved)
    # Generation B: edits, additions and removals across the tree.
    for name in ("s0/p00.html", "s1/p13.html", "s2/p29.html"):
        os.utime(root / name, (1_700_000_000, 1_700_000_000))
    for i in range(30, 36):
        make_tree(root, {f"s{i % 3}/p{i:02}.html": html(f"{i}")})
        os.utime(root / f"s{i % 3}/p{i:02}.html", (1_700_000_000, 1_700_000_000))
    (root / "s1/p04.html").unlink()
    (root / "s2/p17.html").unlink()
    new_out = tmp_path / "new"
    shutil.copytree(saved, new_out)
    assert _killed_build(root, new_out, 0) == 0
    new = sorted(_pages(new_out))
    assert new != old

    outcomes: dict[str, int] = {"old": 0, "new": 0}
    fault_at = 1
    while True:
        shutil.rmtree(out)
        shutil.copytree(saved, out)
        code = _killed_build(root, out, fault_at)
        assert code in (0, -9), f"fault {fault_at}: exit {code}"
        got = sorted(_pages(out))  # parses every index and every chunk it lists
        assert len(got) == len({loc for loc, _ in got})  # every page exactly once
        assert got in (old, new), f"killed at file operation {fault_at}: a mix of generations"
        outcomes["old" if got == old else "new"] += 1
        if code == 0:
            break
        # The lock died with the process: the next run goes ahead, and tidies up.
        fault_at += 1
    assert fault_at > 20  # every operation of a real run was tried
    assert outcomes["old"] > 0
    assert outcomes["new"] > 0
    assert _killed_build(root, out, 0) == 0
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


def test_a_second_run_on_the_same_output_fails_fast(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    with output_lock(root):
        run = cli("build", root, "--base-url", BASE)
    assert run.code == 2
    assert run.err == f"error: another sitemapgen run is writing to {root}; try again when it has finished\n"
    assert not (root / "sitemap.xml").exists()
    assert cli("build", root, "--base-url", BASE).code == 0  # released


def _chunk_of(loc: str) -> bool:
    return zlib.crc32(loc.encode()) % 10_000 == 0


def test_one_page_edit_in_120000_pages_rewrites_exactly_one_chunk(cli: CliRunner, ram_tmp: Path) -> None:
    root = ram_tmp / "big"
    for d in range(120):
        (root / f"section-{d:03}").mkdir(parents=True)
        for i in range(1000):
            (root / f"section-{d:03}" / f"page-{i:04}.html").touch()
    for path in root.rglob("*.html"):
        os.utime(path, (1_600_000_000, 1_600_000_000))
    args = ("build", root, "--base-url", BASE, "--no-read-heads")
    first = cli(*args)
    assert first.code == 0, first.err
    before = output_files(root)
    chunks = len(before) - 1
    assert 6 < chunks < 30

    os.utime(root / "section-057/page-0421.html", (1_700_000_000, 1_700_000_000))
    edit = cli(*args)
    assert f"1 of {chunks} sitemaps changed, 1 removed" in edit.err
    after = output_files(root)
    assert len(set(before) - set(after)) == 1  # one chunk file replaced...
    assert len(set(after) - set(before)) == 1  # ...by one new file
    assert [n for n in set(before) & set(after) if before[n] != after[n]] == ["sitemap.xml"]
    index = dict(read_index(root / "sitemap.xml"))
    assert sum(1 for lastmod in index.values() if lastmod == "2023-11-14T22:13:20+00:00") == 1

    new_page = next(f"section-042/new-{i}.html" for i in range(100) if not _chunk_of(f"{BASE}section-042/new-{i}.html"))
    (root / new_page).touch()
    (root / "section-099/page-0007.html").unlink()
    changed = cli(*args)
    assert "2 of" in changed.err  # one chunk for the addition, one for the removal
    assert len(locs(root, BASE)) == 120_000


def test_sections_get_their_own_series(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"index.html": html(), "blog/a.html": html(), "blog/b/index.html": html(), "docs/x.html": html()})
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\n[[sitemaps]]\nname = "blog"\npattern = "blog/"\n')
    assert cli("build", root, "--config", config).code == 0
    names = [loc.rpartition("/")[2] for loc, _ in read_index(root / "sitemap.xml")]
    assert names == ["sitemap-1.xml.gz", "sitemap-blog-1.xml.gz"]
    assert [u.loc for u in published(root, BASE)] == [
        BASE,
        BASE + "docs/x.html",
        BASE + "blog/a.html",
        BASE + "blog/b/",
    ]


def test_check_fresh_stale_and_missing(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(12)})
    missing = cli("check", root, "--base-url", BASE)
    assert missing.code == 1
    assert missing.out.startswith("missing: no sitemap index at")
    assert cli("build", root, "--base-url", BASE).code == 0
    before = output_files(root)
    fresh = cli("check", root, "--base-url", BASE)
    assert (fresh.code, fresh.out) == (0, "current: 1 sitemaps, 12 pages\n")
    os.utime(root / "p3.html", (1_700_000_000, 1_700_000_000))
    (root / "new.html").write_text(html())
    (root / "p5.html").unlink()
    stale = cli("check", root, "--base-url", BASE)
    assert stale.code == 1
    assert stale.out.splitlines()[0].startswith("stale: 1 pages added, 1 removed, 1 changed;")
    assert f"  + {BASE}new.html" in stale.out
    assert f"  - {BASE}p5.html" in stale.out
    assert f"  ~ {BASE}p3.html" in stale.out
    assert output_files(root) == before  # check never writes
    assert cli("build", root, "--base-url", BASE).code == 0
    assert cli("check", root, "--base-url", BASE).code == 0


def test_validate_accepts_what_build_writes(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "ü x.html": html(), "q&a.html": html()})
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "1").code == 0
    run = cli("validate", root / "sitemap.xml", "--base-url", BASE)
    assert run.code == 0, run.out
    assert run.err == "4 files, 3 URLs: ok\n"


def test_validate_accepts_another_tools_plain_sitemap(tmp_path: Path, cli: CliRunner) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "   <url>\n      <loc>http://www.example.com/</loc>\n      <lastmod>2005-01-01</lastmod>\n"
        "      <changefreq>monthly</changefreq>\n      <priority>0.8</priority>\n   </url>\n"
        "   <url>\n      <loc>http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii</loc>\n"
        "      <changefreq>weekly</changefreq>\n   </url>\n</urlset>\n"
    )
    assert cli("validate", path).code == 0


URLSET = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</urlset>\n'


def _url(loc: str, extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>\n"


BROKEN = [
    pytest.param(URLSET.format(_url("https://example.com/a&b")), "not well-formed XML", id="unescaped-ampersand"),
    pytest.param(
        URLSET.format(_url("https://example.com/it's")), '"\'" in <loc> must be entity-escaped', id="raw-apostrophe"
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<priority>1.5</priority>")), "schema:", id="priority-1.5"
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<changefreq>often</changefreq>")), "schema:", id="changefreq"
    ),
    pytest.param(URLSET.format(_url("https://example.com/a", "<lastmod>yesterday</lastmod>")), "schema:", id="lastmod"),
    pytest.param(URLSET.format(_url("https://example.com/a b")), "must be percent-encoded", id="space"),
    pytest.param(URLSET.format(_url("https://example.com/über")), "must be percent-encoded", id="non-ascii"),
    pytest.param(
        URLSET.format(_url("https://example.com/100%")), "'%' not followed by two hex digits", id="bad-percent"
    ),
    pytest.param(URLSET.format(_url("https://example.com/" + "a" * 2030)), "fewer than 2,048", id="long-loc"),
    pytest.param(
        URLSET.format(_url("https://example.com/a") + _url("https://other.example/b")),
        "a sitemap lists one host",
        id="two-hosts",
    ),
    pytest.param(URLSET.format(_url("https://example.com/docs/a")), "location rule", id="location-rule"),
    pytest.param(
        URLSET.format(_url("https://example.com/a") + _url("https://example.com/a")),
        "listed more than once",
        id="duplicate",
    ),
    pytest.param(URLSET.format(""), "schema:", id="empty-urlset"),
    pytest.param('<?xml version="1.0"?><rss/>', "neither urlset nor sitemapindex", id="not-a-sitemap"),
]


@pytest.mark.parametrize(("content", "message"), BROKEN)
def test_validate_reports_each_rule(tmp_path: Path, cli: CliRunner, content: str, message: str) -> None:
    directory = tmp_path / "site" / "blog"
    directory.mkdir(parents=True)
    path = directory / "sitemap.xml"
    path.write_text(content)
    base = "https://example.com/blog/" if message == "location rule" else None
    run = cli("validate", path, *(["--base-url", base] if base else []))
    assert run.code == 1
    assert message in run.out, run.out
    assert run.out.startswith(f"{path}:")


def test_validate_limits_and_index_entries(tmp_path: Path, cli: CliRunner) -> None:
    many = tmp_path / "many.xml.gz"
    many.write_bytes(
        gzip.compress(URLSET.format("".join(_url(f"https://example.com/{i}") for i in range(50_001))).encode())
    )
    run = cli("validate", many)
    assert "50,001 URLs; a sitemap may list at most 50,000" in run.out
    big = tmp_path / "big.xml"
    big.write_text(URLSET.format(_url("https://example.com/a", "<!--" + "x" * 10_485_760 + "-->")))
    assert "larger than 10,485,760 bytes uncompressed" in cli("validate", big).out
    index = tmp_path / "sitemap.xml"
    index.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/missing.xml.gz</loc></sitemap>\n</sitemapindex>\n"
    )
    run = cli("validate", index)
    assert run.code == 1
    assert (
        f"{index}:3: lists https://example.com/missing.xml.gz, but {tmp_path / 'missing.xml.gz'} does not exist"
        in run.out
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(None, None, id="missing-left-missing"),
        pytest.param(
            b"User-agent: *\nDisallow: /private/\n",
            b"User-agent: *\nDisallow: /private/\n\nSitemap: https://example.com/sitemap.xml\n",
            id="added",
        ),
        pytest.param(
            b"User-agent: *\r\nDisallow:\r\n",
            b"User-agent: *\r\nDisallow:\r\n\r\nSitemap: https://example.com/sitemap.xml\r\n",
            id="crlf",
        ),
        pytest.param(
            b"Sitemap: https://example.com/sitemap.xml\nUser-agent: *\n",
            b"Sitemap: https://example.com/sitemap.xml\nUser-agent: *\n",
            id="present-unchanged",
        ),
        pytest.param(
            b"User-agent: *   \nSitemap: https://example.com/sitemap-index-2.xml\n"
            b"Sitemap: https://other.example/sitemap.xml\n# end",
            b"User-agent: *   \nSitemap: https://other.example/sitemap.xml\n# end\n\nSitemap: https://example.com/sitemap.xml\n",
            id="stale-ours-replaced-others-kept",
        ),
    ],
)
def test_robots_txt_update(site: SiteFactory, cli: CliRunner, before: bytes | None, after: bytes | None) -> None:
    root = site({"a.html": html()})
    if before is not None:
        (root / "robots.txt").write_bytes(before)
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "update")
    assert run.code == 0
    assert ((root / "robots.txt").read_bytes() if (root / "robots.txt").exists() else None) == after
    assert ("updated robots.txt" in run.err) == (before != after)


def test_robots_txt_created_only_when_asked(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    assert not (root / "robots.txt").exists()
    assert cli("build", root, "--base-url", BASE, "--robots-txt", "create").code == 0
    assert (root / "robots.txt").read_bytes() == b"Sitemap: https://example.com/sitemap.xml\n"


def test_json_summary_and_quiet(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "404.html": html()})
    run = cli("build", root, "--base-url", BASE, "--json")
    assert run.code == 0
    assert run.err == ""
    data = json.loads(run.out)
    assert (data["listed"], data["skipped"], data["changed"]) == (1, {"excluded": 1}, 1)
    assert data["indexes"] == [str(root / "sitemap.xml")]
    quiet = cli("build", root, "--base-url", BASE, "--quiet")
    assert (quiet.code, quiet.out, quiet.err) == (0, "", "")


def test_progress_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sitemapgen.cli import _progress

    with _progress(True) as off:
        assert off is None  # pytest's stderr is not a terminal: CI logs stay clean
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with _progress(True) as on:
        assert on is not None
        on(1000)
    with _progress(False) as quiet:
        assert quiet is None


def test_list(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"index.html": html(), "ü.html": html(), "no.html": '<meta name="robots" content="noindex">'})
    os.utime(root / "index.html", (1_600_000_000, 1_600_000_000))
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\n[[rules]]\npattern = "/index.html"\npriority = 1.0\n')
    run = cli("list", root, "--config", config)
    assert run.code == 0
    assert run.out.splitlines()[0] == f"{BASE}\t2020-09-13T12:26:40+00:00\t\t1.0\tindex.html"
    assert len(run.out.splitlines()) == 2
    rows = [json.loads(line) for line in cli("list", root, "--config", config, "--json").out.splitlines()]
    assert rows[1] == {
        "url": BASE + "%C3%BC.html",
        "lastmod": rows[1]["lastmod"],
        "changefreq": None,
        "priority": None,
        "file": "ü.html",
        "lastmod_source": "mtime",
    }
    assert not (root / "sitemap.xml").exists()


def test_published_names_come_from_the_index(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    assert read_published(root) == ["sitemap-1.xml.gz"]
    assert index_paths(root) == [root / "sitemap.xml"]


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


def test_a_real_sitemap_parser_finds_every_page_from_the_homepage(tmp_path: Path, cli: CliRunner) -> None:
    """What a crawler does: robots.txt, then the index, then every gzipped sitemap, over HTTP."""
    import logging

    from usp.tree import sitemap_tree_for_homepage

    from .helpers import static_server

    sample = Path(__file__).parent.parent / "sample_site"
    root = tmp_path / "site"
    shutil.copytree(sample, root, ignore=shutil.ignore_patterns("sitemap*.xml*"))
    with static_server(root) as served:
        run = cli(
            "build",
            root,
            "--config",
            sample.parent / "sample_site.toml",
            "--base-url",
            served,
            "--robots-txt",
            "update",
            "--max-urls-per-sitemap",
            "5",
        )
        assert run.code == 0, run.err
        logging.disable(logging.WARNING)  # usp logs each common sitemap name it tries and misses
        try:
            tree = sitemap_tree_for_homepage(served)
            found = {page.url: page for page in tree.all_pages()}
        finally:
            logging.disable(logging.NOTSET)
    ours = {url.loc: url for url in published(root, served)}
    assert set(found) == set(ours)
    assert len(found) > 10
    for loc, page in found.items():
        assert str(page.priority) == (ours[loc].priority or "0.5")
        if ours[loc].changefreq:
            assert page.change_frequency is not None
            assert page.change_frequency.value == ours[loc].changefreq
