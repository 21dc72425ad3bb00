"""What a build did, for the user: the summary line, and the same as JSON."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from sitemapgen.output.writer import WriteResult
from sitemapgen.skips import SkipReason, plural


def sorted_skips(skipped: Counter[SkipReason]) -> dict[SkipReason, int]:
    """Skip counts in the order `SkipReason` declares its members (the order a summary reads)."""
    order = list(SkipReason)
    return dict(sorted(skipped.items(), key=lambda kv: order.index(kv[0])))


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build listed, passed over and wrote."""

    listed: int
    skipped: Mapping[SkipReason, int]
    written: WriteResult
    warnings: int = 0
    lastmod_sources: Mapping[str, int] = field(default_factory=dict)
    robots_txt_updated: bool = False
    changes: str | None = None  # "+12 -3 ~40 since the previous deploy", with --previous

    def as_json(self) -> dict[str, object]:
        """The summary as plain data, for `--json`."""
        return {
            "listed": self.listed,
            "skipped": {reason.name.lower(): n for reason, n in self.skipped.items()},
            "warnings": self.warnings,
            "lastmod_sources": dict(self.lastmod_sources),
            "sitemaps": [
                {"path": str(s.path), "url": s.url, "urls": s.urls, "bytes": s.size, "changed": s.changed}
                for s in self.written.sitemaps
            ],
            "changed": self.written.changed,
            "removed": self.written.removed,
            "indexes": [str(p) for p in self.written.indexes],
            "replaced": self.written.replaced,
            "robots_txt_updated": self.robots_txt_updated,
            "changes": self.changes,
        }

    def summary(self) -> str:
        """The one line the CLI prints on stderr."""
        files = self.written.sitemaps
        text = f"listed {plural(self.listed, 'page')} in {plural(len(files), 'sitemap')}"
        if self.skipped:
            text += "; skipped " + ", ".join(reason.counted(n) for reason, n in self.skipped.items())
        if len(self.lastmod_sources) > 1:
            text += "; lastmod from " + ", ".join(f"{n:,} {name}" for name, n in self.lastmod_sources.items())
        if self.written.changed != len(files) or self.written.removed:
            text += f"; {self.written.changed:,} of {plural(len(files), 'sitemap')} changed"
            if self.written.removed:
                text += f", {self.written.removed:,} removed"
        indexes = self.written.indexes
        if len(indexes) == 1:
            text += f"; wrote {indexes[0]}"
            text += (
                f" and {files[0].path}" if len(files) == 1 else f" and {files[0].path.name} .. {files[-1].path.name}"
            )
        else:
            text += (
                f"; wrote {len(indexes):,} index files, {indexes[0]} .. {indexes[-1].name}, since an index lists"
                f" at most 1,000 sitemaps: submit each (or name each in robots.txt)"
            )
        if self.written.replaced is not None:
            text += f"; replaced {self.written.replaced}"
        if self.robots_txt_updated:
            text += "; updated robots.txt"
        if self.changes is not None:
            text += f"; {self.changes}"
        return text
