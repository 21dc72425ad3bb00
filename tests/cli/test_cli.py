"""End-to-end runs of `sitemapgen build` over tmp_path docroots, read back through lxml and the XSDs."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, unquote_to_bytes, urlsplit

import pytest

import sitemapgen
from sitemapgen.output.writer import read_published

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    HEAD_SITE,
    error_line,
    fetch,
    head,
    html,
    index_paths,
    locs,
    make_tree,
    output_files,
    published,
    read_chunk,
    read_index,
    run_unprivileged,
    static_server,
)


def test_build_writes_index_and_gzipped_chunk(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"index.html": html(), "a/b/index.html": html(), "a/b.html": html(), "style.css": "x"})
    for page, mtime in (("index.html", 1_600_000_000), ("a/b/index.html", 1_700_000_000), ("a/b.html", 1_650_000_000)):
        os.utime(root / page, (mtime, mtime))
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert run.out == ""
    assert run.err.count("\n") == 1
    assert "listed 3 pages in 1 sitemap" in run.err
    # The index's lastmod is the newest page's (a/b/index.html).
    assert read_index(root / "sitemap.xml") == [(BASE + "sitemap-1.xml.gz", "2023-11-14T22:13:20+00:00")]
    assert locs(root, BASE) == [BASE, BASE + "a/b.html", BASE + "a/b/"]
    assert (root / "sitemap-1.xml.gz").read_bytes()[:2] == b"\x1f\x8b"


TRICKY_NAMES = [
    pytest.param("with space.html", "with%20space.html", id="space"),
    pytest.param("über.html", "%C3%BCber.html", id="u-umlaut"),
    pytest.param("日本語.html", "%E6%97%A5%E6%9C%AC%E8%AA%9E.html", id="cjk"),
    pytest.param("emoji-🎉.html", "emoji-%F0%9F%8E%89.html", id="emoji"),
    pytest.param('q"uote.html', "q%22uote.html", id="double-quote"),
    pytest.param("a<b>c.html", "a%3Cb%3Ec.html", id="angle-brackets"),
    pytest.param("100%.html", "100%25.html", id="percent"),
    pytest.param("%41.html", "%2541.html", id="percent-escape-lookalike"),
    pytest.param("hash#tag.html", "hash%23tag.html", id="hash"),
    pytest.param("what?.html", "what%3F.html", id="question-mark"),
    pytest.param("q&a.html", "q&a.html", id="ampersand"),
    pytest.param("it's.html", "it's.html", id="apostrophe"),
    pytest.param("a+b;c=d,e.html", "a+b;c=d,e.html", id="sub-delims"),
    pytest.param("back\\slash.html", "back%5Cslash.html", id="backslash"),
    pytest.param("tab\tand\nnewline.html", "tab%09and%0Anewline.html", id="control-chars"),
    pytest.param("-dash.html", "-dash.html", id="leading-dash"),
    pytest.param(" lead and trail .html", "%20lead%20and%20trail%20.html", id="edge-spaces"),
    pytest.param("x" * 250 + ".html", "x" * 250 + ".html", id="255-bytes"),
    pytest.param("dir with space/ü/index.html", "dir%20with%20space/%C3%BC/", id="dirs"),
]


@pytest.mark.parametrize(("name", "encoded"), TRICKY_NAMES)
def test_tricky_names_are_encoded_once_and_served(
    site: SiteFactory, cli: CliRunner, name: str, encoded: str, tmp_path: Path
) -> None:
    content = html(name)
    root = site({name: content})
    with static_server(root) as served:
        assert cli("build", root, "--base-url", served).code == 0
        [loc] = locs(root, served)
        assert loc == served + encoded
        assert unquote(urlsplit(loc).path) == "/" + name.removesuffix("index.html")
        assert fetch(loc) == content.encode()


def test_name_that_is_not_utf8_is_encoded_from_its_raw_bytes(site: SiteFactory, cli: CliRunner) -> None:
    root = site({b"caf\xe9.html": html(), b"\xff\xfe/index.html": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    got = locs(root, BASE)
    assert got == [BASE + "caf%E9.html", BASE + "%FF%FE/"]
    # The standard library's server decodes paths as UTF-8 and cannot serve these
    # names; a byte-transparent server (nginx, Apache) maps the raw bytes back:
    assert [unquote_to_bytes(u[len(BASE) :]) for u in got] == [b"caf\xe9.html", b"\xff\xfe/"]


def test_xml_special_characters_are_escaped_exactly_once(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"q&a's.html": html(), "%26amp;.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    raw = gzip.decompress((root / "sitemap-1.xml.gz").read_bytes()).decode()
    assert "<loc>https://example.com/q&amp;a&apos;s.html</loc>" in raw
    assert "<loc>https://example.com/%2526amp;.html</loc>" in raw
    assert locs(root, BASE) == [BASE + "%2526amp;.html", BASE + "q&a's.html"]


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        pytest.param(None, ["", "a/", "a/b.html", "a/c.htm"], id="directory-default"),
        pytest.param("directory", ["", "a/", "a/b.html", "a/c.htm"], id="directory"),
        pytest.param("index", ["index.html", "a/index.html", "a/b.html", "a/c.htm"], id="index"),
        pytest.param("extensionless", ["", "a/", "a/b", "a/c"], id="extensionless"),
    ],
)
def test_url_styles(site: SiteFactory, cli: CliRunner, style: str | None, expected: list[str]) -> None:
    root = site({"index.html": html(), "a/index.html": html(), "a/b.html": html(), "a/c.htm": html()})
    args = ["--url-style", style] if style else []
    assert cli("build", root, "--base-url", BASE, *args).code == 0
    assert locs(root, BASE) == [BASE + e for e in expected]


def test_url_style_from_config(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"a/b.html": html()})
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nurl_style = "extensionless"\n')
    assert cli("build", root, "--config", config).code == 0
    assert locs(root, BASE) == [BASE + "a/b"]


def test_index_and_htm_twins_give_one_url_and_a_warning(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"index.html": html(), "index.htm": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0
    assert locs(root, BASE) == [BASE]
    assert "warning: index.htm: skipped, same URL as an earlier page (index.html)" in run.err


def test_base_url_with_path_and_port_served_from_a_parent(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"index.html": html("home"), "guide/ü x.html": html("guide")})
    with static_server(tmp_path) as served:
        base = served + "public/"
        assert cli("build", root, "--base-url", base.removesuffix("/")).code == 0
        urls = locs(root, base)
        assert urls == [base, base + "guide/%C3%BC%20x.html"]
        assert [loc for loc, _ in read_index(root / "sitemap.xml")] == [base + "sitemap-1.xml.gz"]
        assert fetch(urls[1]) == html("guide").encode()
        assert fetch(read_index(root / "sitemap.xml")[0][0]) == (root / "sitemap-1.xml.gz").read_bytes()


def test_every_url_of_the_sample_site_resolves_on_a_static_server(cli: CliRunner, tmp_path: Path) -> None:
    import shutil

    sample = Path(__file__).parents[2] / "sample_site"
    root = tmp_path / "sample"
    shutil.copytree(sample, root, ignore=shutil.ignore_patterns("sitemap*.xml*"))
    config = sample.parent / "sample_site.toml"
    with static_server(root) as served:
        assert cli("build", root, "--config", config, "--base-url", served).code == 0
        urls = published(root, served)
        assert len(urls) >= 10
        for url in urls:
            path = root / unquote(urlsplit(url.loc).path).lstrip("/")
            if url.loc.endswith("/"):
                path = path / "index.html"
            assert fetch(url.loc) == path.read_bytes(), url.loc
        listed = {unquote(u.loc[len(served) :]) for u in urls}
        assert "drafts/next-post.html" not in listed
        assert "404.html" not in listed
        assert "docs/café.html" in listed


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


def test_sitemapignore_can_be_switched_off(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"a.html": html(), ".sitemapignore": "a.html\n", "b.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    assert locs(root, BASE) == [BASE + "b.html"]
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nsitemapignore = false\n')
    assert cli("build", root, "--config", config).code == 0
    assert locs(root, BASE) == [BASE + "a.html", BASE + "b.html"]


def test_symlinks(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.html").write_text(html("secret"))
    root = site({"real.html": html("real"), "sub/page.html": html("sub")})
    (root / "alias.html").symlink_to("real.html")
    (root / "leak.html").symlink_to(outside / "secret.html")
    (root / "broken.html").symlink_to("nowhere.html")
    (root / "linkdir").symlink_to(root / "sub")
    (root / "loop").symlink_to(root)
    (root / "outdir").symlink_to(outside)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    assert locs(root, BASE) == [BASE + "alias.html", BASE + "real.html", BASE + "sub/page.html"]
    assert "warning: leak.html: skipped, symlink to outside the docroot" in run.err
    assert "warning: broken.html: skipped, broken symlink" in run.err
    assert str(outside) not in run.err.replace("leak.html", "")
    assert "3 directory symlinks not followed" in run.err


def test_unreadable_entries_warn_and_the_run_goes_on(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"ok.html": html()})
    os.mkfifo(root / "pipe.html")  # opening it would hang: it must never be opened
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0
    assert locs(root, BASE) == [BASE + "ok.html"]
    assert "warning: pipe.html: skipped, not a regular file" in run.err


def test_own_output_and_other_files_are_never_listed(site: SiteFactory, cli: CliRunner) -> None:
    files: dict[str, str | bytes] = {"a.html": html(), "feed.xml": "<feed/>", "img.png": b"\x89PNG", "x.html.txt": ""}
    root = site(files)
    assert cli("build", root, "--base-url", BASE).code == 0
    first = output_files(root)
    assert cli("build", root, "--base-url", BASE).code == 0
    assert locs(root, BASE) == [BASE + "a.html"]
    assert output_files(root) == first


def test_lastmod_matches_date_command(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), "b.html": html()})
    os.utime(root / "a.html", ns=(0, 1_098_780_999_999_999_999))  # 2004-10-26T08:56:39.999...
    os.utime(root / "b.html", ns=(0, -1_500_000_000))  # before the epoch: date -r floors
    assert cli("build", root, "--base-url", BASE).code == 0
    got = [u.lastmod for u in published(root, BASE)]
    expected = [
        subprocess.run(
            ["date", "--iso-8601=seconds", "-u", "-r", str(root / name)], capture_output=True, text=True, check=True
        ).stdout.strip()
        for name in ("a.html", "b.html")
    ]
    assert got == expected == ["2004-10-26T08:56:39+00:00", "1969-12-31T23:59:58+00:00"]


def test_lastmod_date_only(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    os.utime(root / "a.html", (1098780999, 1098780999))
    assert cli("build", root, "--base-url", BASE, "--lastmod-format", "date").code == 0
    assert [u.lastmod for u in published(root, BASE)] == ["2004-10-26"]
    assert read_index(root / "sitemap.xml")[0][1] == "2004-10-26"


def test_index_lastmod_is_newest_in_its_chunk(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(5)})
    times = [300, 100, 200, 500, 400]
    for i, t in enumerate(times):
        os.utime(root / f"p{i}.html", (t, 1_600_000_000 + t))
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "2", "--chunking", "fill").code == 0
    got = [lastmod for _, lastmod in read_index(root / "sitemap.xml")]
    assert got == ["2020-09-13T12:31:40+00:00", "2020-09-13T12:35:00+00:00", "2020-09-13T12:33:20+00:00"]


def test_chunks_at_a_small_url_limit(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i:02}.html": html() for i in range(25)})
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "10", "--chunking", "fill").code == 0
    index = read_index(root / "sitemap.xml")
    assert [loc for loc, _ in index] == [BASE + f"sitemap-{n}.xml.gz" for n in (1, 2, 3)]
    assert [len(read_chunk(root / f"sitemap-{n}.xml.gz")) for n in (1, 2, 3)] == [10, 10, 5]
    assert locs(root, BASE) == [BASE + f"p{i:02}.html" for i in range(25)]


def test_chunks_at_a_byte_limit(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"{'long-name-' * 5}{i:03}.html": html() for i in range(40)})
    assert cli("build", root, "--base-url", BASE, "--max-bytes-per-sitemap", "1500").code == 0
    chunks = sorted(root.glob("sitemap-*.xml.gz"))
    assert len(chunks) > 3
    sizes = [len(gzip.decompress(c.read_bytes())) for c in chunks]
    assert max(sizes) <= 1500
    assert len(locs(root, BASE)) == 40  # each page exactly once
    assert len(set(locs(root, BASE))) == 40


def test_more_chunks_than_one_index_may_list(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(7)})
    run = cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "1", "--max-sitemaps-per-index", "3")
    assert run.code == 0, run.err
    assert [p.name for p in index_paths(root)] == ["sitemap.xml", "sitemap-index-2.xml", "sitemap-index-3.xml"]
    assert [len(read_index(p)) for p in index_paths(root)] == [3, 3, 1]
    assert sorted(locs(root, BASE)) == sorted(BASE + f"p{i}.html" for i in range(7))
    assert "wrote 3 index files" in run.err


def test_stale_files_of_a_larger_build_are_removed(site: SiteFactory, cli: CliRunner) -> None:
    root = site({f"p{i}.html": html() for i in range(7)})
    assert (
        cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "1", "--max-sitemaps-per-index", "3").code == 0
    )
    assert cli("build", root, "--base-url", BASE).code == 0
    # The new chunk takes a number the published index did not use (it never overwrites a listed file).
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("sitemap")) == ["sitemap-8.xml.gz", "sitemap.xml"]
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]
    assert len(locs(root, BASE)) == 7


def test_long_urls_are_skipped_with_a_warning(site: SiteFactory, cli: CliRunner) -> None:
    deep = "/".join(["ü" * 100] * 4) + "/page.html"  # each ü becomes %C3%BC: about 2,400 characters
    root = site({deep: html(), "ok.html": html()})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0
    assert locs(root, BASE) == [BASE + "ok.html"]
    assert "skipped, URL of 2,048 characters or more" in run.err


def test_rebuild_is_byte_identical(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    files: dict[str | bytes, str | bytes] = {f"s{i % 3}/p{i}.html": html() for i in range(30)}
    root = site(files | {"ü.html": html()})
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "7", "--out", tmp_path / "one").code == 0
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "7", "--out", tmp_path / "two").code == 0
    one, two = output_files(tmp_path / "one"), output_files(tmp_path / "two")
    assert one == two
    assert len(one) > 2
    assert cli("build", root, "--base-url", BASE, "--max-urls-per-sitemap", "7", "--out", tmp_path / "two").code == 0
    assert output_files(tmp_path / "two") == one  # in place too: nothing changed, nothing rewritten
    for name, data in one.items():
        if name.endswith(".gz"):
            assert data[4:8] == b"\0\0\0\0"  # gzip header mtime
            assert data[3] & 0x08 == 0  # no file name in the header


def test_out_dir_outside_the_docroot(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"a.html": html()})
    out = tmp_path / "dist" / "maps"
    assert cli("build", root, "--base-url", BASE, "--out", out).code == 0
    assert locs(out, BASE) == [BASE + "a.html"]
    assert not (root / "sitemap.xml").exists()


def test_python_dash_m_and_console_script(site: SiteFactory) -> None:
    root = site({"a.html": html()})
    for cmd in ([sys.executable, "-m", "sitemapgen"], [str(Path(sys.executable).parent / "sitemapgen")]):
        ok = subprocess.run([*cmd, "build", str(root), "--base-url", BASE], capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr
        bad = subprocess.run([*cmd, "build", str(root), "--base-url", "ftp://x"], capture_output=True, text=True)
        assert bad.returncode == 2
        assert bad.stderr.startswith("error: --base-url: must start with http:// or https://")
        assert "Traceback" not in bad.stderr


def test_usage_errors_exit_2_without_traceback(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    for args in (["build", root, "--nope"], ["build"], ["frobnicate"], ["build", root, "--url-style", "pretty"]):
        run = cli(*args)
        assert run.code == 2, args
        assert error_line(run.err).startswith("sitemapgen")  # not typer's five-line box
        assert "--help)" in run.err
    assert sorted(p.name for p in root.iterdir()) == ["a.html"]


def test_interrupt_exits_130(site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    root = site({"a.html": html()})

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("sitemapgen.cli.program.run_build", interrupted)
    run = cli("build", root, "--base-url", BASE)
    assert (run.code, run.err) == (130, "interrupted\n")


def test_help_and_version(cli: CliRunner) -> None:
    run = cli("build", "--help")
    assert run.code == 0
    assert "--base-url" in run.out
    version = cli("--version")
    assert (version.code, version.out) == (0, f"sitemapgen {sitemapgen.__version__}\n")
    bare = cli()  # no arguments: a usage error (exit 2), answered with the help
    assert bare.code == 2
    assert "Usage: sitemapgen [OPTIONS] COMMAND [ARGS]..." in bare.out
    assert all(command in bare.out for command in ("build", "check", "validate", "list", "explain"))


OK = 'base_url = "https://example.com/"\n'  # a valid start for each bad config
BAD_CONFIGS = [
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = 1.5\n',
        "rules[0].priority: must be between 0.0 and 1.0, got 1.5",
        id="priority-1.5",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = -0.1\n',
        "rules[0].priority: must be between 0.0 and 1.0, got -0.1",
        id="priority-negative",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = "high"\n',
        "rules[0].priority: must be a number between 0.0 and 1.0, got 'high'",
        id="priority-string",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\npriority = true\n',
        "rules[0].priority: must be a number",
        id="priority-bool",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "a"\n[[rules]]\npattern = "*"\nchangefreq = "fortnightly"\n',
        "rules[0].pattern: rule for 'a' sets neither priority nor changefreq",
        id="rule-sets-nothing",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\nchangefreq = "fortnightly"\n',
        "rules[0].changefreq: must be one of 'always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never',"
        " got 'fortnightly'",
        id="unknown-changefreq",
    ),
    pytest.param(
        OK + 'exlude = ["x"]\n',
        "exlude: unknown key (did you mean 'exclude'?)",
        id="unknown-key",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "*"\nprority = 0.5\n',
        "rules[0].prority: unknown key (did you mean 'priority'?)",
        id="unknown-rule-key",
    ),
    pytest.param(
        OK + "[[rules]]\npriority = 0.5\n",
        "rules[0].pattern: is missing",
        id="rule-without-pattern",
    ),
    pytest.param(OK + "exclude = [\n", "invalid TOML: ", id="toml-syntax"),
    pytest.param(
        OK + 'exclude = ["a\\\\"]\n',
        "exclude[0]: invalid pattern 'a\\\\'",
        id="invalid-exclude-pattern",
    ),
    pytest.param(
        OK + '[[rules]]\npattern = "!"\npriority = 0.5\n',
        "rules[0].pattern: invalid pattern '!'",
        id="invalid-rule-pattern",
    ),
    pytest.param(
        OK + 'exclude = "drafts/"\n',
        "exclude: must be a list of patterns, got 'drafts/'",
        id="exclude-not-a-list",
    ),
    pytest.param(
        'base_url = "example.com"\n',
        "base_url: must start with http:// or https://, got 'example.com'",
        id="base-url-no-scheme",
    ),
    pytest.param('base_url = "https:///docs/"\n', "base_url: has no host, got 'https:///docs/'", id="base-url-no-host"),
    pytest.param(
        OK + "max_urls_per_sitemap = 50001\n",
        "max_urls_per_sitemap: must be between 1 and 50,000, got 50,001",
        id="over-protocol-limit",
    ),
    pytest.param(
        OK + "max_bytes_per_sitemap = 52428801\n",
        "max_bytes_per_sitemap: must be between 1,024 and 52,428,800, got 52,428,801",
        id="over-current-byte-limit",
    ),
    pytest.param(
        OK + "max_sitemaps_per_index = 50001\n",
        "max_sitemaps_per_index: must be between 1 and 50,000, got 50,001",
        id="over-current-index-limit",
    ),
    pytest.param(
        OK + 'url_style = "pretty"\n',
        "url_style: must be one of 'directory', 'index', 'extensionless', 'clean', got 'pretty'",
        id="bad-url-style",
    ),
    pytest.param(
        "base_url = 'https://example.com/'\nexclude = ['\\u00e9']\n\xff", "cannot read config file", id="not-utf8"
    ),
]


@pytest.mark.parametrize(("content", "message"), BAD_CONFIGS)
def test_bad_config_is_one_line_exit_2_and_writes_nothing(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, content: str, message: str
) -> None:
    root = site({"a.html": html()})
    before = sorted(p.name for p in root.rglob("*"))
    config = tmp_path / "bad.toml"
    config.write_bytes(
        content.encode("utf-8", "surrogateescape") if "\xff" not in content else content.encode("latin-1")
    )
    run = cli("build", root, "--config", config)
    assert run.code == 2
    assert run.err.startswith(f"error: {config}: {message}"), run.err
    assert run.err.count("\n") == 1
    assert "Traceback" not in run.err
    assert sorted(p.name for p in root.rglob("*")) == before


BAD_FLAGS = [
    pytest.param(["--base-url", "ftp://example.com/"], "--base-url: must start with http:// or https://", id="ftp"),
    pytest.param(["--base-url", "https://"], "--base-url: has no host", id="no-host"),
    pytest.param(["--base-url", "//example.com/"], "--base-url: must start with http:// or https://", id="no-scheme"),
    pytest.param(["--base-url", "https://example.com:99999/"], "--base-url: is not a valid URL", id="bad-port"),
    pytest.param(
        ["--base-url", "https://example.com/?a=1"], "--base-url: must not have a query or fragment", id="query"
    ),
    pytest.param(
        ["--base-url", "https://ex ample.com/"], "--base-url: must not contain white space outside its path", id="space"
    ),
    pytest.param(
        ["--base-url", "https://user:pw@example.com/"], "--base-url: must not carry a user name", id="userinfo"
    ),
    pytest.param(["--base-url", "https://exa_mple.com/"], "--base-url: has an invalid host name", id="bad-host"),
    pytest.param(
        ["--base-url", "https://example.com/%zz/"], "--base-url: has a '%' that is not followed", id="bad-percent"
    ),
    pytest.param([], "base_url: is not set: pass --base-url URL or set base_url in sitemapgen.toml", id="missing"),
    pytest.param(
        ["--base-url", BASE, "--max-urls-per-sitemap", "0"], "--max-urls-per-sitemap: must be between 1", id="zero-urls"
    ),
    pytest.param(
        ["--base-url", BASE, "--max-bytes-per-sitemap", "52428801"],
        "--max-bytes-per-sitemap: must be between",
        id="big-bytes",
    ),
    pytest.param(
        ["--base-url", BASE, "--max-sitemaps-per-index", "50001"],
        "--max-sitemaps-per-index: must be between",
        id="big-index",
    ),
    pytest.param(["--base-url", BASE, "--config", "nope.toml"], "nope.toml: no such config file", id="missing-config"),
]


@pytest.mark.parametrize(("args", "message"), BAD_FLAGS)
def test_bad_flags_are_one_line_exit_2_and_write_nothing(
    site: SiteFactory, cli: CliRunner, args: list[str], message: str
) -> None:
    root = site({"a.html": html()})
    run = cli("build", root, *args)
    assert run.code == 2
    assert run.err.startswith(f"error: {message}"), run.err
    assert run.err.count("\n") == 1
    assert sorted(p.name for p in root.iterdir()) == ["a.html"]


def test_missing_docroot(cli: CliRunner, tmp_path: Path) -> None:
    run = cli("build", tmp_path / "nope", "--base-url", BASE)
    assert (run.code, run.err) == (2, f"error: docroot not found: {tmp_path / 'nope'}\n")
    assert not (tmp_path / "nope").exists()


def test_docroot_that_is_a_file(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    run = cli("build", tmp_path / "f", "--base-url", BASE)
    assert (run.code, run.err) == (2, f"error: docroot not a directory: {tmp_path / 'f'}\n")


def test_out_inside_the_docroot_is_refused(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    run = cli("build", root, "--base-url", BASE, "--out", root / "maps")
    assert run.code == 2
    assert "location rule" in run.err
    assert not (root / "maps").exists()


def test_bad_sitemapignore(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html(), ".sitemapignore": "ok\n\\\n"})
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 2
    assert run.err.startswith(f"error: {root / '.sitemapignore'}: line 2: invalid pattern")
    assert not (root / "sitemap.xml").exists()
    fresh_out = cli("build", root, "--base-url", BASE, "--out", root.parent / "new-out")
    assert fresh_out.code == 2
    assert not (root.parent / "new-out").exists()  # the directory it would have created is gone


def test_no_pages_is_an_error_and_writes_nothing(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"404.html": html(), "x.css": ""})
    run = cli("build", root, "--base-url", BASE, "--out", tmp_path / "new")
    assert run.code == 2
    assert run.err == f"error: no pages to list under {root} (1 excluded by pattern); nothing written\n"
    assert not (tmp_path / "new").exists()


def test_head_signals_decide_what_is_listed(site: SiteFactory, cli: CliRunner) -> None:
    root = site(HEAD_SITE)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 0, run.err
    urls = published(root, BASE)
    assert [u.loc for u in urls] == [BASE, BASE + "ok.html", BASE + "de/", BASE + "en/"]
    assert (
        "skipped 2 noindex, 1 canonical elsewhere, 1 canonical on another host,"
        " 1 not a page (no doctype, html, head, body or title), 1 redirect"
    ) in run.err
    assert "warning: 1 skipped, canonical on another host; e.g. elsewhere.html to https://other.example/x\n" in run.err
    assert "warning: 1 skipped, not a page (no doctype, html, head, body or title); e.g. junk.html\n" in run.err
    [en] = [u for u in urls if u.loc == BASE + "en/"]
    assert en.alternates == (("en", BASE + "en/"), ("de", BASE + "de/"), ("x-default", BASE + "en/"))


@pytest.mark.parametrize(
    ("setting", "also_listed"),
    [
        pytest.param("check_noindex = false", ["bot.html", "hidden.html"], id="noindex-off"),
        pytest.param("check_canonical = false", ["dupe.html", "elsewhere.html"], id="canonical-off"),
        pytest.param("check_redirects = false", ["old/"], id="redirects-off"),
        pytest.param(
            "read_heads = false",
            ["bot.html", "dupe.html", "elsewhere.html", "hidden.html", "junk.html", "old/"],
            id="heads-off",
        ),
    ],
)
def test_each_head_check_can_be_switched_off(
    site: SiteFactory, cli: CliRunner, tmp_path: Path, setting: str, also_listed: list[str]
) -> None:
    root = site(HEAD_SITE)
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\n{setting}\n')
    assert cli("build", root, "--config", config).code == 0
    listed = {u.loc.removeprefix(BASE) for u in published(root, BASE)}
    assert listed == {"", "ok.html", "de/", "en/", *also_listed}


def test_hreflang_can_be_switched_off(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site(HEAD_SITE)
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\nhreflang = false\n')
    assert cli("build", root, "--config", config).code == 0
    assert all(not u.alternates for u in published(root, BASE))
    assert b"<xhtml:link" not in gzip.decompress((root / "sitemap-1.xml.gz").read_bytes())


def test_byte_limit_holds_with_many_hreflang_links(site: SiteFactory, cli: CliRunner) -> None:
    langs = [f"x{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(30)]  # valid xsd:language codes
    links = [f'<link rel="alternate" hreflang="{lang}" href="/{lang}/page-with-a-long-name.html">' for lang in langs]
    root = site({f"{lang}/page-with-a-long-name.html": head(*links) for lang in langs})  # one cluster of 30
    assert cli("build", root, "--base-url", BASE, "--max-bytes-per-sitemap", "8000").code == 0
    chunks = sorted(root.glob("sitemap-*.xml.gz"))
    assert len(chunks) > 2
    assert max(len(gzip.decompress(c.read_bytes())) for c in chunks) <= 8000
    urls = published(root, BASE)
    assert len(urls) == 30
    assert all(len(u.alternates) == 30 for u in urls)


def test_progress_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sitemapgen.cli.progress import progress

    with progress(True) as off:
        assert off is None  # pytest's stderr is not a terminal: CI logs stay clean
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    threads = threading.active_count()
    with progress(True) as on:
        assert on is not None
        on(1000)
        # No refresh thread: the build forks its workers while this display is up.
        assert threading.active_count() == threads
    with progress(False) as quiet:
        assert quiet is None


def test_list(site: SiteFactory, cli: CliRunner, tmp_path: Path) -> None:
    root = site({"index.html": html(), "ü.html": html(), "no.html": '<meta name="robots" content="noindex">'})
    os.utime(root / "index.html", (1_600_000_000, 1_600_000_000))
    os.utime(root / "ü.html", (1_700_000_000, 1_700_000_000))
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\n[[rules]]\npattern = "/index.html"\npriority = 1.0\n')
    run = cli("list", root, "--config", config)
    assert run.code == 0
    assert run.out.splitlines()[0] == f"{BASE}\t2020-09-13T12:26:40+00:00\t\t1.0\tindex.html"
    assert len(run.out.splitlines()) == 2
    rows = [json.loads(line) for line in cli("list", root, "--config", config, "--json").out.splitlines()]
    assert rows[1] == {
        "url": BASE + "%C3%BC.html",
        "lastmod": "2023-11-14T22:13:20+00:00",
        "changefreq": None,
        "priority": None,
        "file": "ü.html",
        "lastmod_source": "mtime",
    }
    assert not (root / "sitemap.xml").exists()


def test_odd_names_stay_on_one_line_in_list_and_warnings(site: SiteFactory, cli: CliRunner) -> None:
    files: dict[str | bytes, str | bytes] = {
        "new\nline.html": html(),
        "tab\there.html": html(),
        b"raw\xff.html": html(),
    }
    root = site(files)
    (root / "broken\nlink.html").symlink_to("nowhere")
    run = cli("list", root, "--base-url", BASE)
    assert run.code == 0
    assert [line.split("\t")[-1] for line in run.out.splitlines()] == [
        "new\\nline.html",
        "raw\\xff.html",
        "tab\\there.html",
    ]
    assert "warning: broken\\nlink.html: skipped, broken symlink\n" in run.err
    rows = [json.loads(line) for line in cli("list", root, "--base-url", BASE, "--json").out.splitlines()]
    assert [r["file"] for r in rows] == ["new\nline.html", "raw\\xff.html", "tab\there.html"]


def _readonly_out(root: Path) -> list[str]:
    out = root.parent / "out"
    out.mkdir()
    return ["--out", str(out)]


def _out_under_readonly(root: Path) -> list[str]:
    (root.parent / "ro").mkdir()
    return ["--out", str(root.parent / "ro" / "out")]


def _readonly_docroot_robots(root: Path) -> list[str]:
    out = root.parent / "out"
    out.mkdir()
    os.chmod(out, 0o777)
    return ["--out", str(out), "--robots-txt", "create"]


def _unwritable_store(root: Path) -> list[str]:
    out = root.parent / "out"
    out.mkdir()
    os.chmod(out, 0o777)
    (root.parent / "ro").mkdir()
    return ["--out", str(out), "--lastmod", "content", "--state-file", str(root.parent / "ro" / "state.sqlite")]


@pytest.mark.parametrize(
    ("setup", "said"),
    [
        pytest.param(
            _readonly_out, "out/.sitemapgen-journal: cannot create the journal: Permission denied", id="ro-out"
        ),
        pytest.param(_out_under_readonly, "--out: cannot create", id="out-under-ro"),
        pytest.param(_readonly_docroot_robots, "robots.txt: cannot write: Permission denied", id="ro-docroot-robots"),
        pytest.param(_unwritable_store, "state.sqlite: cannot open the lastmod state store", id="ro-store"),
    ],
)
def test_what_the_machine_refuses_is_one_line_and_exit_3(
    tmp_path: Path, setup: Callable[[Path], list[str]], said: str
) -> None:
    """Permissions as an unprivileged user meets them (the tests drop to nobody when run as root)."""
    root = make_tree(tmp_path / "site", {"a.html": html(), "b.html": html()})
    extra = setup(root)
    code, err = run_unprivileged(["build", str(root), "--base-url", BASE, *extra], [root, tmp_path])
    assert code == 3, err
    assert said in error_line(err)
    assert "Traceback" not in err
    assert sorted(p.name for p in root.iterdir()) == ["a.html", "b.html"]
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]
    out = tmp_path / "out"
    if out.is_dir():  # only where the sitemaps were published before robots.txt failed: whole
        assert sorted(p.name for p in out.iterdir()) == sorted(
            [*(["sitemap.xml"] if (out / "sitemap.xml").exists() else []), *read_published(out)]
        )


def _fifo(path: Path) -> None:
    os.mkfifo(path)  # no writer: a blocking read would wait forever


@pytest.mark.parametrize(
    ("files", "args", "said"),
    [
        pytest.param(
            {}, ["--state-file", ""], "--state-file: must be a file path, got the directory '.'", id="state-empty"
        ),
        pytest.param(
            {}, ["--state-file", "{root}"], "--state-file: must be a file path, got the directory", id="state-dir"
        ),
        pytest.param(
            {"c.toml": 'base_url = "https://example.com/"\nstate_file = "a\\u0000b"\n'},
            ["--config", "{root}/c.toml"],
            "state_file: must be a file path, got 'a\\x00b'",
            id="state-nul",
        ),
        pytest.param(
            {"c.toml": 'base_url = "https://example.com/"\n"bad\\nkey" = 1\n'},
            ["--config", "{root}/c.toml"],
            "'bad\\nkey': unknown key",
            id="key-with-a-newline",
        ),
        pytest.param({"c.toml": _fifo}, ["--config", "{root}/c.toml"], "not a regular file", id="config-fifo"),
        pytest.param(
            {".sitemapignore": _fifo}, [], ".sitemapignore: cannot read: not a regular file", id="ignore-fifo"
        ),
    ],
)
def test_hostile_input_is_one_line_exit_2_and_nothing_written(
    site: SiteFactory, cli: CliRunner, files: dict[str, str | Callable[[Path], None]], args: list[str], said: str
) -> None:
    root = site({"a.html": html()})
    for name, content in files.items():
        if callable(content):
            content(root / name)
        else:
            (root / name).write_text(content)
    before = sorted(p.name for p in root.iterdir())
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", *(a.format(root=root) for a in args))
    assert run.code == 2, run.err
    assert said in error_line(run.err)
    assert sorted(p.name for p in root.iterdir()) == before


@pytest.mark.parametrize(
    ("error", "said"),
    [
        pytest.param(MemoryError(), "error: out of memory (try --jobs 1", id="memory"),
        pytest.param(OSError(5, "Input/output error", "/x/y.html"), "error: /x/y.html: Input/output error", id="eio"),
        pytest.param(OSError(28, "No space left on device"), "error: No space left on device", id="enospc"),
    ],
)
def test_the_machine_failing_anywhere_is_one_line_exit_3(
    site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, error: BaseException, said: str
) -> None:
    root = site({"a.html": html()})

    def failing(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr("sitemapgen.cli.program.run_build", failing)
    run = cli("build", root, "--base-url", BASE)
    assert run.code == 3
    assert error_line(run.err).startswith(said.removeprefix("error: "))


def test_sigterm_exits_143(site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    root = site({"a.html": html()})

    def terminated(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts this

    monkeypatch.setattr("sitemapgen.cli.program.run_build", terminated)
    run = cli("build", root, "--base-url", BASE)
    assert (run.code, run.err) == (143, "terminated\n")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back


def test_jobs_beyond_the_open_file_limit_are_bounded(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {f"d{i // 500}/p{i}.html": html() for i in range(3_000)})
    code = (
        "import resource, sys; from sitemapgen.cli.program import main;"
        " resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48));"
        f" sys.exit(main(['build', {str(root)!r}, '--base-url', {BASE!r}, '--jobs', '64', '--quiet']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("warning: --jobs 64: the open-file limit (48) leaves room for "), done.stderr
    assert len(locs(root, BASE)) == 3_000
