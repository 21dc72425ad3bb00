from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sitemapgen.config.checks import toml_words
from sitemapgen.config.loader import load_config
from sitemapgen.config.settings import Config, Rule
from sitemapgen.config.words import LastmodSource
from sitemapgen.errors import ConfigError
from sitemapgen.protocol import ChangeFreq, LastmodFormat
from sitemapgen.urls import UrlStyle

from ..helpers import html, make_tree

BASE = "https://example.com/"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def test_defaults_are_the_protocol_limits(tmp_path: Path) -> None:
    config = Config(docroot=tmp_path, base_url="https://example.com")
    assert config.base_url == BASE
    assert (config.max_urls_per_sitemap, config.max_bytes_per_sitemap, config.max_sitemaps_per_index) == (
        50_000,
        10_485_760,
        1_000,
    )
    assert config.output_dir == tmp_path
    assert config.url_style is UrlStyle.DIRECTORY
    assert config.lastmod_format is LastmodFormat.DATETIME


def test_values_are_coerced_from_toml_shapes(tmp_path: Path) -> None:
    config = Config(
        docroot=str(tmp_path),  # type: ignore[arg-type]
        base_url=BASE,
        exclude=["a/"],  # type: ignore[arg-type]
        rules=[{"pattern": "*", "priority": 1, "changefreq": "daily"}],  # type: ignore[arg-type]
        url_style="index",  # type: ignore[arg-type]
    )
    assert config.exclude == ("a/",)
    assert config.rules == (Rule("*", 1.0, ChangeFreq.DAILY),)
    assert isinstance(config.rules[0].priority, float)
    assert config.url_style is UrlStyle.INDEX


def test_library_errors_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^rules\[1\]\.priority: must be between 0.0 and 1.0, got 2$"):
        Config(docroot=tmp_path, base_url=BASE, rules=(Rule("*", 0.5), {"pattern": "x", "priority": 2}))  # type: ignore[arg-type]


def test_lookup_prefers_sitemapgen_toml_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.sitemapgen]\nbase_url = "https://py.example/"\n')
    assert load_config(tmp_path, cwd=tmp_path).base_url == "https://py.example/"
    (tmp_path / "sitemapgen.toml").write_text('base_url = "https://own.example/"\n')
    assert load_config(tmp_path, cwd=tmp_path).base_url == "https://own.example/"
    other = tmp_path / "other.toml"
    other.write_text('base_url = "https://explicit.example/"\n')
    assert load_config(tmp_path, cwd=tmp_path, config_file=other).base_url == "https://explicit.example/"


def test_keywords_override_the_file(tmp_path: Path) -> None:
    (tmp_path / "sitemapgen.toml").write_text('base_url = "https://own.example/"\nurl_style = "index"\n')
    config = load_config(tmp_path, cwd=tmp_path, base_url="https://flag.example/")
    assert (config.base_url, config.url_style) == ("https://flag.example/", UrlStyle.INDEX)


def test_pyproject_without_table_means_no_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match="base_url: is not set"):
        load_config(tmp_path, cwd=tmp_path)


def test_pyproject_errors_carry_the_table_path(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.sitemapgen]\nbase_url = "https://x.example/"\nbase = 1\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, cwd=tmp_path)
    assert (
        str(info.value)
        == f"{tmp_path / 'pyproject.toml'}: tool.sitemapgen.base: unknown key (did you mean 'base_url'?)"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.sitemapgen]\nbase_url = "https://x.example/"\nmax_urls_per_sitemap = 0\n'
    )
    with pytest.raises(ConfigError, match=r"pyproject.toml: tool.sitemapgen.max_urls_per_sitemap: must be between"):
        load_config(tmp_path, cwd=tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.sitemapgen]\nbase_url = "https://x.example/"\n'
        '[[tool.sitemapgen.rules]]\npattern = "*"\npriority = 0.5\n[[tool.sitemapgen.rules]]\npattern = "a/"\n'
    )
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, cwd=tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'pyproject.toml'}: pattern in the 2nd [[tool.sitemapgen.rules]] block:"
        " rule for 'a/' sets neither priority nor changefreq"
    )


def test_keyword_errors_name_the_keyword_not_the_file(tmp_path: Path) -> None:
    (tmp_path / "sitemapgen.toml").write_text('base_url = "https://own.example/"\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, cwd=tmp_path, base_url="nope")
    assert str(info.value) == "base_url: must start with http:// or https://, got 'nope'"


def test_the_load_config_example_runs_and_writes_a_sitemap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The docstring's example, run as it is written, in a directory with a built site."""
    import doctest
    import gzip
    import xml.etree.ElementTree as ET

    import sitemapgen

    make_tree(tmp_path / "public", {"index.html": html(), "guide/index.html": html(), "drafts/x.html": html()})
    monkeypatch.chdir(tmp_path)
    assert sitemapgen.load_config.__doc__ is not None
    example = doctest.DocTestParser().get_doctest(sitemapgen.load_config.__doc__, {}, "load_config", None, 0)
    assert example.examples, "the docstring shows no example"
    report: list[str] = []
    results = doctest.DocTestRunner().run(example, out=report.append)
    assert results == doctest.TestResults(0, len(example.examples)), "".join(report)
    index = [loc.text for loc in ET.parse(tmp_path / "public" / "sitemap.xml").iter(f"{{{NS}}}loc")]
    assert index == ["https://example.com/docs/sitemap-1.xml.gz"]
    with gzip.open(tmp_path / "public" / "sitemap-1.xml.gz") as chunk:
        locs = [loc.text for loc in ET.parse(chunk).iter(f"{{{NS}}}loc")]
    assert locs == ["https://example.com/docs/", "https://example.com/docs/guide/"]


def test_load_config_without_a_file_takes_keywords(tmp_path: Path) -> None:
    config = load_config(tmp_path, base_url="https://example.com", lastmod=["git", "mtime"], max_urls_per_sitemap=10)
    assert (config.base_url, config.lastmod, config.max_urls_per_sitemap) == (
        BASE,
        (LastmodSource.GIT, LastmodSource.MTIME),
        10,
    )
    assert load_config(tmp_path, BASE) == Config(docroot=tmp_path, base_url=BASE)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param({}, "base_url: is not set: pass base_url=URL or set base_url in sitemapgen.toml", id="missing"),
        pytest.param(
            {"base_url": "example.com"}, "base_url: must start with http:// or https://, got 'example.com'", id="bad"
        ),
        pytest.param(
            {"base_url": BASE, "max_urls_per_sitemap": 0},
            "max_urls_per_sitemap: must be between 1 and 50,000, got 0",
            id="bad-keyword",
        ),
        pytest.param(
            {"base_url": BASE, "rules": [{"pattern": "*", "priority": 2}]},
            "rules[0].priority: must be between 0.0 and 1.0, got 2",
            id="python-counts-from-0",
        ),
        pytest.param(
            {"base_url": BASE, "url_style": "clean"},
            "url_style: 'clean' needs a host that serves a/index.html at /a (set host)",
            id="needs-host",
        ),
        pytest.param(
            {"base_url": BASE, "host_config": "netlify.toml"},
            "host_config: needs a host to read it as (set host)",
            id="host-config-needs-host",
        ),
    ],
)
def test_library_errors_name_the_parameter(tmp_path: Path, call: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, cwd=tmp_path, **call)
    assert str(info.value) == message
    assert "--" not in str(info.value)  # the library's words, not the command line's


def test_an_unknown_keyword_is_a_type_error_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(
        TypeError, match=r"^load_config\(\) got an unexpected keyword argument 'exlude' \(did you mean 'exclude'\?\)$"
    ):
        load_config(tmp_path, base_url=BASE, exlude=["a/"])


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("flags", " (flags= is gone: give each setting as a keyword, e.g. base_url='https://example.com/')"),
        ("flag", ""),  # nothing close (hreflang is not): no unrelated setting offered
    ],
)
def test_an_unknown_keyword_offers_nothing_unrelated(tmp_path: Path, name: str, hint: str) -> None:
    settings: dict[str, Any] = {name: {}}
    with pytest.raises(TypeError) as info:
        load_config(tmp_path, base_url=BASE, **settings)
    assert str(info.value) == f"load_config() got an unexpected keyword argument {name!r}{hint}"


def test_a_keyword_wins_over_the_file_and_a_file_error_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "sitemapgen.toml").write_text(
        'base_url = "https://own.example/"\n[[rules]]\npattern = "*"\npriority = 7\n'
    )
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, cwd=tmp_path, base_url=BASE)
    assert (
        str(info.value)
        == f"{tmp_path / 'sitemapgen.toml'}: priority in the 1st [[rules]] block: must be between 0.0 and 1.0, got 7"
    )
    assert load_config(tmp_path, cwd=tmp_path, rules=[]).rules == ()


@pytest.mark.parametrize(
    ("values", "message"),
    [
        pytest.param(
            {"lastmod": "git,mtime"},
            """lastmod: must be a list of sources, got 'git,mtime' (a list is written lastmod = ["git", "mtime"])""",
            id="lastmod",
        ),
        pytest.param(
            {"lastmod": ("git", "content, mtime")},
            "lastmod: must be a list of sources, got ('git', 'content, mtime')"
            """ (a list is written lastmod = ["git", "content", "mtime"])""",
            id="lastmod-item",
        ),
        pytest.param(
            {"exclude": "a/,b/"},
            """exclude: must be a list of patterns, got 'a/,b/' (a list is written exclude = ["a/", "b/"])""",
            id="exclude",
        ),
        pytest.param(
            {"content_select": "main, article"},
            "content_select: must be a list of CSS selectors, got 'main, article'"
            """ (a list is written content_select = ["main, article"])""",
            id="selector-list-kept-whole",
        ),
    ],
)
def test_a_list_written_as_one_string_is_shown_as_a_list(
    tmp_path: Path, values: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        Config(docroot=tmp_path, base_url=BASE, **values)  # type: ignore[arg-type]
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("key", "words"),
    [
        pytest.param("base_url", "base_url", id="no-index"),
        pytest.param("rules[0].priority", "priority in the 1st [[rules]] block", id="1st"),
        pytest.param("git_sources[1].source", "source in the 2nd [[git_sources]] block", id="2nd"),
        pytest.param("sitemaps[2].name", "name in the 3rd [[sitemaps]] block", id="3rd"),
        pytest.param("tool.sitemapgen.rules[10].x", "x in the 11th [[tool.sitemapgen.rules]] block", id="11th"),
        pytest.param("rules[11].x", "x in the 12th [[rules]] block", id="12th"),
        pytest.param("rules[20].x", "x in the 21st [[rules]] block", id="21st"),
        pytest.param("rules[111].x", "x in the 112th [[rules]] block", id="112th"),
        pytest.param("exclude[3]", "the 4th item of exclude", id="item"),
    ],
)
def test_toml_words_count_blocks_from_1(key: str, words: str) -> None:
    assert toml_words(key) == words
