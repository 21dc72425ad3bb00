"""The README documents every CLI option and every config key."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from sitemapgen.cli import app
from sitemapgen.config import FILE_KEYS

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def _options() -> list[str]:
    group = typer.main.get_command(app)
    names: list[str] = []
    for command in [group, *getattr(group, "commands", {}).values()]:
        for param in command.params:
            if param.param_type_name == "option":
                names.extend(o for o in param.opts if o.startswith("--") and o != "--help")
    assert "--base-url" in names
    return names


@pytest.mark.parametrize("option", _options())
def test_every_option_is_documented(option: str) -> None:
    assert f"`{option}" in README


@pytest.mark.parametrize("key", FILE_KEYS)
def test_every_config_key_is_documented(key: str) -> None:
    assert f"\n{key} = " in README or f"[[{key}]]" in README


def test_the_annotated_config_example_loads(tmp_path: Path) -> None:
    from sitemapgen.config import load_config

    start = README.index("## Configuration reference")
    block = README[README.index("```toml\n", start) + len("```toml\n") :]
    block = block[: block.index("```")]
    config_file = tmp_path / "sitemapgen.toml"
    config_file.write_text(block)
    config = load_config(tmp_path, config_file=config_file)
    assert config.base_url == "https://example.com/"
    assert len(config.rules) == 3
    assert len(config.git_sources) == 1
    assert [section.name for section in config.sitemaps] == ["blog"]
