"""Every page of ``html_sitemap = true``'s map is valid HTML5 as a real parser reads it: html5lib
in strict mode, which raises at the first parse error the HTML standard names (a stray end tag, a
missing doctype, a bad character reference, an attribute twice). Titles as authors write them
(entities, markup-like text, non-ASCII, right-to-left, too long), an hreflang cluster, a map of
several pages. The same pages opened in Chromium and run through the Nu HTML checker and axe-core:
test_html_sitemap_browser.py (make slow)."""

from __future__ import annotations

import re
from pathlib import Path

import html5lib  # type: ignore[import-untyped]
import pytest

from sitemapgen.output import htmlmap

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import labelled_site, published

MAP_PAGE = re.compile(r"sitemap(-[0-9]+)?\.html")


@pytest.mark.parametrize(
    ("per_page", "config", "pages"),
    [
        pytest.param(7, "", 5, id="pages-linked"),
        pytest.param(1000, "", 1, id="one-page"),
        pytest.param(7, "read_heads = false\n", 5, id="urls-for-titles"),
    ],
)
def test_every_page_of_the_map_parses_as_html5_without_an_error(
    site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, per_page: int, config: str, pages: int
) -> None:
    monkeypatch.setattr(htmlmap, "MAX_LINKS", per_page)  # a map of several pages from a small site
    root = site(labelled_site(12))
    Path("sitemapgen.toml").write_text(f'base_url = "{BASE}"\nhtml_sitemap = true\n{config}', encoding="utf-8")
    assert cli("build", root).code == 0
    names = [u.loc.removeprefix(BASE) for u in published(root, BASE) if MAP_PAGE.fullmatch(u.loc.removeprefix(BASE))]
    assert len(names) == pages
    for name in names:
        parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
        try:
            document = parser.parse((root / name).read_bytes())
        except html5lib.html5parser.ParseError as error:
            pytest.fail(f"{name}: {error}")
        assert document.get("lang") == "en"
        assert parser.errors == []
