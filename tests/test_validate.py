"""`sitemapgen validate`: any tool's sitemaps and indexes against the protocol."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import BASE, CliRunner, SiteFactory
from .helpers import html

URLSET = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</urlset>\n'


def _url(loc: str, extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>\n"


def _problems(out: str, path: Path) -> list[tuple[int | None, str]]:
    """The `FILE:LINE: message` lines validate printed, as (line, message); each must name `path`."""
    problems: list[tuple[int | None, str]] = []
    for text in out.splitlines():
        assert text.startswith(f"{path}:"), text
        where, _, message = text.removeprefix(f"{path}:").partition(": ")
        if not where.isdigit():  # no line number: `FILE: message`
            where, message = "", text.removeprefix(f"{path}: ")
        problems.append((int(where) if where else None, message))
    return problems


def test_validate_accepts_what_build_writes(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "ü x.html": html(), "q&a.html": html()})
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "1").code == 0
    run = cli("validate", root / "sitemap.xml", "--base-url", BASE)
    assert (run.code, run.out, run.err) == (0, "", "4 files, 3 URLs: ok\n")


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
    run = cli("validate", path)
    assert (run.code, run.out) == (0, "")
    assert run.err.endswith(", 2 URLs: ok\n"), run.err


# (content, the line every problem is reported on, what one of them says)
BROKEN = [
    pytest.param(URLSET.format(_url("https://example.com/a&b")), 3, "not well-formed XML", id="unescaped-ampersand"),
    pytest.param(
        URLSET.format(_url("https://example.com/it's")), 3, '"\'" in <loc> must be entity-escaped', id="raw-apostrophe"
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<priority>1.5</priority>")),
        3,
        "schema: Element '{http://www.sitemaps.org/schemas/sitemap/0.9}priority'",
        id="priority-1.5",
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<changefreq>often</changefreq>")),
        3,
        "schema: Element '{http://www.sitemaps.org/schemas/sitemap/0.9}changefreq'",
        id="changefreq",
    ),
    pytest.param(
        URLSET.format(_url("https://example.com/a", "<lastmod>yesterday</lastmod>")),
        3,
        "schema: Element '{http://www.sitemaps.org/schemas/sitemap/0.9}lastmod'",
        id="lastmod",
    ),
    pytest.param(URLSET.format(_url("https://example.com/a b")), 3, "must be percent-encoded", id="space"),
    pytest.param(URLSET.format(_url("https://example.com/über")), 3, "must be percent-encoded", id="non-ascii"),
    pytest.param(
        URLSET.format(_url("https://example.com/100%")), 3, "'%' not followed by two hex digits", id="bad-percent"
    ),
    pytest.param(URLSET.format(_url("https://example.com/" + "a" * 2030)), 3, "fewer than 2,048", id="long-loc"),
    pytest.param(
        URLSET.format(_url("https://example.com/a") + _url("https://other.example/b")),
        4,
        "a sitemap lists one host",
        id="two-hosts",
    ),
    pytest.param(URLSET.format(_url("https://example.com/docs/a")), 3, "location rule", id="location-rule"),
    pytest.param(
        URLSET.format(_url("https://example.com/a") + _url("https://example.com/a")),
        4,
        "listed more than once",
        id="duplicate",
    ),
    pytest.param(
        URLSET.format(""),
        2,
        "schema: Element '{http://www.sitemaps.org/schemas/sitemap/0.9}urlset': Missing child element(s)",
        id="empty-urlset",
    ),
    pytest.param('<?xml version="1.0"?><rss/>', 1, "neither urlset nor sitemapindex", id="not-a-sitemap"),
]


@pytest.mark.parametrize(("content", "line", "message"), BROKEN)
def test_validate_reports_each_rule(tmp_path: Path, cli: CliRunner, content: str, line: int, message: str) -> None:
    directory = tmp_path / "site" / "blog"
    directory.mkdir(parents=True)
    path = directory / "sitemap.xml"
    path.write_text(content)
    base = "https://example.com/blog/" if message == "location rule" else None
    run = cli("validate", path, *(["--base-url", base] if base else []))
    assert run.code == 1
    problems = _problems(run.out, path)
    assert {where for where, _ in problems} == {line}, run.out
    assert [text for _, text in problems if message in text], run.out
    assert re.search(rf": {len(problems)} problems?\n$", run.err), run.err  # the summary counts what was printed


def _too_many_urls(tmp_path: Path) -> Path:
    path = tmp_path / "many.xml.gz"
    path.write_bytes(
        gzip.compress(URLSET.format("".join(_url(f"https://example.com/{i}") for i in range(50_001))).encode())
    )
    return path


def _too_many_bytes(tmp_path: Path) -> Path:
    path = tmp_path / "big.xml"
    path.write_text(URLSET.format(_url("https://example.com/a", "<!--" + "x" * 10_485_760 + "-->")))
    return path


def _index_of_a_missing_file(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/missing.xml.gz</loc></sitemap>\n</sitemapindex>\n"
    )
    return path


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        pytest.param(_too_many_urls, ": 50,001 URLs; a sitemap may list at most 50,000", id="50001-urls"),
        pytest.param(_too_many_bytes, ": larger than 10,485,760 bytes uncompressed", id="over-10485760-bytes"),
        pytest.param(
            _index_of_a_missing_file,
            ":3: lists https://example.com/missing.xml.gz, but {dir}/missing.xml.gz does not exist",
            id="index-lists-a-missing-file",
        ),
    ],
)
def test_validate_limits_and_index_entries(
    tmp_path: Path, cli: CliRunner, make: Callable[[Path], Path], problem: str
) -> None:
    path = make(tmp_path)
    run = cli("validate", path)
    assert run.code == 1
    assert run.out == f"{path}{problem.format(dir=tmp_path)}\n"  # that problem and no other
