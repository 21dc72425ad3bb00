"""The include setting: its TOML blocks, its flag's short forms, and every error naming where."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen.config.include import Include
from sitemapgen.config.loader import load_config

from ..conftest import CliRunner
from ..helpers import error_line, html, make_tree

BASE = "https://example.com/docs/"


def test_a_block_a_url_and_a_file_at_a_url(tmp_path: Path) -> None:
    config_file = tmp_path / "sitemapgen.toml"
    config_file.write_text(
        '[[include]]\nurl = "https://EXAMPLE.com:443/blog/sitemap.xml"\noptional = true\n'
        '[[include]]\nurl = "https://example.com/app/sitemap.xml"\nfile = "../app/out/sitemap.xml"\n'
    )
    config = load_config(tmp_path, base_url=BASE, config_file=config_file)
    assert config.include == (
        Include("https://example.com/blog/sitemap.xml", None, optional=True),
        Include("https://example.com/app/sitemap.xml", Path("../app/out/sitemap.xml")),
    )
    flags = load_config(tmp_path, base_url=BASE, include=["a/s.xml=https://example.com/a/s.xml", BASE + "x.xml"])
    assert flags.include == (Include("https://example.com/a/s.xml", Path("a/s.xml")), Include(BASE + "x.xml"))


@pytest.mark.parametrize(
    ("block", "said"),
    [
        pytest.param(
            'url = "https://example.org/blog/sitemap.xml"',
            "url in the 1st [[include]] block: https://example.org/blog/sitemap.xml is not on https://example.com"
            " (the base URL's scheme and host): an index lists only its own site's sitemaps",
            id="another-host",
        ),
        pytest.param(
            'url = "http://example.com/blog/sitemap.xml"',
            "url in the 1st [[include]] block: http://example.com/blog/sitemap.xml is not on https://example.com"
            " (the base URL's scheme and host): an index lists only its own site's sitemaps",
            id="another-scheme",
        ),
        pytest.param(
            'url = "/blog/sitemap.xml"',
            "url in the 1st [[include]] block: must be the absolute http(s) URL the sitemap is served at,"
            " got '/blog/sitemap.xml'",
            id="not-absolute",
        ),
        pytest.param(
            'url = "https://example.com/blog/"',
            "url in the 1st [[include]] block: must name the sitemap's file, not a folder,"
            " got 'https://example.com/blog/'",
            id="a-folder",
        ),
        pytest.param(
            'url = "https://example.com/sitemap.xml?x=1"',
            "url in the 1st [[include]] block: https://example.com/sitemap.xml?x=1 has a query: a static host serves"
            " the file at the path alone (https://example.com/sitemap.xml), so name the sitemap by its path",
            id="a-query",
        ),
        pytest.param(
            'urll = "https://example.com/blog/sitemap.xml"',
            "urll in the 1st [[include]] block: unknown key (did you mean 'url'?)",
            id="unknown-key",
        ),
        pytest.param(
            'url = "https://example.com/blog/sitemap.xml"\noptional = "yes"',
            "optional in the 1st [[include]] block: must be true or false, got 'yes'",
            id="optional-not-a-boolean",
        ),
        pytest.param(
            'url = "https://example.com/b.xml"\n[[include]]\nurl = "https://example.com/b.xml"',
            "url in the 2nd [[include]] block: https://example.com/b.xml is included twice (the 1st and 2nd)",
            id="twice",
        ),
    ],
)
def test_a_bad_block_is_named_as_written(cli: CliRunner, tmp_path: Path, block: str, said: str) -> None:
    root = make_tree(tmp_path / "public", {"index.html": html()})
    config_file = tmp_path / "sitemapgen.toml"
    config_file.write_text(f"[[include]]\n{block}\n")
    run = cli("build", root, "--base-url", BASE, "--config", config_file)
    assert (run.code, error_line(run.err)) == (2, f"{config_file}: {said}")
    assert not (root / "sitemap.xml").exists()


def test_a_bad_flag_is_named_as_the_flag(cli: CliRunner, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "public", {"index.html": html()})
    run = cli("build", root, "--base-url", BASE, "--include", BASE + "ok.xml", "--include", "sitemap.xml")
    assert (run.code, error_line(run.err)) == (
        2,
        "--include: must be the absolute http(s) URL the sitemap is served at, got 'sitemap.xml'",
    )
