"""Host truth: each host's model against what that host's own local server answers.

`hostsite` writes a site carrying every rule kind, in each host's files and
variants. Two kinds of test compare sitemapgen with the real servers:

- recorded: what each server answered for every probed path, kept in
  ``tests/hostdata`` (``python -m tests.hostservers record``), against the model,
  path by path, and against what the build lists. These run everywhere, in
  `make test`, with nothing to install.
- live: the server itself (`hostservers.running`, on loopback), in `make slow`
  only, which installs the servers from npm (`make hosts`, about 1.5 GB; skipped
  with the reason where they cannot run).

Both hold the same: every URL the build lists answers 200 with its page, no
redirect and no noindex; every page the server makes indexable under one of its
URLs is listed exactly once; and the model answers every probed path as the
server does.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from sitemapgen.config.settings import Config
from sitemapgen.config.words import HostName
from sitemapgen.hosts.base import Host, page_forms
from sitemapgen.hosts.load import LINE_FILE_LIMIT, load_host

from .. import hostservers, hostsite
from ..conftest import CliRunner
from ..helpers import locs

BASE = "https://example.com/"
CASES = [(host, variant) for host, variants in hostsite.VARIANTS.items() for variant in variants]
#: Live, every case runs in `make slow` only: the servers are 1.5 GB from npm, and start in seconds each.
LIVE = [pytest.param(host, variant, marks=[pytest.mark.slow]) for host, variant in CASES]


def _site(tmp_path: Path, host: str, variant: str) -> tuple[Path, Path, Host]:
    top = tmp_path / "site"
    docroot = hostsite.write_site(top, host, variant)
    model = load_host(Config(docroot, BASE, host=HostName(host)))
    assert model is not None
    return top, docroot, model


def _says_noindex(value: str) -> bool:
    """The test's own reading of the site's X-Robots-Tag values (not `says_noindex`, which it checks):
    "noindex, nofollow", "googlebot: noindex", "NONE" and "noindex" keep a page out; "nofollow" not."""
    return bool({"noindex", "none"} & set(re.split(r"[\s,:]+", value.lower())))


def _server_view(answer: hostservers.Answer) -> tuple[object, ...]:
    """What decides a listing, of one answer: status, where it redirects, noindex, which page."""
    status = answer["status"]
    assert isinstance(status, int)
    robots = answer["x-robots-tag"]
    noindex = status == 200 and isinstance(robots, str) and _says_noindex(robots)
    if 300 <= status < 400:
        return status, answer["location"], noindex
    return status, answer["page"] if status == 200 else None, noindex


def _model_view(model: Host, path: str) -> tuple[object, ...]:
    answer = model.respond(path)
    noindex = answer.status == 200 and model.noindex(path, answer) is not None
    if 300 <= answer.status < 400:
        return answer.status, answer.location, noindex
    served = answer.file if answer.status == 200 and answer.file in hostsite.PAGES else None
    return answer.status, served, noindex


def _differences(model: Host, answers: dict[str, hostservers.Answer]) -> list[str]:
    return [
        f"{path}: model {_model_view(model, path)}, server {_server_view(answer)}"
        for path, answer in answers.items()
        if _model_view(model, path) != _server_view(answer)
    ]


@pytest.mark.parametrize(("host", "variant"), CASES)
def test_model_answers_every_path_as_the_server_did(tmp_path: Path, host: str, variant: str) -> None:
    recorded = json.loads((hostservers.DATA / f"{host}-{variant}.json").read_text(encoding="utf-8"))
    assert set(recorded) == set(hostsite.probe_paths()), "re-record: python -m tests.hostservers record"
    _, _, model = _site(tmp_path, host, variant)
    assert _differences(model, recorded) == []


def _indexable(answers: dict[str, hostservers.Answer]) -> set[str]:
    """The pages a server serves, under one of their own URLs, with 200 and no noindex."""
    return {
        relpath
        for relpath in hostsite.PAGES
        for form in page_forms(relpath)
        if _server_view(answers["/" + form]) == (200, relpath, False)
    }


def _listed(tmp_path: Path, cli: CliRunner, host: str, docroot: Path) -> list[str]:
    """The paths of the URLs the build lists for `host`."""
    out = tmp_path / "out"
    result = cli("build", docroot, "--base-url", BASE, "--host", host, "--out", out, "--quiet")
    assert result.code == 0, result.err
    return [url[len(BASE) - 1 :] for url in locs(out, BASE)]


def _check_listing(
    model: Host, listed: list[str], answers: dict[str, hostservers.Answer], served: dict[str, hostservers.Answer]
) -> None:
    """The model answers as the server did; every listed URL is served as a page, no redirect nor
    noindex; every page the server serves indexable is listed once."""
    assert _differences(model, answers) == []
    wrong = {path: _server_view(answer) for path, answer in served.items() if _server_view(answer)[::2] != (200, False)}
    assert wrong == {}, "listed URLs the server does not serve as pages"
    pages = [served[path]["page"] for path in listed]
    assert None not in pages
    assert len(set(pages)) == len(pages), "a page listed twice"
    assert set(pages) == _indexable(answers)


@pytest.mark.parametrize(("host", "variant"), CASES)
def test_every_listed_url_was_served_and_every_served_page_listed_as_recorded(
    tmp_path: Path, cli: CliRunner, host: str, variant: str
) -> None:
    """The live test's checks on the recorded answers: what `make test` runs, with no server."""
    recorded = json.loads((hostservers.DATA / f"{host}-{variant}.json").read_text(encoding="utf-8"))
    _, docroot, model = _site(tmp_path, host, variant)
    listed = _listed(tmp_path, cli, host, docroot)
    unprobed = [path for path in listed if path not in recorded]
    assert unprobed == [], "listed URLs the recording has no answer for: add them to hostsite.probe_paths"
    _check_listing(model, listed, recorded, {path: recorded[path] for path in listed})


@pytest.mark.parametrize(("host", "variant"), LIVE)
def test_every_listed_url_is_served_and_every_served_page_listed(
    tmp_path: Path, cli: CliRunner, host: str, variant: str
) -> None:
    reason = hostservers.unavailable(host)
    if reason is not None:
        pytest.skip(reason)
    top, docroot, model = _site(tmp_path, host, variant)
    listed = _listed(tmp_path, cli, host, docroot)
    with hostservers.running(host, top, docroot) as server:
        answers = {path: hostservers.ask(server, path) for path in hostsite.probe_paths()}
        served = {path: hostservers.ask(server, path) for path in listed}
    _check_listing(model, listed, answers, served)


# --- the command line -------------------------------------------------------------------------


def test_explain_names_the_rule_file_and_line(tmp_path: Path, cli: CliRunner) -> None:
    _, docroot, _ = _site(tmp_path, "cloudflare", "base")
    run = cli("explain", docroot, "--base-url", BASE, "--host", "cloudflare", "kept.html", "old-clean.html", "old.html")
    assert run.code == 1
    assert run.out.splitlines()[:3] == [
        "kept.html: not listed: noindex in the host's headers"
        " (/kept answers with X-Robots-Tag: noindex; _headers line 16: /k*)",
        "old-clean.html: not listed: redirected by the host's rules"
        " (/old-clean answers 301 to /about; _redirects line 3: /old-clean /about 301)",
        "old.html: listed as https://example.com/old",  # /old.html redirects, /old answers 200
    ]
    rejected = [line for line in run.err.splitlines() if "Cloudflare rejects" in line]
    assert [line.split(": ", 2)[1] for line in rejected] == [
        "_redirects line 5",
        "_redirects line 6",
        "_redirects line 7",
    ]


def test_check_fails_on_a_url_the_host_redirects_or_marks_noindex(tmp_path: Path, cli: CliRunner) -> None:
    _, docroot, _ = _site(tmp_path, "netlify", "base")
    assert cli("build", docroot, "--base-url", BASE, "--quiet").code == 0  # as a plain server would
    assert cli("check", docroot, "--base-url", BASE, "--quiet").code == 0
    run = cli("check", docroot, "--base-url", BASE, "--host", "netlify")
    assert run.code == 1
    assert (
        "  - https://example.com/bot.html (noindex in the host's headers: /bot.html answers with"
        " X-Robots-Tag: googlebot: noindex; _headers line 10: /bot.html)"
    ) in run.out.splitlines()
    assert cli("build", docroot, "--base-url", BASE, "--host", "netlify", "--quiet").code == 0
    assert cli("check", docroot, "--base-url", BASE, "--host", "netlify", "--quiet").code == 0


def test_the_host_from_a_config_file(tmp_path: Path, cli: CliRunner) -> None:
    top, docroot, _ = _site(tmp_path, "firebase", "base")
    config = tmp_path / "sitemapgen.toml"
    config.write_text(f'base_url = "{BASE}"\nhost = "firebase"\nhost_config = "{top / "firebase.json"}"\n')
    assert cli("build", docroot, "--config", config, "--out", tmp_path / "out", "--quiet").code == 0
    listed = locs(tmp_path / "out", BASE)
    assert "https://example.com/docs" in listed
    assert "https://example.com/about" in listed
    assert not any(url.endswith((".html", "/docs/")) for url in listed)


@pytest.mark.parametrize(
    ("host", "files", "args", "error"),
    [
        ("plain", {}, ["--host-config", "x.json"], "error: --host-config: needs a host to read it as (set --host)"),
        ("cloudflare", {}, ["--host-config", "x.json"], "Cloudflare Pages reads only _headers and _redirects"),
        ("vercel", {"vercel.json": "{"}, [], "vercel.json: not valid JSON"),
        ("vercel", {"vercel.json": '{"headers": [{"source": "/private/*", "headers": []}]}'}, [], "a bare *"),
        ("serve", {"serve.json": '{"trailingSlash": "yes"}'}, [], "serve.json: trailingSlash: must be true or false"),
        ("firebase", {"../firebase.json": '{"hosting": {"public": "dist"}}'}, [], "hosting.public: is 'dist'"),
        ("netlify", {"netlify.toml": "[[redirects]\n"}, [], "netlify.toml: not valid TOML"),
        ("vercel", {}, ["--host", "heroku"], "Invalid value for '--host'"),
    ],
)
def test_a_bad_host_file_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, cli: CliRunner, host: str, files: dict[str, str], args: list[str], error: str
) -> None:
    docroot = tmp_path / "top" / "public"
    docroot.mkdir(parents=True)
    (docroot / "index.html").write_text(hostsite.page("index.html"))
    for name, content in files.items():
        (docroot / name).write_text(content)
    (tmp_path / "x.json").write_text("{}")
    before = sorted(p.name for p in docroot.iterdir())
    run = cli("build", docroot, "--base-url", BASE, "--host", host, *args)
    assert run.code == 2
    assert error in run.err
    assert len(run.err.strip().splitlines()) == 1 or "Invalid value" in run.err
    assert sorted(p.name for p in docroot.iterdir()) == before


def test_a_canonical_names_the_form_the_host_serves(tmp_path: Path, cli: CliRunner) -> None:
    """A canonical written for /a.html, which Cloudflare 308s to /a: the page is its own canonical."""
    docroot = tmp_path / "public"
    docroot.mkdir()
    (docroot / "index.html").write_text(hostsite.page("index.html"))
    (docroot / "a.html").write_text(
        f'<!DOCTYPE html><html><head><title>a</title><link rel="canonical" href="{BASE}a.html"></head></html>'
    )
    (docroot / "b.html").write_text(
        f'<!DOCTYPE html><html><head><title>b</title><link rel="canonical" href="{BASE}a"></head></html>'
    )
    (docroot / "c.html").write_text(
        f'<!DOCTYPE html><html><head><title>c</title><link rel="canonical" href="{BASE}gone"></head></html>'
    )
    run = cli("build", docroot, "--base-url", BASE, "--host", "cloudflare")
    assert run.code == 0
    # b is a duplicate of a; c names a URL Cloudflare answers with the home page only because
    # nothing is there (no 404.html): a canonical search engines ignore, so c is listed.
    assert locs(docroot, BASE) == [BASE, BASE + "a", BASE + "c"]
    assert "1 page: canonical names a URL no file here answers" in run.err


@pytest.mark.parametrize("kind", ["fifo", "outside-symlink", "directory", "huge"])
def test_a_hostile_rules_file_is_one_line_exit_2(tmp_path: Path, cli: CliRunner, kind: str) -> None:
    docroot = tmp_path / "public"
    docroot.mkdir()
    (docroot / "index.html").write_text(hostsite.page("index.html"))
    target = docroot / "_headers"
    if kind == "fifo":
        os.mkfifo(target)  # never opened for a wait: the run must not hang
    elif kind == "outside-symlink":
        secret = tmp_path / "secret.txt"
        secret.write_text("root:x:0:0\n")
        target.symlink_to(secret)
    elif kind == "directory":
        target.mkdir()
    else:
        with open(target, "wb") as f:
            f.truncate(LINE_FILE_LIMIT + 1)
    run = cli("build", docroot, "--base-url", BASE, "--host", "cloudflare")
    assert run.code == 2
    (line,) = run.err.splitlines()
    assert line.startswith(f"error: {target}: ")
    assert "root:x" not in run.err
    assert sorted(p.name for p in docroot.iterdir()) == ["_headers", "index.html"]


def test_clean_urls_need_a_host(tmp_path: Path, cli: CliRunner) -> None:
    """A plain server redirects /a to /a/, and a.html beside a/index.html would share /a."""
    _, docroot, _ = _site(tmp_path, "netlify", "base")
    run = cli("build", docroot, "--base-url", BASE, "--url-style", "clean")
    assert run.code == 2
    assert run.err == "error: --url-style: 'clean' needs a host that serves a/index.html at /a (set --host)\n"
    run = cli("build", docroot, "--base-url", BASE, "--url-style", "clean", "--host", "netlify", "--quiet")
    assert run.code == 0
    listed = locs(docroot, BASE)
    assert f"{BASE}docs" in listed
    assert f"{BASE}widget.html" in listed  # /widget answers with widget/index.html on Netlify
    assert len(listed) == len(set(listed))


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("directory", ["", "about.html", "docs/"]),
        ("index", ["index.html", "about.html", "docs/index.html"]),
        ("extensionless", ["", "about", "docs/"]),
        ("clean", ["", "about", "docs"]),
    ],
)
def test_netlify_lists_the_configured_form(tmp_path: Path, cli: CliRunner, style: str, expected: list[str]) -> None:
    """netlify dev answers every form of a page: --url-style picks the one listed."""
    _, docroot, _ = _site(tmp_path, "netlify", "base")
    assert cli("build", docroot, "--base-url", BASE, "--host", "netlify", "--url-style", style, "--quiet").code == 0
    listed = set(locs(docroot, BASE))
    assert {BASE + path for path in expected} <= listed


@pytest.mark.parametrize(
    ("base", "listed"),
    [
        ("https://www.example.com/", ["", "public"]),  # the rule's host: private/a is noindex
        ("https://example.com/", ["", "public", "private/a"]),  # another host: the rule does not apply
        ("https://abc.example.pages.dev/", []),  # a preview host: Pages itself sends noindex
        ("https://example.pages.dev/", ["", "public", "private/a"]),  # the production pages.dev host
    ],
)
def test_cloudflare_host_scoped_rules_apply_on_their_host_only(
    tmp_path: Path, cli: CliRunner, base: str, listed: list[str]
) -> None:
    docroot = tmp_path / "public"
    for relpath in ("index.html", "public.html", "private/a.html"):
        (docroot / relpath).parent.mkdir(parents=True, exist_ok=True)
        (docroot / relpath).write_text(hostsite.page(relpath))
    (docroot / "_headers").write_text("https://www.example.com/private/*\n  X-Robots-Tag: noindex\n")
    run = cli("build", docroot, "--base-url", base, "--host", "cloudflare", "--out", tmp_path / "out", "--quiet")
    if not listed:
        assert run.code == 2  # nothing to list
        assert "3 noindex in the host's headers" in run.err
        return
    assert run.code == 0
    assert sorted(locs(tmp_path / "out", base)) == sorted(base + path for path in listed)


@pytest.mark.parametrize("host", [pytest.param(host, marks=[pytest.mark.slow]) for host in hostsite.VARIANTS])
def test_verify_on_the_hosts_own_server(tmp_path: Path, cli: CliRunner, host: str) -> None:
    """What a crawler reads on the host's own server: a build that ignores the host's rules lists
    URLs the host redirects or marks noindex, which `verify` reports from the outside; the build
    for the host lists only what it serves, and `verify` finds nothing."""
    reason = hostservers.unavailable(host)
    if reason is not None:
        pytest.skip(reason)
    top, docroot, _ = _site(tmp_path, host, "base")
    ports = hostservers.free_ports()
    base = f"http://127.0.0.1:{ports[0]}/"
    runs = []
    for args in ((), ("--host", host)):  # each build before its server starts: vercel dev reads the files once
        assert cli("build", docroot, "--base-url", base, "--quiet", *args).code == 0
        with hostservers.running(host, top, docroot, ports=ports) as server:
            assert server + "/" == base
            runs.append(cli("verify", base + "sitemap.xml", "--all", "--json"))
    plain, hosted = runs
    found = {problem["kind"] for problem in json.loads(plain.out)["problems"]}
    assert plain.code == 1
    assert {"page-redirect", "page-noindex"} <= found, plain.out
    report = json.loads(hosted.out)
    assert (hosted.code, report["problems"]) == (0, []), hosted.out
    assert report["checked"] == report["listed"] > 10
