"""The `Sitemap:` lines `build --robots-txt` keeps in DOCROOT/robots.txt."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from sitemapgen.output import robots

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import html, locs


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(None, None, id="missing-left-missing"),
        pytest.param(
            b"User-agent: *\nDisallow: /private/\n",
            b"User-agent: *\nDisallow: /private/\n\nSitemap: https://example.com/sitemap.xml\n",
            id="added",
        ),
        pytest.param(
            b"User-agent: *\r\nDisallow:\r\n",
            b"User-agent: *\r\nDisallow:\r\n\r\nSitemap: https://example.com/sitemap.xml\r\n",
            id="crlf",
        ),
        pytest.param(
            b"Sitemap: https://example.com/sitemap.xml\nUser-agent: *\n",
            b"Sitemap: https://example.com/sitemap.xml\nUser-agent: *\n",
            id="present-unchanged",
        ),
        pytest.param(
            b"User-agent: *   \nSitemap: https://example.com/sitemap-index-2.xml\n"
            b"Sitemap: https://other.example/sitemap.xml\n# end",
            b"User-agent: *   \nSitemap: https://other.example/sitemap.xml\n# end\n\nSitemap: https://example.com/sitemap.xml\n",
            id="stale-ours-replaced-others-kept",
        ),
    ],
)
def test_robots_txt_update(site: SiteFactory, cli: CliRunner, before: bytes | None, after: bytes | None) -> None:
    root = site({"a.html": html()})
    if before is not None:
        (root / "robots.txt").write_bytes(before)
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "update")
    assert run.code == 0
    assert ((root / "robots.txt").read_bytes() if (root / "robots.txt").exists() else None) == after
    assert ("updated robots.txt" in run.err) == (before != after)


def test_robots_txt_created_only_when_asked(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    assert cli("build", root, "--base-url", BASE).code == 0
    assert not (root / "robots.txt").exists()
    assert cli("build", root, "--base-url", BASE, "--robots-txt", "create").code == 0
    assert (root / "robots.txt").read_bytes() == b"Sitemap: https://example.com/sitemap.xml\n"


def _symlink_out(root: Path, outside: Path) -> None:
    (root / "robots.txt").symlink_to(outside)


def _fifo(root: Path, outside: Path) -> None:
    os.mkfifo(root / "robots.txt")  # no writer: reading it would wait forever


def _planted_temp(root: Path, outside: Path) -> None:
    (root / "robots.txt").write_bytes(b"User-agent: *\n")
    for name in (".robots.txt.tmp", ".robots.txt.new"):  # names a careless writer would use
        (root / name).symlink_to(outside)


@pytest.mark.parametrize(
    ("plant", "changed"),
    [
        pytest.param(_symlink_out, False, id="robots-is-a-symlink-out"),
        pytest.param(_fifo, False, id="robots-is-a-fifo"),
        pytest.param(_planted_temp, True, id="symlinks-planted-at-temp-names"),
    ],
)
def test_robots_txt_is_never_written_through_a_link(
    site: SiteFactory, cli: CliRunner, plant: Callable[[Path, Path], None], changed: bool
) -> None:
    root = site({"a.html": html()})
    outside = root.parent / "outside.txt"
    outside.write_bytes(b"precious\n")
    plant(root, outside)
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "create")
    assert run.code == 0, run.err
    assert outside.read_bytes() == b"precious\n"
    robots = root / "robots.txt"
    if changed:
        assert robots.read_bytes() == b"User-agent: *\n\nSitemap: https://example.com/sitemap.xml\n"
        assert not robots.is_symlink()
    else:
        assert f"warning: {robots}: is " in run.err
        assert "left as it is" in run.err
        assert robots.is_symlink() or stat.S_ISFIFO(os.lstat(robots).st_mode)
    assert not [p.name for p in root.iterdir() if p.name.startswith(".robots.txt.") and not p.is_symlink()]


_PAGES = ["index.html", "a.html", "private/x.html", "private/ok.html", "nogoogle/a.html", "p/q.html"]


@pytest.mark.parametrize(
    ("robots", "base", "left_out"),
    [
        pytest.param("User-agent: *\nDisallow: /private/\n", BASE, {"private/x.html", "private/ok.html"}, id="star"),
        pytest.param(
            "User-agent: *\nDisallow: /private/\nAllow: /private/ok.html\n", BASE, {"private/x.html"}, id="allow-wins"
        ),
        pytest.param(
            # Googlebot's own group replaces '*' for it (RFC 9309): /private/ stays open to it.
            "User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot\nDisallow: /nogoogle/\n",
            BASE,
            {"nogoogle/a.html"},
            id="googlebot-group",
        ),
        pytest.param(
            "User-agent: *\nDisallow: /*.html$\nAllow: /$\n", BASE, set(_PAGES) - {"index.html"}, id="wildcards"
        ),
        pytest.param("User-agent: *\nDisallow:\n", BASE, set(), id="empty-disallow"),
        pytest.param(
            "User-agent: *\nDisallow: /p\n", BASE, {"private/x.html", "private/ok.html", "p/q.html"}, id="prefix"
        ),
        pytest.param("User-agent: *\nDisallow: /\n", BASE + "docs/", set(), id="not-at-the-host-root"),
        pytest.param(None, BASE, set(), id="no-robots-txt"),
    ],
)
def test_pages_robots_txt_disallows_are_left_out(
    site: SiteFactory, cli: CliRunner, robots: str | None, base: str, left_out: set[str]
) -> None:
    files: dict[str | bytes, str | bytes] = {page: html() for page in _PAGES}
    if robots is not None:
        files["robots.txt"] = robots
    root = site(files)
    run = cli("build", root, "--base-url", base)
    expect_listed = set(_PAGES) - left_out
    assert run.code == (0 if expect_listed else 2), run.err
    if expect_listed:
        listed = {loc.removeprefix(base) for loc in locs(root, base)}
        assert listed == {("" if p == "index.html" else p) for p in expect_listed}
    if left_out:
        assert f"{len(left_out)} disallowed by robots.txt" in run.err
    assert "warning" not in run.err  # the site's own rules: counted, not warned about


def test_explain_names_robots_txt(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"index.html": html(), "private/x.html": html(), "robots.txt": "User-agent: *\nDisallow: /private/\n"})
    run = cli("explain", root, "--base-url", BASE, "private/x.html")
    assert run.out == "private/x.html: not listed: disallowed by robots.txt (for Googlebot)\n"


def test_a_generators_sitemap_line_is_named_and_kept(site: SiteFactory, cli: CliRunner) -> None:
    """MkDocs' sitemap.xml.gz named in robots.txt: sitemapgen edits only its own lines, and says so."""
    before = f"User-agent: *\nSitemap: {BASE}sitemap.xml.gz\nSitemap: https://other.example/sitemap.xml\n"
    root = site({"index.html": html(), "robots.txt": before})
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "update")
    assert run.code == 0, run.err
    assert f"robots.txt: also names {BASE}sitemap.xml.gz, which sitemapgen did not write" in run.err
    assert (root / "robots.txt").read_text() == before + f"\nSitemap: {BASE}sitemap.xml\n"


def test_a_robots_txt_made_while_the_build_writes_its_own_is_edited_not_replaced(
    site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """None there when the build looked, one there when it writes (the site's own build, or a
    run into another output, made it meanwhile): that one is edited, never written over."""
    root = site({"a.html": html()})
    theirs = b"User-agent: *\nDisallow: /private/\n"
    real_rewritten = robots.rewritten

    def made_meanwhile(data: bytes, base_url: str, index_urls: Sequence[str]) -> bytes:
        if not (root / "robots.txt").exists():
            (root / "robots.txt").write_bytes(theirs)
        return real_rewritten(data, base_url, index_urls)

    monkeypatch.setattr(robots, "rewritten", made_meanwhile)
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "create")
    assert run.code == 0, run.err
    assert (root / "robots.txt").read_bytes() == theirs + b"\nSitemap: https://example.com/sitemap.xml\n"
    assert not [p.name for p in root.iterdir() if p.name.startswith(".robots.txt.")]


@pytest.mark.parametrize(
    ("mode", "before", "said", "after"),
    [
        pytest.param("update", None, "no robots.txt to update", None, id="update-missing"),
        pytest.param(
            "create", None, "created robots.txt", b"Sitemap: https://example.com/sitemap.xml\n", id="create-missing"
        ),
        pytest.param(
            "create",
            b"Sitemap: https://example.com/sitemap.xml\n",
            "robots.txt already names the index",
            b"Sitemap: https://example.com/sitemap.xml\n",
            id="create-present",
        ),
    ],
)
def test_the_summary_says_what_became_of_robots_txt(
    site: SiteFactory, cli: CliRunner, mode: str, before: bytes | None, said: str, after: bytes | None
) -> None:
    """Each mode ends the summary with what it did to robots.txt, nothing done included."""
    root = site({"a.html": html()})
    if before is not None:
        (root / "robots.txt").write_bytes(before)
    run = cli("build", root, "--base-url", BASE, "--robots-txt", mode)
    assert run.code == 0, run.err
    assert run.err.splitlines()[-1].endswith(f"; {said}")
    assert ((root / "robots.txt").read_bytes() if (root / "robots.txt").exists() else None) == after
    quiet = cli("build", root, "--base-url", BASE, "--robots-txt", "create", "--quiet")
    assert (quiet.code, quiet.out, quiet.err) == (0, "", "")


def test_update_with_no_robots_txt_warns_until_told_to_create_it(site: SiteFactory, cli: CliRunner) -> None:
    root = site({"a.html": html()})
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "update")
    assert run.code == 0, run.err
    assert run.err.splitlines()[0] == (
        f"warning: {root}: no robots.txt to update, so none names the sitemap index;"
        " robots_txt 'create' (--robots-txt create) writes one"
    )
    assert not (root / "robots.txt").exists()
    assert cli("build", root, "--base-url", BASE, "--robots-txt", "create").code == 0
    again = cli("build", root, "--base-url", BASE, "--robots-txt", "update")
    assert again.code == 0, again.err
    assert "warning" not in again.err
    assert again.err.endswith("; robots.txt already names the index\n")


@pytest.mark.parametrize("mode", ["update", "create"])
def test_a_robots_txt_below_the_hosts_root_is_left_alone_with_one_warning(
    site: SiteFactory, cli: CliRunner, mode: str
) -> None:
    root = site({"a.html": html(), "robots.txt": "User-agent: *\nDisallow:\n"})
    before = (root / "robots.txt").read_bytes()
    docs = "https://example.com/docs/"
    run = cli("build", root, "--base-url", docs, "--robots-txt", mode)
    assert run.code == 0, run.err
    assert run.err.splitlines()[0] == (
        f"warning: {root / 'robots.txt'}: served at {docs}robots.txt, where crawlers never look (only the host's"
        " root counts), so sitemapgen leaves it alone; drop robots_txt (--robots-txt) here, and name the index in"
        f" the root's robots.txt: Sitemap: {docs}sitemap.xml"
    )
    assert run.err.endswith("; left robots.txt alone (not at the host's root)\n")
    assert (root / "robots.txt").read_bytes() == before
    again = cli("build", root, "--base-url", docs)  # the advice followed
    assert again.code == 0, again.err
    assert "warning" not in again.err


def test_a_robots_txt_symlink_is_left_alone_and_the_summary_says_so(
    site: SiteFactory, cli: CliRunner, tmp_path: Path
) -> None:
    root = site({"a.html": html()})
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"User-agent: *\n")
    (root / "robots.txt").symlink_to(target)
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "update")
    assert run.code == 0, run.err
    assert run.err.endswith("; left robots.txt alone\n")
    assert target.read_bytes() == b"User-agent: *\n"


#: The lines another process appends to robots.txt while it is rewritten, over and over.
APPENDED = 20_000
_APPENDER = """
import random, sys, time
path, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    with open(path, "ab") as f:  # O_APPEND, one write a line, as a shell's >> does
        f.write(b"# line %d\\n" % n)
    if n % 8 == 0:
        time.sleep(random.random() / 5_000)
"""


def test_a_line_appended_while_robots_txt_is_rewritten_is_never_lost(tmp_path: Path) -> None:
    """Another process appends lines while robots.txt's Sitemap: lines are rewritten again and
    again (one index, then two): every line it appended is there at the end, once. Before the
    fix, a line appended between the read and the rename went with the old file."""
    path = tmp_path / "robots.txt"
    path.write_bytes(b"User-agent: *\n")
    sets = ([BASE + "sitemap.xml"], [BASE + "sitemap.xml", BASE + "sitemap-index-2.xml"])
    outcomes: Counter[robots.RobotsOutcome] = Counter()
    warnings: list[str] = []
    appender = subprocess.Popen([sys.executable, "-c", _APPENDER, str(path), str(APPENDED)])
    try:
        while appender.poll() is None:
            for urls in sets:
                outcomes[robots.update_robots_txt(tmp_path, BASE, urls, create=False, on_warning=warnings.append)] += 1
    finally:
        appender.wait()
    lines = path.read_bytes().splitlines()
    appended = Counter(line for line in lines if line.startswith(b"# line "))
    lost = [n for n in range(APPENDED) if appended[b"# line %d" % n] != 1]
    assert not lost, f"{len(lost)} of {APPENDED:,} lines lost or doubled ({dict(outcomes)}): {lost[:5]}"
    assert outcomes[robots.RobotsOutcome.UPDATED] > 10, dict(outcomes)
    assert lines[:1] == [b"User-agent: *"]


def test_a_robots_txt_another_process_keeps_rewriting_is_left_alone_with_one_warning(
    site: SiteFactory, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rewritten (not appended to) between every read and the rename: never replaced over the
    other process's version; one warning, and the summary says robots.txt was left alone."""
    root = site({"a.html": html()})
    path = root / "robots.txt"
    path.write_bytes(b"Sitemap: https://example.com/sitemap-index-2.xml\n")  # ours, to be removed
    real_rewritten = robots.rewritten
    versions: list[bytes] = []

    def rewritten_meanwhile(data: bytes, base_url: str, index_urls: Sequence[str]) -> bytes:
        versions.append(
            b"User-agent: *\nDisallow: /v%d/\nSitemap: https://example.com/sitemap-index-2.xml\n" % len(versions)
        )
        with open(path, "r+b") as f:  # in place: the same file, other bytes
            f.write(versions[-1])
            f.truncate()
        return real_rewritten(data, base_url, index_urls)

    monkeypatch.setattr(robots, "rewritten", rewritten_meanwhile)
    run = cli("build", root, "--base-url", BASE, "--robots-txt", "update")
    assert run.code == 0, run.err
    assert run.err.splitlines()[:-1] == [
        f"warning: {path}: another process changed it each of the 5 times sitemapgen read it, so it was left"
        " as it is and may not name this build's sitemap index; build again once it is left alone"
    ]
    assert run.err.splitlines()[-1].endswith("; left robots.txt alone (another process kept changing it)")
    assert path.read_bytes() == versions[-1]
    assert not [p.name for p in root.iterdir() if p.name.startswith(".robots.txt.")]
