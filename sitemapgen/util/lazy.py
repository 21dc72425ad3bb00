"""A package face whose heavier names load on first use (PEP 562), so that importing a package
for one of its light modules does not import what only some commands need (HTTP, SQLite)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_names(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for `package`: each of `names` (a name -> the module of
    `package` that defines it) is imported when it is first asked for."""

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
