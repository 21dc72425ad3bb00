from __future__ import annotations

import gzip
import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemapgen import entry as entry_module
from sitemapgen.commands.validate import validate
from sitemapgen.config.words import Chunking
from sitemapgen.entry import Entry, escape_xml, format_entry, format_lastmod, format_priority, row_of
from sitemapgen.output.writer import SitemapFile, WriteResult, write_sitemaps
from sitemapgen.protocol import ChangeFreq, LastmodFormat
from sitemapgen.skips import Skip, SkipReason

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    Url,
    html,
    index_paths,
    is_cut_point,
    locs,
    output_files,
    read_chunk,
    read_index,
)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    path = tmp_path / "out"
    path.mkdir()
    return path


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "0.0"), (1.0, "1.0"), (0.5, "0.5"), (0.85, "0.85"), (1e-05, "0.00001"), (0.1 + 0.2, "0.30000000000000004")],
)
def test_priority_is_a_plain_decimal(value: float, text: str) -> None:
    assert format_priority(value) == text


def test_lastmod_formats() -> None:
    moment = datetime(2004, 10, 26, 8, 56, 39, tzinfo=UTC)
    assert format_lastmod(moment, LastmodFormat.DATETIME) == "2004-10-26T08:56:39+00:00"
    assert format_lastmod(moment, LastmodFormat.DATE) == "2004-10-26"
    east = moment.astimezone(timezone(timedelta(hours=5, minutes=30)))
    assert format_lastmod(east, LastmodFormat.DATETIME) == "2004-10-26T14:26:39+05:30"


@given(st.datetimes(timezones=st.just(UTC)), st.booleans())
def test_utc_lastmods_are_written_as_isoformat_writes_them(moment: datetime, warm: bool) -> None:
    # The UTC texts are put together from a kept day and two-digit strings, not by isoformat.
    if not warm:
        entry_module._DAYS.clear()
    assert format_lastmod(moment, LastmodFormat.DATETIME) == moment.isoformat(timespec="seconds")
    assert format_lastmod(moment, LastmodFormat.DATE) == moment.date().isoformat()
    _, xml, key, text, _, _ = row_of(Entry(BASE, moment), LastmodFormat.DATETIME)
    assert (key, text) == (moment.timestamp(), moment.isoformat(timespec="seconds"))
    assert f"<lastmod>{text}</lastmod>".encode() in xml


def test_the_kept_days_are_bounded() -> None:
    start = datetime(1990, 1, 1, tzinfo=UTC)
    for day in range(entry_module._DAYS_KEPT * 2):
        format_lastmod(start + timedelta(days=day), LastmodFormat.DATE)
        assert len(entry_module._DAYS) <= entry_module._DAYS_KEPT


def test_escape_xml_covers_the_five_protocol_characters() -> None:
    assert escape_xml("&<>'\"") == "&amp;&lt;&gt;&apos;&quot;"
    assert escape_xml("&amp;") == "&amp;amp;"


def test_entry_fields_in_schema_order() -> None:
    entry = Entry(BASE + "a", datetime(2020, 1, 1, tzinfo=UTC), ChangeFreq.DAILY, 0.3)
    assert format_entry(entry, LastmodFormat.DATETIME) == (
        b"<url><loc>https://example.com/a</loc><lastmod>2020-01-01T00:00:00+00:00</lastmod>"
        b"<changefreq>daily</changefreq><priority>0.3</priority></url>\n"
    )


def test_a_raised_byte_limit_writes_past_10_mib_and_validate_notes_it(out: Path) -> None:
    """The current protocol's 52,428,800 bytes, asked for: one sitemap, valid, with a note for older consumers."""
    entries = [Entry(f"{BASE}{i:04}/{'x' * 2_000}") for i in range(5_300)]
    result = write_sitemaps(entries, out, base_url=BASE, max_bytes=52_428_800, chunking=Chunking.FILL)
    assert [s.size > 10_485_760 for s in result.sitemaps] == [True]
    report = validate([out / "sitemap.xml"], base_url=BASE)
    assert (report.problems, report.urls) == ([], 5_300)
    size = result.sitemaps[0].size
    assert [(n.path.name, n.message) for n in report.notes] == [
        (
            result.sitemaps[0].path.name,
            f"{size:,} bytes uncompressed, more than 10,485,760; older consumers (the 2008 protocol) may refuse it",
        )
    ]


@pytest.mark.parametrize(
    ("count", "padding", "max_bytes"),
    [
        pytest.param(100, 0, 2_000, id="lowered-limit"),
        pytest.param(5_300, 2_000, 10_485_760, id="protocol-limit"),  # URLs near 2,048 characters: two chunks
    ],
)
def test_chunks_fill_up_to_the_byte_limit_exactly(out: Path, count: int, padding: int, max_bytes: int) -> None:
    entries = [Entry(f"{BASE}{i:04}/{'x' * padding}") for i in range(count)]
    per_entry = len(format_entry(entries[0], LastmodFormat.DATETIME))
    result = write_sitemaps(entries, out, base_url=BASE, max_bytes=max_bytes, chunking=Chunking.FILL)
    sizes = [len(gzip.decompress(s.path.read_bytes())) for s in result.sitemaps]
    assert len(sizes) > 1
    assert [s.size for s in result.sitemaps] == sizes
    assert all(size <= max_bytes for size in sizes)
    assert all(size + per_entry > max_bytes for size in sizes[:-1])  # no room was left for one more
    assert locs(out, BASE) == [e.loc for e in entries]  # each once, in order, every file XSD-valid


def test_an_entry_larger_than_a_sitemap_is_skipped(out: Path) -> None:
    skips: list[Skip] = []
    huge = Entry(BASE + "x" * 1500)
    result = write_sitemaps([Entry(BASE + "a"), huge], out, base_url=BASE, max_bytes=1024, on_skip=skips.append)
    assert [u.loc for u in read_chunk(result.sitemaps[0].path)] == [BASE + "a"]
    assert [s.reason for s in skips] == [SkipReason.ENTRY_TOO_LARGE]


def test_nothing_to_write_writes_nothing(out: Path) -> None:
    assert write_sitemaps([], out, base_url=BASE).sitemaps == ()
    assert list(out.iterdir()) == []


def test_a_run_that_dies_half_way_leaves_the_last_index_intact(out: Path) -> None:
    write_sitemaps([Entry(BASE + "old")], out, base_url=BASE)
    before = output_files(out)

    def dying() -> Iterator[Entry]:
        yield Entry(BASE + "new")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_sitemaps(dying(), out, base_url=BASE, max_urls=5)
    assert output_files(out) == before  # the new chunk it had placed is removed again
    assert sorted(p.name for p in out.iterdir()) == ["sitemap-1.xml.gz", "sitemap.xml"]
    assert read_index(out / "sitemap.xml") == [(BASE + "sitemap-1.xml.gz", None)]


def test_index_lastmod_compares_instants_not_strings(out: Path) -> None:
    early_utc = datetime(2020, 1, 1, 12, 0, tzinfo=UTC)
    later_but_smaller_string = datetime(2020, 1, 1, 11, 0, tzinfo=timezone(timedelta(hours=-2)))  # 13:00 UTC
    write_sitemaps([Entry(BASE + "a", early_utc), Entry(BASE + "b", later_but_smaller_string)], out, base_url=BASE)
    assert read_index(out / "sitemap.xml")[0][1] == "2020-01-01T11:00:00-02:00"


# What a 50,001- or a 120,000-page site gives the writer, as generated entries rather than
# trees of files. (test_publish.py keeps one real 120,000-page tree, marked slow.)

T0 = datetime.fromtimestamp(1_600_000_000, UTC)
T1 = datetime.fromtimestamp(1_700_000_000, UTC)


PER_SECTION = 1_000


def _pages(sections: int) -> list[Entry]:
    """section-NNN/page-NNNN.html, in the order a build lists them, all with lastmod T0."""
    return [Entry(f"{BASE}section-{d:03}/page-{i:04}.html", T0) for d in range(sections) for i in range(PER_SECTION)]


def _no_cut_points(count: int) -> list[Entry]:
    """`count` entries none of which is a cut point at the protocol's limit: stable chunking can cut only there."""
    names = (f"{BASE}page-{i:06}.html" for i in itertools.count())
    return [Entry(loc) for loc in itertools.islice((n for n in names if not is_cut_point(n)), count)]


def _stable_sizes(entries: list[Entry], max_urls: int) -> list[int]:
    """The model of stable chunking: cut after each cut point, and at the URL limit."""
    sizes: list[int] = []
    current = 0
    for entry in entries:
        if current == max_urls:
            sizes.append(current)
            current = 0
        current += 1
        if is_cut_point(entry.loc, max(1, max_urls // 5)):
            sizes.append(current)
            current = 0
    return [*sizes, current] if current else sizes


@pytest.mark.parametrize(
    ("make", "chunking"),
    [
        pytest.param(lambda: _pages(51)[:50_001], Chunking.FILL, id="fill"),
        pytest.param(lambda: _no_cut_points(50_001), Chunking.STABLE, id="stable-without-a-cut-point"),
    ],
)
def test_chunks_at_the_real_50000_url_limit(out: Path, make: Callable[[], list[Entry]], chunking: Chunking) -> None:
    entries = make()
    result = write_sitemaps(entries, out, base_url=BASE, chunking=chunking)
    assert [s.urls for s in result.sitemaps] == [50_000, 1]
    chunks = _read_back(out)
    assert [len(chunk) for chunk in chunks] == [50_000, 1]
    assert [u.loc for chunk in chunks for u in chunk] == [e.loc for e in entries]


def test_stable_chunks_end_at_cut_points_at_the_real_limits(out: Path) -> None:
    entries = _pages(51)[:50_001]
    result = write_sitemaps(entries, out, base_url=BASE)
    sizes = [s.urls for s in result.sitemaps]
    assert sizes == _stable_sizes(entries, 50_000)
    assert 2 < len(sizes) < 20  # about one cut in 10,000 URLs
    assert max(sizes) < 50_000
    chunks = _read_back(out)
    assert [len(chunk) for chunk in chunks] == sizes
    assert [u.loc for chunk in chunks for u in chunk] == [e.loc for e in entries]


Edit = Callable[[list[Entry], int], list[Entry]]


def _at(pages: list[Entry], start: int, every: int, *, cut: bool) -> int:
    """The first position from `start` whose page is (or is not) a cut point."""
    return next(i for i in range(start, len(pages)) if is_cut_point(pages[i].loc, every) is cut)


def _new_page(pages: list[Entry], every: int, *, cut: bool) -> list[Entry]:
    """A page added a third of the way in (at the start of a section, where a build lists new-N.html)."""
    section = len(pages) // PER_SECTION // 3
    position = section * PER_SECTION
    assert not is_cut_point(pages[position - 1].loc, every)  # lands inside a chunk, not between two
    names = (f"{BASE}section-{section:03}/new-{i}.html" for i in itertools.count())
    loc = next(name for name in names if is_cut_point(name, every) is cut)
    return [*pages[:position], Entry(loc, T1), *pages[position:]]


def _lastmod_changed(pages: list[Entry], every: int) -> list[Entry]:
    position = len(pages) // 3
    return [*pages[:position], replace(pages[position], lastmod=T1), *pages[position + 1 :]]


def _removed(pages: list[Entry], every: int, *, cut: bool) -> list[Entry]:
    position = _at(pages, 2 * len(pages) // 3, every, cut=cut)
    return [*pages[:position], *pages[position + 1 :]]


def _added_and_removed(pages: list[Entry], every: int) -> list[Entry]:
    # A third of the site apart, more than a sitemap may hold: in two different chunks.
    return _removed(_new_page(pages, every, cut=False), every, cut=False)


SMALL = 1_000  # a lowered URL limit (a cut point about every 200 URLs): the same rules, on 6,000 pages


@pytest.mark.parametrize(
    ("sections", "max_urls", "edit", "changed", "removed"),
    [
        pytest.param(120, 50_000, _lastmod_changed, 1, 1, id="120000-pages-lastmod-changed"),
        pytest.param(6, SMALL, _lastmod_changed, 1, 1, id="lastmod-changed"),
        pytest.param(6, SMALL, lambda p, e: _new_page(p, e, cut=False), 1, 1, id="page-added"),
        pytest.param(6, SMALL, lambda p, e: _removed(p, e, cut=False), 1, 1, id="page-removed"),
        pytest.param(6, SMALL, lambda p, e: _new_page(p, e, cut=True), 2, 1, id="cut-point-added-splits-a-chunk"),
        pytest.param(6, SMALL, lambda p, e: _removed(p, e, cut=True), 1, 2, id="cut-point-removed-joins-two"),
        pytest.param(6, SMALL, _added_and_removed, 2, 2, id="added-and-removed-far-apart"),
    ],
)
def test_an_edit_rewrites_only_the_chunks_it_falls_in(
    out: Path, sections: int, max_urls: int, edit: Edit, changed: int, removed: int
) -> None:
    pages = _pages(sections)
    first = write_sitemaps(pages, out, base_url=BASE, max_urls=max_urls)
    assert max(s.urls for s in first.sitemaps) < max_urls  # every cut at a cut point: none moves but the edit's
    before = output_files(out)
    edited = edit(pages, max(1, max_urls // 5))
    second = write_sitemaps(edited, out, base_url=BASE, max_urls=max_urls)
    after = output_files(out)

    # The files the first index listed and the second does not stay until the next build.
    assert (second.changed, second.removed, second.retired) == (changed, 0, removed)
    assert set(after) - set(before) == {s.path.name for s in second.sitemaps if s.changed}
    assert set(before) <= set(after)
    assert [name for name in set(before) & set(after) if before[name] != after[name]] == ["sitemap.xml"]
    third = write_sitemaps(edited, out, base_url=BASE, max_urls=max_urls)
    assert (third.changed, third.removed, third.retired) == (0, removed, 0)
    assert output_files(out) == {
        name: data
        for name, data in after.items()
        if name not in set(before) - {s.path.name for s in second.sitemaps} - {"sitemap.xml"}
    }
    # Each kept file still holds the very same run of pages; each new one (read back, XSD-valid)
    # holds exactly the run of edited pages at its place.
    first_runs = {s.path.name: pages[start : start + s.urls] for s, start in _starts(first)}
    for sitemap, start in _starts(second):
        run = edited[start : start + sitemap.urls]
        if sitemap.changed:
            assert [(u.loc, u.lastmod) for u in read_chunk(sitemap.path)] == [(e.loc, _text(e)) for e in run]
        else:
            assert first_runs[sitemap.path.name] == run
    assert sum(s.urls for s in second.sitemaps) == len(edited)
    # The index lists them in order, each with the newest lastmod of its pages.
    assert read_index(out / "sitemap.xml") == [
        (BASE + s.path.name, _text(max(edited[start : start + s.urls], key=_lastmod))) for s, start in _starts(second)
    ]


def _starts(result: WriteResult) -> Iterator[tuple[SitemapFile, int]]:
    """Each sitemap of `result` with the position of its first page."""
    starts = itertools.accumulate((s.urls for s in result.sitemaps), initial=0)
    return zip(result.sitemaps, starts, strict=False)


def _text(entry: Entry) -> str | None:
    """Its lastmod as the writer writes it (for UTC datetimes)."""
    return None if entry.lastmod is None else entry.lastmod.isoformat()


def _lastmod(entry: Entry) -> datetime:
    assert entry.lastmod is not None
    return entry.lastmod


def _read_back(out: Path) -> list[list[Url]]:
    """The entries of each sitemap the index lists, in order, each file read once and XSD-validated."""
    return [read_chunk(out / loc.removeprefix(BASE)) for loc, _ in read_index(out / "sitemap.xml")]


def test_xml_special_characters_are_escaped_exactly_once(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"q&a's.html": html(), "%26amp;.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    raw = gzip.decompress((root / "sitemap-1.xml.gz").read_bytes()).decode()
    assert "<loc>https://example.com/q&amp;a&apos;s.html</loc>" in raw
    assert "<loc>https://example.com/%2526amp;.html</loc>" in raw
    assert locs(root, BASE) == [BASE + "%2526amp;.html", BASE + "q&a's.html"]


def test_index_lastmod_is_newest_in_its_chunk(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(5)})
    times = [300, 100, 200, 500, 400]
    for i, t in enumerate(times):
        os.utime(root / f"p{i}.html", (t, 1_600_000_000 + t))
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "2", "--chunking", "fill").code == 0
    got = [lastmod for _, lastmod in read_index(root / "sitemap.xml")]
    assert got == ["2020-09-13T12:31:40+00:00", "2020-09-13T12:35:00+00:00", "2020-09-13T12:33:20+00:00"]


def test_chunks_at_a_small_url_limit(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i:02}.html": html() for i in range(25)})
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "10", "--chunking", "fill").code == 0
    index = read_index(root / "sitemap.xml")
    assert [loc for loc, _ in index] == [BASE + f"sitemap-{n}.xml.gz" for n in (1, 2, 3)]
    assert [len(read_chunk(root / f"sitemap-{n}.xml.gz")) for n in (1, 2, 3)] == [10, 10, 5]
    assert locs(root, BASE) == [BASE + f"p{i:02}.html" for i in range(25)]


def test_chunks_at_a_byte_limit(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"{'long-name-' * 5}{i:03}.html": html() for i in range(40)})
    assert cli("build", root, "--base-url", BASE, "--max-bytes-per-sitemap", "1500").code == 0
    chunks = sorted(root.glob("sitemap-*.xml.gz"))
    assert len(chunks) > 3
    sizes = [len(gzip.decompress(c.read_bytes())) for c in chunks]
    assert max(sizes) <= 1500
    assert len(locs(root, BASE)) == 40  # each page exactly once
    assert len(set(locs(root, BASE))) == 40


def test_more_chunks_than_one_index_may_list(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(7)})
    run = cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "1", "--max-sitemaps-per-index", "3")
    assert run.code == 0, run.err
    assert [p.name for p in index_paths(root)] == ["sitemap.xml", "sitemap-index-2.xml", "sitemap-index-3.xml"]
    assert [len(read_index(p)) for p in index_paths(root)] == [3, 3, 1]
    assert sorted(locs(root, BASE)) == sorted(BASE + f"p{i}.html" for i in range(7))
    assert "wrote 3 index files" in run.err


def test_stale_files_of_a_larger_build_are_removed(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(7)})
    assert (
        cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "1", "--max-sitemaps-per-index", "3").code == 0
    )
    assert cli("build", root, "--base-url", BASE).code == 0
    # The index files go at once; the chunk files the previous index listed, at the next build.
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("sitemap-")) == [
        *(f"sitemap-{n}.xml.gz" for n in range(1, 9))
    ]
    assert cli("build", root, "--base-url", BASE).code == 0
    # The new chunk takes a number the published index did not use (it never overwrites a listed file).
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("sitemap")) == ["sitemap-8.xml.gz", "sitemap.xml"]
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]
    assert len(locs(root, BASE)) == 7


def test_rebuild_is_byte_identical(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    files: dict[str | bytes, str | bytes] = {f"s{i % 3}/p{i}.html": html() for i in range(30)}
    root = site(files | {"ü.html": html()})
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "7", "--out", tmp_path / "one").code == 0
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "7", "--out", tmp_path / "two").code == 0
    one, two = output_files(tmp_path / "one"), output_files(tmp_path / "two")
    assert one == two
    assert len(one) > 2
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "7", "--out", tmp_path / "two").code == 0
    assert output_files(tmp_path / "two") == one  # in place too: nothing changed, nothing rewritten
    for name, data in one.items():
        if name.endswith(".gz"):
            assert data[4:8] == b"\0\0\0\0"  # gzip header mtime
            assert data[3] & 0x08 == 0  # no file name in the header
