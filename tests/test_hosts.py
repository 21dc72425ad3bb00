"""Host truth: each host's model against what that host's own local server answers.

`hostsite` writes a site carrying every rule kind, in each host's files and
variants. Two kinds of test compare sitemapgen with the real servers:

- recorded: what each server answered for every probed path, kept in
  ``tests/hostdata`` (``python -m tests.hostservers record``), against the model,
  path by path. These run everywhere.
- live: the server itself (`hostservers.running`, on loopback), where it is
  installed (`make hosts`; skipped with the reason where it cannot run). Every
  URL the build lists must answer 200 with its page, no redirect and no noindex;
  every page the server makes indexable under one of its URLs must be listed
  exactly once; and the model must answer every probed path as the server does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemapgen.config import Config
from sitemapgen.hosts import Host, HostName, load_host, page_forms, says_noindex

from . import hostservers, hostsite
from .conftest import CliRunner
from .helpers import locs

BASE = "https://example.com/"
CASES = [(host, variant) for host, variants in hostsite.VARIANTS.items() for variant in variants]
#: Live, each host's base site runs in `make test`; its variants (a second or two each) in `make slow`.
LIVE = [pytest.param(host, variant, marks=[pytest.mark.slow] if variant != "base" else []) for host, variant in CASES]


def _site(tmp_path: Path, host: str, variant: str) -> tuple[Path, Path, Host]:
    top = tmp_path / "site"
    docroot = hostsite.write_site(top, host, variant)
    model = load_host(Config(docroot, BASE, host=HostName(host)))
    assert model is not None
    return top, docroot, model


def _server_view(answer: hostservers.Answer) -> tuple[object, ...]:
    """What decides a listing, of one answer: status, where it redirects, noindex, which page."""
    status = answer["status"]
    assert isinstance(status, int)
    robots = answer["x-robots-tag"]
    noindex = status == 200 and isinstance(robots, str) and says_noindex(robots)
    if 300 <= status < 400:
        return status, answer["location"], noindex
    return status, answer["page"] if status == 200 else None, noindex


def _model_view(model: Host, path: str) -> tuple[object, ...]:
    answer = model.respond(path)
    noindex = answer.status == 200 and model.noindex(path) is not None
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


@pytest.mark.parametrize(("host", "variant"), LIVE)
def test_every_listed_url_is_served_and_every_served_page_listed(
    tmp_path: Path, cli: CliRunner, host: str, variant: str
) -> None:
    reason = hostservers.unavailable(host)
    if reason is not None:
        pytest.skip(reason)
    top, docroot, model = _site(tmp_path, host, variant)
    out = tmp_path / "out"
    result = cli("build", docroot, "--base-url", BASE, "--host", host, "--out", out, "--quiet")
    assert result.code == 0, result.err
    listed = [url[len(BASE) - 1 :] for url in locs(out, BASE)]
    with hostservers.running(host, top, docroot) as server:
        answers = {path: hostservers.ask(server, path) for path in hostsite.probe_paths()}
        served = {path: hostservers.ask(server, path) for path in listed}
    assert _differences(model, answers) == []
    wrong = {path: _server_view(answer) for path, answer in served.items() if _server_view(answer)[::2] != (200, False)}
    assert wrong == {}, "listed URLs the server does not serve as pages"
    pages = [served[path]["page"] for path in listed]
    assert None not in pages
    assert len(set(pages)) == len(pages), "a page listed twice"
    assert set(pages) == _indexable(answers)
