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

from sitemapgen.deploy.previous import Previous
from sitemapgen.errors import Refusal, SitemapgenError

#: Why a URL the previous deploy listed is not listed now, when no page of the docroot says: it
#: was a page's, or it was in another build's sitemap that the index included (``include``).
GONE = "no longer in the docroot"
UNINCLUDED = "in no sitemap the index includes now"
_WHY = f"coalesce(left_out.reason, CASE WHEN listed.loc IN (SELECT loc FROM included) THEN '{UNINCLUDED}' ELSE ? END)"
_BATCH = 5_000
#: The three sets, as SQL over the previous deploy's `listed` and this build's `current`.
_ADDED = "FROM current WHERE loc NOT IN (SELECT loc FROM listed)"
_REMOVED = "FROM listed LEFT JOIN left_out USING (loc) WHERE listed.loc NOT IN (SELECT loc FROM current)"
_CHANGED = "FROM current JOIN listed USING (loc) WHERE current.lastmod IS NOT listed.lastmod"
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
        self._counts: Counts | None = None  # counted once the build has told everything (see `counts`)

    def see(self, loc: str, lastmod: str | None) -> None:
        """A URL this build lists, with its lastmod as written."""
        self.listed.append((loc, lastmod))
        self._counts = None
        if len(self.listed) == _BATCH:
            self._flush()

    def left_out(self, loc: str, reason: str) -> None:
        """A URL this build leaves out, and why (a page that is now noindex, say)."""
        self.skipped.append((loc, reason))
        self._counts = None
        if len(self.skipped) == _BATCH:
            self._flush()

    def _flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO current VALUES (?, ?)", self.listed)
        self.db.executemany("INSERT OR IGNORE INTO left_out VALUES (?, ?)", self.skipped)
        self.listed.clear()
        self.skipped.clear()

    def counts(self) -> Counts:
        """How many URLs were added, removed and changed: three queries over the whole site, so
        made once (the guard, the summary and the JSON all ask) until another URL is told."""
        if self._counts is None:
            self._flush()
            added, removed, changed = (
                self.db.execute(f"SELECT count(*) {query}").fetchone()[0] for query in (_ADDED, _REMOVED, _CHANGED)
            )
            self._counts = Counts(added, removed, changed)
        return self._counts

    def added(self) -> Iterator[str]:
        self._flush()
        for (loc,) in self.db.execute(f"SELECT loc {_ADDED} ORDER BY loc"):
            yield loc

    def removed(self) -> Iterator[tuple[str, str]]:
        """Each URL the previous deploy listed that this build does not, with why."""
        self._flush()
        yield from self.db.execute(f"SELECT listed.loc, {_WHY} {_REMOVED} ORDER BY listed.loc", (GONE,))

    def changed(self) -> Iterator[tuple[str, str | None, str | None]]:
        """Each URL listed by both whose lastmod changed: (URL, previous lastmod, lastmod)."""
        self._flush()
        yield from self.db.execute(f"SELECT loc, listed.lastmod, current.lastmod {_CHANGED} ORDER BY loc")

    def lines(self) -> Iterator[str]:
        """`diff`'s lines: each URL added (``+``), removed (``-``) and changed (``~`` old -> new)."""
        yield from (f"+ {loc}" for loc in self.added())
        yield from (f"- {loc}" for loc, _ in self.removed())
        yield from (f"~ {loc} {before or '-'} -> {after or '-'}" for loc, before, after in self.changed())

    def removed_by_reason(self) -> dict[str, int]:
        self._flush()
        query = f"SELECT {_WHY} AS why, count(*) {_REMOVED} GROUP BY why ORDER BY count(*) DESC, why"
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
