"""What the outputs beside the index (``html_sitemap``, ``text_sitemap``, ``llms_txt``) share: turned
off, a build writes exactly what it wrote before there was a key, and no record of them; turned
on, a file at one's name that sitemapgen did not write (or wrote and someone edited since, or a
symlink to one it wrote) is refused in one line, exit 2, and nothing is written."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from sitemapgen.output import htmlmap, llms, text

from ..conftest import BASE, CliRunner, SiteFactory
from ..helpers import error_line, html, make_tree, output_files
from .test_text import SITE, _config


@pytest.mark.parametrize(
    ("key", "name", "record"),
    [
        ("html_sitemap", "sitemap.html", htmlmap.KIND.record),
        ("text_sitemap", "sitemap.txt", text.RECORD_NAME),
        ("llms_txt", "llms.txt", llms.KIND.record),
    ],
)
def test_with_it_off_the_files_are_those_of_a_build_without_it(
    tmp_path: Path, cli: CliRunner, key: str, name: str, record: str
) -> None:
    roots = [make_tree(tmp_path / name, SITE) for name in ("off", "unset")]
    for root in roots:
        for path in root.rglob("*.html"):
            os.utime(path, (1_700_000_000, 1_700_000_000))
    _config(**{key: False})
    assert cli("build", roots[0]).code == 0
    _config()
    assert cli("build", roots[1]).code == 0
    assert sorted(os.listdir(roots[0])) == sorted(os.listdir(roots[1]))
    assert output_files(roots[0]) == output_files(roots[1])
    assert not (roots[0] / name).exists()
    assert not (roots[0] / record).exists()


def _top_files(root: Path) -> dict[str, bytes]:
    """Every file at the docroot's top (the outputs and their records among them), by name."""
    return {name: (root / name).read_bytes() for name in os.listdir(root) if (root / name).is_file()}


#: Each output: its key, its first file, its record, what someone else's file there holds, and
#: an edit of ours.
KINDS: dict[str, tuple[str, str, bytes, Callable[[bytes], bytes]]] = {
    "html_sitemap": (
        "sitemap.html",
        htmlmap.KIND.record,
        html("A theme's site map").encode(),
        lambda data: data.replace(b"</main>", b"<p>mine</p></main>"),
    ),
    "text_sitemap": (
        "sitemap.txt",
        text.RECORD_NAME,
        f"{BASE}only-this/\n".encode(),
        lambda data: data + f"{BASE}extra/\n".encode(),
    ),
    "llms_txt": ("llms.txt", llms.KIND.record, b"# Mine\n", lambda data: data + f"- [mine]({BASE}mine)\n".encode()),
}


@pytest.mark.parametrize("key", list(KINDS))
@pytest.mark.parametrize(
    "theirs",
    [
        pytest.param("someone", id="someone-elses"),
        pytest.param("edited", id="ours-edited"),
        pytest.param("symlink", id="a-symlink-to-ours"),
    ],
)
def test_a_file_it_did_not_write_is_refused_and_nothing_is_written(
    tmp_path: Path, site: SiteFactory, cli: CliRunner, key: str, theirs: str
) -> None:
    name, record, someone, edit = KINDS[key]
    root = site(SITE)
    path = root / name
    if theirs == "someone":
        path.write_bytes(someone)
    else:
        _config(**{key: True})
        assert cli("build", root).code == 0
        if theirs == "edited":
            path.write_bytes(edit(path.read_bytes()))
        else:
            shutil.move(path, tmp_path / "elsewhere")
            path.symlink_to(tmp_path / "elsewhere")
        (root / "docs" / "new.html").write_text(html("new"), encoding="utf-8")
    before = _top_files(root)
    _config(**{key: True})
    expected = (
        f"{path}: exists and sitemapgen did not write it (or it was edited since; its record is {record}),"
        f" so {key} = true would replace it: move it away, or leave {key} off"
    )
    # `check` refuses as `build` would where the map is not ours: the walk would list it as a page.
    refusing = ("build", "check") if key == "html_sitemap" and theirs != "someone" else ("build",)
    for command in refusing:
        run = cli(command, root)
        assert (run.code, error_line(run.err)) == (2, expected)
    assert _top_files(root) == before
