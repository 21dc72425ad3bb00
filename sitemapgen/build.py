"""The pipeline: walk -> URL -> rules -> writer, and the library entry point.

Every check that can fail on bad input runs before the first byte is written,
so an error leaves the output directory exactly as it was.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .config import Config
from .errors import DocrootError, SitemapgenError
from .rules import RuleSet
from .urls import MAX_URL_LENGTH, page_url
from .walk import Skip, SkipReason, exclusion_spec, iter_pages, read_ignore_file
from .writer import Entry, WriteResult, write_sitemaps

logger = logging.getLogger("sitemapgen")


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build listed, passed over and wrote."""

    listed: int
    skipped: Mapping[SkipReason, int]
    written: WriteResult
    warnings: int = 0

    def summary(self) -> str:
        """The one line the CLI prints on stderr."""
        files = self.written.sitemaps
        text = (
            f"listed {self.listed:,} page{'s' * (self.listed != 1)} in {len(files):,} sitemap{'s' * (len(files) != 1)}"
        )
        if self.skipped:
            parts = ", ".join(reason.counted(n) for reason, n in self.skipped.items())
            text += f"; skipped {parts}"
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
        return text


def _check_output(config: Config) -> Path:
    """Refuse an output directory the protocol's location rule would break."""
    out = config.output_dir
    if out.exists() and not out.is_dir():
        raise DocrootError(f"--out: not a directory: {out}")
    real_out = os.path.realpath(out)
    real_root = os.path.realpath(config.docroot)
    if real_out != real_root and real_out.startswith(real_root.rstrip(os.sep) + os.sep):
        raise DocrootError(
            f"--out: {out} is inside the docroot, so its sitemaps would be served below the base URL,"
            " where the protocol's location rule lets them list only the pages under their own folder;"
            " write them to the docroot itself or outside it"
        )
    return out


def lastmod_of(mtime_ns: int) -> datetime:
    """The mtime in UTC, truncated to the second as `date -r` does."""
    return datetime.fromtimestamp(mtime_ns // 1_000_000_000, tz=UTC)


def iter_entries(config: Config, *, on_skip: Callable[[Skip], None] | None = None) -> Iterator[Entry]:
    """Every sitemap entry of the docroot, in walk order, without writing anything."""
    skip = on_skip or (lambda _: None)
    patterns = [*config.exclude, *(read_ignore_file(config.docroot) if config.sitemapignore else [])]
    rules = RuleSet(config.rules)
    directory: str | None = None
    seen: set[str] = set()
    for page in iter_pages(config.docroot, exclude=exclusion_spec(patterns), on_skip=skip):
        loc = page_url(config.base_url, page.relpath, config.url_style)
        if len(loc) > MAX_URL_LENGTH:
            skip(Skip(page.relpath, SkipReason.URL_TOO_LONG, f"{len(loc):,} characters"))
            continue
        # Two files can only share a URL within one directory (index.html and
        # index.htm, or a.html and a.htm without extensions), so the set of
        # URLs seen is kept per directory and memory stays flat.
        here = page.relpath.rpartition("/")[0]
        if here != directory:
            directory, seen = here, set()
        if loc in seen:
            skip(Skip(page.relpath, SkipReason.DUPLICATE_URL, loc))
            continue
        seen.add(loc)
        try:
            lastmod: datetime | None = lastmod_of(page.mtime_ns)
        except (OverflowError, OSError, ValueError):
            lastmod = None
        facts = rules.facts_for(page.relpath)
        yield Entry(loc, lastmod, facts.changefreq, facts.priority)


def _display(relpath: str) -> str:
    """A path as the user would type it, with undecodable bytes shown escaped."""
    return relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def build(config: Config, *, on_warning: Callable[[str], None] | None = None) -> BuildResult:
    """Write the sitemaps and index for `config`; the library's entry point.

    Raises `SitemapgenError` for bad input before anything is written. Files
    that cannot be listed are counted in the result and, where the user
    should look at them, reported through `on_warning` (default: logging).
    """
    warn = on_warning or logger.warning
    if not config.docroot.is_dir():
        what = "not found" if not config.docroot.exists() else "not a directory"
        raise DocrootError(f"docroot {what}: {config.docroot}")
    out = _check_output(config)
    read_ignore_file(config.docroot)  # a bad .sitemapignore must fail before writing
    skipped: Counter[SkipReason] = Counter()
    warnings = 0

    def on_skip(item: Skip) -> None:
        nonlocal warnings
        skipped[item.reason] += 1
        if item.reason.warns:
            warnings += 1
            detail = f" ({item.detail})" if item.detail else ""
            warn(f"{_display(item.relpath)}: skipped, {item.reason.singular}{detail}")

    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    written = write_sitemaps(
        iter_entries(config, on_skip=on_skip),
        out,
        base_url=config.base_url,
        lastmod_format=config.lastmod_format,
        max_urls=config.max_urls_per_sitemap,
        max_bytes=config.max_bytes_per_sitemap,
        max_sitemaps_per_index=config.max_sitemaps_per_index,
        on_skip=on_skip,
    )
    if not written.sitemaps:
        if created:
            out.rmdir()
        why = ", ".join(r.counted(n) for r, n in skipped.items()) or "no .html or .htm files"
        raise SitemapgenError(f"no pages to list under {config.docroot} ({why}); nothing written")
    listed = sum(s.urls for s in written.sitemaps)
    return BuildResult(listed, dict(sorted(skipped.items(), key=lambda kv: kv[0].name)), written, warnings)
