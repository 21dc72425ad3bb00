from __future__ import annotations

import gzip
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from sitemapgen.config import ChangeFreq, LastmodFormat
from sitemapgen.walk import Skip, SkipReason
from sitemapgen.writer import Entry, escape_xml, format_entry, format_lastmod, format_priority, write_sitemaps

from .helpers import output_files, read_chunk, read_index

BASE = "https://example.com/"


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


def test_escape_xml_covers_the_five_protocol_characters() -> None:
    assert escape_xml("&<>'\"") == "&amp;&lt;&gt;&apos;&quot;"
    assert escape_xml("&amp;") == "&amp;amp;"


def test_entry_fields_in_schema_order() -> None:
    entry = Entry(BASE + "a", datetime(2020, 1, 1, tzinfo=UTC), ChangeFreq.DAILY, 0.3)
    assert format_entry(entry, LastmodFormat.DATETIME) == (
        b"<url><loc>https://example.com/a</loc><lastmod>2020-01-01T00:00:00+00:00</lastmod>"
        b"<changefreq>daily</changefreq><priority>0.3</priority></url>\n"
    )


def test_chunks_fill_up_to_the_byte_limit_exactly(out: Path) -> None:
    entries = [Entry(f"{BASE}{i:04}") for i in range(100)]
    per_entry = len(format_entry(entries[0], LastmodFormat.DATETIME))
    result = write_sitemaps(entries, out, base_url=BASE, max_bytes=2000)
    sizes = [len(gzip.decompress(s.path.read_bytes())) for s in result.sitemaps]
    assert [s.size for s in result.sitemaps] == sizes
    assert all(size <= 2000 for size in sizes)
    assert all(size + per_entry > 2000 for size in sizes[:-1])  # no room was left for one more
    assert sum(len(read_chunk(s.path)) for s in result.sitemaps) == 100


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
