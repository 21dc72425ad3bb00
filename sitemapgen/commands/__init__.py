"""The library's commands, each a function over a `Config` (the CLI is typer over these):
`build`, `listing` (what `list` shows), `check`, `explain`, `diff` and `indexnow` (over deploys
rather than a config), and `validate` (imported from its module, so lxml loads only when it is
used; it reads files with `validate_read`, judges URLs with `validate_urls` and words what the
schemas refuse with `validate_schema`, which are not imported here either)."""

from sitemapgen.commands.build import build
from sitemapgen.commands.check import CheckResult, Comparison, check, compare
from sitemapgen.commands.diff import diff
from sitemapgen.commands.explain import Explanation, explain
from sitemapgen.commands.indexnow import Submission, indexnow
from sitemapgen.commands.listing import Listing, iter_entries, iter_listing
from sitemapgen.commands.report import BuildResult

__all__ = [
    "BuildResult",
    "CheckResult",
    "Comparison",
    "Explanation",
    "Listing",
    "Submission",
    "build",
    "check",
    "compare",
    "diff",
    "explain",
    "indexnow",
    "iter_entries",
    "iter_listing",
]
