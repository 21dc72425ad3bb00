"""Publishing safely: crash safety, the lock, stable chunks, check, list."""

from __future__ import annotations

import gzip
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest
from lxml import etree

import sitemapgen
import sitemapgen.output.published
from sitemapgen.config.settings import Config
from sitemapgen.output.published import read_published
from sitemapgen.output.retired import RETIRED_NAME
from sitemapgen.util.faults import FAULT_ENV

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    error_line,
    fetch,
    html,
    index_paths,
    is_cut_point,
    locs,
    make_tree,
    output_files,
    published,
    read_index,
    static_server,
)


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


@pytest.mark.forks  # each run in a child forked from this process
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
    # The journal let the next run remove exactly what the killed one had made: nothing else is left.
    assert sorted(p.name for p in out.iterdir()) == sorted(["sitemap.xml", *read_published(out)])


@pytest.mark.slow
def test_one_page_edit_in_120000_pages_rewrites_exactly_one_chunk(cli: CliRunner, ram_tmp: Path) -> None:
    """End to end, through a real tree; test_writer.py has the same properties at the writer's level."""
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
    assert edit.code == 0, edit.err
    assert f"; wrote {root / 'sitemap.xml'} and 1 of {chunks} sitemaps (" in edit.err
    assert f"; kept {chunks - 1} unchanged; 1 sitemap no longer listed kept until the next build\n" in edit.err
    after = output_files(root)
    assert set(before) <= set(after)  # one chunk file replaced (the old one kept until the next build)...
    assert len(set(after) - set(before)) == 1  # ...by one new file
    assert [n for n in set(before) & set(after) if before[n] != after[n]] == ["sitemap.xml"]
    index = dict(read_index(root / "sitemap.xml"))
    assert sum(1 for lastmod in index.values() if lastmod == "2023-11-14T22:13:20+00:00") == 1

    # One page added and one removed, 57,000 pages apart (more than a sitemap holds, so in two
    # chunks), neither a cut point: exactly those two chunks are replaced.
    added = next(f"section-042/new-{i}.html" for i in range(100) if not is_cut_point(f"{BASE}section-042/new-{i}.html"))
    removed = "section-099/page-0007.html"
    assert not is_cut_point(BASE + removed)
    (root / added).touch()
    (root / removed).unlink()
    changed = cli(*args)
    assert changed.code == 0, changed.err
    assert (
        f"; kept {chunks - 2} unchanged; 2 sitemaps no longer listed kept until the next build;"
        " removed 1 sitemap no longer listed\n"
    ) in changed.err
    final = output_files(root)
    assert len(set(after) - set(final)) == 1  # the file the edit retired
    assert len(set(final) - set(after)) == 2
    assert [n for n in set(after) & set(final) if after[n] != final[n]] == ["sitemap.xml"]
    listed = locs(root, BASE)
    assert len(listed) == 120_000
    assert BASE + added in listed
    assert BASE + removed not in listed


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


def test_published_names_come_from_the_index(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    assert read_published(root) == ["sitemap-1.xml.gz"]
    assert index_paths(root) == [root / "sitemap.xml"]


def test_a_real_sitemap_parser_finds_every_page_from_the_homepage(tmp_path: Path, cli: CliRunner) -> None:
    """What a crawler does: robots.txt, then the index, then every gzipped sitemap, over HTTP."""
    import logging

    from usp.tree import sitemap_tree_for_homepage

    from ..helpers import static_server

    sample = Path(__file__).parents[2] / "sample_site"
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
        assert (page.change_frequency.value if page.change_frequency else None) == ours[loc].changefreq


def test_a_full_disk_is_one_line_and_the_published_set_stays_whole(small_disk: Path, cli: CliRunner) -> None:
    root = make_tree(small_disk.parent / "site", {f"d{i % 20}/p{i}.html": html() for i in range(300)})
    out = small_disk / "out"
    args = [root, "--base-url", BASE, "--out", out, "--max-urls-per-sitemap", "100"]
    assert cli("build", *args).code == 0
    before = output_files(out)
    for i in range(300, 20_000):  # far more than the disk holds
        make_tree(root, {f"d{i % 20}/p{i}.html": html()})
    run = cli("build", *args)
    assert (run.code, run.err) == (
        3,
        f"error: {out}: cannot write the sitemaps: No space left on device; nothing new was published\n",
    )
    assert output_files(out) == before  # the old set, whole, and nothing else
    assert sorted(p.name for p in out.iterdir()) == sorted(before)
    published(out, BASE)  # still valid, every file present
    fresh = small_disk / "fresh"
    assert cli("build", root, "--base-url", BASE, "--out", fresh, "--max-urls-per-sitemap", "100").code == 3
    assert not fresh.exists()  # the directory it created is gone again


LOOKALIKES = {  # named like our files, but no index of ours lists them: never ours to touch
    "sitemap-news-1.xml.gz": b"a hand-made news sitemap",
    "sitemap-3.xml.gz": b"someone else's",
    ".sitemap-new.xml.gz.tmp": b"not a temp file of ours",
    ".sitemap.xml.tmp": b"nor this",
}


def test_files_that_only_look_like_ours_are_never_removed_or_replaced(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(30)})
    make_tree(root, LOOKALIKES)
    (root / "sitemap-1.xml.gz").symlink_to(root / "p0.html")  # where our first chunk would go
    (root / ".sitemap-new.xml.gz.2.tmp").mkdir()  # a directory named like a temp file
    args = ("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "5", "--chunking", "fill")
    first = cli(*args)
    assert first.code == 0, first.err
    assert (
        f"warning: {root}: left alone, though named like sitemapgen's files (no index of ours lists them, so they"
        " are not ours to remove): .sitemap-new.xml.gz.2.tmp, .sitemap-new.xml.gz.tmp, .sitemap.xml.tmp,"
        " sitemap-1.xml.gz, sitemap-3.xml.gz and 1 more\n"
    ) in first.err
    names = read_published(root)
    assert "sitemap-1.xml.gz" not in names
    assert "sitemap-3.xml.gz" not in names
    assert len(names) == 6
    for i in range(10, 30):  # a smaller site: most of our chunks are no longer listed, and go
        (root / f"p{i}.html").unlink()
    second = cli(*args)
    assert second.code == 0, second.err
    assert second.err.endswith("; 5 sitemaps no longer listed kept until the next build\n")
    third = cli(*args)
    assert third.code == 0, third.err
    assert third.err.endswith("; removed 5 sitemaps no longer listed\n")
    assert not set(names) - set(read_published(root)) & {p.name for p in root.iterdir()}
    assert {name: (root / name).read_bytes() for name in LOOKALIKES} == LOOKALIKES
    assert (root / "sitemap-1.xml.gz").is_symlink()
    assert (root / ".sitemap-new.xml.gz.2.tmp").is_dir()
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(("sitemap", ".sitemap"))) == sorted(
        ["sitemap.xml", *read_published(root), *LOOKALIKES, "sitemap-1.xml.gz", ".sitemap-new.xml.gz.2.tmp"]
    )
    assert locs(root, BASE) == [BASE + f"p{i}.html" for i in range(10)]


def test_an_index_of_another_tool_is_replaced_said_in_the_summary_and_lists_nothing_of_ours(
    site: SiteFactory, cli: CliRunner
) -> None:
    root = site({"a.html": html()})
    generator = b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>'
    make_tree(root, {"sitemap.xml": generator, "sitemap-1.xml.gz": b"the generator's"})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert run.err.endswith("; replaced another tool's sitemap.xml\n")
    warnings = [line for line in run.err.splitlines() if line.startswith("warning: ")]
    assert [w.split(": ", 2)[2] for w in warnings] == [  # named like ours, so not the other tool's: left alone
        "left alone, though named like sitemapgen's files (no index of ours lists them, so they are not ours to"
        " remove): sitemap-1.xml.gz"
    ]
    assert (root / "sitemap-1.xml.gz").read_bytes() == b"the generator's"
    assert locs(root, BASE) == [BASE + "a.html"]


@pytest.mark.parametrize("planted", ["sitemap.xml", ".sitemapgen-journal"])
def test_a_symlink_planted_where_we_write_is_never_followed(site: SiteFactory, cli: CliRunner, planted: str) -> None:
    root = site({"a.html": html()})
    precious = root.parent / "precious"
    precious.write_bytes(b"precious")
    (root / planted).symlink_to(precious)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 2
    assert error_line(run.err).endswith("move it away")
    assert precious.read_bytes() == b"precious"
    assert sorted(p.name for p in root.iterdir()) == sorted(["a.html", planted])


def test_a_journal_names_only_what_may_go(tmp_path: Path, cli: CliRunner) -> None:
    """A killed run's journal: its files go, unless an index lists them or their bytes changed."""
    root = make_tree(tmp_path / "site", {"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    listed = read_published(root)[0]
    make_tree(root, {"sitemap-7.xml.gz": b"made by the killed run", "sitemap-8.xml.gz": b"changed since"})
    digest = sitemapgen.output.published.file_digest(root / "sitemap-7.xml.gz")
    assert digest is not None
    journal = (
        "sitemapgen journal 1: the files a run was creating here; the next run removes them\n"
        f"tmp .sitemap-new.xml.gz.tmp\nnew sitemap-7.xml.gz {digest.hex()}\n"
        f"new sitemap-8.xml.gz {digest.hex()}\nold {listed} {digest.hex()}\ntmp ../site/a.html\n"
    )
    make_tree(root, {".sitemapgen-journal": journal.encode(), ".sitemap-new.xml.gz.tmp": b"half"})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert sorted(p.name for p in root.iterdir()) == sorted(["a.html", "sitemap.xml", listed, "sitemap-8.xml.gz"])
    assert "sitemap-8.xml.gz" in run.err  # named, as a look-alike, not removed


def test_files_the_previous_index_listed_stay_until_the_next_build(site: SiteFactory, cli: CliRunner) -> None:
    """A crawler that read the index before a build fetches, after it, every file that index
    listed (no 404); the next build removes the ones no index lists, and a third identical one
    changes nothing. check, validate and the summary count only the current index's files."""
    root = site({f"p{i:02}.html": html(f"p{i}") for i in range(30)})
    for page in root.glob("*.html"):
        os.utime(page, (1_600_000_000, 1_600_000_000))
    args = ("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "5", "--chunking", "fill")
    assert cli(*args).code == 0
    crawled = [loc for loc, _ in read_index(root / "sitemap.xml")]  # a crawler reads the index...
    for i in (3, 17):
        os.utime(root / f"p{i:02}.html", (1_700_000_000, 1_700_000_000))  # in the first and the fourth sitemap
    edit = cli(*args)  # ...a build publishes another...
    assert edit.code == 0, edit.err
    assert edit.err.endswith("; kept 4 unchanged; 2 sitemaps no longer listed kept until the next build\n")
    current = read_published(root)
    unlisted = sorted(loc.removeprefix(BASE) for loc in crawled if loc.removeprefix(BASE) not in current)
    assert unlisted == ["sitemap-1.xml.gz", "sitemap-4.xml.gz"]
    with static_server(root) as url:  # ...and the crawler fetches what it read
        for loc in crawled:
            urlset = etree.fromstring(gzip.decompress(fetch(url + loc.removeprefix(BASE))))
            assert len(urlset) == 5
    check = cli("check", *args[1:])
    assert (check.code, check.out) == (0, "current: 6 sitemaps, 30 pages\n")
    validate = cli("validate", root / "sitemap.xml", "--base-url", BASE)
    assert (validate.code, validate.err) == (0, "7 files, 30 URLs: ok\n")
    kept = output_files(root)

    again = cli(*args)
    assert again.code == 0, again.err
    assert again.err.endswith("; kept all 6 sitemaps unchanged; removed 2 sitemaps no longer listed\n")
    assert sorted(set(kept) - set(output_files(root))) == unlisted
    assert not (root / RETIRED_NAME).exists()
    settled = sorted(os.listdir(root)), output_files(root)
    assert cli(*args).code == 0
    assert (sorted(os.listdir(root)), output_files(root)) == settled


def test_a_record_that_cannot_be_written_removes_the_unlisted_files_at_once_and_says_so(
    site: SiteFactory, cli: CliRunner
) -> None:
    root = site({f"p{i:02}.html": html(f"p{i}") for i in range(10)})
    (root / RETIRED_NAME).mkdir()  # not a file sitemapgen can replace
    args = ("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "5", "--chunking", "fill")
    assert cli(*args).code == 0
    os.utime(root / "p01.html", (1_700_000_000, 1_700_000_000))
    edit = cli(*args)
    assert edit.code == 0
    assert edit.err.splitlines()[0] == (
        f"warning: {root / RETIRED_NAME}: cannot write (Is a directory), so the sitemap files the new index no"
        " longer lists were removed at once, not kept until the next build; move it away"
    )
    assert edit.err.endswith("; kept 1 unchanged; removed 1 sitemap no longer listed\n")
    assert sorted(output_files(root)) == sorted(["sitemap.xml", *read_published(root)])
    (root / RETIRED_NAME).rmdir()
    again = cli(*args)
    assert (again.code, again.err.count("\n")) == (0, 1)  # the summary alone
