"""``stylesheet = true``: sitemap.xsl beside the index, named by every file, and what it shows.

The view itself is checked here with lxml's XSLT (libxslt, the engine Chromium embeds too);
`test_stylesheet_browser` opens it in a real browser (slow)."""

from __future__ import annotations

import gzip
import hashlib
import multiprocessing
import os
import re
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from urllib.parse import urljoin

import pytest
from lxml import etree

import sitemapgen
from sitemapgen.config.settings import Config
from sitemapgen.output.stylesheet import STYLESHEET, STYLESHEET_NAME, written_by_us
from sitemapgen.util.faults import FAULT_ENV

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import (
    error_line,
    head,
    html,
    index_paths,
    make_tree,
    output_files,
    published,
    read_index,
    read_xml,
    schema,
)

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XSL_PI = '<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>'

#: What the summary says of the view: Chrome 155 and later (November 2026) show the XML, not the
#: table; and, until it is on, where a page every browser shows comes from.
VIEW = "a table in browsers that apply XSLT; Chrome 155 and later show the XML"
ADVICE = ", html_sitemap = true writes a page every browser shows"


def _config(**keys: object) -> None:
    """A sitemapgen.toml in the working directory (each test's own, empty one)."""
    lines = [f'base_url = "{BASE}"']
    lines += [f"{key} = {_toml(value)}" for key, value in keys.items()]
    Path("sitemapgen.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _toml(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else repr(value)


def _alternates(lang: str) -> str:
    return "".join(
        f'<link rel="alternate" hreflang="{other}" href="{BASE}{other}/">' for other in ("en", "fr") if other
    ) + (f'<link rel="canonical" href="{BASE}{lang}/">')


SITE = {
    "index.html": html("home"),
    "en/index.html": head(_alternates("en")),
    "fr/index.html": head(_alternates("fr")),
    **{f"docs/p{i}.html": html(f"page {i}") for i in range(5)},
}


def _files(out: Path) -> list[Path]:
    """The index files and every sitemap they list."""
    files = index_paths(out)
    for index in list(files):
        files += [out / loc.removeprefix(BASE) for loc, _ in read_index(index)]
    return files


def _transform(document: bytes) -> etree._Element:
    """`document` as a browser shows it: through the stylesheet its processing instruction names."""
    root = etree.fromstring(document)
    pi = root.getprevious()
    assert isinstance(pi, etree._XSLTProcessingInstruction), pi
    assert pi.get("href") == STYLESHEET_NAME
    transform = etree.XSLT(etree.fromstring(STYLESHEET))
    return transform(root).getroot()


def _cell(td: etree._Element) -> str:
    """A cell's text, spaces squeezed; a list's items joined by a space."""
    items = td.findall("ul/li")
    return " ".join(" ".join("".join(part.itertext()).split()) for part in (items or [td]))


def _rows(page: etree._Element) -> list[list[str]]:
    """Each body row of the page's table: the text of each cell."""
    return [[_cell(td) for td in tr.findall("td")] for tr in page.iter("tr")][1:]


def test_every_file_names_the_stylesheet_and_stays_valid(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(stylesheet=True, max_urls_per_sitemap=3)
    run = cli("build", root)
    assert run.code == 0, run.err
    assert f"wrote {root / STYLESHEET_NAME} ({VIEW}{ADVICE})" in run.err
    assert (root / STYLESHEET_NAME).read_bytes() == STYLESHEET
    files = _files(root)
    assert len(files) > 2
    for path in files:
        lines = read_xml(path).split(b"\n", 2)
        assert lines[:2] == [b'<?xml version="1.0" encoding="UTF-8"?>', XSL_PI.encode()], path.name
        # Same origin as the file that names it, as browsers demand.
        assert urljoin(BASE + path.name, STYLESHEET_NAME) == BASE + STYLESHEET_NAME
        # An independent parser (expat) reads the same document past the instruction.
        assert ElementTree.fromstring(read_xml(path)).tag in {f"{{{SM}}}urlset", f"{{{SM}}}sitemapindex"}
    assert len(published(root, BASE)) == len(SITE)  # every file valid against the XSDs (lxml)
    validated = cli("validate", root / "sitemap.xml", "--base-url", BASE)
    assert (validated.code, validated.err.splitlines()[-1]) == (0, f"{len(files)} files, {len(SITE)} URLs: ok")


def test_the_view_of_the_index_and_of_a_sitemap_is_a_table_of_their_entries(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(stylesheet=True)
    assert cli("build", root).code == 0
    index = _transform((root / "sitemap.xml").read_bytes())
    assert index.tag == "html"
    assert index.findtext("head/title") == "Sitemap index"
    assert (
        "".join(index.find("body/main/p").itertext()) == "This index lists 1 sitemap of this site, for search engines."
    )
    assert [(row[0], row[1]) for row in _rows(index)] == read_index(root / "sitemap.xml")
    assert [a.get("href") for a in index.iter("a")] == [loc for loc, _ in read_index(root / "sitemap.xml")]
    chunk = root / "sitemap-1.xml.gz"
    view = _transform(gzip.decompress(chunk.read_bytes()))
    assert [th.text for th in view.iter("th")] == ["URL", "Last modified", "Languages"]
    expected = [
        [u.loc, u.lastmod or "", " ".join(f"{lang}: {href}" for lang, href in u.alternates)]
        for u in published(root, BASE)
    ]
    assert _rows(view) == expected
    assert [u.alternates for u in published(root, BASE) if u.alternates]  # the column is not empty
    assert not list(view.iter("script"))
    assert not [e for e in view.iter() if e.get("src")]  # nothing fetched but the page itself


def test_the_view_of_a_sitemap_with_images_and_rules_shows_them(tmp_path: Path) -> None:
    """Images (another part of the build writes them) and changefreq/priority: each a column."""
    document = f"""<?xml version="1.0" encoding="UTF-8"?>
{XSL_PI}
<urlset xmlns="{SM}" xmlns:image="{IMAGE}">
<url><loc>{BASE}a/</loc><lastmod>2026-01-02</lastmod><changefreq>weekly</changefreq><priority>0.8</priority>\
<image:image><image:loc>{BASE}a/one.png</image:loc></image:image>\
<image:image><image:loc>https://cdn.example.net/two.jpg</image:loc></image:image></url>
<url><loc>{BASE}b/</loc></url>
</urlset>
""".encode()
    root = etree.fromstring(document)
    assert schema("sitemap-with-extensions.xsd").validate(root)
    view = _transform(document)
    assert [th.text for th in view.iter("th")] == ["URL", "Last modified", "Change frequency", "Priority", "Images"]
    assert _rows(view) == [
        [f"{BASE}a/", "2026-01-02", "weekly", "0.8", f"{BASE}a/one.png https://cdn.example.net/two.jpg"],
        [f"{BASE}b/", "", "", "", ""],
    ]
    assert "".join(view.find("body/main/p").itertext()) == (
        "This sitemap lists 2 pages of this site, for search engines. All sitemaps"
    )
    assert [a.get("href") for a in view.iter("a")][0] == "sitemap.xml"
    assert [a.get("href") for a in view.iter("a")][2:4] == [f"{BASE}a/one.png", "https://cdn.example.net/two.jpg"]


def test_same_tree_same_settings_same_bytes(tmp_path: Path, cli: CliRunner) -> None:
    _config(stylesheet=True)
    roots = [make_tree(tmp_path / name, SITE) for name in ("one", "two")]
    stamp = 1_700_000_000
    for root in roots:
        for path in root.rglob("*.html"):
            os.utime(path, (stamp, stamp))
        assert cli("build", root).code == 0
    first, second = (output_files(root) for root in roots)
    assert STYLESHEET_NAME in first
    assert first == second


def test_the_advice_once_followed_is_not_said(site: SiteFactory, cli: CliRunner) -> None:
    """With the HTML sitemap written, the summary no longer points to it."""
    root = site(SITE)
    _config(stylesheet=True, html_sitemap=True)
    run = cli("build", root)
    assert run.code == 0, run.err
    assert f"wrote {root / STYLESHEET_NAME} ({VIEW})" in run.err
    assert ADVICE not in run.err


def test_check_diff_and_previous_read_the_styled_files(tmp_path: Path, site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(stylesheet=True)
    assert cli("build", root).code == 0
    assert cli("check", root).code == 0
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    for name, data in output_files(root).items():
        (earlier / name).write_bytes(data)
    (root / "docs" / "new.html").write_text(html("new"))
    again = cli("build", root, "--previous", earlier)
    assert again.code == 0, again.err
    assert "+1 -0 ~0 since the previous deploy" in again.err
    assert f"kept {root / STYLESHEET_NAME} ({VIEW}{ADVICE})" in again.err
    diff = cli("diff", earlier, root)
    assert diff.code == 0, diff.err
    assert f"+ {BASE}docs/new.html" in diff.out
    # The stylesheet gone or edited: the files no longer show as a table, so not current.
    (root / STYLESHEET_NAME).write_bytes(STYLESHEET.replace(b"Sitemap index</h1>", b"Index</h1>"))
    stale = cli("check", root)
    assert stale.code == 1
    assert stale.out.splitlines() == [
        "stale: 0 pages added, 0 removed, 0 changed; 0 of 1 sitemap would be written (run sitemapgen build)",
        f"  stylesheet: {root / STYLESHEET_NAME} is missing, or not as a build writes it",
    ]
    (root / STYLESHEET_NAME).write_bytes(STYLESHEET)
    assert cli("check", root).code == 0
    # Turned off: every file changes (the instruction goes), and check says the published set is stale.
    _config()
    stale = cli("check", root)
    assert stale.code == 1
    assert stale.out.splitlines()[1:] == [
        "  no page differs: the files around them do (the stylesheet line, or the sitemaps' opening)"
    ]


def test_turning_it_off_writes_what_a_build_without_it_writes(tmp_path: Path, cli: CliRunner) -> None:
    styled, plain = make_tree(tmp_path / "styled", SITE), make_tree(tmp_path / "plain", SITE)
    for root in (styled, plain):
        for path in root.rglob("*.html"):
            os.utime(path, (1_700_000_000, 1_700_000_000))
    _config(stylesheet=True)
    assert cli("build", styled).code == 0
    _config()
    assert cli("build", styled).code == 0
    assert cli("build", plain).code == 0
    # The same bytes, but for the chunks' numbers (a chunk that changes takes a fresh one).
    assert [_numbered(path.read_bytes()) for path in _files(styled)] == [
        _numbered(path.read_bytes()) for path in _files(plain)
    ]
    assert XSL_PI.encode() not in (styled / "sitemap.xml").read_bytes()
    # Kept while a browser may hold the index before (it named the file), removed by the next build.
    assert (styled / STYLESHEET_NAME).read_bytes() == STYLESHEET
    run = cli("build", styled)
    assert (
        f"warning: {styled / STYLESHEET_NAME}: removed (stylesheet is off, and no index names it any more)\n" in run.err
    )
    assert not (styled / STYLESHEET_NAME).exists()


def test_with_it_off_a_sitemap_xsl_not_ours_is_left_alone(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    _config(stylesheet=True)
    assert cli("build", root).code == 0
    edited = STYLESHEET.replace(b"Sitemap index</h1>", b"Our sitemaps</h1>")
    (root / STYLESHEET_NAME).write_bytes(edited)
    _config()
    for _ in range(2):
        run = cli("build", root)
        assert run.code == 0
        assert STYLESHEET_NAME not in run.err
    assert (root / STYLESHEET_NAME).read_bytes() == edited


def _numbered(data: bytes) -> bytes:
    return re.sub(rb"sitemap-[0-9]+\.xml\.gz", b"sitemap-N.xml.gz", data)


@pytest.mark.parametrize(
    "theirs",
    [
        pytest.param(b'<?xml version="1.0"?>\n<xsl:stylesheet/>\n', id="someone-elses"),
        pytest.param(STYLESHEET.replace(b"Sitemap index</h1>", b"Our sitemaps</h1>"), id="ours-edited"),
        pytest.param(None, id="a-symlink-to-ours"),
    ],
)
def test_a_sitemap_xsl_it_did_not_write_is_refused_and_nothing_is_written(
    tmp_path: Path, site: SiteFactory, cli: CliRunner, theirs: bytes | None
) -> None:
    root = site(SITE)
    path = root / STYLESHEET_NAME
    if theirs is None:
        (tmp_path / "elsewhere.xsl").write_bytes(STYLESHEET)
        path.symlink_to(tmp_path / "elsewhere.xsl")
    else:
        path.write_bytes(theirs)
    before = sorted(os.listdir(root))
    _config(stylesheet=True)
    run = cli("build", root)
    assert run.code == 2
    assert error_line(run.err) == (
        f"{path}: exists and sitemapgen did not write it (or it was edited since), so stylesheet = true"
        " would replace it: move it away, or leave stylesheet off"
    )
    assert sorted(os.listdir(root)) == before
    assert theirs is None or path.read_bytes() == theirs


def test_a_stylesheet_an_earlier_version_wrote_is_replaced(site: SiteFactory, cli: CliRunner) -> None:
    earlier = STYLESHEET.replace(b"Sitemap index</h1>", b"Index</h1>")
    head_end = earlier.index(b" -->\n") + len(b" -->\n")
    digest = hashlib.blake2b(earlier[head_end:], digest_size=20).hexdigest().encode()
    earlier = earlier[: head_end - len(b" -->\n") - 40] + digest + earlier[head_end - len(b" -->\n") :]
    assert written_by_us(earlier)
    assert earlier != STYLESHEET
    root = site(SITE)
    (root / STYLESHEET_NAME).write_bytes(earlier)
    _config(stylesheet=True)
    run = cli("build", root)
    assert run.code == 0, run.err
    assert (root / STYLESHEET_NAME).read_bytes() == STYLESHEET


def test_stylesheet_must_be_true_or_false(site: SiteFactory, cli: CliRunner) -> None:
    root = site(SITE)
    Path("sitemapgen.toml").write_text(f'base_url = "{BASE}"\nstylesheet = "yes"\n', encoding="utf-8")
    run = cli("build", root)
    assert run.code == 2
    assert error_line(run.err).endswith("sitemapgen.toml: stylesheet: must be true or false, got 'yes'")
    assert not (root / "sitemap.xml").exists()


def _killed_build(docroot: Path, fault_at: int, *, stylesheet: bool) -> int:
    """A build in a forked child that SIGKILLs itself at its `fault_at`-th file operation (0: none)."""

    def child() -> None:
        os.environ[FAULT_ENV] = str(fault_at)
        config = Config(docroot, BASE, max_urls_per_sitemap=4, read_heads=False, stylesheet=stylesheet)
        sitemapgen.build(config, on_warning=lambda _: None)

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(30)
    return process.exitcode if process.exitcode is not None else -999


@pytest.mark.forks  # each run in a child forked from this process
def test_a_run_killed_at_any_file_operation_leaves_a_whole_set_and_its_stylesheet(tmp_path: Path) -> None:
    """Turning it on, killed anywhere: the old set (no instruction), or the new one with its
    stylesheet whole beside it; the next run tidies up what the killed one made."""
    saved = make_tree(tmp_path / "saved", {f"p{i}.html": html(str(i)) for i in range(10)})
    assert _killed_build(saved, 0, stylesheet=False) == 0
    old = sorted(u.loc for u in published(saved, BASE))
    outcomes = {"old": 0, "new": 0}
    fault_at = 1
    while True:
        root = tmp_path / f"run-{fault_at}"
        shutil.copytree(saved, root)
        code = _killed_build(root, fault_at, stylesheet=True)
        assert code in (0, -9), f"fault {fault_at}: exit {code}"
        assert sorted(u.loc for u in published(root, BASE)) == old  # every file whole and valid
        if (root / "sitemap.xml").read_bytes().startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<?xml-'):
            assert (root / STYLESHEET_NAME).read_bytes() == STYLESHEET, f"fault {fault_at}"
            outcomes["new"] += 1
        else:
            outcomes["old"] += 1
        if code == 0:
            break
        assert _killed_build(root, 0, stylesheet=True) == 0  # the next run goes ahead...
        assert not [p.name for p in root.iterdir() if p.name.startswith(".") and p.name != ".sitemapgen-retired"]
        shutil.rmtree(root)
        fault_at += 1
    assert fault_at > 10
    assert outcomes["old"] > 0
    assert outcomes["new"] > 0
