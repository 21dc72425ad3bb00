"""What a build did, for the user: the summary line, and the same as JSON."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sitemapgen.output.owned import TextFile
from sitemapgen.output.robots import RobotsOutcome
from sitemapgen.output.writer import WriteResult
from sitemapgen.skips import SkipReason, plural

if TYPE_CHECKING:
    from sitemapgen.deploy.include import Child

#: What the stylesheet gives, said where the summary names it: Chrome removed XSLT in version 155
#: (November 2026), so there it shows the files as XML.
_VIEW = "a table in browsers that apply XSLT; Chrome 155 and later show the XML"
#: Said after `_VIEW` until the HTML sitemap is written: where a page every browser shows comes from.
_VIEW_ADVICE = ", html_sitemap = true writes a page every browser shows"


def sorted_skips(skipped: Counter[SkipReason]) -> dict[SkipReason, int]:
    """Skip counts in the order `SkipReason` declares its members (the order a summary reads)."""
    order = list(SkipReason)
    return dict(sorted(skipped.items(), key=lambda kv: order.index(kv[0])))


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildResult:
    """What a build listed, passed over and wrote (made with keywords: its fields are many)."""

    listed: int
    skipped: Mapping[SkipReason, int]
    written: WriteResult
    warnings: int = 0
    lastmod_sources: Mapping[str, int] = field(default_factory=dict)  # source -> pages it dated
    robots_txt: RobotsOutcome | None = None  # None: robots.txt was not to be touched
    changes: str | None = None  # "+12 -3 ~40 since the previous deploy", with --previous
    no_lastmod: int = 0  # pages listed without a lastmod (no source dated them)
    documents: int = 0  # of those listed, the files the config's documents patterns name
    included: tuple[Child, ...] = ()  # other builds' sitemaps the index lists (include)

    @property
    def robots_txt_updated(self) -> bool:
        """Whether robots.txt was written (created or updated)."""
        return self.robots_txt in {RobotsOutcome.CREATED, RobotsOutcome.UPDATED}

    def as_json(self) -> dict[str, object]:
        """The summary as plain data, for `--json`."""
        return (
            {
                "listed": self.listed,
                "skipped": {reason.name.lower(): n for reason, n in self.skipped.items()},
                "warnings": self.warnings,
                "lastmod_sources": dict(self.lastmod_sources),
                "no_lastmod": self.no_lastmod,
                "documents": self.documents,
                "sitemaps": [
                    {"path": str(s.path), "url": s.url, "urls": s.urls, "bytes": s.size, "changed": s.changed}
                    for s in self.written.sitemaps
                ],
                "changed": self.written.changed,
                "removed": self.written.removed,
                "retired": self.written.retired,
                "indexes": [str(p) for p in self.written.indexes],
                "replaced": self.written.replaced,
                "stylesheet": str(self.written.stylesheet) if self.written.stylesheet is not None else None,
                "robots_txt_updated": self.robots_txt_updated,
                "robots_txt": self.robots_txt.value if self.robots_txt is not None else None,
                "changes": self.changes,
            }
            | (
                {
                    "text_sitemaps": [
                        {"path": str(t.path), "urls": t.urls, "changed": t.changed} for t in self.written.text
                    ]
                }
                if self.written.text
                else {}
            )
            | (
                {
                    "html_sitemap": [
                        {"path": str(t.path), "pages": t.urls, "changed": t.changed} for t in self.written.html
                    ]
                }
                if self.written.html
                else {}
            )
            | (
                {"llms_txt": [{"path": str(t.path), "pages": t.urls, "changed": t.changed} for t in self.written.llms]}
                if self.written.llms
                else {}
            )
            | (
                {"included": [{"url": c.url, "urls": c.urls, "lastmod": c.lastmod} for c in self.included]}
                if self.included
                else {}
            )
        )

    def summary(self) -> str:
        """The one line the CLI prints on stderr."""
        files = self.written.sitemaps
        listed = plural(self.listed, "page")
        if self.documents:
            listed = f"{plural(self.listed - self.documents, 'page')} and {plural(self.documents, 'document')}"
        text = f"listed {listed} in {plural(len(files), 'sitemap')}"
        if self.included:
            urls = sum(c.urls for c in self.included)
            text += f", and {plural(urls, 'URL')} of {plural(len(self.included), 'included sitemap')}"
        if self.skipped:
            text += "; skipped " + ", ".join(reason.counted(n) for reason, n in self.skipped.items())
        text += "; " + self._lastmod()
        text += "; " + self._wrote()
        if self.written.replaced is not None:
            text += f"; replaced {self.written.replaced}"
        if self.robots_txt is not None:
            text += "; " + _ROBOTS[self.robots_txt].format(
                index="indexes" if len(self.written.indexes) > 1 else "index"
            )
        if self.changes is not None:
            text += f"; {self.changes}"
        return text

    def _lastmod(self) -> str:
        """Which source dated how many pages: "lastmod from 3 git, 1 mtime"."""
        if not self.lastmod_sources:
            return "no lastmod (no source dated any page)"
        text = "lastmod from " + ", ".join(f"{n:,} {name}" for name, n in self.lastmod_sources.items())
        if self.no_lastmod:
            text += f", none for {plural(self.no_lastmod, 'page')}"
        return text

    def _wrote(self) -> str:
        """What was written, what was kept as it was, and what was removed."""
        files, indexes = self.written.sitemaps, self.written.indexes
        written = [s for s in files if s.changed]
        kept = len(files) - len(written)
        if len(indexes) == 1:
            text, joint = f"wrote {indexes[0]}", " and "
        else:
            text, joint = f"wrote {len(indexes):,} index files, {indexes[0]} .. {indexes[-1].name}", ", and "
        if not kept:
            text += joint + (
                str(files[0].path) if len(files) == 1 else f"{files[0].path.name} .. {files[-1].path.name}"
            )
        elif written:
            names = ", ".join(s.path.name for s in written[:3])
            more = f" and {len(written) - 3:,} more" if len(written) > 3 else ""
            text += f"{joint}{len(written):,} of {plural(len(files), 'sitemap')} ({names}{more})"
        if len(indexes) > 1:
            text += " (more sitemaps than one index lists: submit each index, or name each in robots.txt)"
        if written and kept:
            text += f"; kept {kept:,} unchanged"
        elif kept:
            text += f"; kept {files[0].path if kept == 1 else f'all {kept:,} sitemaps'} unchanged"
        if self.written.retired:
            text += f"; {plural(self.written.retired, 'sitemap')} no longer listed kept until the next build"
        if self.written.removed:
            text += f"; removed {plural(self.written.removed, 'sitemap')} no longer listed"
        return text + self._stylesheet() + self._html() + self._text() + self._llms()

    def _stylesheet(self) -> str:
        """Whether the stylesheet every file names was written or kept (``stylesheet = true``)."""
        path = self.written.stylesheet
        if path is None:
            return ""
        view = _VIEW if self.written.html else _VIEW + _VIEW_ADVICE
        return f"; {'wrote' if self.written.stylesheet_written else 'kept'} {path} ({view})"

    def _html(self) -> str:
        """The HTML sitemap's pages written or kept (``html_sitemap = true``)."""
        links = plural(sum(t.urls for t in self.written.html), "page")
        return _files(self.written.html, f"an HTML sitemap of {links}", "HTML sitemap page", f" of {links}")

    def _text(self) -> str:
        """The text sitemaps written or kept (``text_sitemap = true``)."""
        return _files(self.written.text, "a text sitemap", "text sitemap")

    def _llms(self) -> str:
        """llms.txt written or kept (``llms_txt = true``)."""
        cut = self.written.llms_left_out
        left_out = f"; {cut:,} more left out, to stay under 10 MiB" if cut else ""
        return "".join(
            f"; {'wrote' if t.changed else 'kept'} {t.path} ({plural(t.urls, 'page')} for language models{left_out})"
            for t in self.written.llms
        )


def _files(files: tuple[TextFile, ...], one: str, each: str, after: str = "") -> str:
    """Files beside the index written or kept: ``wrote public/sitemap.txt (a text sitemap)``, or
    ``wrote 3 text sitemaps, public/sitemap.txt .. sitemap-3.txt``."""
    if not files:
        return ""
    verb = "wrote" if any(t.changed for t in files) else "kept"
    if len(files) == 1:
        return f"; {verb} {files[0].path} ({one})"
    return f"; {verb} {plural(len(files), each)}{after}, {files[0].path} .. {files[-1].path.name}"


_ROBOTS = {
    RobotsOutcome.CREATED: "created robots.txt",
    RobotsOutcome.UPDATED: "updated robots.txt",
    RobotsOutcome.UNCHANGED: "robots.txt already names the {index}",
    RobotsOutcome.MISSING: "no robots.txt to update",
    RobotsOutcome.NOT_A_FILE: "left robots.txt alone",
    RobotsOutcome.CHANGING: "left robots.txt alone (another process kept changing it)",
    RobotsOutcome.NOT_AT_ROOT: "left robots.txt alone (not at the host's root)",
}
