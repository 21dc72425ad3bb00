"""The per-path rule step: what a path alone decides, and which pattern decided it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen import Config, SkipReason
from sitemapgen.pipeline.pathrules import PATH_RULES, PathRules, Patterns

from ..conftest import BASE


@pytest.mark.parametrize(
    ("exclude", "ignore_file", "path", "expected"),
    [
        pytest.param((), None, "a.html", None, id="plain-page"),
        pytest.param((), None, ".draft.html", ".*", id="default-dot-file"),
        pytest.param((), None, "x/404.html", "404.html", id="default-404"),
        pytest.param((), None, ".git/", ".*", id="default-dot-directory"),
        pytest.param(("drafts/",), None, "drafts/", "drafts/", id="directory-pattern"),
        pytest.param(("drafts/",), None, "drafts.html", None, id="directory-pattern-not-a-file"),
        pytest.param(("private/*", "!private/press.html"), None, "private/press.html", None, id="re-included"),
        pytest.param(("private/*", "!private/press.html"), None, "private/a.html", "private/*", id="last-match-wins"),
        pytest.param(("!404.html",), None, "404.html", None, id="default-re-included"),
        pytest.param((), "/search.html\n", "search.html", "/search.html", id="sitemapignore"),
        pytest.param((), "/search.html\n", "a/search.html", None, id="sitemapignore-anchored"),
    ],
)
def test_patterns(
    tmp_path: Path, exclude: tuple[str, ...], ignore_file: str | None, path: str, expected: str | None
) -> None:
    if ignore_file is not None:
        (tmp_path / ".sitemapignore").write_text(ignore_file)
    rules = PathRules(Config(docroot=tmp_path, base_url=BASE, exclude=exclude))
    skip = rules.check_dir(path) if path.endswith("/") else rules.check(path)
    assert (skip.detail if skip else None) == expected
    if skip is not None:
        assert skip.relpath == path
        assert skip.reason is (SkipReason.EXCLUDED_DIR if path.endswith("/") else SkipReason.EXCLUDED)


def test_sitemapignore_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / ".sitemapignore").write_text("a.html\n")
    assert PathRules(Config(docroot=tmp_path, base_url=BASE, sitemapignore=False)).check("a.html") is None


def test_the_patterns_are_the_first_rule() -> None:
    assert PATH_RULES[0] is Patterns
