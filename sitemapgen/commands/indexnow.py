"""Tell IndexNow what a deploy changed: a changes file in, its URLs submitted.

Run after the deploy (the engine fetches the key file from the live host), on
the changes file a build with `previous` wrote. The protocol itself, the plan
and the requests are `sitemapgen.deploy.indexnow`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapgen.config.checks import check_indexnow_key
from sitemapgen.errors import ConfigError
from sitemapgen.skips import plural

if TYPE_CHECKING:
    from sitemapgen.deploy.indexnow import Plan


@dataclass(frozen=True, slots=True)
class Submission:
    """What was planned for a changes file (`plan`), and how many of its URLs were accepted."""

    plan: Plan
    sent: int

    def summary(self) -> str:
        """What was done, in a line."""
        if not self.plan.urls:
            return "nothing changed; nothing sent"
        return f"submitted {plural(self.sent, 'URL')} to {self.plan.endpoint}"


def _quiet(line: str) -> None:
    pass


def indexnow(
    changes_file: Path,
    *,
    key: str,
    endpoint: str | None = None,
    key_location: str | None = None,
    check_key: bool = True,
    dry_run: bool = False,
    on_status: Callable[[str], object] | None = None,
) -> Submission:
    """Submit the URLs `changes_file` names (added, changed, removed) to `endpoint`.

    `endpoint` None is IndexNow's shared endpoint (`ENDPOINT`); `key_location`
    None is where ``build --indexnow-key`` put the key file: the base URL's ``KEY.txt`` (a changes
    file without a base URL: ``https://HOST/KEY.txt``). With `check_key` the key file must first
    answer on the live host. Nothing is sent when nothing changed, or with
    `dry_run`: `plan` is what would be. `on_status` hears a line for each answer.
    Raises `ConfigError` (key ``key`` or ``endpoint``) for a bad key or endpoint,
    `SitemapgenError` for a changes file that cannot be used, and `SubmitError`
    when the engine or the key file says no.
    """
    from sitemapgen.deploy.changes import read_changes  # with urllib3: only when a submission runs
    from sitemapgen.deploy.indexnow import ENDPOINT, check_key_live, plan, submit
    from sitemapgen.util.fetch import is_url

    endpoint = ENDPOINT if endpoint is None else endpoint
    check_indexnow_key(key, "key")
    if not is_url(endpoint):
        raise ConfigError("endpoint", f"must be an http(s) URL, got {endpoint!r}")
    planned = plan(read_changes(changes_file), key=key, endpoint=endpoint, key_location=key_location)
    if not planned.urls or dry_run:
        return Submission(planned, 0)
    if check_key:
        check_key_live(planned)
    return Submission(planned, submit(planned, on_status=on_status or _quiet))
