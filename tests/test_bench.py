"""The benchmark's trees are what it says they are: real generators' heads, their links kept true,
and in the unique trees every page its own.

Timing stays out of the tests (`make bench` measures it); this checks the trees it times on, so
that its figures are about sites as real generators build them, not about broken copies or
heads that repeat, and that the bench prints its tables and its targets.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from bs4 import BeautifulSoup

import sitemapgen
from sitemapgen.pages.encoding import decode_head
from sitemapgen.pages.head import read_head_bytes
from sitemapgen.pages.scanner import scan_tags_fast
from sitemapgen.pages.signals import facts_from_tags
from sitemapgen.urls import page_url

from .conftest import CliRunner
from .helpers import published

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _bench() -> ModuleType:
    path = BENCHMARKS / "bench.py"
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))  # as when run: it imports unique_sites beside it
    spec = importlib.util.spec_from_file_location("bench", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


bench = _bench()
unique_sites = importlib.import_module("unique_sites")  # beside the bench, on sys.path now
folder_sites = importlib.import_module("folder_sites")
GENERATORS = {generator.name for generator in unique_sites.GENERATORS}
BASE = "https://example.com/"


def _pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_file():  # pages' mtimes are the tree's (assets are written now)
            digest.update(
                path.read_bytes() + (str(os.stat(path).st_mtime_ns).encode() if path.suffix == ".html" else b"")
            )
    return digest.hexdigest()


@pytest.fixture(scope="module")
def real_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench") / "real"
    bench.generate_real(root, 250, seed=1, self_canonical=False, min_kb=1, max_kb=2)
    return root


def test_the_real_tree_has_the_pages_asked_for_from_every_fixture_site(real_tree: Path) -> None:
    pages = _pages(real_tree)
    assert len(pages) == 250
    names = {path.relative_to(real_tree).parts[1].rsplit("-", 1)[0] for path in pages}
    assert {name for name, _ in bench.real_sites()} <= names | {"café"}
    assert any("café" in path.as_posix() for path in pages)  # a non-ASCII folder, percent-encoded in links


def test_every_head_of_the_real_tree_is_read_and_its_links_stay_in_its_copy(real_tree: Path) -> None:
    """Every head is read by the fast scanner (as on the fixtures); a canonical names the page itself
    or a page of its own copy, and every hreflang link stays in its copy (none leaks out to the fixture's
    base URL or to the tree's root)."""
    for path in _pages(real_tree):
        relpath = path.relative_to(real_tree).as_posix()
        own = page_url(BASE, relpath)
        copy = page_url(BASE, "/".join(relpath.split("/")[:2]) + "/")
        tags = scan_tags_fast(decode_head(read_head_bytes(str(path))[0]))
        assert tags is not None, relpath
        facts = facts_from_tags(tags, own)
        assert facts.canonical is None or facts.canonical.startswith(copy), (relpath, facts.canonical)
        assert all(alternate.href.startswith(copy) for alternate in facts.alternates), relpath
        assert "example.org" not in path.read_text(encoding="utf-8", errors="replace")


def test_a_self_canonical_tree_names_each_page_itself(tmp_path: Path) -> None:
    bench.generate_real(tmp_path, 60, seed=2, self_canonical=True, min_kb=1, max_kb=1)
    for path in _pages(tmp_path):
        tags = scan_tags_fast(decode_head(read_head_bytes(str(path))[0]))
        assert tags is not None
        assert facts_from_tags(tags, page_url(BASE, path.relative_to(tmp_path).as_posix())).canonical is not None


def test_the_same_seed_gives_the_same_tree(tmp_path: Path) -> None:
    bench.generate_real(tmp_path / "a", 40, seed=3, self_canonical=False, min_kb=1, max_kb=3)
    bench.generate_real(tmp_path / "b", 40, seed=3, self_canonical=False, min_kb=1, max_kb=3)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")


# The unique trees: small sites (a generator each, in turn), so that a few hundred pages hold them all.
SMALL_SITES = {"site_pages": (20, 40), "folder_pages": (5, 15)}


@pytest.fixture(scope="module")
def unique_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench") / "unique"
    unique_sites.generate_unique(root, 400, seed=1, min_kb=1, max_kb=1, **SMALL_SITES)
    return root


@pytest.fixture(scope="module")
def uncanonical_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unique tree, its canonicals left out."""
    root = tmp_path_factory.mktemp("bench") / "unique-no-canonical"
    unique_sites.generate_unique(root, 400, seed=1, canonical=False, min_kb=1, max_kb=1, **SMALL_SITES)
    return root


@functools.cache
def _head_of(path: Path) -> BeautifulSoup:
    return BeautifulSoup(read_head_bytes(str(path))[0], "html.parser")


def _content(soup: BeautifulSoup, **attrs: str) -> str | None:
    query: dict[str, Any] = dict(attrs)
    tag = soup.find("meta", attrs=query)
    value = tag.get("content") if tag is not None else None
    return value if isinstance(value, str) else None


def _href(soup: BeautifulSoup, rel: str) -> str | None:
    tag = soup.find("link", rel=rel, hreflang=False)
    value = tag.get("href") if tag is not None else None
    return value if isinstance(value, str) else None


def _fields(path: Path) -> dict[str, str | None]:
    """What a page says of itself that real pages never share, read by beautifulsoup4."""
    soup = _head_of(path)
    dates = [json.loads(script.string or "{}") for script in soup.find_all("script", type="application/ld+json")]
    return {
        "title": soup.title.string if soup.title is not None else None,
        "description": _content(soup, name="description"),
        "canonical": _href(soup, "canonical"),
        "og:url": _content(soup, property="og:url"),
        "og:title": _content(soup, property="og:title"),
        "og:description": _content(soup, property="og:description"),
        "article:modified_time": _content(soup, property="article:modified_time"),
        "JSON-LD dateModified": next((d["dateModified"] for d in dates if "dateModified" in d), None),
        "JSON-LD headline": next((d["headline"] for d in dates if "headline" in d), None),
        "refresh": _content(soup, **{"http-equiv": "refresh"}),
    }


def test_no_two_pages_of_the_unique_tree_share_what_real_pages_never_share(unique_tree: Path) -> None:
    pages = [_fields(path) for path in _pages(unique_tree)]
    assert len(pages) == 400
    own = [fields for fields in pages if fields["refresh"] is None]  # redirect stubs name their target
    assert len(own) > 380
    for key in ("title", "description", "canonical", "og:url"):
        assert all(fields[key] for fields in own if key != "og:url" or fields["og:title"]), key
    for key in own[0]:
        if key == "refresh":
            continue
        values = [fields[key] for fields in own if fields[key] is not None]
        assert len(values) > 40, key  # most generators write it
        repeated = [value for value, count in Counter(values).items() if count > 1]
        assert not repeated, (key, repeated[:3])


def test_the_unique_tree_has_every_generator_and_both_folder_shapes(unique_tree: Path) -> None:
    relpaths = [path.relative_to(unique_tree) for path in _pages(unique_tree)]
    sites = {relpath.parts[1].rsplit("-", 1)[0] for relpath in relpaths}
    assert sites == GENERATORS
    per_folder = Counter(relpath.parent for relpath in relpaths)
    one_a_folder = [relpath for relpath in relpaths if relpath.name == "index.html" and per_folder[relpath.parent] == 1]
    assert len(one_a_folder) > 100
    assert max(per_folder.values()) >= 5


def test_flat_sites_have_folders_of_hundreds(tmp_path: Path) -> None:
    unique_sites.generate_unique(tmp_path, 700, seed=4, min_kb=1, max_kb=1)  # the bench's own site sizes
    per_folder = Counter(path.parent for path in _pages(tmp_path))
    assert max(per_folder.values()) >= 100


def test_the_unique_tree_without_canonicals_is_the_same_tree_less_them(
    unique_tree: Path, uncanonical_tree: Path
) -> None:
    relpaths = [path.relative_to(uncanonical_tree) for path in _pages(uncanonical_tree)]
    assert relpaths == [path.relative_to(unique_tree) for path in _pages(unique_tree)]
    for relpath in relpaths:
        with_canonical, without = _fields(unique_tree / relpath), _fields(uncanonical_tree / relpath)
        if without["refresh"] is None:
            assert without.pop("canonical") is None
            assert with_canonical.pop("canonical") is not None
        assert with_canonical == without, relpath


def _expected_loc(root: Path, path: Path) -> str | None:
    """The page's URL if the reference reader says it belongs in a sitemap: no refresh, no
    noindex, and a canonical (if any) naming the page itself."""
    own = page_url(BASE, path.relative_to(root).as_posix())
    soup = _head_of(path)
    robots = _content(soup, name="robots") or ""
    if _content(soup, **{"http-equiv": "refresh"}) is not None or "noindex" in robots:
        return None
    canonical = _href(soup, "canonical")
    return own if canonical in (None, own) else None


@pytest.mark.parametrize("tree", ["unique_tree", "uncanonical_tree"])
def test_every_generator_shape_decides_as_the_reference_reads_it(
    cli: CliRunner, tmp_path: Path, request: pytest.FixtureRequest, tree: str
) -> None:
    """A build lists each page the reference reader says belongs (every self-canonical page, each
    with the hreflang cluster its head gives), and leaves out the redirect stubs and noindex pages."""
    root: Path = request.getfixturevalue(tree)
    run = cli("build", root, "--base-url", BASE, "--out", tmp_path / "out")
    assert run.code == 0, run.err
    listed = {url.loc: url for url in published(tmp_path / "out", BASE)}
    expected = {loc: path for path in _pages(root) if (loc := _expected_loc(root, path)) is not None}
    assert set(listed) == set(expected)
    assert 370 < len(listed) < 400  # a few stubs and noindex pages left out
    generators = {path.relative_to(root).parts[1].rsplit("-", 1)[0] for path in expected.values()}
    assert generators == GENERATORS
    clusters = 0
    for loc, path in expected.items():
        said = {
            (str(link["hreflang"]), str(link["href"]))
            for link in _head_of(path).find_all("link", rel="alternate", hreflang=True)
        }
        assert set(listed[loc].alternates) == said, loc
        clusters += bool(said)
    assert clusters > 30


@pytest.fixture(scope="module")
def folders_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench") / "folders"
    folder_sites.generate_folders(root, 1000, seed=1, min_kb=1, max_kb=2)
    return root


def test_the_folders_tree_has_issue_37_s_shape(folders_tree: Path) -> None:
    """Folders of about a hundred pages, an asset beside each page, inline blobs of 0.3-12 KB in
    most heads, about 3% of page names not ASCII, each template in turn."""
    pages = _pages(folders_tree)
    assert len(pages) == 1000
    per_folder = Counter(path.parent for path in pages)
    assert sorted(per_folder.values())[1:] == [n for n in sorted(per_folder.values())[1:] if 80 <= n <= 120]
    assert all((path.parent / "index.html").is_file() for path in pages)
    for path in pages:
        beside = [p for p in path.parent.glob(f"{glob_escape(path.stem)}.*") if p.suffix != ".html"]
        assert len(beside) == 1, path
    assert {p.suffix for p in folders_tree.rglob("*") if p.is_file()} == {
        ".html",
        ".jpg",
        ".png",
        ".webp",
        ".css",
        ".js",
    }
    non_ascii = sum(not path.name.isascii() for path in pages)
    assert 15 <= non_ascii <= 50
    blobs = [
        max((len(script.string or "") for script in _head_of(path).find_all("script")), default=0) for path in pages
    ]
    assert sum(300 <= size <= 13_000 for size in blobs) > 800
    assert max(blobs) > 8_000
    templates = {path.relative_to(folders_tree).parts[1].rsplit("-", 1)[0] for path in pages}
    assert templates == set(folder_sites.TEMPLATES)


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def test_no_two_pages_of_the_folders_tree_share_a_title_description_or_canonical(folders_tree: Path) -> None:
    own = [fields for fields in map(_fields, _pages(folders_tree)) if fields["refresh"] is None]
    assert len(own) > 980
    for key in ("title", "description", "canonical", "og:url"):
        values = [fields[key] for fields in own]
        assert all(values), key
        assert len(set(values)) == len(values), key


def test_the_folders_tree_comes_from_its_seed(tmp_path: Path) -> None:
    folder_sites.generate_folders(tmp_path / "a", 150, seed=3, min_kb=1, max_kb=3)
    folder_sites.generate_folders(tmp_path / "b", 150, seed=3, min_kb=1, max_kb=3)
    folder_sites.generate_folders(tmp_path / "c", 150, seed=3, canonical=False, min_kb=1, max_kb=3)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert [p.relative_to(tmp_path / "c") for p in _pages(tmp_path / "c")] == [
        p.relative_to(tmp_path / "a") for p in _pages(tmp_path / "a")
    ]
    assert all(_fields(page)["canonical"] is None for page in _pages(tmp_path / "c") if not _fields(page)["refresh"])


def test_the_folders_tree_decides_as_the_reference_reads_it(cli: CliRunner, tmp_path: Path, folders_tree: Path) -> None:
    run = cli("build", folders_tree, "--base-url", BASE, "--out", tmp_path / "out")
    assert run.code == 0, run.err
    listed = {url.loc for url in published(tmp_path / "out", BASE)}
    expected = {loc for path in _pages(folders_tree) if (loc := _expected_loc(folders_tree, path)) is not None}
    assert listed == expected
    assert 960 < len(listed) < 995  # the redirect stubs and noindex pages left out


def test_the_bench_prints_its_tables_and_which_targets_hold(tmp_path: Path) -> None:
    """A tiny run of the bench itself: its table per tree (ratios to find and to the floor in as
    many processes as the build) and its targets, each said to hold or to miss."""
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench.py"), "-n", "120", "--repeat", "1", "--trees", "unique"]
        + ["--sample", "40", "--min-kb", "1", "--max-kb", "1", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = run.stdout.splitlines()
    table = lines[lines.index("Tree: unique, self-canonical") + 2 :]
    assert table[0] == "| what | seconds | pages/s | peak RSS | × find | × floor | CPU s | CPU × floor |"
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in table[2 : table.index("")]}
    assert set(rows) >= {
        "find -name '*.html' -printf",
        "the floor: walk + read each head, 2 processes",
        "sitemapgen, heads on",
        "sitemapgen, heads off (mtime only)",
        "sitemapgen, heads on, pure Python (SITEMAPGEN_PURE_PYTHON=1)",  # as where no C compiler is
    }
    header = next(line for line in lines if "interleaved runs each, medians" in line)
    scanner, compiled = header.rsplit("; ", 2)[-2:]
    assert scanner.endswith(("heads read with the compiled scanner (sitemapgen/pages/_scan.c)", "heads read in Python"))
    # Builds load the package as installed, its bytecode compiled (not from source each time, as
    # where PYTHONDONTWRITEBYTECODE is set):
    assert compiled == "modules compiled to bytecode first, as pip installs them"
    program = Path(sitemapgen.__file__).parent / "cli" / "program.py"
    assert Path(importlib.util.cache_from_source(str(program))).is_file()
    floor = rows["the floor: walk + read each head, 2 processes"].removesuffix(" |").split(" | ")
    assert (floor[5], floor[7]) == ("1.0", "1.0")  # × floor, CPU × floor
    start = next(i for i, line in enumerate(lines) if line.startswith("Targets (set for trees of 200,000 pages"))
    assert "this run: 120 pages, 2" in lines[start]
    targets = lines[start + 4 : start + 10]
    assert [row.split(" | ")[0] for row in targets] == [
        "| every page self-canonical ≤ 6× find",
        "| heads on ≤ 2× the floor",  # one row a tree: heads on and off run on each
        "| heads off ≤ 2.5× find",
        "| heads off ≤ 1× the floor",
        "| peak RSS ≤ 64 MiB",
        "| a million pages, heads on, < 25 s",
    ]
    for row in targets[:5]:
        assert row.endswith(" | holds |") or " | **misses**, " in row, row
    assert "not measured at this N (120)" in targets[5]
    assert any(line.startswith("| all | 40 |") for line in lines)


def test_a_case_reads_its_own_peak_memory_not_the_bench_s() -> None:
    """The bench is large once it has generated its trees; a case forked from it would read as
    large (the kernel carries a parent's peak over to its child). Each is forked from a small
    launcher instead: `true`, run by a bench holding 200 MiB, reads as a few MiB."""
    code = (
        f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); import bench\n"
        "held = bytearray(200 * 2**20)\n"
        "for i in range(0, len(held), 4096): held[i] = 1\n"
        "print(bench.run(['true']).rss_kib, bench.run(['sh', '-c', 'exit 0']).rss_kib)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert all(int(kib) < 50 * 1024 for kib in done.stdout.split()), done.stdout
