"""``text_sitemap = true``: sitemap.txt beside the index, the XML sitemaps' URLs one a line, in order.

Each text file is checked against the XML sitemaps as a crawler reads them: the index, then every
sitemap it lists, gunzipped and parsed by lxml (validated against the XSDs on the way)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from lxml import etree

import sitemapgen
from sitemapgen.config.settings import Config
from sitemapgen.output import text
from sitemapgen.output.text import RECORD_NAME, TEXT_NAME

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import error_line, head, html, make_tree, output_files, read_index
from .kills import kill_everywhere

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_PAGE = head() + '<body><img src="/a&b.png"><img src="https://cdn.example.net/x.jpg"></body>'

SITE = {
    "index.html": html("home"),
    **{f"docs/p{i}.html": html(f"page {i}") for i in range(6)},
    **{f"blog/post-{i}/index.html": html(f"post {i}") for i in range(4)},
    "docs/a&b é.html": IMAGE_PAGE,  # escaped in the XML (&amp;), percent-encoded in both
    "docs/hidden.html": head('<meta name="robots" content="noindex">'),
}


def _config(**keys: object) -> None:
    """A sitemapgen.toml in the working directory (each test's own, empty one)."""
    sections = keys.pop("sections", True)
    lines = [f'base_url = "{BASE}"']
    lines += [
        f"{key} = {str(value).lower() if isinstance(value, bool) else repr(value)}" for key, value in keys.items()
    ]
    lines += ['[[sitemaps]]\nname = "blog"\npattern = "blog/"'] if sections else []
    Path("sitemapgen.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def xml_urls(out: Path) -> list[str]:
    """Every <url><loc> of the XML sitemaps, in the index's order, as lxml reads them (gunzipped)."""
    urls = []
    for loc, _ in read_index(out / "sitemap.xml"):
        root = etree.fromstring(gzip.decompress((out / loc.removeprefix(BASE)).read_bytes()))
        urls += [str(url.findtext(f"{{{SM}}}loc")) for url in root.iterchildren(f"{{{SM}}}url")]
    return urls


def text_files(out: Path) -> list[Path]:
    """sitemap.txt, sitemap-2.txt, ... as far as they go on."""
    files = [out / TEXT_NAME]
    while (out / f"sitemap-{len(files) + 1}.txt").exists():
        files.append(out / f"sitemap-{len(files) + 1}.txt")
    return files


def text_lines(out: Path) -> list[list[str]]:
    """Each text sitemap's lines (UTF-8, each one ending in a newline)."""
    found = []
    for path in text_files(out):
        data = path.read_bytes().decode("utf-8")
        assert data.endswith("\n"), path
        found.append(data[:-1].split("\n"))
    return found


def test_sitemap_txt_lists_the_urls_of_the_xml_sitemaps_in_their_order(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(text_sitemap=True, images=True, max_urls_per_sitemap=5)
    run = cli("build", root, "--robots-txt", "create")
    assert run.code == 0, run.err
    urls = xml_urls(root)
    assert len(read_index(root / "sitemap.xml")) > 2  # more than one sitemap, in two sections
    assert len(urls) == len(SITE) - 1  # all but the noindex page
    assert any("&" in url for url in urls)
    assert any("blog/" in url for url in urls)
    lines = text_lines(root)
    assert [line for file in lines for line in file] == urls
    assert all(len(file) <= 5 for file in lines)  # at most max_urls_per_sitemap a file
    assert f"wrote {root / TEXT_NAME} .. sitemap-{len(lines)}.txt" in run.err.replace(
        f"{len(lines)} text sitemaps, ", ""
    )
    # robots.txt names the XML index, and nothing else.
    robots = (root / "robots.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in robots if line.lower().startswith("sitemap:")] == [f"Sitemap: {BASE}sitemap.xml"]


def test_one_text_sitemap_holds_as_many_urls_as_the_limit_and_the_cli_flag_turns_it_on(
    site: SiteFactory, cli: CliRunner
) -> None:
    root = site(SITE)
    _config(sections=False)
    run = cli("build", root, "--text-sitemap", "--json")
    assert run.code == 0, run.err
    assert text_lines(root) == [xml_urls(root)]
    assert not (root / "sitemap-2.txt").exists()
    assert json.loads(run.out)["text_sitemaps"] == [{"path": str(root / TEXT_NAME), "urls": 12, "changed": True}]
    again = cli("build", root, "--text-sitemap", "--json")
    assert json.loads(again.out)["text_sitemaps"][0]["changed"] is False  # the same bytes: kept as they are


def test_a_text_sitemap_is_cut_before_the_protocols_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The byte bound (50 MiB, the protocol's) made small: each file stays under it, whole lines."""
    root = make_tree(tmp_path / "public", SITE)
    bound = 3 * len(f"{BASE}docs/p0.html\n")
    monkeypatch.setattr(text, "MAX_TEXT_BYTES", bound)
    sitemapgen.build(Config(root, BASE, text_sitemap=True), on_warning=lambda _: None)
    lines = text_lines(root)
    assert len(lines) > 3
    assert [line for file in lines for line in file] == xml_urls(root)
    assert all(sum(len(line) + 1 for line in file) <= bound for file in lines)


def test_turned_off_each_file_is_kept_one_build_then_removed(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(text_sitemap=True, max_urls_per_sitemap=5)
    assert cli("build", root).code == 0
    first = {path.name: path.read_bytes() for path in text_files(root)}
    assert len(first) == 3
    # Fewer files needed: the one no longer written is kept, as it was, for one build.
    _config(text_sitemap=True, max_urls_per_sitemap=6)
    assert cli("build", root).code == 0
    assert [line for file in text_lines(root)[:2] for line in file] == xml_urls(root)
    assert (root / "sitemap-3.txt").read_bytes() == first["sitemap-3.txt"]
    run = cli("build", root)
    assert f"warning: {root / 'sitemap-3.txt'}: removed" in run.err
    assert not (root / "sitemap-3.txt").exists()
    # Turned off: kept one build as written, then removed.
    kept = {path.name: path.read_bytes() for path in text_files(root)}
    _config(max_urls_per_sitemap=6)
    run = cli("build", root)
    assert run.code == 0
    assert "removed" not in run.err
    assert {path.name: path.read_bytes() for path in text_files(root)} == kept
    run = cli("build", root)
    assert run.code == 0
    assert [line for line in run.err.splitlines() if line.startswith("warning:")] == [
        f"warning: {root / name}: removed (a text sitemap no build has written since the one before)"
        for name in ("sitemap-2.txt", TEXT_NAME)
    ]
    assert not [name for name in os.listdir(root) if name.endswith(".txt") or name == RECORD_NAME]
    # One edited meanwhile is no longer ours: left alone.
    _config(text_sitemap=True)
    assert cli("build", root).code == 0
    _config()
    assert cli("build", root).code == 0
    (root / TEXT_NAME).write_text("https://example.com/mine\n", encoding="utf-8")
    run = cli("build", root)
    assert run.code == 0
    assert TEXT_NAME not in run.err
    assert (root / TEXT_NAME).read_text(encoding="utf-8") == "https://example.com/mine\n"


def test_a_foreign_sitemap_2_txt_is_refused_before_anything_is_published(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(text_sitemap=True)
    assert cli("build", root).code == 0
    (root / "sitemap-2.txt").write_text("mine\n", encoding="utf-8")
    before = output_files(root)
    names = sorted(os.listdir(root))
    _config(text_sitemap=True, max_urls_per_sitemap=5)
    run = cli("build", root)
    assert run.code == 2
    assert error_line(run.err).startswith(f"{root / 'sitemap-2.txt'}: exists and sitemapgen did not write it")
    assert output_files(root) == before
    assert sorted(os.listdir(root)) == names


def test_check_says_stale_when_sitemap_txt_is_missing_or_edited(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(text_sitemap=True)
    assert cli("build", root).code == 0
    assert cli("check", root).code == 0
    stale = [
        "stale: 0 pages added, 0 removed, 0 changed; 0 of 2 sitemaps would be written (run sitemapgen build)",
        f"  text sitemap: {root / TEXT_NAME} is missing, or not as a build writes it",
    ]
    data = (root / TEXT_NAME).read_bytes()
    (root / TEXT_NAME).write_bytes(data.replace(b"\n", b"\r\n"))
    run = cli("check", root)
    assert (run.code, run.out.splitlines()) == (1, stale)
    (root / TEXT_NAME).unlink()
    run = cli("check", root)
    assert (run.code, run.out.splitlines()) == (1, stale)
    (root / TEXT_NAME).write_bytes(data)
    assert cli("check", root).code == 0
    assert cli("check", root, "--no-text-sitemap").code == 0  # off: what is there is not compared


def test_documents_never_list_a_text_sitemap(site: SiteFactory, cli: CliRunner) -> None:
    root = site({**SITE, "notes.txt": "notes"})
    _config(text_sitemap=True, documents=["*.txt"])
    assert cli("build", root).code == 0
    assert cli("build", root).code == 0  # now sitemap.txt is there to be walked
    urls = xml_urls(root)
    assert f"{BASE}notes.txt" in urls
    assert f"{BASE}{TEXT_NAME}" not in urls


@pytest.mark.forks  # each build a forked child, killed at a file operation
def test_a_run_killed_at_any_file_operation_leaves_whole_text_sitemaps_it_can_replace(tmp_path: Path) -> None:
    """Killed anywhere, from a build with two text sitemaps to one that needs three: each text
    file there is whole, the old or the new, and the next run, which proves them ours, goes ahead."""
    config = {"max_urls_per_sitemap": 4, "read_heads": False, "text_sitemap": True}
    root, old, new, seen = kill_everywhere(tmp_path, html, text_lines, **config)
    assert (len(old), len(new)) == (2, 3)
    assert [line for file in new for line in file] == xml_urls(root)
    assert {(0, False), (0, True)} <= seen  # killed before sitemap.txt changed, and after
