"""Per-path rules: what a page's path alone decides, before anything is read from it.

A rule looks at a path relative to the docroot and may leave it out with a
`Skip`. Rules run in the page's decision (in the workers), before its `stat`
and its head; for directories they run in the walk, to prune it. The user's
exclude patterns and ``.sitemapignore`` are the first rule, robots.txt the
second; another rule with a file of its own plugs in the same way: a class with `check`
and `check_dir`, and an entry in `PATH_RULES`. (A static host's files decide
more than a skip, the URL form too: they are `hosts.base.Host.place`, asked by the
decision after the file itself.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import pathspec

from sitemapgen.pages.walk import DEFAULT_EXCLUDE, default_excluded, exclusion_spec, read_ignore_file
from sitemapgen.pipeline.robots import RobotsDisallow
from sitemapgen.skips import Skip, SkipReason

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config


class PathRule(Protocol):
    """One per-path rule, made once per build from the config."""

    def check(self, relpath: str) -> Skip | None:
        """A page's `Skip`, or None to leave it to the rest of the decision."""

    def check_dir(self, relpath: str) -> Skip | None:
        """A directory's `Skip` (relpath ends in ``/``): the walk does not enter it."""

    @property
    def by_name(self) -> bool:
        """Whether this rule leaves out no page but those `default_excluded` names."""


class Patterns:
    """The default excludes, the config's `exclude`, then ``.sitemapignore``: gitignore rules."""

    def __init__(self, config: Config) -> None:
        ignore_file = read_ignore_file(config.docroot) if config.sitemapignore else []
        self.patterns = [*DEFAULT_EXCLUDE, *config.exclude, *ignore_file]
        # None while only the defaults apply: they are checked by name, much faster.
        self.spec: pathspec.GitIgnoreSpec | None = (
            exclusion_spec(self.patterns[len(DEFAULT_EXCLUDE) :]) if len(self.patterns) > len(DEFAULT_EXCLUDE) else None
        )

    def _matched(self, path: str) -> str | None:
        """The pattern that excludes `path` (the last that matches decides), or None."""
        if self.spec is None:
            name = path.rstrip("/").rpartition("/")[2]
            return (".*" if name.startswith(".") else "404.html") if default_excluded(name) else None
        result = self.spec.check_file(path)
        return self.patterns[result.index] if result.include and result.index is not None else None

    @property
    def by_name(self) -> bool:
        return self.spec is None

    def check(self, relpath: str) -> Skip | None:
        pattern = self._matched(relpath)
        return None if pattern is None else Skip(relpath, SkipReason.EXCLUDED, pattern)

    def check_dir(self, relpath: str) -> Skip | None:
        pattern = self._matched(relpath)
        return None if pattern is None else Skip(relpath, SkipReason.EXCLUDED_DIR, pattern)


class GeneratorPages:
    """The pages the site generator made that are no document of the site (its not-found page,
    its search page, a theme's own page), as the generator says when sitemapgen runs inside it
    (`Config.not_documents`: the MkDocs plugin, the Sphinx extension)."""

    def __init__(self, config: Config) -> None:
        self.pages = config.not_documents or {}

    @property
    def by_name(self) -> bool:
        return not self.pages

    def check(self, relpath: str) -> Skip | None:
        return self.pages.get(relpath)

    def check_dir(self, relpath: str) -> Skip | None:
        return None


#: Every per-path rule, in the order they are asked: the first `Skip` decides.
PATH_RULES: tuple[Callable[[Config], PathRule], ...] = (Patterns, GeneratorPages, RobotsDisallow)


class PathRules:
    """The build's per-path rules, asked in order."""

    def __init__(self, config: Config) -> None:
        self.rules: Sequence[PathRule] = [make(config) for make in PATH_RULES]
        self.by_name = all(rule.by_name for rule in self.rules)
        """Whether a page is left out by its name alone, as `default_excluded` says (no pattern
        but the defaults, no generator's own page, no robots.txt rule): then only a path so
        named is asked of the rules, page after page and folder after folder."""

    def check(self, relpath: str) -> Skip | None:
        if self.by_name and not default_excluded(relpath.rpartition("/")[2]):
            return None
        for rule in self.rules:
            skip = rule.check(relpath)
            if skip is not None:
                return skip
        return None

    def check_dir(self, relpath: str) -> Skip | None:
        if self.by_name and not default_excluded(relpath[:-1].rpartition("/")[2]):
            return None
        for rule in self.rules:
            skip = rule.check_dir(relpath)
            if skip is not None:
                return skip
        return None
