"""The head tests (and the walk's) run twice: with the compiled scanner, lister, walk and reader of
heads (`sitemapgen/pages/_scan.c`), where it is built, and with the pure-Python ones alone, which
read every head and list every directory where no C compiler is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sitemapgen.pages import head, lister, scanner

try:
    from sitemapgen.pages import _scan
except ImportError:  # no C compiler where this was installed: test_scan_c says whether one was
    _scan = None  # type: ignore[assignment]


@pytest.fixture(scope="module", params=["compiled", "python"])
def each_scanner(request: pytest.FixtureRequest) -> Iterator[str]:
    """The module's tests with one scanner, then with the other (module-scoped, so hypothesis'
    tests may use it)."""
    if request.param == "compiled" and _scan is None:
        pytest.skip("the compiled scanner is not built here (no C compiler at install)")
    kept = scanner.COMPILED, lister.COMPILED, lister.WALK, head.COMPILED
    if request.param == "python":
        scanner.COMPILED = lister.COMPILED = lister.WALK = head.COMPILED = None
    scanner.forget_seen()
    try:
        yield request.param
    finally:
        scanner.COMPILED, lister.COMPILED, lister.WALK, head.COMPILED = kept
        scanner.forget_seen()
