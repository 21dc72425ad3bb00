"""What a build did, for the user: the summary line, and the same as JSON."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from .skips import NoteKind, Skip, SkipReason, display
from .writer import WriteResult

#: Skips that a generator makes on every page alike: counted, and said once with an example.
TALLIED = (SkipReason.FRAGMENT, SkipReason.CANONICAL_OTHER_HOST)


class Tally:
    """What is said once for a whole build, with a count and an example, instead of a
    line a page: a site's generator writes the same head on every page, and 2,000
    lines of the same warning hide the one that matters.

    When most pages name one other host as canonical, the base URL is likely wrong
    (a build for a preview host, a site moved): that is said too.
    """

    def __init__(self) -> None:
        self.notes: Counter[NoteKind] = Counter()
        self.skips: Counter[SkipReason] = Counter()
        self.examples: dict[NoteKind | SkipReason, str] = {}
        self.hosts: Counter[str] = Counter()  # the other hosts canonicals name
        self.pages = 0

    def note(self, kind: NoteKind, example: str) -> None:
        self.notes[kind] += 1
        self.examples.setdefault(kind, example)

    def skip(self, skip: Skip) -> None:
        if skip.reason not in TALLIED:
            return
        self.skips[skip.reason] += 1
        self.examples.setdefault(skip.reason, f"{display(skip.relpath)}" + (f" {skip.detail}" if skip.detail else ""))
        if skip.reason is SkipReason.CANONICAL_OTHER_HOST:
            self.hosts[skip.detail.removeprefix("to ").split("/", 3)[2]] += 1

    def lines(self) -> list[str]:
        """The warnings, one a kind, in a fixed order."""
        said = [kind.counted(n, self.examples[kind]) for kind, n in self.notes.items()]
        for reason in TALLIED:
            n = self.skips[reason]
            if n:
                said.append(
                    f"{n:,} skipped, {reason.singular if n == 1 else reason.value}; e.g. {self.examples[reason]}"
                )
        if self.hosts:
            host, n = self.hosts.most_common(1)[0]
            if n * 2 > self.pages:
                said.append(
                    f"{n:,} of {plural(self.pages, 'page')} name {host} as canonical: is --base-url"
                    " (base_url) the URL this site is served at?"
                )
        return said


def plural(n: int, word: str) -> str:
    """``1 sitemap``, ``3 sitemaps``, ``1,000 pages``."""
    return f"{n:,} {word}{'s' * (n != 1)}"


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
        if self.robots_txt_updated:
            text += "; updated robots.txt"
        if self.changes is not None:
            text += f"; {self.changes}"
        return text
