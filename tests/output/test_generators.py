"""Another tool's sitemaps beside ours: named once, with the generator and its setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen.output.generators import GENERATORS, generator_of, listed_by, notice

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import html

_URLSET = '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{}a.html</loc></url></urlset>'
_INDEX = '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{}en/sitemap.xml</loc></sitemap><sitemap><loc>{}de/sitemap.xml</loc></sitemap></sitemapindex>'


def _home(generator: str) -> str:
    return f'<!DOCTYPE html><html><head><meta name="generator" content="{generator}"><title>t</title></head></html>'


@pytest.mark.parametrize(
    ("content", "name"),
    [
        ("mkdocs-1.6.1, mkdocs-material-9.8.1", "MkDocs"),
        ("Hugo 0.168.0", "Hugo"),
        ("Jekyll v4.3.1", "Jekyll"),
        ("Docutils 0.21.2: https://docutils.sourceforge.io/", "Sphinx"),
        ("WordPress 6.5", None),
    ],
)
def test_the_generator_is_named_by_its_meta(tmp_path: Path, content: str, name: str | None) -> None:
    (tmp_path / "index.html").write_text(_home(content))
    found = generator_of(tmp_path)
    assert (found.name if found else None) == name


def test_no_home_page_no_generator(tmp_path: Path) -> None:
    assert generator_of(tmp_path) is None
    assert notice(tmp_path, others=[]) is None


@pytest.mark.parametrize(
    ("files", "said", "replaced"),
    [
        pytest.param(
            {"index.html": _home("mkdocs-1.6.1"), "sitemap.xml": _URLSET.format(BASE), "sitemap.xml.gz": b"\x1f\x8b"},
            [": MkDocs' sitemap.xml.gz stays beside ours", "delete sitemap.xml.gz"],
            "MkDocs' sitemap.xml",
            id="mkdocs",
        ),
        pytest.param(
            {
                "index.html": _home("Hugo 0.168.0"),
                "sitemap.xml": _INDEX.format(BASE, BASE),
                "en/sitemap.xml": _URLSET.format(BASE),
                "de/sitemap.xml": _URLSET.format(BASE),
            },
            [": Hugo's en/sitemap.xml, de/sitemap.xml stay beside ours", "disableKinds = ['sitemap']"],
            "Hugo's sitemap.xml",
            id="hugo-one-a-language",
        ),
        pytest.param(
            {"index.html": _home("Jekyll v4.3.1"), "sitemap.xml": _URLSET.format(BASE)},
            None,  # replacing the one file is what a build does: said in the summary, not warned of
            "Jekyll's sitemap.xml",
            id="jekyll-urlset-locs-are-pages",
        ),
        pytest.param(
            {"index.html": html(), "sitemap_index.xml": _URLSET.format(BASE)},
            [": another tool's sitemap_index.xml stays beside ours"],
            None,
            id="unknown-tool-beside",
        ),
    ],
)
def test_other_sitemaps_are_named_once_and_left_alone(
    site: SiteFactory,
    cli: CliRunner,
    files: dict[str | bytes, str | bytes],
    said: list[str] | None,
    replaced: str | None,
) -> None:
    root = site({**files, "a.html": html()})
    before = {name: (root / str(name)).read_bytes() for name in files if str(name) != "sitemap.xml"}
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    warnings = [line for line in run.err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == (0 if said is None else 1), warnings
    for part in said or []:
        assert part in warnings[0]
    summary = run.err.splitlines()[-1]
    assert summary.startswith("sitemapgen: listed ")
    assert summary.endswith(f"; replaced {replaced}") if replaced else "replaced" not in summary
    assert {name: (root / str(name)).read_bytes() for name in before} == before  # never touched


def test_an_index_lists_only_files_that_exist_below_the_docroot(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "sitemap.xml").write_text("x")
    index = tmp_path / "sitemap.xml"
    index.write_text(_INDEX.format(BASE, BASE).replace(f"{BASE}de/", "https://elsewhere.example/de/"))
    assert listed_by(index, tmp_path, BASE) == ["en/sitemap.xml"]


def test_every_generator_says_how_to_turn_its_sitemap_off() -> None:
    assert len({g.name for g in GENERATORS}) == len(GENERATORS)
    assert all("sitemap" in g.turn_off for g in GENERATORS)
