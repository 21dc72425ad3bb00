"""The `Sitemap:` lines `build --robots-txt` keeps in DOCROOT/robots.txt."""

from __future__ import annotations

import pytest

from .conftest import BASE, CliRunner, SiteFactory
from .helpers import html


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
