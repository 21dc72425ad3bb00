"""What `verify` found: problems a crawler would report, and notes worth saying that none would,
each with the URL it concerns and a short, stable kind (docs/verify.md says what each means and
how to fix it on each host)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sitemapgen.skips import plural
from sitemapgen.util.github import MAX_ANNOTATIONS, cell, workflow_data

#: Every problem's kind, and what it means in a line: the keys are stable (``--json`` gives them).
PROBLEMS: dict[str, str] = {
    "robots-unreachable": "robots.txt answers 5xx or not at all: a crawler takes the whole site as disallowed",
    "no-sitemap": "no sitemap could be found: no Sitemap: line in robots.txt and no sitemap.xml",
    "sitemap-redirect": "a sitemap or index answers a redirect, which crawlers do not follow for sitemaps",
    "sitemap-not-found": "a sitemap or index answers 404 or 410",
    "sitemap-status": "a sitemap or index answers another status than 200",
    "sitemap-unreachable": "a sitemap or index times out, resets or answers 5xx",
    "sitemap-html": "an HTML page is served for a sitemap (an SPA fallback or a soft 404)",
    "sitemap-unreadable": "a sitemap's body is too large, or its gzip is broken",
    "sitemap-invalid": "what validate finds: the XSD, the limits, the location rule, dates",
    "off-site": "a sitemap lists a URL on another host, scheme or folder: not fetched",
    "page-redirect": "a listed URL answers a redirect",
    "page-not-found": "a listed URL answers 404 or 410",
    "page-status": "a listed URL answers another status than 200",
    "page-unreachable": "a listed URL times out, resets or answers 5xx",
    "page-noindex": "a listed page says noindex, in its X-Robots-Tag header or its head",
    "page-canonical": "a listed page names another URL as canonical",
    "page-refresh": "a listed page redirects by a meta refresh",
    "page-blocked": "robots.txt disallows a listed URL for the crawler",
    "hreflang": "an alternate a listed page names does not answer 200 or does not name the page back",
    "deploy-missing": "a file the build wrote is not served (--against)",
    "deploy-differs": "a file the build wrote is served with other bytes: an old copy or another build (--against)",
    "indexnow-key": "the IndexNow key file the build wrote is not served with the key (--against)",
}
#: Every note's kind, and what it means.
NOTES: dict[str, str] = {
    "robots-missing": "robots.txt answers 4xx: a crawler takes every URL as allowed",
    "robots-no-sitemap-line": "robots.txt has no Sitemap: line for the index (the line to add is given)",
    "robots-sitemap-elsewhere": "a Sitemap: line names another host's sitemap: not read",
    "sitemap-guessed": "no Sitemap: line: sitemap.xml under the URL given was tried",
    "sampled": "more URLs are listed than are checked: a sample, the same for the same sitemaps",
    "not-crawled": "pages not checked, because a crawler would stop first",
    "lastmod-after-served": "a lastmod is more than a day after the page's Last-Modified header",
    "sitemap-note": "what validate notes: past the 2008 protocol's limits, lastmods in the future",
    "hreflang-elsewhere": "alternates on other hosts, not checked",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem or note: the URL it concerns, its kind, and the problem in words."""

    url: str
    kind: str
    message: str

    @property
    def where(self) -> str:
        """Its URL as a line's start (``URL: ``), or nothing."""
        return f"{self.url}: " if self.url else ""

    def as_json(self) -> dict[str, str]:
        return {"url": self.url, "kind": self.kind, "message": self.message}


@dataclass
class Report:
    """Everything one `verify` found, and how much it read."""

    problems: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    sitemaps: int = 0  # sitemaps and indexes read
    listed: int = 0  # URLs they list
    checked: int = 0  # pages fetched (listed ones and hreflang alternates)

    def problem(self, url: str, kind: str, message: str) -> None:
        assert kind in PROBLEMS, kind
        self.problems.append(Finding(url, kind, message))

    def note(self, url: str, kind: str, message: str) -> None:
        assert kind in NOTES, kind
        self.notes.append(Finding(url, kind, message))

    @property
    def ok(self) -> bool:
        return not self.problems

    def by_kind(self, findings: list[Finding]) -> Iterator[tuple[str, list[Finding]]]:
        """`findings` grouped by kind, the most frequent first (then by kind)."""
        groups: dict[str, list[Finding]] = {}
        for finding in findings:
            groups.setdefault(finding.kind, []).append(finding)
        yield from sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))

    def as_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "sitemaps": self.sitemaps,
            "listed": self.listed,
            "checked": self.checked,
            "problems": [finding.as_json() for finding in self.problems],
            "notes": [finding.as_json() for finding in self.notes],
        }

    def lines(self, findings: list[Finding], examples: int) -> list[str]:
        """Each kind's line (kind, count, what it means), then its first `examples` findings."""
        meanings = {**PROBLEMS, **NOTES}
        lines = []
        for kind, found in self.by_kind(findings):
            lines.append(f"{kind} ({len(found):,}): {meanings[kind]}")
            lines += [f"  {finding.where}{finding.message}" for finding in found[:examples]]
            if len(found) > examples:
                lines.append(f"  ... and {len(found) - examples:,} more (--json lists them all)")
        return lines

    def closing(self) -> str:
        """The last line: what was read, and the verdict."""
        verdict = "ok" if self.ok else plural(len(self.problems), "problem")
        return (
            f"read {plural(self.sitemaps, 'sitemap')} listing {plural(self.listed, 'URL')},"
            f" fetched {plural(self.checked, 'page')}: {verdict}"
        )

    def github_errors(self) -> list[str]:
        """Each problem as a GitHub ``::error``, at most `MAX_ANNOTATIONS`, then how many were left out."""
        lines = [
            f"::error title={workflow_data('sitemapgen verify: ' + f.kind)}::{workflow_data(f.where + f.message)}"
            for f in self.problems[:MAX_ANNOTATIONS]
        ]
        if len(self.problems) > MAX_ANNOTATIONS:
            lines.append(
                f"::error::{len(self.problems) - MAX_ANNOTATIONS:,} more sitemapgen verify problems: see the log"
            )
        return lines

    def markdown(self) -> str:
        """The job summary: what was read, then each kind of problem with its count and examples."""
        lines = [
            "## sitemapgen verify",
            "",
            "| what | count |",
            "| --- | ---: |",
            f"| sitemaps read | {self.sitemaps:,} |",
            f"| URLs listed | {self.listed:,} |",
            f"| pages fetched | {self.checked:,} |",
            f"| problems | {len(self.problems):,} |",
            f"| notes | {len(self.notes):,} |",
        ]
        if self.problems:
            lines += ["", "### Problems", "", "| kind | count | examples |", "| --- | ---: | --- |"]
            for kind, findings in self.by_kind(self.problems):
                shown = "<br>".join(f"`{cell(f.where + f.message)}`" for f in findings[:3])
                lines.append(f"| {cell(kind)}: {cell(PROBLEMS[kind])} | {len(findings):,} | {shown} |")
        return "\n".join(lines) + "\n"
