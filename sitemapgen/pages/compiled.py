"""The optional compiled module (`_scan`, built from `_scan.c` by ``pip install`` where a C
compiler is), loaded once for the two modules it speeds up, each of which takes its own functions from it:
the head scanner (`scanner`) and the directory lister (`lister`)."""

from __future__ import annotations

import os
from types import ModuleType


def load() -> ModuleType | None:
    """`_scan`, or None where it is not built, or the environment sets SITEMAPGEN_PURE_PYTHON (to
    1, or anything but 0 or nothing): then pages are read, and directories listed, in Python."""
    if os.environ.get("SITEMAPGEN_PURE_PYTHON", "0") not in ("", "0"):
        return None
    try:
        from sitemapgen.pages import _scan
    except ImportError:  # built without a C compiler
        return None
    return _scan
