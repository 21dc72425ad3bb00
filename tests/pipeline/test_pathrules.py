"""The per-path rule step: what a path alone decides, and which pattern decided it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapgen import Config, SkipReason
from sitemapgen.pipeline.pathrules import PATH_RULES, PathRules, Patterns

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    html,
    locs,
)


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


def test_exclusions(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site(
        {
            "index.html": html(),
            "404.html": html(),
            "fr/404.html": html(),
            ".hidden.html": html(),
            ".git/x.html": html(),
            "a/.b/c.html": html(),
            ".well-known/keep.html": html(),
            "drafts/x.html": html(),
            "private/secret.html": html(),
            "private/public.html": html(),
            "tmp-1.html": html(),
            ".sitemapignore": "# comment\ntmp-*.html\n",
        }
    )
    config = tmp_path / "sitemapgen.toml"
    config.write_text(
        f'base_url = "{BASE}"\nexclude = ["drafts/", "private/*", "!private/public.html", "!.well-known/"]\n'
    )
    run = cli("build", root, "--config", config)
    assert run.code == 0, run.err
    assert locs(root, BASE) == [BASE, BASE + ".well-known/keep.html", BASE + "private/public.html"]
    assert "warning" not in run.err


def test_sitemapignore_can_be_switched_off_in_a_build(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"a.html": html(), ".sitemapignore": "a.html\n", "b.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    assert locs(root, BASE) == [BASE + "b.html"]
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nsitemapignore = false\n')
    assert cli("build", root, "--config", config).code == 0
    assert locs(root, BASE) == [BASE + "a.html", BASE + "b.html"]


def test_bad_sitemapignore(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), ".sitemapignore": "ok\n\\\n"})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 2
    assert run.err.startswith(f"error: {root / '.sitemapignore'}: line 2: invalid pattern")
    assert not (root / "sitemap.xml").exists()
    fresh_out = cli("build", root, "--base-url", BASE, "--out", root.parent / "new-out")
    assert fresh_out.code == 2
    assert not (root.parent / "new-out").exists()  # the directory it would have created is gone
