"""``llms_txt = true``: llms.txt at the site's root, read back as llmstxt.org specifies it (an H1,
a blockquote, then H2 sections of ``- [title](url): description`` lines), and held to the XML
sitemaps as a crawler reads them (the index, then each sitemap gunzipped and parsed by lxml):
the same pages, each with the title and description beautifulsoup4 reads in it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import sitemapgen
from sitemapgen.config.settings import Config
from sitemapgen.output import llms
from sitemapgen.output.llms import KIND
from sitemapgen.protocol import LLMS_NAME

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import head, make_tree, refuse_sqlite
from .test_text import _config, xml_urls

RECORD = KIND.record


def _page(title: str, description: str | None = None, extra: str = "") -> str:
    meta = f'<meta name="description" content="{description}">' if description is not None else ""
    return f"<!DOCTYPE html><html><head><title>{title}</title>{meta}{extra}</head><body>x</body></html>\n"


SITE = {
    "index.html": _page("Frob &amp; Co", "A  tool\n for knobs."),
    "about.html": _page("About [us]", None),
    **{f"docs/p{i}.html": _page(f"Doc {i}", f"Doc {i} in detail") for i in range(5)},
    "docs/deep/er.html": _page("Deeper", "Down there"),
    "blog/post/index.html": _page("A post", "Posted"),
    "docs/(odd).html": _page("Odd", "Parentheses in its URL"),
    "docs/hidden.html": head('<meta name="robots" content="noindex">'),
    "docs/elsewhere.html": _page("Elsewhere", "Canonical away", '<link rel="canonical" href="https://other.org/x">'),
    "untitled.html": "<!DOCTYPE html><html><head></head><body>x</body></html>",
}


@dataclass
class LlmsTxt:
    """llms.txt as the format reads it."""

    name: str
    summary: str | None
    notes: list[str] = field(default_factory=list)  # paragraphs before the first section
    sections: dict[str, list[tuple[str, str, str | None]]] = field(default_factory=dict)  # title, url, description

    @property
    def pages(self) -> list[tuple[str, str, str | None]]:
        return [page for pages in self.sections.values() for page in pages]


_LINK = re.compile(r"- \[((?:\\.|[^\[\]\\])*)\]\(([^()\s]+)\)(?:: (.+))?")


def parse_llms(text: str) -> LlmsTxt:
    """Read llms.txt strictly as llmstxt.org lays it out: ``# name``, an optional ``> summary``,
    paragraphs, then ``## section`` headings each followed by a list of links; blank lines between."""
    assert text.endswith("\n")
    assert not text.endswith("\n\n")
    blocks = text[:-1].split("\n\n")
    assert blocks[0].startswith("# ")
    assert "\n" not in blocks[0]
    read = LlmsTxt(blocks[0][2:], None)
    rest = blocks[1:]
    if rest and rest[0].startswith("> "):
        read.summary = rest.pop(0)[2:]
        assert "\n" not in read.summary
    while rest and not rest[0].startswith("## "):
        read.notes.append(rest.pop(0))
    assert len(rest) % 2 == 0
    for heading, items in zip(rest[::2], rest[1::2], strict=True):
        assert heading.startswith("## ")
        assert "\n" not in heading
        assert heading[3:] not in read.sections
        pages = read.sections[heading[3:]] = []
        for line in items.split("\n"):
            match = _LINK.fullmatch(line)
            assert match is not None, line
            title = re.sub(r"\\(.)", r"\1", match[1])
            pages.append((title, match[2].replace("%28", "(").replace("%29", ")"), match[3]))
    return read


def read_llms(out: Path) -> LlmsTxt:
    data = (out / LLMS_NAME).read_bytes()
    assert len(data) <= llms.MAX_LLMS_BYTES
    return parse_llms(data.decode("utf-8"))


def test_llms_txt_lists_the_pages_of_the_xml_sitemaps_by_folder_with_their_titles(
    site: SiteFactory, cli: CliRunner
) -> None:
    root = site(SITE)
    _config(llms_txt=True, max_urls_per_sitemap=3)
    run = cli("build", root, "--json")
    assert run.code == 0, run.err
    read = read_llms(root)
    urls = xml_urls(root)
    assert len(urls) == len(SITE) - 2  # not the noindex page, nor the one canonical elsewhere
    assert sorted(url for _, url, _ in read.pages) == sorted(urls)  # exactly the XML sitemaps' pages
    assert (read.name, read.summary, read.notes) == ("Frob & Co", "A tool for knobs.", [])
    assert list(read.sections) == ["/", "/docs/", "/blog/"]  # the root first, then as the sitemaps go
    assert read.sections["/"] == [
        ("Frob & Co", BASE, "A tool for knobs."),
        ("About [us]", f"{BASE}about.html", None),  # brackets escaped in the file, read back whole
        (f"{BASE}untitled.html", f"{BASE}untitled.html", None),  # no title: its URL
    ]
    assert ("Odd", f"{BASE}docs/(odd).html", "Parentheses in its URL") in read.sections["/docs/"]
    assert "(odd)" not in (root / LLMS_NAME).read_text(encoding="utf-8")  # percent-encoded in the link
    assert ("Deeper", f"{BASE}docs/deep/er.html", "Down there") in read.sections["/docs/"]
    assert json.loads(run.out)["llms_txt"] == [{"path": str(root / LLMS_NAME), "pages": len(urls), "changed": True}]
    again = cli("build", root, "--json")
    assert json.loads(again.out)["llms_txt"][0]["changed"] is False  # the same bytes: kept as they are
    assert f"; kept {root / LLMS_NAME} ({len(urls)} pages for language models)" in cli("build", root).err


def test_the_site_name_is_the_configs_where_given(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(llms_txt=True, site_name="  The    Frobnicator ")
    assert cli("build", root).code == 0
    assert read_llms(root).name == "The Frobnicator"


@pytest.mark.parametrize("text_sitemap", [True, False])
def test_past_its_bound_it_lists_what_fits_and_says_how_many_it_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text_sitemap: bool
) -> None:
    """The bound (10 MiB) made small: the file stays under it, and says what it left out and where
    every page is listed."""
    root = make_tree(
        tmp_path / "public", {**SITE, **{f"many/p{i}.html": _page(f"Many {i}", "x" * 50) for i in range(40)}}
    )
    bound = 2_000
    monkeypatch.setattr(llms, "MAX_LLMS_BYTES", bound)
    result = sitemapgen.build(Config(root, BASE, llms_txt=True, text_sitemap=text_sitemap), on_warning=lambda _: None)
    data = (root / LLMS_NAME).read_bytes()
    assert len(data) <= bound
    read = parse_llms(data.decode("utf-8"))
    urls = xml_urls(root)
    listed = [url for _, url, _ in read.pages]
    assert set(listed) < set(urls)
    where = f"{BASE}sitemap.txt" if text_sitemap else f"{BASE}sitemap.xml"
    assert read.notes == [
        f"{len(urls) - len(listed)} of the site's {len(urls)} pages are left out of this file, to keep it under"
        f" 0 MiB: [{where}]({where}) lists every one."
    ]
    cut = len(urls) - len(listed)  # the summary says it too
    assert f"({len(listed)} pages for language models; {cut} more left out, to stay under 10 MiB)" in result.summary()


@pytest.mark.parametrize("when", ["walk", "publish"])
def test_a_temporary_directory_with_no_room_for_its_lines_is_one_line_and_nothing_new_is_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """The lines wait in a temporary database; where SQLite cannot keep them (a full temporary
    directory stops every statement so), as the rows come or once the chunks are written: the
    build stops with one line, and what was published stays as it was."""
    root = make_tree(tmp_path / "public", SITE)
    config = Config(root, BASE, llms_txt=True)
    sitemapgen.build(config, on_warning=lambda _: None)
    before = {path.name: path.read_bytes() for path in root.iterdir() if path.is_file()}
    (root / "docs" / "p9.html").write_text(_page("Doc 9", "New"))
    refuse_sqlite(monkeypatch)
    monkeypatch.setattr(llms, "_BATCH", 2 if when == "walk" else 1_000)  # else the lines wait for the chunks
    with pytest.raises(sitemapgen.SitemapgenError) as e:
        sitemapgen.build(config, on_warning=lambda _: None)
    assert re.fullmatch(
        r"cannot keep llms\.txt's lines in a temporary file \(.+\): interrupted; nothing new was published",
        str(e.value),
    ), e.value
    assert {path.name: path.read_bytes() for path in root.iterdir() if path.is_file()} == before


def test_turned_off_it_is_kept_one_build_then_removed(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(llms_txt=True)
    assert cli("build", root).code == 0
    written = (root / LLMS_NAME).read_bytes()
    _config()
    run = cli("build", root)
    assert (run.code, "removed" in run.err) == (0, False)
    assert (root / LLMS_NAME).read_bytes() == written
    run = cli("build", root)
    assert run.code == 0
    assert [line for line in run.err.splitlines() if LLMS_NAME in line] == [
        f"warning: {root / LLMS_NAME}: removed (an llms.txt no build has written since the one before)"
    ]
    assert not (root / LLMS_NAME).exists()
    assert not (root / RECORD).exists()


def test_check_says_stale_when_llms_txt_is_missing_or_edited(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(llms_txt=True, sections=False)
    assert cli("build", root).code == 0
    assert cli("check", root).code == 0
    stale = [
        "stale: 0 pages added, 0 removed, 0 changed; 0 of 1 sitemap would be written (run sitemapgen build)",
        f"  llms.txt: {root / LLMS_NAME} is missing, or not as a build writes it",
    ]
    data = (root / LLMS_NAME).read_bytes()
    (root / LLMS_NAME).write_bytes(data.replace(b"Doc 1", b"Doc one"))
    run = cli("check", root)
    assert (run.code, run.out.splitlines()) == (1, stale)
    (root / LLMS_NAME).unlink()
    run = cli("check", root)
    assert (run.code, run.out.splitlines()) == (1, stale)
    (root / LLMS_NAME).write_bytes(data)
    assert cli("check", root).code == 0
    assert cli("check", root, "--no-llms-txt").code == 0  # off: what is there is not compared


def test_documents_never_list_llms_txt(site: SiteFactory, cli: CliRunner) -> None:
    root = site({**SITE, "notes.txt": "notes"})
    _config(llms_txt=True, documents=["*.txt"])
    assert cli("build", root).code == 0
    assert cli("build", root).code == 0  # now llms.txt is there to be walked
    urls = xml_urls(root)
    assert f"{BASE}notes.txt" in urls
    assert f"{BASE}{LLMS_NAME}" not in urls
    assert f"{BASE}notes.txt" in [url for _, url, _ in read_llms(root).pages]
