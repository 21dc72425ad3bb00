from __future__ import annotations

import pytest

from sitemapgen.config.settings import Rule
from sitemapgen.pipeline.rules import Facts, RuleSet
from sitemapgen.protocol import ChangeFreq

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
