"""The docs document every CLI option (the commands page) and every config key (the annotated
config of the configuration page)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
import typer

from sitemapgen.cli.program import app
from sitemapgen.config.loader import FILE_KEYS

DOCS = Path(__file__).parents[2] / "docs"
COMMANDS = (DOCS / "commands.md").read_text(encoding="utf-8")
CONFIG = (DOCS / "config.md").read_text(encoding="utf-8")


def _annotated_config(text: str = CONFIG) -> str:
    """The first TOML block of the configuration page: the annotated sitemapgen.toml."""
    start = text.index("## The annotated config")
    block = text[text.index("```toml\n", start) + len("```toml\n") :]
    return block[: block.index("```")]


def _options() -> list[str]:
    group = typer.main.get_command(app)
    names: list[str] = []
    for command in [group, *getattr(group, "commands", {}).values()]:
        for param in command.params:
            if param.param_type_name == "option":
                opts = [*param.opts, *param.secondary_opts]  # --read-heads and --no-read-heads
                names.extend(o for o in opts if o.startswith("--") and o != "--help")
    assert "--base-url" in names
    return names


def _documented(option: str, text: str = COMMANDS) -> bool:
    """Whether `text` shows the whole option in backticks: "`--lastmod-format`" does not document --lastmod."""
    return re.search(rf"`{re.escape(option)}(?![-\w])", text) is not None


@pytest.mark.parametrize("option", sorted(set(_options())))
def test_every_option_is_documented(option: str) -> None:
    assert _documented(option)


@pytest.mark.parametrize(
    ("text", "documented"),
    [
        pytest.param("| `--lastmod SOURCES` | where |", True, id="with-a-metavar"),
        pytest.param("`--lastmod`", True, id="alone"),
        pytest.param("`--lastmod=git`", True, id="with-a-value"),
        pytest.param("| `--lastmod-format FORMAT` | how |", False, id="longer-option"),
        pytest.param("`--lastmodx`", False, id="longer-word"),
        pytest.param("--lastmod in prose", False, id="not-in-backticks"),
    ],
)
def test_an_option_is_matched_whole(text: str, documented: bool) -> None:
    assert _documented("--lastmod", text) is documented


def _reference() -> Any:
    spec = importlib.util.spec_from_file_location(
        "config_reference", Path(__file__).parents[2] / "tools/config_reference.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_table_is_drawn_from_the_declarations() -> None:
    reference = _reference()
    assert reference.BEGIN in CONFIG
    assert reference.END in CONFIG
    assert reference.page(CONFIG) == CONFIG, "run: python tools/config_reference.py"
    rows = reference.table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == list(FILE_KEYS)


def _key_documented(key: str, block: str) -> bool:
    """Whether the annotated config sets `key` (or has a `[[key]]` table) at the start of a line."""
    return re.search(rf"^(?:{re.escape(key)} = |\[\[{re.escape(key)}\]\])", block, re.MULTILINE) is not None


@pytest.mark.parametrize("key", FILE_KEYS)
def test_every_config_key_is_documented(key: str) -> None:
    assert _key_documented(key, _annotated_config())


@pytest.mark.parametrize(
    ("block", "documented"),
    [
        pytest.param("jobs = 2\n", True, id="set"),
        pytest.param("[[jobs]]\n", True, id="a-table"),
        pytest.param("# set jobs = 2\n", False, id="not-at-line-start"),
        pytest.param("# jobs = 2\n", False, id="commented-out"),
        pytest.param("max_jobs = 2\n", False, id="longer-key"),
    ],
)
def test_a_key_is_matched_at_the_start_of_a_line(block: str, documented: bool) -> None:
    assert _key_documented("jobs", block) is documented


def test_the_annotated_config_example_loads(tmp_path: Path) -> None:
    from sitemapgen.config.loader import load_config

    config_file = tmp_path / "sitemapgen.toml"
    config_file.write_text(_annotated_config())
    config = load_config(tmp_path, config_file=config_file)
    assert config.base_url == "https://example.com/"
    assert len(config.rules) == 3
    assert len(config.git_sources) == 1
    assert [section.name for section in config.sitemaps] == ["blog"]


#: `pip install X` or `pipx install X` in a shell line of the docs (options before X skipped).
_INSTALL = re.compile(r"\bpipx? install\s+((?:-\S+\s+)*)([^\s`#]+)")
#: What an install line may name: this project's distribution (extras, a version), or a path.
_OURS = re.compile(
    r"""^["']?(?:static-sitemapgen(?:\[[a-z,]+\])?(?:[=<>~!]=?[\w.]+)?|(?:\.{1,2}(?:/[^\s\[]*)?|/[^\s\[]+)(?:\[[a-z,]+\])?)["']?$"""
)


def _docs() -> list[Path]:
    top = Path(__file__).parents[2]
    return [
        path
        for path in sorted(top.rglob("*.md"))
        if not {".venv", "realsites", ".pytest_cache", ".hosts"} & set(path.relative_to(top).parts)
        and not path.relative_to(top).parts[0].startswith(".venv")
    ]


def test_every_install_line_installs_this_project() -> None:
    """`pip install sitemapgen` installs an unrelated crawler from PyPI: no doc may say it."""
    found = []
    for path in _docs():
        for match in _INSTALL.finditer(path.read_text(encoding="utf-8")):
            found.append((path.name, match.group(2)))
    assert found, "no install line found: the pattern is wrong"
    assert [(name, target) for name, target in found if not _OURS.match(target)] == []


@pytest.mark.parametrize(
    ("line", "ours"),
    [
        ("pip install sitemapgen", False),
        ("pipx install sitemapgen==0.9.9", False),
        ("pip install -U sitemapgen", False),
        ("pip install static-sitemapgen", True),
        ("pip install 'static-sitemapgen[mkdocs]>=0.2'", True),
        ("pip install .", True),
        ("pip install ./sitemapgen", True),
        ("pip install '.[mkdocs]'", True),
        ("pip install './sitemapgen[sphinx]'", True),
        ("pip install static-sitemapgenx", False),
    ],
)
def test_the_install_line_check_tells_ours_from_others(line: str, ours: bool) -> None:
    match = _INSTALL.search(line)
    assert match is not None
    assert bool(_OURS.match(match.group(2))) is ours
