"""What the outputs beside the index (``html_sitemap``, ``text_sitemap``, ``llms_txt``) share: turned
off, a build writes exactly what it wrote before there was a key, and no record of them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitemapgen.output import htmlmap, llms, text

from ..conftest import CliRunner
from ..helpers import make_tree, output_files
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
