"""The previous deploy as a source (`--previous`): lastmods carried over, what changed, the manifest.

The live site is a real static server on loopback (`python -m http.server`)
serving an earlier build's output; nothing here reaches past loopback.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemapgen.deploy.manifest import MANIFEST_NAME, fingerprint_settings
from sitemapgen.deploy.previous import PreviousError, read_previous
from sitemapgen.errors import EnvironmentFailure

from ..conftest import BASE, CliRunner
from ..faultserver import Route, serving
from ..helpers import head, indexnow_endpoint, make_tree, output_files, published, run_unprivileged, static_server

EPOCH_1 = 1_700_000_000  # the first deploy's build time (SOURCE_DATE_EPOCH)
EPOCH_2 = 1_800_000_000  # the second's
STAMP_1 = datetime.fromtimestamp(EPOCH_1, UTC).isoformat()
STAMP_2 = datetime.fromtimestamp(EPOCH_2, UTC).isoformat()


def page(body: str, *tags: str) -> str:
    return head(*tags).replace("<body>body</body>", f"<body><main>{body}</main><footer>built now</footer></body>")


SITE = {f"p{i}.html": page(f"page {i}") for i in range(10)} | {"index.html": page("home")}


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """The live site: a directory served on loopback, empty until a deploy copies into it."""
    root = tmp_path / "live"
    root.mkdir()
    with static_server(root) as url:
        yield root, url


def _deploy(built: Path, live: Path) -> None:
    shutil.rmtree(live)
    shutil.copytree(built, live)


def _checkout(tmp_path: Path, name: str, files: dict[str, str], when: int) -> Path:
    """A fresh checkout of `files`: every mtime is the checkout's, `when`."""
    root = make_tree(tmp_path / name, files)
    for path in root.rglob("*"):
        os.utime(path, (when, when))
    return root


def _lastmods(root: Path, base: str) -> dict[str, str | None]:
    return {url.loc.removeprefix(base): url.lastmod for url in published(root, base)}


def test_two_deploys_keep_unchanged_lastmods_and_report_and_submit_exactly_what_changed(
    tmp_path: Path, cli: CliRunner, live: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    live_dir, url = live
    flags = ("--base-url", url, "--lastmod", "content", "--previous", url + "sitemap.xml")
    # Deploy 1: nothing live yet (HTTP 404) is a first deploy, not an error.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_1))
    first = _checkout(tmp_path, "checkout1", SITE, EPOCH_1 - 100)
    run = cli("build", first, *flags, "--changes-file", tmp_path / "changes1.json", "--indexnow-key", "key-12345678")
    assert run.code == 0, run.err
    assert "+11 -0 ~0 (a first deploy" in run.err
    assert (first / MANIFEST_NAME).is_file()
    assert (first / "key-12345678.txt").read_text() == "key-12345678"
    assert set(_lastmods(first, url).values()) == {STAMP_1}
    _deploy(first, live_dir)

    # Deploy 2, from a new checkout with new mtimes: two pages changed, one new, one gone, one now noindex,
    # and a new footer on every page, which content_select leaves out.
    changed = dict(SITE)
    changed = {name: text.replace("built now", "built later") for name, text in changed.items()}
    changed["p1.html"] = page("page 1, edited")
    changed["p2.html"] = page("page 2, edited")
    changed["new.html"] = page("new")
    del changed["p3.html"]
    changed["p4.html"] = page("page 4", '<meta name="robots" content="noindex">')
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_2))
    second = _checkout(tmp_path, "checkout2", changed, EPOCH_2 - 100)
    (second / "sitemapgen.toml").write_text('content_select = ["main"]\n')
    # content_select differs from deploy 1's settings: every page would count as changed, so say so ...
    run = cli("build", second, *flags, "--config", second / "sitemapgen.toml")
    assert "made with other content_ignore or content_select settings" in run.err
    # ... and the same settings as deploy 1 keep every unchanged page's lastmod despite new mtimes,
    # except that the footer changed on every page: that is what content_select is for (below).
    shutil.rmtree(second)
    second = _checkout(tmp_path, "checkout2", changed, EPOCH_2 - 100)
    run = cli("build", second, *flags, "--changes-file", tmp_path / "changes2.json")
    assert run.code == 0, run.err
    assert set(_lastmods(second, url).values()) == {STAMP_2}  # the footer moved every page

    # With the main content fingerprinted from the first deploy on, only real changes move a lastmod.
    shutil.rmtree(live_dir)
    live_dir.mkdir()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_1))
    first = _checkout(tmp_path, "checkout1b", SITE, EPOCH_1 - 100)
    select = tmp_path / "select.toml"
    select.write_text('content_select = ["main", "article"]\n')
    assert cli("build", first, *flags, "--config", select, "--indexnow-key", "key-12345678").code == 0
    _deploy(first, live_dir)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_2))
    second = _checkout(tmp_path, "checkout2b", changed, EPOCH_2 - 100)
    changes_file = tmp_path / "changes.json"
    run = cli(
        "build", second, *flags, "--config", select, "--changes-file", changes_file, "--indexnow-key", "key-12345678"
    )
    assert run.code == 0, run.err
    assert "; +1 -2 ~2 since the previous deploy" in run.err
    lastmods = _lastmods(second, url)
    assert {name for name, stamp in lastmods.items() if stamp == STAMP_2} == {"p1.html", "p2.html", "new.html"}
    assert {name for name, stamp in lastmods.items() if stamp == STAMP_1} == {
        "",
        *(f"p{i}.html" for i in (0, 5, 6, 7, 8, 9)),
    }
    changes = json.loads(changes_file.read_text())
    assert changes["added"] == [url + "new.html"]
    assert changes["removed"] == [
        {"loc": url + "p3.html", "reason": "no longer in the docroot"},
        {"loc": url + "p4.html", "reason": "noindex"},
    ]
    assert [(c["loc"], c["previous"], c["lastmod"]) for c in changes["changed"]] == [
        (url + "p1.html", STAMP_1, STAMP_2),
        (url + "p2.html", STAMP_1, STAMP_2),
    ]
    diff = cli("diff", url + "sitemap.xml", second)
    assert diff.out.splitlines() == [
        f"+ {url}new.html",
        f"- {url}p3.html",
        f"- {url}p4.html",
        f"~ {url}p1.html {STAMP_1} -> {STAMP_2}",
        f"~ {url}p2.html {STAMP_1} -> {STAMP_2}",
    ]
    assert json.loads(cli("diff", "--json", url + "sitemap.xml", second).out)["counts"] == {
        "added": 1,
        "removed": 2,
        "changed": 2,
    }

    # A build that would drop more than half the site is refused, and nothing is published.
    before = output_files(second) | {MANIFEST_NAME: (second / MANIFEST_NAME).read_bytes()}
    for i in (0, 1, 2, 5, 6):
        (second / f"p{i}.html").unlink()
    run = cli("build", second, *flags, "--config", select, "--max-removed", "50")
    assert run.code == 1
    assert run.err.splitlines()[-1].startswith(
        "error: refusing to publish: 7 of the 11 URLs the previous deploy listed (63.6%) would go,"
        " more than max_removed 50% allows: 6 no longer in the docroot, 1 noindex; e.g. "
    )
    assert output_files(second) | {MANIFEST_NAME: (second / MANIFEST_NAME).read_bytes()} == before

    # IndexNow hears exactly the added, changed and removed URLs; the key file is live (deployed with the site).
    # (The refused build above changed no output: this deploys the second build's.)
    _deploy(second, live_dir)
    with indexnow_endpoint() as endpoint:
        run = cli("indexnow", changes_file, "--key", "key-12345678", "--endpoint", endpoint.url)
    assert run.code == 0, run.err
    assert endpoint.bodies == [
        {
            "host": url.split("/")[2],
            "key": "key-12345678",
            "keyLocation": url + "key-12345678.txt",
            "urlList": [url + name for name in ("new.html", "p1.html", "p2.html", "p3.html", "p4.html")],
        }
    ]


def test_a_directory_or_an_index_file_stands_in_for_the_live_site(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = make_tree(tmp_path / "one", SITE)
    assert cli("build", first, "--base-url", BASE, "--lastmod", "content", "--previous", tmp_path / "none").code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_1))
    assert cli("build", first, "--base-url", BASE, "--lastmod", "content", "--previous", empty).code == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_2))
    for source in (first, first / "sitemap.xml"):
        second = make_tree(tmp_path / f"two-{source.name}", SITE | {"more.html": page("more")})
        run = cli("build", second, "--base-url", BASE, "--lastmod", "content", "--previous", source)
        assert run.code == 0, run.err
        assert "+1 -0 ~0 since the previous deploy" in run.err
        assert _lastmods(second, BASE) == _lastmods(first, BASE) | {"more.html": STAMP_2}


def test_the_manifest_is_deterministic_gzip_and_never_listed(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_1))  # the same build time for both builds
    root = make_tree(tmp_path / "site", SITE)
    empty = tmp_path / "empty"
    empty.mkdir()
    args = ("build", root, "--base-url", BASE, "--lastmod", "content", "--previous", empty, "--robots-txt", "create")
    assert cli(*args).code == 0
    data = (root / MANIFEST_NAME).read_bytes()
    assert cli(*args).code == 0
    assert (root / MANIFEST_NAME).read_bytes() == data  # byte-identical
    lines = gzip.decompress(data).decode().splitlines()
    assert json.loads(lines[0])["sitemapgen-manifest"] == 1
    assert [json.loads(line)[0] for line in lines[1:]] == [BASE + p for p in ["", *(f"p{i}.html" for i in range(10))]]
    assert MANIFEST_NAME not in (root / "robots.txt").read_text()
    assert not any(MANIFEST_NAME in u.loc for u in published(root, BASE))


def test_a_manifest_of_someone_elses_is_not_replaced(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", SITE | {MANIFEST_NAME: "mine"})
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--previous", empty)
    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        f"error: {root / MANIFEST_NAME}: exists and sitemapgen did not write it; move it away"
    )
    assert (root / MANIFEST_NAME).read_text() == "mine"
    assert not (root / "sitemap.xml").exists()


@pytest.mark.parametrize(
    ("files", "message"),
    [
        pytest.param({"sitemap.xml": "not xml"}, "sitemap.xml: not a sitemap: ", id="not-xml"),
        pytest.param(
            {"sitemap.xml": '<?xml version="1.0"?><rss/>'}, "sitemap.xml: not a sitemap or sitemap index", id="rss"
        ),
        pytest.param(
            {
                "sitemap.xml": '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<sitemap><loc>{BASE}sitemap-1.xml.gz</loc></sitemap></sitemapindex>"
            },
            "sitemap-1.xml.gz: not found, though",
            id="listed-file-missing",
        ),
        pytest.param(
            {
                "sitemap.xml": '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<sitemap><loc>{BASE}../etc/passwd</loc></sitemap></sitemapindex>"
            },
            "lists '../etc/passwd', which is not a file below it",
            id="dot-segments",
        ),
        pytest.param(
            {
                "sitemap.xml": '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<sitemap><loc>{BASE}a%00b.xml</loc></sitemap></sitemapindex>"
            },
            "lists 'a%00b.xml', which is not a file below it",
            id="nul",
        ),
        pytest.param({"sitemap.xml": gzip.compress(b"<urlset/>")[:-9]}, "truncated gzip", id="truncated-gzip"),
        pytest.param(
            {
                "sitemap.xml": '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<sitemap><loc>{BASE}inner.xml</loc></sitemap></sitemapindex>",
                "inner.xml": '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>',
            },
            "inner.xml: an index inside an index",
            id="nested-index",
        ),
        pytest.param(
            {"sitemap.xml": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + b"\xff" * 20}, "broken gzip", id="bad-gzip"
        ),
    ],
)
def test_a_previous_deploy_that_cannot_be_read_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, cli: CliRunner, files: dict[str, str | bytes], message: str
) -> None:
    previous = make_tree(tmp_path / "previous", files)
    root = make_tree(tmp_path / "site", SITE)
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--previous", previous)
    assert run.code == 2
    last = run.err.splitlines()[-1]
    assert last.startswith("error: "), run.err
    assert message in last, run.err
    assert not (root / "sitemap.xml").exists()


def test_a_live_site_that_does_not_answer_is_one_line_exit_3(tmp_path: Path, cli: CliRunner) -> None:
    # The machine's or the network's failure, not the input's (as `include` says it): exit 3.
    root = make_tree(tmp_path / "site", SITE)
    with static_server(tmp_path) as url:
        pass  # the port is free again: nothing listens there now
    run = cli("build", root, "--base-url", BASE, "--previous", url + "sitemap.xml")
    assert run.code == 3
    assert run.err.splitlines()[-1] == f"error: {url}sitemap.xml: cannot connect: Connection refused (--previous)"
    assert not (root / "sitemap.xml").exists()


@pytest.mark.parametrize(("status", "code"), [(500, 3), (502, 3), (403, 2)])
def test_a_live_site_s_error_is_the_machine_s_only_where_the_server_failed(
    tmp_path: Path, cli: CliRunner, status: int, code: int
) -> None:
    # A server that fails (5xx) is the machine's failure, exit 3; one that refuses (403) the input's.
    root = make_tree(tmp_path / "site", SITE)
    with serving({"/sitemap.xml": Route(status=status, body=b"no")}) as server:
        run = cli("build", root, "--base-url", BASE, "--previous", server.url + "sitemap.xml")
    assert run.code == code
    assert run.err.splitlines()[-1] == f"error: {server.url}sitemap.xml: answered HTTP {status} (--previous)"
    assert not (root / "sitemap.xml").exists()


def test_a_previous_deploy_the_network_fails_is_a_previous_error_and_the_machine_s(tmp_path: Path) -> None:
    # For a library caller: still the `PreviousError` it caught before, and an `EnvironmentFailure`.
    with static_server(tmp_path) as url:
        pass
    with pytest.raises(PreviousError) as caught:
        read_previous(url + "sitemap.xml", BASE, warn=lambda _: None)
    assert isinstance(caught.value, EnvironmentFailure)
    assert caught.value.machine


def test_previous_without_content_in_the_chain_says_lastmods_do_not_carry_over(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", SITE)
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("build", root, "--base-url", BASE, "--previous", empty)
    assert run.code == 0
    assert "--previous: lastmod 'mtime' does not name 'content'" in run.err


def test_a_build_without_previous_keeps_a_manifest_of_ours_current(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Else the next --previous build would read the lastmods of a build that is no longer live."""
    root = make_tree(tmp_path / "site", SITE)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_1))
    assert cli("build", root, "--base-url", BASE, "--lastmod", "content", "--previous", empty).code == 0
    (root / "p1.html").write_text(page("edited"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_2))
    assert cli("build", root, "--base-url", BASE, "--lastmod", "content").code == 0
    lines = [json.loads(line) for line in gzip.decompress((root / MANIFEST_NAME).read_bytes()).splitlines()[1:]]
    assert {loc: lastmod for loc, _, lastmod in lines}[BASE + "p1.html"] == STAMP_2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(b"not gzip", "not a readable manifest: Not a gzipped file", id="not-gzip"),
        pytest.param(gzip.compress(b'{"other": 1}\n'), "not a sitemapgen manifest of this version", id="not-ours"),
        pytest.param(
            gzip.compress(
                f'{{"sitemapgen-manifest": 1, "content": "{fingerprint_settings((), ())}"}}\n[1, 2]\n'.encode()
            ),
            "not a readable manifest: not enough values to unpack",
            id="bad-line",
        ),
    ],
)
def test_a_manifest_that_cannot_be_read_is_exit_2(tmp_path: Path, cli: CliRunner, content: bytes, message: str) -> None:
    first = make_tree(tmp_path / "one", SITE)
    assert cli("build", first, "--base-url", BASE).code == 0
    (first / MANIFEST_NAME).write_bytes(content)
    root = make_tree(tmp_path / "site", SITE)
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--previous", first)
    assert run.code == 2
    assert message in run.err.splitlines()[-1]
    assert not (root / "sitemap.xml").exists()


def test_a_symlink_where_the_manifest_goes_is_not_written_through(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "site", SITE)
    target = tmp_path / "precious"
    target.write_bytes(b"precious")
    (root / MANIFEST_NAME).symlink_to(target)
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--previous", empty)
    assert run.code == 2
    assert "exists and sitemapgen did not write it" in run.err
    assert target.read_bytes() == b"precious"
    assert (root / MANIFEST_NAME).is_symlink()


@pytest.mark.forks  # run_unprivileged forks this process
def test_unprivileged_a_docroot_it_cannot_write_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    """As a user file modes apply to: the manifest and the key file cannot be written; exit 3, nothing left."""
    root = make_tree(tmp_path / "site", SITE)
    empty = tmp_path / "empty"
    empty.mkdir()
    root.chmod(0o555)
    try:
        code, output = run_unprivileged(
            [
                "build",
                str(root),
                "--base-url",
                BASE,
                "--lastmod",
                "content",
                "--previous",
                str(empty),
                "--indexnow-key",
                "key-12345678",
            ],
            [root, empty],
        )
    finally:
        root.chmod(0o755)
    assert code == 3, output
    assert output.splitlines()[-1].startswith(f"error: {root}"), output
    assert "Traceback" not in output
    assert sorted(p.name for p in root.iterdir()) == sorted(SITE)


def test_a_fifo_as_the_previous_deploy_is_refused_without_waiting(tmp_path: Path, cli: CliRunner) -> None:
    previous = tmp_path / "previous"
    previous.mkdir()
    os.mkfifo(previous / "sitemap.xml")  # no writer: a blocking open would wait forever
    root = make_tree(tmp_path / "site", SITE)
    run = cli("build", root, "--base-url", BASE, "--previous", previous)
    assert run.code == 2
    assert run.err.splitlines()[-1].startswith(f"error: {previous / 'sitemap.xml'}: cannot read: ")


def test_an_index_entry_outside_the_base_url_is_said_and_not_read(tmp_path: Path, cli: CliRunner) -> None:
    first = make_tree(tmp_path / "one", SITE)
    assert cli("build", first, "--base-url", BASE).code == 0
    index = (first / "sitemap.xml").read_text()
    (first / "sitemap.xml").write_text(
        index.replace("</sitemapindex>", "<sitemap><loc>https://other.example/s.xml</loc></sitemap></sitemapindex>")
    )
    root = make_tree(tmp_path / "site", SITE)
    run = cli("build", root, "--base-url", BASE, "--previous", first)
    assert run.code == 0, run.err
    assert f"lists https://other.example/s.xml, which is not under {BASE}; not read" in run.err
    assert "; +0 -0 ~" in run.err  # the same URLs (their mtimes, so lastmods, are this tree's)


def test_list_and_check_take_previous_too(tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """What build would write with --previous is what list prints and what check compares."""
    first = make_tree(tmp_path / "one", SITE)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_1))
    assert cli("build", first, "--base-url", BASE, "--lastmod", "content", "--previous", empty).code == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH_2))
    second = make_tree(tmp_path / "two", SITE | {"p1.html": page("edited")})
    listed = cli("list", second, "--base-url", BASE, "--lastmod", "content", "--previous", first, "--json")
    assert listed.code == 0, listed.err
    lastmods = {row["url"].removeprefix(BASE): row["lastmod"] for row in map(json.loads, listed.out.splitlines())}
    assert lastmods == dict.fromkeys(_lastmods(first, BASE), STAMP_1) | {"p1.html": STAMP_2}
    assert cli("build", second, "--base-url", BASE, "--lastmod", "content", "--previous", first).code == 0
    assert cli("check", second, "--base-url", BASE, "--lastmod", "content", "--previous", first).code == 0


def test_a_file_where_the_manifest_is_spooled_is_left_alone(tmp_path: Path, cli: CliRunner) -> None:
    """The manifest's temporary name is taken: the build fails in one line and removes nothing of anyone's."""
    root = make_tree(tmp_path / "site", SITE)
    taken = root / f".{MANIFEST_NAME}.{os.getpid()}.tmp"  # the CLI runs in this process
    taken.write_text("someone's")
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("build", root, "--base-url", BASE, "--lastmod", "content", "--previous", empty)
    assert run.code == 3
    assert (
        run.err.splitlines()[-1] == f"error: {taken}: cannot write the sitemaps: File exists; nothing new was published"
    )
    assert taken.read_text() == "someone's"
    assert not (root / "sitemap.xml").exists()
    assert not (root / MANIFEST_NAME).exists()


def test_max_removed_without_previous_is_said_until_both_or_neither_are_given(tmp_path: Path, cli: CliRunner) -> None:
    site = tmp_path / "site"
    make_tree(site, SITE)
    alone = cli("build", site, "--base-url", BASE, "--max-removed", "20")
    assert alone.code == 0, alone.err
    assert alone.err.splitlines()[0] == (
        "warning: max_removed 20% (--max-removed) guards nothing without previous (--previous),"
        " the deploy whose URLs it counts: give both, or neither"
    )
    earlier = tmp_path / "earlier"
    shutil.copytree(site, earlier)
    for flags in ([], ["--max-removed", "20", "--previous", str(earlier)]):
        run = cli("build", site, "--base-url", BASE, *flags)
        assert run.code == 0, run.err
        assert "guards nothing" not in run.err


def test_a_temporary_directory_with_no_room_for_the_previous_deploy_is_one_line(
    tmp_path: Path, small_disk: Path
) -> None:
    """The previous deploy's URLs wait in a temporary SQLite database; where its directory is
    full (``TMPDIR`` on a full disk, a real one), the build stops with one line naming the
    deploy and that directory, exit 3, and writes nothing."""
    previous = tmp_path / "previous"
    previous.mkdir()
    urls = "".join(
        f"<url><loc>{BASE}section-{i // 500}/a-page-of-the-earlier-deploy-{i}.html</loc></url>" for i in range(60_000)
    )
    index = previous / "sitemap.xml"
    index.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>\n'
    )
    with open(small_disk / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
        while True:  # the disk full
            filler.write(b"\0" * 4096)
    root = make_tree(tmp_path / "site", SITE)
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sitemapgen",
            "build",
            str(root),
            "--base-url",
            BASE,
            "--out",
            str(out),
            "--previous",
            str(index),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(small_disk)},
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    where = f"in a temporary file ({small_disk})"
    assert done.stderr == f"error: {index}: cannot keep its URLs {where}: database or disk is full (--previous)\n"
    assert not out.exists()
