from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen.config.settings import Rule
from sitemapgen.pipeline.rules import Facts, RuleSet
from sitemapgen.protocol import ChangeFreq

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    html,
    published,
)

RULES = RuleSet(
    [
        Rule("*", priority=0.5, changefreq=ChangeFreq.MONTHLY),
        Rule("blog/", changefreq=ChangeFreq.WEEKLY),
        Rule("blog/archive/**", priority=0.1),
        Rule("/index.html", priority=1.0),
        Rule("*.htm", changefreq=ChangeFreq.NEVER),
    ]
)


@pytest.mark.parametrize(
    ("relpath", "expected"),
    [
        pytest.param("index.html", Facts(1.0, ChangeFreq.MONTHLY), id="root-index-priority-only"),
        pytest.param("a/index.html", Facts(0.5, ChangeFreq.MONTHLY), id="anchored-pattern-misses-subdir"),
        pytest.param("blog/post.html", Facts(0.5, ChangeFreq.WEEKLY), id="changefreq-from-later-rule"),
        pytest.param("blog/archive/2001/x.html", Facts(0.1, ChangeFreq.WEEKLY), id="fields-from-two-rules"),
        pytest.param("blog/old.htm", Facts(0.5, ChangeFreq.NEVER), id="last-rule-wins"),
    ],
)
def test_last_matching_rule_wins_per_field(relpath: str, expected: Facts) -> None:
    assert RULES.facts_for(relpath) == expected


def test_no_rules_leave_both_fields_out() -> None:
    assert RuleSet([]).facts_for("a.html") == Facts(None, None)
    assert RuleSet([Rule("docs/", priority=0.9)]).facts_for("a.html") == Facts(None, None)


def test_rules_last_match_wins_field_by_field(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"index.html": html(), "blog/post.html": html(), "blog/old/x.html": html(), "docs/a.html": html()})
    config = tmp_path / "sitemapgen.toml"
    config.write_text(
        f"""base_url = "{BASE}"
[[rules]]
pattern = "*"
priority = 0.5
changefreq = "monthly"
[[rules]]
pattern = "blog/"
changefreq = "weekly"
[[rules]]
pattern = "blog/old/"
priority = 0.1
[[rules]]
pattern = "/index.html"
priority = 1
"""
    )
    assert cli("build", root, "--config", config).code == 0
    got = {u.loc[len(BASE) :]: (u.priority, u.changefreq) for u in published(root, BASE)}
    assert got == {
        "": ("1.0", "monthly"),
        "blog/post.html": ("0.5", "weekly"),
        "blog/old/x.html": ("0.1", "weekly"),
        "docs/a.html": ("0.5", "monthly"),
    }


def test_fields_no_rule_sets_are_left_out(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    [url] = published(root, BASE)
    assert (url.priority, url.changefreq) == (None, None)
    assert url.lastmod is not None
