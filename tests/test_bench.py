"""The benchmark's trees are what it says they are: real generators' heads, their links kept true.

Timing stays out of the tests (`make bench` measures it); this checks the trees it times on, so
that its figures are about sites as real generators build them, not about broken copies.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sitemapgen.pages.encoding import decode_head
from sitemapgen.pages.head import read_head_bytes
from sitemapgen.pages.scanner import scan_tags_fast
from sitemapgen.pages.signals import facts_from_tags
from sitemapgen.urls import page_url


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"
    spec = importlib.util.spec_from_file_location("bench", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


bench = _bench()
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
