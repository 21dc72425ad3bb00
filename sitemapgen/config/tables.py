"""The config's tables (``[[rules]]``, ``[[sitemaps]]``, ``[[git_sources]]``): each row checked as
it is made, and its errors named by the row (``rules[2].priority``), which the loader turns into
the file's words (``priority in the 3rd [[rules]] block``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sitemapgen.config.checks import check_pattern, check_table, check_tables, enum_value
from sitemapgen.config.words import GitSource
from sitemapgen.errors import ConfigError
from sitemapgen.protocol import ChangeFreq


@dataclass(frozen=True, slots=True)
class Rule:
    """Sets priority and/or changefreq for the pages a pattern matches.

    Later rules win, field by field, so a broad rule can come first and
    narrower exceptions after it, as in a ``.gitignore``.
    """

    pattern: str
    priority: float | None = None
    changefreq: ChangeFreq | None = None

    def __post_init__(self) -> None:
        check_pattern(self.pattern, "pattern")
        if self.priority is not None:
            p = self.priority
            if isinstance(p, bool) or not isinstance(p, int | float) or not math.isfinite(p):
                raise ConfigError("priority", f"must be a number between 0.0 and 1.0, got {p!r}")
            if not 0.0 <= p <= 1.0:
                raise ConfigError("priority", f"must be between 0.0 and 1.0, got {p!r}")
            object.__setattr__(self, "priority", float(p))
        if self.changefreq is not None:
            object.__setattr__(self, "changefreq", enum_value(ChangeFreq, self.changefreq, "changefreq"))
        if self.priority is None and self.changefreq is None:
            raise ConfigError("pattern", f"rule for {self.pattern!r} sets neither priority nor changefreq")


_RULE_KEYS = ("pattern", "priority", "changefreq")


def rule_from(value: object, index: int) -> Rule:
    if isinstance(value, Rule):
        return value
    where = f"rules[{index}]"
    table = check_table(value, where, _RULE_KEYS, ("pattern",))
    try:
        return Rule(**table)
    except ConfigError as e:
        raise ConfigError(f"{where}.{e.key}", e.problem) from e


_SECTION_KEYS = ("name", "pattern")
_SECTION_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


@dataclass(frozen=True, slots=True)
class Section:
    """A series of its own for the pages `pattern` matches: ``sitemap-NAME-N.xml.gz``."""

    name: str
    pattern: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _SECTION_NAME.match(self.name) or self.name == "index":
            raise ConfigError(
                "name",
                "must be lower-case letters, digits, '-' or '_', starting with a letter"
                f" (and not 'index'), got {self.name!r}",
            )
        check_pattern(self.pattern, "pattern")


def _section_from(value: object, index: int) -> Section:
    if isinstance(value, Section):
        return value
    where = f"sitemaps[{index}]"
    table = check_table(value, where, _SECTION_KEYS, _SECTION_KEYS)
    try:
        return Section(**table)
    except ConfigError as e:
        raise ConfigError(f"{where}.{e.key}", e.problem) from e


def sections(value: object, key: str) -> tuple[Section, ...]:
    """The ``[[sitemaps]]`` tables, no name twice."""
    found = check_tables(value, key, _section_from)
    names = [section.name for section in found]
    if len(set(names)) != len(names):
        raise ConfigError(key, f"names a section twice: {names}")
    return found


_GIT_SOURCE_KEYS = ("match", "source")


def git_source_from(value: object, index: int) -> GitSource:
    if isinstance(value, GitSource):
        return value
    where = f"git_sources[{index}]"
    value = check_table(value, where, _GIT_SOURCE_KEYS, _GIT_SOURCE_KEYS)
    match, source = value.get("match"), value.get("source")
    if not isinstance(match, str) or not match:
        raise ConfigError(f"{where}.match", f"must be a non-empty string, got {match!r}")
    sources = [source] if isinstance(source, str) else source
    if not isinstance(sources, list) or not sources or not all(isinstance(s, str) and s for s in sources):
        raise ConfigError(
            f"{where}.source", f"must be a non-empty string or a list of them (tried in order), got {source!r}"
        )
    try:
        compiled = re.compile(match)
    except re.error as e:
        raise ConfigError(f"{where}.match", f"invalid regular expression {match!r}: {e}") from e
    for candidate in sources:
        try:
            compiled.sub(candidate, "")  # checks the template's group references, even with no match
        except (re.error, IndexError) as e:
            raise ConfigError(f"{where}.source", f"invalid replacement {candidate!r}: {e}") from e
    return GitSource(match, source if isinstance(source, str) else tuple(sources))
