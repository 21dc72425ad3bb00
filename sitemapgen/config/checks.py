"""The checks every setting's value goes through: one function per kind of value, each raising
`ConfigError` with the key it was given (the loader adds where the value came from)."""

from __future__ import annotations

import difflib
import enum
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

import pathspec

from sitemapgen.errors import ConfigError

_E = TypeVar("_E", bound=enum.Enum)


def enum_value(kind: type[_E], value: object, key: str) -> _E:
    if isinstance(value, kind):
        return value
    words = ", ".join(repr(m.value) for m in kind)
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    raise ConfigError(key, f"must be one of {words}, got {value!r}")


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_INDEXED = re.compile(r"(?P<name>[^\[\]]+)\[(?P<index>\d+)\](?:\.(?P<rest>.+))?")


def toml_words(key: str) -> str:
    """A key path as a TOML file's reader counts: ``rules[0].priority`` is "priority in the 1st
    [[rules]] block" (TOML writes an array of tables as blocks, a reader counts them from 1),
    ``exclude[2]`` "the 3rd item of exclude"; a path with no index is shown as it is."""
    found = _INDEXED.fullmatch(key)
    if found is None:
        return key
    n = ordinal(int(found["index"]) + 1)
    if found["rest"] is None:
        return f"the {n} item of {found['name']}"
    return f"{found['rest']} in the {n} [[{found['name']}]] block"


def list_hint(key: str, value: str, separators: str | None = None) -> str:
    """How a list is written, shown with `value`, one string where a list is wanted: split at
    `separators` (a regular expression) where its items cannot hold them, else as one item."""
    items = [part for part in re.split(separators, value) if part] if separators else [value]
    return f"a list is written {key} = {json.dumps(items or [value], ensure_ascii=False)}"


def check_pattern(pattern: object, key: str) -> str:
    if not isinstance(pattern, str) or not pattern.strip():
        raise ConfigError(key, f"must be a non-empty gitignore-style pattern, got {pattern!r}")
    try:
        pathspec.GitIgnoreSpec.from_lines([pattern])
    except ValueError as e:
        raise ConfigError(key, f"invalid pattern {pattern!r}: {e}") from e
    return pattern


def check_int(value: object, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise ConfigError(key, f"must be between {low:,} and {high:,}, got {value:,}")
    return value


def unknown_key(key: str, known: Sequence[str], where: str) -> ConfigError:
    hint = difflib.get_close_matches(key, known, n=1)
    suggestion = f" (did you mean {hint[0]!r}?)" if hint else f" (known keys: {', '.join(known)})"
    shown = key if key.isprintable() else repr(key)  # a newline in a quoted key must not split the line
    return ConfigError(f"{where}{shown}", f"unknown key{suggestion}")


def check_table(value: object, where: str, keys: Sequence[str], required: Sequence[str]) -> Mapping[str, Any]:
    """Check one [[array-of-tables]] entry's shape: a table, known keys, required ones present."""
    if not isinstance(value, Mapping):
        raise ConfigError(where, f"must be a table with {' and '.join(required)}, got {value!r}")
    for key in value:
        if key not in keys:
            raise unknown_key(str(key), keys, f"{where}.")
    for key in required:
        if key not in value:
            raise ConfigError(f"{where}.{key}", "is missing")
    return value


_T = TypeVar("_T")


def check_tables(value: object, key: str, convert: Callable[[object, int], _T]) -> tuple[_T, ...]:
    """A list of ``[[key]]`` tables, each checked and converted by `convert(table, index)`."""
    if isinstance(value, str | Mapping) or not isinstance(value, Sequence):
        raise ConfigError(key, f"must be a list of [[{key}]] tables")
    return tuple(convert(item, i) for i, item in enumerate(value))


def check_file_path(value: object, key: str) -> Path:
    """A path a file can be made at: not empty, no NUL, not a directory ("" from a flag is ".")."""
    if not isinstance(value, str | Path) or not str(value) or "\x00" in str(value):
        raise ConfigError(key, f"must be a file path, got {value!r}")
    if Path(value).is_dir():
        raise ConfigError(key, f"must be a file path, got the directory {str(value)!r}")
    return Path(value)


def check_regexes(value: object, key: str) -> tuple[str, ...]:
    if isinstance(value, str):  # one expression may hold a comma ("a{1,3}"): shown as one item
        raise ConfigError(key, f"must be a list of regular expressions, got {value!r} ({list_hint(key, value)})")
    if not isinstance(value, Sequence):
        raise ConfigError(key, f"must be a list of regular expressions, got {value!r}")
    for i, pattern in enumerate(value):
        if not isinstance(pattern, str):
            raise ConfigError(f"{key}[{i}]", f"must be a regular expression string, got {pattern!r}")
        try:
            re.compile(pattern.encode("utf-8"))
        except re.error as e:
            raise ConfigError(f"{key}[{i}]", f"invalid regular expression {pattern!r}: {e}") from e
    return tuple(value)


def check_bool(value: object, key: str) -> None:
    if not isinstance(value, bool):
        raise ConfigError(key, f"must be true or false, got {value!r}")


_INDEXNOW_KEY = re.compile(r"[A-Za-z0-9-]{8,128}")


def is_indexnow_key(value: object) -> TypeGuard[str]:
    """Whether `value` is an IndexNow key: 8 to 128 letters, digits or dashes (the protocol's rule)."""
    return isinstance(value, str) and _INDEXNOW_KEY.fullmatch(value) is not None


def check_indexnow_key(value: object, key: str) -> str:
    """An IndexNow key (`is_indexnow_key`), or a `ConfigError` naming `key`."""
    if not is_indexnow_key(value):
        raise ConfigError(key, f"must be 8 to 128 letters, digits or dashes (IndexNow), got {value!r}")
    return value


def check_percent(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise ConfigError(key, f"must be a percentage from 0 to 100, got {value!r}")
    return float(value)
