"""What a CI run shows of a build: a Markdown summary, and warnings as annotations.

The summary (``--summary-md FILE``, or GitHub's ``$GITHUB_STEP_SUMMARY``) is a
short table: pages listed, included sitemaps, skipped by reason, lastmod sources, sitemaps
written and changed, then the warnings by kind with a few examples. In GitHub
Actions each warning is also printed as a ``::warning`` workflow command, so it
shows on the pull request; they are capped, since a site's generator can make
the same warning on every page. Warnings are kept as counts by kind and a few
examples, never all of them: a million pages cost no more than ten.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from sitemapgen.commands.report import BuildResult
from sitemapgen.skips import plural
from sitemapgen.util.github import MAX_ANNOTATIONS, cell, workflow_data, workflow_property

#: Examples shown for each kind of warning.
EXAMPLES = 3

_NUMBER = re.compile(r"\d[\d,]*")
_COUNTED = re.compile(r"[\d,]+ [a-z]")  # "12 pages: ...", "1,234 skipped, ...": said once for the build


def warning_kind(message: str) -> tuple[str, str | None]:
    """(what kind of warning, the file it is about, if any). ``a/b.html: skipped, broken symlink``
    is of kind ``skipped, broken symlink`` about ``a/b.html``; a line said once for the build
    (``12 pages: ...``) is its own kind, numbers left out."""
    head, sep, rest = message.partition(": ")
    if sep and head and " " not in head and not _COUNTED.match(message):
        return re.split(r"[:(]", rest, maxsplit=1)[0].strip(), head
    return _NUMBER.sub("N", message.split("; e.g.", 1)[0]).strip(), None


class CiReport:
    """Warnings as they come (`add`), then the Markdown summary (`markdown`)."""

    def __init__(self, *, docroot: Path | None = None, annotate: Callable[[str], object] | None = None) -> None:
        """`annotate` prints each annotation line (in GitHub Actions); None: no annotations."""
        self.annotate = annotate
        self.docroot = docroot
        self.kinds: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}
        self.annotated = 0

    def add(self, message: str) -> None:
        """Count a warning, and annotate it (the first `MAX_ANNOTATIONS`)."""
        kind, path = warning_kind(message)
        self.kinds[kind] += 1
        examples = self.examples.setdefault(kind, [])
        if len(examples) < EXAMPLES:
            examples.append(message)
        if self.annotate is None:
            return
        self.annotated += 1
        if self.annotated > MAX_ANNOTATIONS:
            return
        where = ""
        if path is not None and self.docroot is not None:
            # a page's path is the docroot's; an output file's is already a path from here
            shown = path if os.path.isabs(path) or path.startswith(str(self.docroot)) else str(self.docroot / path)
            where = f" file={workflow_property(shown)}"
        self.annotate(f"::warning{where}::{workflow_data(message)}")

    def close(self) -> None:
        """Annotate how many warnings were not annotated, if any were not."""
        left = self.annotated - MAX_ANNOTATIONS
        if self.annotate is not None and left > 0:
            self.annotate(f"::warning::{left:,} more sitemapgen warnings: see the log")

    def markdown(self, result: BuildResult) -> str:
        """The summary, as GitHub renders it (tables are GitHub Flavored Markdown)."""
        rows = [("pages listed", f"{result.listed:,}")]
        if result.included:
            urls = sum(child.urls for child in result.included)
            rows.append(("included sitemaps", f"{len(result.included):,} ({plural(urls, 'URL')})"))
        rows += [(f"skipped: {reason.value}", f"{n:,}") for reason, n in result.skipped.items()]
        rows += [(f"lastmod from {source}", f"{n:,}") for source, n in result.lastmod_sources.items()]
        if result.no_lastmod:
            rows.append(("no lastmod", f"{result.no_lastmod:,}"))
        written = result.written
        retired = f", {written.retired:,} no longer listed kept until the next build" if written.retired else ""
        rows.append(
            (
                "sitemaps",
                f"{len(written.sitemaps):,} ({written.changed:,} changed, {written.removed:,} removed{retired})",
            )
        )
        rows.append(("index files", ", ".join(path.name for path in written.indexes)))
        extras = (("HTML sitemap", written.html), ("text sitemaps", written.text), ("llms.txt", written.llms))
        for what, files in extras:
            if files:
                changed = sum(1 for file in files if file.changed)
                names = ", ".join(file.path.name for file in files)
                rows.append((what, f"{names} ({plural(changed, 'file')} changed)"))
        if result.robots_txt is not None:
            rows.append(("robots.txt", result.robots_txt.value))
        rows.append(("warnings", f"{sum(self.kinds.values()):,}"))
        if result.changes is not None:
            rows.append(("URLs added, removed, changed", result.changes))
        lines = ["## sitemapgen", "", "| what | count |", "| --- | ---: |"]
        lines += [f"| {cell(what)} | {cell(count)} |" for what, count in rows]
        if self.kinds:
            lines += ["", "### Warnings", "", "| kind | count | examples |", "| --- | ---: | --- |"]
            for kind, n in self.kinds.most_common():
                shown = "<br>".join(f"`{cell(example)}`" for example in self.examples[kind])
                lines.append(f"| {cell(kind)} | {n:,} | {shown} |")
        return "\n".join(lines) + "\n"
