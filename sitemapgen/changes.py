"""What changed since the previous deploy: added, removed (and why), changed lastmod; the drop guard.

Kept in the previous deploy's temporary database (see `previous.Previous`),
so a million URLs on each side cost disk, not memory. Read in URL order, so
the same two deploys give the same diff, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import Refusal, SitemapgenError
from .previous import Previous

#: Why a URL the previous deploy listed is not listed now, when no page of the docroot says.
GONE = "no longer in the docroot"
_BATCH = 5_000
#: How many examples a refusal shows.
EXAMPLES = 5


class Refused(Refusal):
    """The build would drop more than `max_removed` allows: nothing was published (exit 1)."""


@dataclass(frozen=True, slots=True)
class Counts:
    added: int
    removed: int
    changed: int

    def __str__(self) -> str:
        return f"+{self.added:,} -{self.removed:,} ~{self.changed:,}"


class Changes:
    """The URLs a build lists, compared with what the previous deploy listed."""

    def __init__(self, previous: Previous) -> None:
        self.previous = previous
        self.db = previous.db
        self.db.execute("CREATE TABLE IF NOT EXISTS current (loc TEXT PRIMARY KEY, lastmod TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS left_out (loc TEXT PRIMARY KEY, reason TEXT NOT NULL)")
        self.listed: list[tuple[str, str | None]] = []
        self.skipped: list[tuple[str, str]] = []

    def see(self, loc: str, lastmod: str | None) -> None:
        """A URL this build lists, with its lastmod as written."""
        self.listed.append((loc, lastmod))
        if len(self.listed) == _BATCH:
            self._flush()

    def left_out(self, loc: str, reason: str) -> None:
        """A URL this build leaves out, and why (a page that is now noindex, say)."""
        self.skipped.append((loc, reason))
        if len(self.skipped) == _BATCH:
            self._flush()

    def _flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO current VALUES (?, ?)", self.listed)
        self.db.executemany("INSERT OR IGNORE INTO left_out VALUES (?, ?)", self.skipped)
        self.listed.clear()
        self.skipped.clear()

    def counts(self) -> Counts:
        self._flush()
        added = self.db.execute("SELECT count(*) FROM current WHERE loc NOT IN (SELECT loc FROM listed)").fetchone()
        removed = self.db.execute("SELECT count(*) FROM listed WHERE loc NOT IN (SELECT loc FROM current)").fetchone()
        changed = self.db.execute(
            "SELECT count(*) FROM current JOIN listed USING (loc) WHERE current.lastmod IS NOT listed.lastmod"
        ).fetchone()
        return Counts(added[0], removed[0], changed[0])

    def added(self) -> Iterator[str]:
        self._flush()
        for (loc,) in self.db.execute("SELECT loc FROM current WHERE loc NOT IN (SELECT loc FROM listed) ORDER BY loc"):
            yield loc

    def removed(self) -> Iterator[tuple[str, str]]:
        """Each URL the previous deploy listed that this build does not, with why."""
        self._flush()
        query = (
            "SELECT listed.loc, coalesce(left_out.reason, ?) FROM listed LEFT JOIN left_out USING (loc)"
            " WHERE listed.loc NOT IN (SELECT loc FROM current) ORDER BY listed.loc"
        )
        yield from self.db.execute(query, (GONE,))

    def changed(self) -> Iterator[tuple[str, str | None, str | None]]:
        """Each URL listed by both whose lastmod changed: (URL, previous lastmod, lastmod)."""
        self._flush()
        query = (
            "SELECT loc, listed.lastmod, current.lastmod FROM current JOIN listed USING (loc)"
            " WHERE current.lastmod IS NOT listed.lastmod ORDER BY loc"
        )
        yield from self.db.execute(query)

    def removed_by_reason(self) -> dict[str, int]:
        self._flush()
        query = (
            "SELECT coalesce(left_out.reason, ?) AS why, count(*) FROM listed LEFT JOIN left_out USING (loc)"
            " WHERE listed.loc NOT IN (SELECT loc FROM current) GROUP BY why ORDER BY count(*) DESC, why"
        )
        return dict(self.db.execute(query, (GONE,)).fetchall())

    def guard(self, max_removed: float) -> None:
        """Refuse (`Refused`) when more than `max_removed` percent of the previous deploy's URLs would go."""
        before = len(self.previous)
        if not before:
            return
        removed = self.counts().removed
        if removed * 100 <= max_removed * before:
            return
        reasons = ", ".join(f"{n:,} {why}" for why, n in self.removed_by_reason().items())
        examples = []
        for loc, why in self.removed():
            examples.append(f"{loc} ({why})")
            if len(examples) == EXAMPLES:
                break
        raise Refused(
            f"refusing to publish: {removed:,} of the {before:,} URLs the previous deploy listed"
            f" ({removed * 100 / before:.1f}%) would go, more than max_removed {max_removed:g}% allows:"
            f" {reasons}; e.g. {'; '.join(examples)}. Nothing was published"
        )

    def summary(self) -> str:
        if not self.previous.found:
            return f"{self.counts()} (a first deploy: nothing at {self.previous.where})"
        return f"{self.counts()} since the previous deploy"

    def as_json(self) -> dict[str, object]:
        """The whole diff as plain data (what ``--changes-file`` and ``diff --json`` write)."""
        counts = self.counts()
        return {
            "previous": self.previous.where,
            "first_deploy": not self.previous.found,
            "base_url": self.previous.base_url,
            "counts": {"added": counts.added, "removed": counts.removed, "changed": counts.changed},
            "added": list(self.added()),
            "removed": [{"loc": loc, "reason": why} for loc, why in self.removed()],
            "changed": [{"loc": loc, "previous": old, "lastmod": new} for loc, old, new in self.changed()],
        }

    def write_json(self, path: Path) -> None:
        text = json.dumps(self.as_json(), indent=1, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")


def read_changes(path: Path) -> dict[str, object]:
    """A changes file (``--changes-file``), checked enough that `indexnow` can trust its shape."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SitemapgenError(f"{path}: no such file (a changes file from build --changes-file)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SitemapgenError(f"{path}: not a readable changes file: {e}") from None
    ok = (
        isinstance(data, dict)
        and isinstance(data.get("added"), list)
        and isinstance(data.get("removed"), list)
        and isinstance(data.get("changed"), list)
        and all(isinstance(u, str) for u in data["added"])
        and all(isinstance(r, dict) and isinstance(r.get("loc"), str) for r in data["removed"] + data["changed"])
    )
    if not ok:
        raise SitemapgenError(f"{path}: not a changes file (build --changes-file writes one)")
    checked: dict[str, object] = data
    return checked
