"""The Pelican plugin's parts that need no Pelican (`integrations.pelican_site`), in this process:
its settings as sitemapgen's `Config` (through the one declaration of each key, spelt
``SITEMAPGEN_KEY``), what it makes of a page Pelican wrote, and the hreflang clusters of Pelican's
translations. Pelican is not imported here: it changes the logger class of the whole process.
(`test_pelican` runs the real ``pelican``.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sitemapgen.errors import ConfigError
from sitemapgen.integrations import pelican_site as plugin
from sitemapgen.integrations.options import Spelling

#: The Sphinx extension's spelling (`integrations.sphinx.SPELLING`), without importing Sphinx.
SPHINX = Spelling("sitemapgen_", "conf.py", "extension")


def _settings(tmp_path: Path, **more: Any) -> dict[str, Any]:
    return {"SITEURL": "https://example.org/blog", "OUTPUT_PATH": str(tmp_path / "output"), "CACHE_PATH": "c", **more}


def test_settings_become_the_config(tmp_path: Path) -> None:
    config = plugin.config_of(
        _settings(tmp_path, SITEMAPGEN_EXCLUDE=["tag/"], SITEMAPGEN_RULES=[{"pattern": "posts/", "priority": 0.8}])
    )
    assert (config.base_url, config.exclude, config.rules[0].priority) == ("https://example.org/blog/", ("tag/",), 0.8)
    assert (config.docroot, config.state_file) == (tmp_path / "output", Path("c/sitemapgen-state-output.sqlite"))
    given = plugin.config_of(_settings(tmp_path, SITEMAPGEN_BASE_URL="https://example.com/", SITEURL=""))
    assert given.base_url == "https://example.com/"


@pytest.mark.parametrize("site_url", ["", "/blog", None])
def test_no_absolute_site_url_is_no_base_url(tmp_path: Path, site_url: str | None) -> None:
    with pytest.raises(plugin.NoBaseURL):
        plugin.config_of(_settings(tmp_path, SITEURL=site_url))


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ({"SITEMAPGEN_CHUNKNG": "fill"}, "SITEMAPGEN_CHUNKNG: no such setting (did you mean SITEMAPGEN_CHUNKING?)"),
        ({"SITEMAPGEN_ZZZ": 1}, "SITEMAPGEN_ZZZ: no such setting (the plugin reads SITEMAPGEN_ and a key"),
        ({"SITEMAPGEN_IMAGES": "yes"}, "SITEMAPGEN_IMAGES: must be true or false"),
        ({"SITEMAPGEN_EXCLUDE": ["a", 3]}, "SITEMAPGEN_EXCLUDE[1]: "),
        ({"SITEMAPGEN_RULES": [{"pattern": "a", "priority": 0.5}, {"patern": "b"}]}, "SITEMAPGEN_RULES[1].patern: "),
    ],
    ids=["unknown", "unknown-far", "value", "list-item", "nested"],
)
def test_a_bad_setting_is_a_config_error_in_pelicans_words(tmp_path: Path, setting: dict[str, Any], said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        plugin.config_of(_settings(tmp_path, **setting))
    assert str(raised.value).startswith(f"pelicanconf.py: {said}"), raised.value


@pytest.mark.parametrize(
    ("spelling", "name", "key"),
    [
        (plugin.SPELLING, "SITEMAPGEN_BASE_URL", "base_url"),
        (plugin.SPELLING, "SITEMAPGEN_base_url", None),  # Pelican keeps upper-case names only
        (plugin.SPELLING, "SITEMAPGEN_NOPE", None),
        (plugin.SPELLING, "SITEURL", None),
        (SPHINX, "sitemapgen_base_url", "base_url"),
        (SPHINX, "sitemapgen_BASE_URL", None),
    ],
)
def test_a_host_spells_each_key_one_way(spelling: Spelling, name: str, key: str | None) -> None:
    assert spelling.key(name) == key
    if key is not None:
        assert spelling.name(key) == name


def _article(title: str, **metadata: Any) -> SimpleNamespace:
    """What Pelican's Article gives the plugin: its source, status, language, translations and dates."""
    fields = {"status": "published", "lang": "en", "translations": [], "date": datetime(2021, 1, 1, tzinfo=UTC)}
    return SimpleNamespace(source_path=f"/src/{title}.md", **(fields | metadata))


def test_what_a_written_page_was_made_from() -> None:
    late = datetime(2024, 5, 6, 7, 8, tzinfo=timezone(timedelta(hours=2)))
    a = _article("a", modified=late)
    b = _article("b", lang="fr", status="draft")
    a.translations = [b]
    assert plugin.written({"article": a}) == plugin.Written(
        source="/src/a.md", lang="en", translations=(("fr", "/src/b.md"),), date=late
    )
    assert plugin.written({"article": b}).unpublished == "draft"
    page = SimpleNamespace(object_list=[b])  # one page of a paginated list: what it shows, not `dates`
    shown = plugin.written({"articles_page": page, "dates": [a, b], "articles": [a, b]})
    assert shown == plugin.Written(shows=("/src/b.md",), date=datetime(2021, 1, 1, tzinfo=UTC))
    assert plugin.written({"dates": [a, b]}).shows == ("/src/a.md", "/src/b.md")
    assert plugin.written({}) == plugin.Written()


def _page(source: str, lang: str, *translations: tuple[str, str]) -> plugin.Written:
    return plugin.Written(source=source, lang=lang, translations=translations)


def test_clusters_are_pelicans_translations_that_are_listed() -> None:
    listed = {
        "a.html": _page("a.md", "en", ("fr", "a-fr.md"), ("pt_BR", "a-pt.md"), ("de", "a-de.md")),  # a-de: a draft
        "fr/a.html": _page("a-fr.md", "fr", ("en", "a.md")),
        "a-pt.html": _page("a-pt.md", "pt_BR", ("en", "a.md")),
        "b.html": _page("b.md", "en"),
        "c.html": _page("c.md", "en", ("x_y_not_a_language!", "c-x.md")),
        "c-x.html": _page("c-x.md", "x_y_not_a_language!", ("en", "c.md")),
    }
    cluster = (("en", "a.html"), ("fr", "fr/a.html"), ("pt-BR", "a-pt.html"))
    assert plugin.hreflang_clusters(listed) == {
        "a.html": cluster,
        "fr/a.html": (("en", "a.html"), ("fr", "fr/a.html")),
        "a-pt.html": (("en", "a.html"), ("pt-BR", "a-pt.html")),
    }
