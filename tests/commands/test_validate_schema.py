"""`sitemapgen validate` in a sitemap author's words: what the XSDs refuse, one problem per
cause, every file's problems in line order."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen.commands.validate_schema import Particle, sequences

from ..conftest import CliRunner

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
URL_ORDER = "loc, lastmod, changefreq, priority, elements of other namespaces"


def _file(tmp_path: Path, root: str, *lines: str, namespaces: str = "") -> Path:
    """A sitemap (root `urlset`) or index (`sitemapindex`) with `lines` from line 3 on."""
    path = tmp_path / "sitemap.xml"
    body = "".join(f"{line}\n" for line in lines)
    path.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} xmlns="{NS}"{namespaces}>\n{body}</{root}>\n')
    return path


def _printed(run_out: str, path: Path) -> list[str]:
    """The problems `validate` printed, each as `LINE: message` (the file's name taken off)."""
    lines = run_out.splitlines()
    assert all(line.startswith(f"{path}:") for line in lines), run_out
    return [line.removeprefix(f"{path}:") for line in lines]


IMAGE = ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'

# (root, its lines from line 3 on, extra namespace declarations, every problem validate prints)
WORDED = [
    pytest.param(
        "urlset",
        ["<url>", "<lastmod>2024-01-01</lastmod>", "<loc>https://example.com/a</loc>", "</url>"],
        "",
        [f"4: <lastmod> out of order: inside <url> the order is {URL_ORDER}"],
        id="lastmod-before-loc",
    ),
    pytest.param(
        "urlset",
        ["<url><loc>https://example.com/a</loc>", "<priority>0.5</priority>", "<changefreq>daily</changefreq></url>"],
        "",
        [f"5: <changefreq> out of order: inside <url> the order is {URL_ORDER}"],
        id="changefreq-after-priority",
    ),
    pytest.param(
        "urlset",
        ["<url>", "<lastmod>2024-01-01</lastmod>", "</url>"],
        "",
        ["3: <url> has no <loc>"],
        id="no-loc",
    ),
    pytest.param(
        "urlset",
        ["<url>", "<loc>https://example.com/a</loc>", "<loc>https://example.com/b</loc>", "</url>"],
        "",
        ["5: <loc> appears twice inside <url>; it may appear once"],
        id="two-locs",
    ),
    pytest.param(
        "urlset",
        ["<url><loc>https://example.com/a</loc>", "<title>A</title></url>"],
        "",
        [f"4: <title> does not belong inside <url>, where the order is {URL_ORDER}"],
        id="unknown-element",
    ),
    pytest.param(
        "urlset",
        ['<url><loc xmlns="">https://example.com/a</loc></url>'],
        "",
        [f"3: <loc> is in no namespace; inside <url> it must be in {NS}"],
        id="loc-in-no-namespace",
    ),
    pytest.param(
        "urlset",
        [
            "<url><image:image><image:loc>https://example.com/i.png</image:loc></image:image>",
            "<loc>https://example.com/a</loc></url>",
        ],
        IMAGE,
        [f"3: <image:image> out of order: inside <url> the order is {URL_ORDER}"],
        id="extension-before-loc",
    ),
    pytest.param(
        "urlset",
        ["<url><loc>https://example.com/a</loc><image:image>", "<image:title>A</image:title>", "</image:image></url>"],
        IMAGE,
        ["4: <image:title> is not expected at that place inside <image:image>: expected <image:loc>"],
        id="inside-an-extension",
    ),
    pytest.param(
        "urlset",
        ['<url priority="1"><loc>https://example.com/a</loc></url>'],
        "",
        ["3: <url> may not have the attribute 'priority'"],
        id="attribute",
    ),
    pytest.param(
        "urlset",
        ["<url>https://example.com/a</url>"],
        "",
        ["3: text directly inside <url>, which may hold only elements", "3: <url> has no <loc>"],
        id="text-without-loc",
    ),
    pytest.param(
        "urlset",
        ["<url><loc>http://a.b/</loc></url>"],
        "",
        ["3: <loc> 'http://a.b/' is 11 characters; the schema allows at least 12"],
        id="loc-too-short",
    ),
    pytest.param(
        "sitemapindex",
        ["<sitemap>", "<lastmod>2024-01-01</lastmod>", "<loc>https://example.com/s.xml</loc>", "</sitemap>"],
        "",
        [
            "4: <lastmod> out of order: inside <sitemap> the order is loc, lastmod, elements of other namespaces",
            "5: lists https://example.com/s.xml, but {dir}/s.xml does not exist",
        ],
        id="index-lastmod-before-loc",
    ),
    pytest.param(
        "sitemapindex",
        ["<url><loc>https://example.com/a</loc></url>"],
        "",
        ["3: <url> does not belong inside <sitemapindex>, where the order is elements of other namespaces, sitemap"],
        id="url-in-an-index",
    ),
]


@pytest.mark.parametrize(("root", "lines", "namespaces", "expected"), WORDED)
def test_schema_problems_in_the_authors_words(
    tmp_path: Path, cli: CliRunner, root: str, lines: list[str], namespaces: str, expected: list[str]
) -> None:
    path = _file(tmp_path, root, *lines, namespaces=namespaces)
    run = cli("validate", path)
    assert run.code == 1
    assert _printed(run.out, path) == [line.format(dir=tmp_path) for line in expected]
    assert run.err.endswith(f": {len(expected)} problem{'s' if len(expected) > 1 else ''}\n")


def test_the_order_is_the_schemas() -> None:
    """The words "the order is ..." come from the shipped XSDs, not from a list of our own."""
    url, sitemap = sequences()["url"], sequences()["sitemap"]
    assert [p.name for p in url] == ["loc", "lastmod", "changefreq", "priority", None]
    assert url[0] == Particle("loc", required=True, once=True)
    assert [p.name for p in sitemap] == ["loc", "lastmod", None]
    assert [p.name for p in sequences()["urlset"]] == [None, "url"]


def test_one_problem_per_cause_in_line_order(tmp_path: Path, cli: CliRunner) -> None:
    """A relative <loc> first used to be three problems (not absolute, "on host ''", outside
    the location) and to make every later <loc> "on host 'example.com'" a fourth; problems
    came out grouped by how they were found, not by line."""
    path = _file(
        tmp_path,
        "urlset",
        "<url><loc>/relative.html</loc></url>",
        "<url><lastmod>2024-01-01</lastmod><loc>https://example.com/b</loc></url>",
        "<url><loc>https://example.com/it's</loc></url>",
        "<url><loc>https://example.com/c</loc><priority>2</priority></url>",
        "<url><loc>https://other.example/d</loc></url>",
        '<url><loc>https://example.com/say-"hi"</loc></url>',
    )
    run = cli("validate", path, "--base-url", "https://example.com/")
    assert run.code == 1
    assert _printed(run.out, path) == [
        "3: loc '/relative.html' is not an absolute http(s) URL",
        f"4: <lastmod> out of order: inside <url> the order is {URL_ORDER}",
        '5: "\'" in <loc> must be entity-escaped',
        "6: <priority> '2' is not a number from 0.0 to 1.0",
        "7: loc 'https://other.example/d' is on host 'other.example'; a sitemap lists one host ('example.com')",
        "8: loc 'https://example.com/say-\"hi\"' has characters that must be percent-encoded (RFC 3986): '\"'",
    ]
    assert run.err.endswith(": 6 problems\n")


def test_an_index_lists_its_own_problems_in_line_order_then_its_sitemaps(tmp_path: Path, cli: CliRunner) -> None:
    (tmp_path / "a.xml").write_text(
        f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">\n<url><priority>1</priority><loc>https://example.com/a</loc></url>\n</urlset>\n'
    )
    index = _file(
        tmp_path,
        "sitemapindex",
        "<sitemap><loc>https://example.com/missing.xml</loc></sitemap>",
        "<sitemap><loc>https://example.com/a.xml</loc></sitemap>",
        "<sitemap><loc>sitemap-2.xml</loc></sitemap>",
    )
    run = cli("validate", index)
    assert run.code == 1
    assert run.out.splitlines() == [
        f"{index}:3: lists https://example.com/missing.xml, but {tmp_path}/missing.xml does not exist",
        f"{index}:5: loc 'sitemap-2.xml' is not an absolute http(s) URL; not read",
        f"{tmp_path}/a.xml:3: <priority> out of order: inside <url> the order is {URL_ORDER}",
    ]
