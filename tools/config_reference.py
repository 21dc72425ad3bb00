"""The reference table of docs/config.md, drawn from the settings' declarations (`config.declare`).

``python tools/config_reference.py`` rewrites the table in docs/config.md (between its two
markers); tests/cli/test_docs.py fails when the page is not what this draws.
"""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Any

from sitemapgen.config.declare import READERS, settings_of
from sitemapgen.config.settings import Config

PAGE = Path(__file__).parents[1] / "docs" / "config.md"
BEGIN = "<!-- reference: drawn by tools/config_reference.py from the declarations; do not edit -->\n"
END = "<!-- end of reference -->\n"


def _toml(value: Any) -> str:
    """A default as a config file writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return f'"{value.value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return str(value)


def table() -> str:
    """Every key of a config file and the plugins (MkDocs, Sphinx, Pelican), in `Config`'s order."""
    rows = ["| key | flag | default | what it is |", "| --- | --- | --- | --- |"]
    for setting in settings_of(Config):
        declared = setting.declared
        if not declared.file:
            continue
        flag, option = "", declared.flag
        if option is not None:
            flag = f"`{option.names}{' ' + option.metavar if option.metavar else ''}`"
            if option.commands != READERS:
                flag += f" ({', '.join(option.commands)})"
        default = "required" if setting.required else f"`{_toml(setting.default)}`"
        cells = (f"`{setting.name}`", flag, default, declared.help.replace("<", "&lt;"))
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def page(text: str) -> str:
    """`text` (docs/config.md) with its reference table as `table` draws it."""
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}{table()}{END}{tail}"


if __name__ == "__main__":
    current = PAGE.read_text(encoding="utf-8")
    if BEGIN not in current or END not in current:
        sys.exit(f"{PAGE}: no reference markers")
    PAGE.write_text(page(current), encoding="utf-8")
