"""Is what is on disk what a build would write now? (A CI gate.)

Builds into a throwaway directory, with the content store only read, then
compares sitemap files by their bytes. Only for the files that differ does it
read entries, to say what changed, so memory stays bounded by chunk size.
"""

from __future__ import annotations

import gzip
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from sitemapgen._types import Warn
from sitemapgen.commands.build import build_elsewhere
from sitemapgen.config.settings import Config
from sitemapgen.hosts.base import page_forms
from sitemapgen.output.writer import file_digest, read_published
from sitemapgen.skips import Skip, SkipReason, display, plural
from sitemapgen.urls import encoded_path
from sitemapgen.util.safeio import read_regular

_URL_LINE = re.compile(rb"<url><loc>([^<]*)</loc>.*</url>")


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Whether the published sitemaps are current, and a short account if not."""

    current: bool
    lines: tuple[str, ...]


def _entries(path: Path) -> dict[bytes, bytes]:
    """loc -> the whole <url> line, for one of our sitemap files."""
    try:
        data = gzip.decompress(read_regular(path, follow_symlinks=False))
    except (OSError, EOFError):
        return {}
    return {m.group(1): m.group(0) for m in _URL_LINE.finditer(data)}


#: Why a page a sitemap lists is left out now, for the reasons that make listing it an error
#: a search engine reports ("Excluded by noindex tag", "Page with redirect"...).
_WHY_REASONS = frozenset(
    {
        SkipReason.NOINDEX,
        SkipReason.REDIRECT,
        SkipReason.CANONICAL,
        SkipReason.CANONICAL_OTHER_HOST,
        SkipReason.ROBOTS_DISALLOWED,
        SkipReason.HOST_REDIRECT,
        SkipReason.HOST_NOINDEX,
        SkipReason.HOST_NOT_SERVED,
    }
)
_WHY_KEPT = 100_000  # pages whose reason is kept, at most: a check's memory stays bounded


class _Why:
    """Why each page left out is left out, by every URL a sitemap may have listed it under."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.by_url: dict[bytes, str] = {}

    def hear(self, item: Skip) -> None:
        if item.reason not in _WHY_REASONS or len(self.by_url) >= _WHY_KEPT or item.relpath.endswith("/"):
            return
        why = item.reason.singular + (f": {display(item.detail)}" if item.detail else "")
        for form in page_forms(item.relpath):
            self.by_url[xml_escape(self.base_url + encoded_path(form)).encode("utf-8")] = why


def check(config: Config, *, on_warning: Warn | None = None, examples: int = 5) -> CheckResult:
    """Compare the published sitemaps with a fresh build of the docroot."""
    out = config.output_dir
    published = read_published(out)
    if not (out / "sitemap.xml").is_file():
        return CheckResult(False, (f"missing: no sitemap index at {out / 'sitemap.xml'}",))
    why = _Why(config.base_url)
    with tempfile.TemporaryDirectory(prefix="sitemapgen-check-") as tmp:
        fresh = build_elsewhere(config, Path(tmp), on_warning=on_warning, on_skip=why.hear)
        new = [(file_digest(s.path), s.path) for s in fresh.written.sitemaps]
        old = [(file_digest(out / name), out / name) for name in published]
        if [d for d, _ in new] == [d for d, _ in old] and len(fresh.written.indexes) == sum(
            1 for _ in out.glob("sitemap-index-*.xml")
        ) + 1:
            return CheckResult(True, (f"current: {plural(len(new), 'sitemap')}, {plural(fresh.listed, 'page')}",))
        old_digests = {d for d, _ in old}
        new_digests = {d for d, _ in new}
        before: dict[bytes, bytes] = {}
        after: dict[bytes, bytes] = {}
        for digest, path in old:
            if digest not in new_digests:
                before.update(_entries(path))
        for digest, path in new:
            if digest not in old_digests:
                after.update(_entries(path))
        added = sorted(set(after) - set(before))
        removed = sorted(set(before) - set(after))
        changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
        missing_files = [p.name for d, p in old if d is None]
        changing = sum(1 for d, _ in new if d not in old_digests)
        lines = [
            f"stale: {plural(len(added), 'page')} added, {len(removed):,} removed, {len(changed):,} changed;"
            f" {changing:,} of {plural(len(new), 'sitemap')} would be written (run sitemapgen build)"
        ]
        if missing_files:
            lines.append(f"  listed but missing: {', '.join(missing_files)}")
        for mark, keys in (("+", added), ("-", removed), ("~", changed)):
            for key in keys[:examples]:
                reason = why.by_url.get(key) if mark == "-" else None
                lines.append(f"  {mark} {key.decode('utf-8', 'replace')}" + (f" ({reason})" if reason else ""))
            if len(keys) > examples:
                lines.append(f"  {mark} ... and {len(keys) - examples:,} more")
        return CheckResult(False, tuple(lines))
