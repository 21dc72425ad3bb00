"""IndexNow: the key file, and submissions against a local endpoint that answers as the protocol documents."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapgen.deploy import indexnow
from sitemapgen.errors import SitemapgenError
from sitemapgen.util.safeio import create_exclusive

from ..conftest import CliRunner
from ..helpers import indexnow_endpoint, make_tree, static_server

KEY = "0123456789abcdef"


def _changes(tmp_path: Path, base: str, added: int = 2, removed: int = 1, changed: int = 1) -> Path:
    path = tmp_path / "changes.json"
    path.write_text(
        json.dumps(
            {
                "base_url": base,
                "added": [f"{base}new{i}.html" for i in range(added)],
                "removed": [{"loc": f"{base}gone{i}.html", "reason": "noindex"} for i in range(removed)],
                "changed": [{"loc": f"{base}p{i}.html", "previous": None, "lastmod": None} for i in range(changed)],
            }
        )
    )
    return path


@pytest.mark.parametrize(
    ("script", "code", "message", "sent"),
    [
        pytest.param([(202, {})], 0, "submitted 4 URLs", 1, id="202-accepted"),
        pytest.param([(429, {"Retry-After": "0"}), (200, {})], 0, "HTTP 429; trying again in 0 s", 1, id="429"),
        pytest.param([(503, {"Retry-After": "0"}), (200, {})], 0, "HTTP 503; trying again in 0 s", 1, id="503"),
        pytest.param([(400, {})], 1, "HTTP 400, bad request", 0, id="400"),
        pytest.param([(403, {})], 1, "HTTP 403, forbidden: the key is not valid", 0, id="403"),
        pytest.param([(422, {})], 1, "HTTP 422, unprocessable", 0, id="422"),
        pytest.param([(429, {"Retry-After": "0"})] * 5, 1, "HTTP 429 after 5 tries; 0 URLs were sent", 0, id="429-x5"),
    ],
)
def test_submission_answers(
    tmp_path: Path,
    cli: CliRunner,
    script: list[tuple[int, dict[str, str]]],
    code: int,
    message: str,
    sent: int,
) -> None:
    root = make_tree(tmp_path / "live", {f"{KEY}.txt": KEY + "\n"})
    with static_server(root) as base, indexnow_endpoint(*script) as endpoint:
        run = cli("indexnow", _changes(tmp_path, base), "--key", KEY, "--endpoint", endpoint.url)
    assert run.code == code, run.err
    assert message in run.err
    assert len(endpoint.bodies) == sent
    if sent:
        assert endpoint.bodies[0] == {
            "host": base.split("/")[2],
            "key": KEY,
            "keyLocation": f"{base}{KEY}.txt",
            "urlList": [f"{base}{name}" for name in ("gone0.html", "new0.html", "new1.html", "p0.html")],
        }
    retried = [status for status, _ in script[:-1] if status == 429 or status >= 500]
    assert run.err.count("trying again in") == len(retried)  # waits as Retry-After says, or 1 s, 2 s ...


def test_more_than_10000_urls_go_in_batches(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "live", {f"{KEY}.txt": KEY})
    with static_server(root) as base, indexnow_endpoint() as endpoint:
        run = cli("indexnow", _changes(tmp_path, base, added=25_000), "--key", KEY, "--endpoint", endpoint.url)
    assert run.code == 0, run.err
    assert [len(body["urlList"]) for body in endpoint.bodies] == [10_000, 10_000, 5_002]  # type: ignore[index]


def test_the_key_file_must_be_live_first(tmp_path: Path, cli: CliRunner) -> None:
    root = make_tree(tmp_path / "live", {f"{KEY}.txt": "another key"})
    with static_server(root) as base, indexnow_endpoint() as endpoint:
        wrong = cli("indexnow", _changes(tmp_path, base), "--key", KEY, "--endpoint", endpoint.url)
        (root / f"{KEY}.txt").unlink()
        missing = cli("indexnow", _changes(tmp_path, base), "--key", KEY, "--endpoint", endpoint.url)
        unchecked = cli(
            "indexnow", _changes(tmp_path, base), "--key", KEY, "--endpoint", endpoint.url, "--no-check-key"
        )
    assert (wrong.code, wrong.err) == (1, f"error: {base}{KEY}.txt: does not hold the key\n")
    assert missing.code == 1
    assert "not found: deploy the key file (build --indexnow-key) before submitting" in missing.err
    assert unchecked.code == 0
    assert len(endpoint.bodies) == 1


def test_nothing_is_sent_for_an_empty_diff_and_dry_run_sends_nothing(tmp_path: Path, cli: CliRunner) -> None:
    with indexnow_endpoint() as endpoint:
        empty = cli(
            "indexnow", _changes(tmp_path, "https://example.com/", 0, 0, 0), "--key", KEY, "--endpoint", endpoint.url
        )
        dry = cli("indexnow", _changes(tmp_path, "https://example.com/"), "--key", KEY, "--dry-run")
    assert (empty.code, empty.err) == (0, "sitemapgen: nothing changed; nothing sent\n")
    assert dry.code == 0
    assert dry.out.startswith("POST https://api.indexnow.org/indexnow\n")
    assert json.loads(dry.out.split("\n", 1)[1])["urlList"][0] == "https://example.com/gone0.html"
    assert endpoint.bodies == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--key", "short"], "--key: must be 8 to 128 letters, digits or dashes", id="short-key"),
        pytest.param(["--key", KEY, "--endpoint", "ftp://x/"], "--endpoint: must be an http(s) URL", id="endpoint"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(tmp_path: Path, cli: CliRunner, args: list[str], message: str) -> None:
    run = cli("indexnow", _changes(tmp_path, "https://example.com/"), *args)
    assert run.code == 2
    assert message in run.err


def test_a_changes_file_that_is_not_one_is_exit_2(tmp_path: Path, cli: CliRunner) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"added": "x"}')
    run = cli("indexnow", bad, "--key", KEY, "--dry-run")
    assert (run.code, run.err) == (2, f"error: {bad}: not a changes file (build --changes-file writes one)\n")


@pytest.mark.parametrize(
    ("existing", "ok"),
    [
        pytest.param(None, True, id="new"),
        pytest.param(KEY, True, id="same-key"),
        pytest.param("someone else's", False, id="other-content"),
    ],
)
def test_the_key_file_is_written_only_where_it_is_ours(tmp_path: Path, existing: str | None, ok: bool) -> None:
    root = make_tree(tmp_path / "site", {} if existing is None else {f"{KEY}.txt": existing})
    if ok:
        indexnow.write_key_file(root, KEY)
        assert (root / f"{KEY}.txt").read_text() == KEY
    else:
        with pytest.raises(SitemapgenError, match="exists and does not hold the IndexNow key"):
            indexnow.write_key_file(root, KEY)
        assert (root / f"{KEY}.txt").read_text() == existing


def test_the_key_file_is_never_written_through_a_symlink(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "site", {})
    target = tmp_path / "elsewhere.txt"
    target.write_text("precious")
    (root / f"{KEY}.txt").symlink_to(target)
    with pytest.raises(SitemapgenError):
        indexnow.write_key_file(root, KEY)
    assert target.read_text() == "precious"


@pytest.mark.parametrize(
    ("script", "waits"),
    [
        pytest.param([(429, {"Retry-After": "7"}), (200, {})], [7.0], id="retry-after-seconds"),
        pytest.param([(429, {"Retry-After": "3600"}), (200, {})], [60.0], id="retry-after-capped"),
        pytest.param([(503, {}), (502, {}), (500, {}), (200, {})], [1.0, 2.0, 4.0], id="backoff"),
        pytest.param([(429, {"Retry-After": "soon"}), (200, {})], [1.0], id="unreadable-retry-after"),
    ],
)
def test_waits_between_tries(script: list[tuple[int, dict[str, str]]], waits: list[float]) -> None:
    slept: list[float] = []
    with indexnow_endpoint(*script) as endpoint:
        submission = indexnow.plan(
            {"added": ["https://example.com/a"], "removed": [], "changed": []},
            key=KEY,
            endpoint=endpoint.url,
            key_location=None,
        )
        sent = indexnow.submit(submission, on_status=lambda _: None, sleep=slept.append)
    assert (sent, slept) == (1, waits)


@pytest.mark.parametrize(
    ("theirs", "ok"),
    [pytest.param(KEY, True, id="the-same-key"), pytest.param("another key", False, id="another-key")],
)
def test_a_key_file_made_meanwhile_is_read_again_not_written_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theirs: str, ok: bool
) -> None:
    """None there when this run looked, one there when it writes (a run of the same docroot into
    another output wrote it meanwhile): the same key is as good as ours; another is refused."""
    root = make_tree(tmp_path / "site", {})
    key_file = root / f"{KEY}.txt"

    def made_meanwhile(path: str | os.PathLike[str], mode: int = 0o644) -> int:
        if not key_file.exists():
            key_file.write_text(theirs)
        return create_exclusive(path, mode)

    monkeypatch.setattr("sitemapgen.util.safeio.create_exclusive", made_meanwhile)  # as write_beside makes it
    if ok:
        indexnow.write_key_file(root, KEY)
    else:
        with pytest.raises(SitemapgenError, match="exists and does not hold the IndexNow key"):
            indexnow.write_key_file(root, KEY)
    assert key_file.read_text() == theirs
    assert os.listdir(root) == [key_file.name]  # no temporary file left


def test_a_site_under_a_path_submits_with_the_key_file_where_build_put_it(tmp_path: Path, cli: CliRunner) -> None:
    """A real MkDocs site published under /en/stable/ (as Read the Docs and GitHub Pages project
    sites are): build --indexnow-key writes DOCROOT/KEY.txt, served at BASE/KEY.txt, and indexnow
    checks and sends that keyLocation, not the host's root."""
    pytest.importorskip("mkdocs")
    live, project = tmp_path / "live", tmp_path / "project"
    docroot = live / "en" / "stable"
    (tmp_path / "before").mkdir()
    changes = tmp_path / "changes.json"
    live.mkdir()
    with static_server(live) as server, indexnow_endpoint() as endpoint:
        base = f"{server}en/stable/"
        make_tree(project, {"mkdocs.yml": f"site_name: Under a path\nsite_url: {base}\n", "docs/index.md": "# Home\n"})
        make_tree(project, {"docs/guide.md": "# Guide\n"})
        mkdocs = [sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(docroot)]
        made = subprocess.run(mkdocs, cwd=project, capture_output=True, text=True, check=False)
        assert made.returncode == 0, made.stderr
        built = cli(
            "build", docroot, "--base-url", base, "--indexnow-key", KEY,
            "--previous", tmp_path / "before", "--changes-file", changes,
        )  # fmt: skip
        assert built.code == 0, built.err
        run = cli("indexnow", changes, "--key", KEY, "--endpoint", endpoint.url)
    assert run.code == 0, run.err
    assert endpoint.bodies == [
        {"host": base.split("/")[2], "key": KEY, "keyLocation": f"{base}{KEY}.txt", "urlList": [base, f"{base}guide/"]}
    ]
