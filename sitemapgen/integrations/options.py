"""The options a host program's own config file gives as names of its own: Sphinx's
``sitemapgen_exclude`` in ``conf.py``, Pelican's ``SITEMAPGEN_EXCLUDE`` in ``pelicanconf.py``.
Each is a key of ``sitemapgen.toml`` (`FILE_KEYS`, from the one declaration of each setting)
spelt the host's way; a name of that form that is no setting is refused with the close one."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from sitemapgen.config.loader import FILE_KEYS
from sitemapgen.errors import ConfigError

#: How alike a typo must be to a setting's name to be offered in its place.
_CLOSE = 0.75


@dataclass(frozen=True, slots=True)
class Spelling:
    """How a host writes a setting: `prefix` and the key, in capitals where `upper`; `source`
    is the file the names are in, `reader` what reads them (the extension, the plugin)."""

    prefix: str
    source: str
    reader: str
    upper: bool = False

    def name(self, key: str) -> str:
        """``exclude`` -> ``sitemapgen_exclude`` or ``SITEMAPGEN_EXCLUDE``."""
        return self.prefix + (key.upper() if self.upper else key)

    def key(self, name: str) -> str | None:
        """The `FILE_KEYS` key `name` sets; None where `name` is of the host's form but no
        setting (refuse it with `unknown`), or not of that form at all."""
        if not name.startswith(self.prefix):
            return None
        key = name.removeprefix(self.prefix)
        key = key.lower() if self.upper and key.isupper() else key
        return key if key in FILE_KEYS and self.name(key) == name else None

    def unknown(self, names: Iterable[str]) -> ConfigError | None:
        """The error for the first name of the host's form among `names` (sorted) that is no
        setting: the close one, or every one; None where there is none."""
        for name in sorted(names):
            if name.startswith(self.prefix) and self.key(name) is None:
                return self._unknown(name)
        return None

    def _unknown(self, name: str) -> ConfigError:
        given = name.removeprefix(self.prefix)
        close = difflib.get_close_matches(given.lower() if self.upper else given, FILE_KEYS, n=1, cutoff=_CLOSE)
        if close:
            return ConfigError(name, f"no such setting (did you mean {self.name(close[0])}?)", source=self.source)
        capitals = " in capitals" if self.upper else ""
        return ConfigError(
            name,
            f"no such setting (the {self.reader} reads {self.prefix} and a key of sitemapgen.toml{capitals}:"
            f" {', '.join(FILE_KEYS)})",
            source=self.source,
        )

    def words(self, path: str) -> str:
        """A key path as the host writes it: ``SITEMAPGEN_rules[0].priority`` (as `ConfigError.located`
        nests it) is ``SITEMAPGEN_RULES[0].priority``; the keys of the tables in it stay as written."""
        found = re.match(r"\w+", path.removeprefix(self.prefix))
        if not self.upper or not path.startswith(self.prefix) or found is None:
            return path
        return self.name(found.group()) + path[len(self.prefix) + found.end() :]
