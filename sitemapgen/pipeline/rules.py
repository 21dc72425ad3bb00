"""Priority and changefreq from the config's ``[[rules]]``.

Each field comes from the last rule that matches the page *and* sets that
field, the way later lines of a ``.gitignore`` override earlier ones; a field
no rule sets is left out of the XML (crawlers then use their own default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pathspec

from sitemapgen.config.settings import Rule
from sitemapgen.protocol import ChangeFreq


@dataclass(frozen=True, slots=True)
class Facts:
    """What the rules say about one page."""

    priority: float | None = None
    changefreq: ChangeFreq | None = None


class RuleSet:
    """Compiled rules, matched newest first so the first hit per field wins."""

    __slots__ = ("_compiled", "_empty")

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._compiled = [
            (pathspec.GitIgnoreSpec.from_lines([rule.pattern]), rule.priority, rule.changefreq)
            for rule in reversed(rules)
        ]
        self._empty = Facts()

    def facts_for(self, relpath: str) -> Facts:
        """Priority and changefreq for the page at `relpath`."""
        priority: float | None = None
        changefreq: ChangeFreq | None = None
        for spec, rule_priority, rule_changefreq in self._compiled:
            if (priority is None and rule_priority is not None) or (changefreq is None and rule_changefreq is not None):
                if not spec.match_file(relpath):
                    continue
                if priority is None:
                    priority = rule_priority
                if changefreq is None:
                    changefreq = rule_changefreq
                if priority is not None and changefreq is not None:
                    break
        if priority is None and changefreq is None:
            return self._empty
        return Facts(priority, changefreq)
