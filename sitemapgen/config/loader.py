"""Settings from files and flags: ``sitemapgen.toml`` or ``[tool.sitemapgen]``, merged with flags.

The loader's job is to say *where* a bad value came from: the file and the key as it is
written there (``sitemapgen.toml: priority in the 3rd [[rules]] block``), or the keyword
(``base_url``), which the CLI names as its flag (``--base-url``). The values themselves are
checked by `Config`, for library users alike.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitemapgen.config.checks import toml_words, unknown_key
from sitemapgen.config.declare import settings_of
from sitemapgen.config.settings import Config
from sitemapgen.errors import ConfigError, NotSet
from sitemapgen.util.safeio import read_regular

CONFIG_FILE = "sitemapgen.toml"
PYPROJECT_FILE = "pyproject.toml"
PYPROJECT_PREFIX = "tool.sitemapgen."


#: Keys a config file may set: every declared setting but those of the command line alone (the
#: docroot and the output directory: a config file is shared across checkouts) and the page ->
#: source map a site generator's plugin passes (`GitPages`).
FILE_KEYS = tuple(setting.name for setting in settings_of(Config) if setting.declared.file)


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """A config table as read from disk, before it is merged with flags."""

    path: Path
    values: Mapping[str, Any]
    prefix: str = ""  # "tool.sitemapgen." for a pyproject.toml

    @property
    def label(self) -> str:
        return str(self.path)


def read_config_file(path: Path, *, pyproject: bool | None = None) -> ConfigFile | None:
    """Read and syntax-check one TOML file; None if a pyproject.toml has no table.

    Only the shape is checked here (syntax, unknown keys); values are checked
    when the `Config` is built, so every source gets the same rules.
    """
    if pyproject is None:
        pyproject = path.name == PYPROJECT_FILE
    try:
        text = read_regular(path).decode("utf-8")
    except FileNotFoundError as e:
        raise ConfigError("", "no such config file", source=str(path)) from e
    except OSError as e:
        raise ConfigError("", f"cannot read config file: {e.strerror or e}", source=str(path)) from e
    except UnicodeDecodeError as e:
        raise ConfigError("", f"cannot read config file: {e}", source=str(path)) from e
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("", f"invalid TOML: {e}", source=str(path)) from e
    prefix = ""
    if pyproject:
        table = data.get("tool", {}).get("sitemapgen")
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError("tool.sitemapgen", "must be a table", source=str(path))
        data, prefix = table, PYPROJECT_PREFIX
    _check_keys(data, source=str(path), prefix=prefix)
    return ConfigFile(path, data, prefix)


def _check_keys(values: Mapping[str, Any], *, source: str, prefix: str) -> None:
    """Every key is one a config file may set (`FILE_KEYS`), else an error naming `source`."""
    for key in values:
        if key not in FILE_KEYS:
            raise unknown_key(key, FILE_KEYS, prefix).located(source)


def config_from_values(
    docroot: Path | str,
    values: Mapping[str, Any],
    *,
    source: str,
    prefix: str = "",
    words: Callable[[str], str] | None = None,
) -> Config:
    """A `Config` from a table of `sitemapgen.toml` keys that another tool read (a MkDocs
    plugin's options, a Sphinx ``conf.py``, Pelican's settings): unknown keys and bad values are
    errors that name `source` and the key, as they are for a config file (`words`: the key
    path as that tool spells it, ``SITEMAPGEN_RULES[0].priority``)."""
    _check_keys(values, source=source, prefix=prefix)
    try:
        return Config(docroot=Path(docroot), **values)
    except ConfigError as e:
        raise e.located(source, prefix, words=words) from e


def find_config_file(cwd: Path) -> ConfigFile | None:
    """`sitemapgen.toml` in `cwd`, else `[tool.sitemapgen]` of its pyproject.toml."""
    own = cwd / CONFIG_FILE
    if own.is_file():
        return read_config_file(own, pyproject=False)
    pyproject = cwd / PYPROJECT_FILE
    if pyproject.is_file():
        return read_config_file(pyproject, pyproject=True)
    return None


#: The settings `load_config` takes as keywords: every Config field but the docroot.
SETTINGS = tuple(setting.name for setting in settings_of(Config) if setting.name != "docroot")


def load_config(
    docroot: Path | str,
    base_url: str | None = None,
    *,
    config_file: Path | str | None = None,
    cwd: Path | str | None = None,
    **settings: Any,
) -> Config:
    """The `Config` for `docroot`: a config file's settings, then `base_url` and any other
    `Config` field given as a keyword (`exclude`, `lastmod`, `out_dir`...), which win over the file.

    The file is `config_file`, else ``sitemapgen.toml`` in `cwd` (default: the current
    directory), else the ``[tool.sitemapgen]`` table of its pyproject.toml; with none of them,
    the keywords alone make the `Config`. A bad keyword's value is a `ConfigError` that names the
    keyword (``base_url: must start with http:// or https://, got 'example.com'``); a bad value
    in the file names the file and the key as it is written there (``sitemapgen.toml: priority
    in the 2nd [[rules]] block: ...``). A keyword given as None is not given. A name that is not
    a setting is a `TypeError`.

    With a site built into ``public/`` (``index.html``, ``guide/index.html``, ``drafts/x.html``)
    and no config file, this writes ``public/sitemap.xml``, the index of ``sitemap-1.xml.gz``:

    >>> import sitemapgen
    >>> config = sitemapgen.load_config("public", base_url="https://example.com/docs/", exclude=["drafts/"])
    >>> config.base_url, config.exclude
    ('https://example.com/docs/', ('drafts/',))
    >>> result = sitemapgen.build(config)
    >>> result.listed, [str(index) for index in result.written.indexes]
    (2, ['public/sitemap.xml'])
    """
    for name in settings:
        if name not in SETTINGS:
            close = difflib.get_close_matches(name, SETTINGS, n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            if name == "flags":  # the mapping earlier versions took
                hint = " (flags= is gone: give each setting as a keyword, e.g. base_url='https://example.com/')"
            raise TypeError(f"load_config() got an unexpected keyword argument {name!r}{hint}")
    if config_file is not None:
        found = read_config_file(Path(config_file))
    else:
        found = find_config_file(Path.cwd() if cwd is None else Path(cwd))
    given = {key: value for key, value in settings.items() if value is not None}
    if base_url is not None:
        given["base_url"] = base_url
    values: dict[str, Any] = {**(found.values if found else {}), **given}
    if "base_url" not in values:
        raise NotSet("base_url", "URL")
    try:
        return Config(docroot=Path(docroot), **values)
    except ConfigError as e:
        if found is None or e.key.split("[", 1)[0].split(".", 1)[0] in given:
            raise  # a keyword's value: the error names the keyword
        raise e.located(found.label, found.prefix, words=toml_words) from e
