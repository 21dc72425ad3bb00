"""What CI shows of a build: the Markdown summary, rendered, and the warnings as annotations."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from lxml import html as lxml_html
from markdown_it import MarkdownIt

from sitemapgen.commands.ci import warning_kind
from sitemapgen.util.github import MAX_ANNOTATIONS

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import head, html


def _tables(markdown: str) -> list[list[list[str]]]:
    """Every table of `markdown` as GitHub renders it (GFM tables), as rows of cell texts."""
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    document = lxml_html.fromstring(f"<div>{rendered}</div>")
    return [
        [[cell.text_content() for cell in row.xpath("th|td")] for row in table.xpath(".//tr")]
        for table in document.xpath("//table")
    ]


def _site(site: SiteFactory) -> Path:
    return site(
        {
            "index.html": html(),
            "a|b.html": html(),  # a pipe in a name must not break the table
            "hidden.html": head('<meta name="robots" content="noindex">'),
            **{f"bad{i}.html": head('<link rel="alternate" hreflang="no language" href="/x">') for i in range(5)},
        }
    )


def test_the_summary_renders_as_a_table_of_what_the_build_did(
    site: SiteFactory, cli: CliRunner, tmp_path: Path
) -> None:
    root = _site(site)
    summary = tmp_path / "summary.md"
    run = cli("build", root, "--base-url", BASE, "--summary-md", summary)
    assert run.code == 0, run.err
    facts, warnings = _tables(summary.read_text())
    assert facts[0] == ["what", "count"]
    assert dict(facts[1:]) == {
        "pages listed": "7",
        "skipped: noindex": "1",
        "lastmod from mtime": "7",
        "sitemaps": "1 (1 changed, 0 removed)",
        "index files": "sitemap.xml",
        "warnings": "5",
    }
    assert warnings[0] == ["kind", "count", "examples"]
    [(kind, count, examples)] = warnings[1:]
    assert (kind, count) == ("hreflang link ignored", "5")
    assert examples.count("hreflang link ignored") == 3  # a few examples, not all
    # With --previous (here the docroot's own last build), what changed since that deploy is a row too.
    (root / "new.html").write_text(html())
    run = cli("build", root, "--base-url", BASE, "--summary-md", summary, "--previous", root)
    assert run.code == 0, run.err
    facts, _ = _tables(summary.read_text())
    assert dict(facts[1:])["URLs added, removed, changed"] == "+1 -0 ~0 since the previous deploy"


def test_the_summary_table_counts_pages_with_no_lastmod_and_says_what_became_of_robots_txt(
    site: SiteFactory, cli: CliRunner, tmp_path: Path
) -> None:
    dated = head('<meta property="article:modified_time" content="2024-05-01T10:00:00+00:00">')
    root = site({"a.html": dated, "b.html": html(), "c.html": html()})
    summary = tmp_path / "summary.md"
    run = cli("build", root, "--base-url", BASE, "--lastmod", "meta", "--robots-txt", "update", "--summary-md", summary)
    assert run.code == 0, run.err
    facts, _ = _tables(summary.read_text())
    rows = dict(facts[1:])
    assert (rows["lastmod from meta"], rows["no lastmod"], rows["robots.txt"]) == ("1", "2", "missing")
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "create", "--summary-md", summary)
    assert run.code == 0, run.err
    rows = dict(_tables(summary.read_text())[0][1:])
    assert (rows["lastmod from mtime"], rows["robots.txt"]) == ("3", "created")
    assert "no lastmod" not in rows
    assert not {"HTML sitemap", "text sitemaps", "llms.txt"} & set(rows)
    extras = ("--html-sitemap", "--text-sitemap", "--llms-txt")
    for changed in ("1 file", "0 files"):  # written, then kept as it was
        run = cli("build", root, "--base-url", BASE, *extras, "--summary-md", summary)
        assert run.code == 0, run.err
        rows = dict(_tables(summary.read_text())[0][1:])
        assert rows["HTML sitemap"] == f"sitemap.html ({changed} changed)"
        assert rows["text sitemaps"] == f"sitemap.txt ({changed} changed)"
        assert rows["llms.txt"] == f"llms.txt ({changed} changed)"


def test_in_github_actions_the_step_summary_is_added_to_and_warnings_are_annotations(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _site(site)
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert summary.read_text().startswith("earlier step\n## sitemapgen\n")  # added to, never replaced
    annotations = run.out.splitlines()
    assert len(annotations) == 5
    assert annotations[0] == (
        f"::warning file={root / 'bad0.html'}::bad0.html: hreflang link ignored: hreflang='no language' href='/x'"
    )
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "not-written.md"))
    assert cli("build", root, "--base-url", BASE, "--no-summary-md").code == 0
    assert not (tmp_path / "not-written.md").exists()


def test_annotations_are_capped(site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = head('<link rel="alternate" hreflang="no language" href="/x">')
    root = site({f"p{i:03}.html": bad for i in range(MAX_ANNOTATIONS + 7)})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    run = cli("build", root, "--base-url", BASE)
    lines = run.out.splitlines()
    assert len(lines) == MAX_ANNOTATIONS + 1
    assert lines[-1] == "::warning::7 more sitemapgen warnings: see the log"
    assert len([line for line in run.err.splitlines() if line.startswith("warning: ")]) == MAX_ANNOTATIONS + 7


def test_an_annotation_escapes_what_github_would_read_as_syntax(
    site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = site({"index.html": html(), "50%,a:b.html": head('<link rel="alternate" hreflang="no language" href="/x">')})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    run = cli("build", root, "--base-url", BASE, "--json")
    [annotation] = [line for line in run.err.splitlines() if line.startswith("::")]  # --json: stdout is JSON
    path = str(root / "50%,a:b.html").replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    assert annotation.startswith(f"::warning file={path}::50%25,a:b.html: hreflang link ignored")


@pytest.mark.parametrize(
    ("message", "kind", "path"),
    [
        ("a/b.html: skipped, broken symlink", "skipped, broken symlink", "a/b.html"),
        ("a.html: hreflang link ignored: hreflang='x y' href='/x'", "hreflang link ignored", "a.html"),
        (
            "12 pages: canonical names a URL no file here answers; e.g. a.html names /b.html",
            "N pages: canonical names a URL no file here answers",
            None,
        ),
        ("1,234 skipped, not a page (no doctype); e.g. p.html", "N skipped, not a page (no doctype)", None),
    ],
)
def test_warning_kinds(message: str, kind: str, path: str | None) -> None:
    assert warning_kind(message) == (kind, path)


class _FullDisk:
    """A file object whose every write fails as a full disk does."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("existed", [False, True], ids=["new-file", "users-file"])
def test_a_summary_that_cannot_be_written_leaves_no_empty_file_of_ours(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existed: bool
) -> None:
    root = _site(site)
    summary = tmp_path / "summary.md"
    if existed:
        summary.write_text("the user's\n")
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FullDisk(fd))
    run = cli("build", root, "--base-url", BASE, "--summary-md", summary)
    assert run.code == 3
    assert run.err.splitlines()[-1] == (
        f"error: {summary}: cannot write the summary: No space left on device (the sitemaps were published)"
    )
    assert (root / "sitemap.xml").exists()
    assert summary.exists() == existed  # ours removed; the user's file is theirs (truncated, as asked)
