"""How a setting is declared: once, on its `Config` field, as MkDocs declares each option in
``config_options``; everything else is drawn from that one declaration.

A field's metadata (`declare`) holds what the field's type cannot say: its one line of help, the
check its value goes through, whether a config file and the plugins set it, and whether it is a
flag, on which commands and in which help panel. From it come the `Config` field's check
(`Config.__post_init__` runs them in field order, so a check may read the fields before it), the
keys a config file and the plugins accept (`FILE_KEYS`, spelt as each host spells them:
`integrations.options`), the command line's options (`cli.program`, `cli.options.option_of`), and
the reference table in docs/config.md (tools/config_reference.py). `verify`'s `Crawl` declares
its options the same way.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from dataclasses import MISSING, Field, dataclass, fields
from typing import Any

#: A value's check: (value, key, the config so far) -> the value as kept; a `ConfigError` naming
#: `key` when it is wrong. The fields declared before this one are checked already.
Check = Callable[[Any, str, Any], Any]

#: The metadata key a declaration is kept under.
DECLARED = "sitemapgen"


class Panel(enum.Enum):
    """The help panels of the commands that read a site, in the order `--help` shows them: what
    most builds set first, then the rest by subject."""

    MAIN = "Options"
    PAGES = "Pages"
    LASTMOD = "Lastmod"
    HOSTS = "Hosts and other sitemaps"
    LIMITS = "Limits"
    DEPLOY = "Deploy memory"
    OUTPUT = "Output"


#: The commands that read a site and decide its pages as `build` does.
READERS = ("build", "check", "list", "explain")
#: Those that also cut and write the files (or compare them with what is written).
WRITERS = ("build", "check")
#: `build` alone: what it writes besides the sitemaps, and when it refuses to publish.
BUILD = ("build",)


@dataclass(frozen=True, slots=True)
class Flag:
    """A setting's option on the command line: its long name (``--base-url``); what it takes
    (`str`, `int`, `float`, `Path`, `bool` for a ``--x/--no-x`` pair, ``"switch"`` for a flag
    alone, an `enum.Enum` for its words, `list` for a repeated flag, ``","`` for a comma list)
    and what to write after it; the commands it is an option of, and its help panel."""

    name: str
    kind: Any = str
    metavar: str | None = None
    short: str | None = None
    commands: tuple[str, ...] = READERS
    panel: Panel = Panel.MAIN

    @property
    def names(self) -> str:
        """As help shows it: ``--read-heads/--no-read-heads``, ``--jobs``."""
        return f"{self.name}/--no-{self.name[2:]}" if self.kind is bool else self.name


@dataclass(frozen=True, slots=True)
class Declared:
    """One setting, said once: its one line of help, its check, whether a config file and the
    plugins set it (the docroot and the output directory belong to the command line), and its
    `Flag`, if it has one (none: a config file's key only)."""

    help: str
    check: Check | None = None
    file: bool = True
    flag: Flag | None = None


def declare(
    help: str, check: Check | None = None, *, file: bool = True, flag: Flag | None = None
) -> Mapping[str, Declared]:
    """A field's metadata, as a setting is declared: ``images: bool = field(default=False,
    metadata=declare("What it is.", check=values.boolean, flag=Flag("--images", bool)))``."""
    return {DECLARED: Declared(help, check, file, flag)}


@dataclass(frozen=True, slots=True)
class Setting:
    """A declared field: its name, declaration and default (`MISSING` when it has none)."""

    name: str
    declared: Declared
    default: Any

    @property
    def required(self) -> bool:
        return self.default is MISSING


def settings_of(cls: type) -> Iterator[Setting]:
    """The declared fields of the dataclass `cls`, in its order."""
    for field in fields(cls):
        declared = field.metadata.get(DECLARED)
        if declared is not None:
            yield Setting(field.name, declared, _default(field))


def _default(field: Field[Any]) -> Any:
    if field.default_factory is not MISSING:
        return field.default_factory()
    return field.default
