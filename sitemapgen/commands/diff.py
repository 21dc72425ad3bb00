"""What changed between two deploys: the URLs added, removed and with a changed lastmod.

Each deploy is read as a build's `previous` is (an index URL, or an output
directory or index file), so the diff is the one a build would make. It is
kept in the earlier deploy's temporary database, so a million URLs on each
side cost disk, not memory: `diff` hands it out while it is open.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.errors import SitemapgenError

if TYPE_CHECKING:
    from sitemapgen.deploy.changes import Changes

logger = logging.getLogger("sitemapgen")

#: How the messages name `old` and `new`: what each is, in the user's words, beside its file or URL.
EARLIER = "the earlier deploy"
LATER = "the later deploy"


@contextlib.contextmanager
def diff(old: str, new: str, *, on_warning: Warn | None = None) -> Iterator[Changes]:
    """The `Changes` from the deploy at `old` to the one at `new`, readable inside the ``with``.

    `new` is read under `old`'s base URL. Raises `SitemapgenError` if there is
    no sitemap index at `new` (none at `old` is a first deploy: everything is
    added, and `on_warning` hears so), and `PreviousError` for a deploy that is
    there but cannot be read (`PreviousUnreachable`, an `EnvironmentFailure` too, where the
    machine or the network failed); each message names the file or URL and which of the
    two deploys it is. A sitemap an index lists outside its base URL is not read;
    `on_warning` hears it (default: logging).
    """
    from sitemapgen.deploy.changes import Changes  # with urllib3 and SQLite: only when a diff runs
    from sitemapgen.deploy.previous import read_previous

    warn = on_warning or logger.warning
    earlier = read_previous(old, None, warn=warn, manifest=False, label=EARLIER)
    try:
        later = read_previous(new, earlier.base_url, warn=warn, manifest=False, label=LATER)
        try:
            if not later.found:
                raise SitemapgenError(f"{later.where}: no sitemap index there ({LATER})")
            if not earlier.found:
                warn(f"{earlier.where}: no sitemap index there ({EARLIER}), so every URL of {LATER} counts as added")
            changes = Changes(earlier)
            for loc, lastmod in later.listed():
                changes.see(loc, lastmod)
            yield changes
        finally:
            later.close()
    finally:
        earlier.close()
