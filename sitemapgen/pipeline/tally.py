"""What a build says once, with a count and an example, instead of once a page."""

from __future__ import annotations

from collections import Counter

from sitemapgen.skips import NoteKind, Skip, SkipReason, display, plural

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
