"""Is what is on disk what a build would write now? (A CI gate.)

Builds into a throwaway directory, with the content store only read, then
compares sitemap files by their bytes. Only for the files that differ does it
read entries, to say what changed, so memory stays bounded by chunk size.
"""

from __future__ import annotations

import gzip
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.commands.build import build_elsewhere
from sitemapgen.config.settings import Config
from sitemapgen.hosts.base import page_forms
from sitemapgen.output.chunks import IndexEntry
from sitemapgen.output.outdir import check_docroot, reading
from sitemapgen.output.published import file_digest, published_others, read_published
from sitemapgen.protocol import LLMS_NAME
from sitemapgen.skips import Skip, SkipReason, display, plural
from sitemapgen.urls import encoded_path
from sitemapgen.util.safeio import read_regular

if TYPE_CHECKING:
    from sitemapgen.deploy.include import Child

#: A <url> line as our writer writes it, with the namespace of its images on it (``images = true``) or not.
_URL_LINE = re.compile(rb"<url(?: [^>]*)?><loc>([^<]*)</loc>.*</url>")


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
#: What a stale file beside the index is, by its suffix (llms.txt by its name).
_EXTRA = {".html": "HTML sitemap", ".txt": "text sitemap"}
_WHY_KEPT = 100_000  # pages whose reason is kept, at most: a check's memory stays bounded


class _Why:
    """Why each page left out is left out, by every URL a sitemap may have listed it under."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.by_url: dict[bytes, str] = {}

    def hear(self, item: Skip) -> None:
        if item.reason not in _WHY_REASONS or len(self.by_url) >= _WHY_KEPT or item.relpath.endswith("/"):
            return
        from xml.sax.saxutils import escape as xml_escape  # not imported with the other commands

        why = item.reason.singular + (f": {display(item.detail)}" if item.detail else "")
        for form in page_forms(item.relpath):
            self.by_url[xml_escape(self.base_url + encoded_path(form)).encode("utf-8")] = why


@dataclass(frozen=True, slots=True)
class Comparison:
    """The published sitemaps against what a build would write now: what differs, if anything.

    `added`, `removed` and `changed` are the <loc>s, as written, of the pages
    whose <url> line differs, read only from the sitemap files that differ.
    """

    index: Path  # the published index
    found: bool = True  # False: there is no index, and nothing was compared
    current: bool = False  # the same sitemap files, byte for byte, and as many index files
    sitemaps: int = 0  # the sitemap files a build would write now
    pages: int = 0  # the pages it would list
    rewritten: int = 0  # how many of those sitemap files are not among the published ones
    added: tuple[bytes, ...] = ()
    removed: tuple[bytes, ...] = ()
    changed: tuple[bytes, ...] = ()
    missing_files: tuple[str, ...] = ()  # sitemap files the published index lists that are not there
    index_files: tuple[int, int] = (1, 1)  # index files published, and that a build would write now
    reasons: Mapping[bytes, str] = field(default_factory=dict)  # why a page a sitemap lists is left out now
    stylesheet: Path | None = None  # the sitemap.xsl a build would write, where the published one differs
    #: The HTML and text sitemaps and llms.txt a build would write, where the published ones differ.
    text: tuple[Path, ...] = ()
    included: tuple[str, ...] = ()  # the other builds' sitemaps the index lists: what would differ, and their URLs


def compare(config: Config, *, on_warning: Warn | None = None) -> Comparison:
    """Compare the published sitemaps with a fresh build of the docroot."""
    check_docroot(config)  # a docroot that is not there is bad input, as for build
    out = config.output_dir
    # Held throughout: a build publishing meanwhile would show a half-replaced set.
    with reading(out, on_warning), tempfile.TemporaryDirectory(prefix="sitemapgen-check-") as tmp:
        published = read_published(out)
        index = out / "sitemap.xml"
        if not index.is_file():
            return Comparison(index, found=False)
        why = _Why(config.base_url)
        fresh = build_elsewhere(config, Path(tmp), on_warning=on_warning, on_skip=why.hear)
        new = [(file_digest(s.path), s.path) for s in fresh.written.sitemaps]
        old = [(file_digest(out / name), out / name) for name in published]
        index_files = (sum(1 for _ in out.glob("sitemap-index-*.xml")) + 1, len(fresh.written.indexes))
        sheet = _stale_stylesheet(out, fresh.written.stylesheet)
        extra = (*fresh.written.html, *fresh.written.text, *fresh.written.llms)  # sitemap.html, ..., llms.txt
        text = tuple(out / t.path.name for t in extra if _differs(out / t.path.name, t.path))
        included = _included(published_others(out), published_others(Path(tmp)), fresh.included)
        current = [d for d, _ in new] == [d for d, _ in old] and index_files[0] == index_files[1]
        if current and sheet is None and not text and len(included) <= 1:
            return Comparison(index, current=True, sitemaps=len(new), pages=fresh.listed, included=included)
        differing = _differing(index, old, new, why.by_url)
        return replace(differing, index_files=index_files, stylesheet=sheet, text=text, included=included)


def _stale_stylesheet(out: Path, fresh: Path | None) -> Path | None:
    """The published ``sitemap.xsl``, where a build would write one (``stylesheet = true``) and
    the one there is missing or other than it."""
    if fresh is None or file_digest(out / fresh.name) == file_digest(fresh):
        return None
    return out / fresh.name


def _differs(published: Path, fresh: Path) -> bool:
    """Whether the published file is missing, or other than the one a build writes now."""
    return file_digest(published) != file_digest(fresh)


def _included(then: list[IndexEntry], now: list[IndexEntry], children: Sequence[Child]) -> tuple[str, ...]:
    """What the published index lists for other builds (``include``) against what it would list
    now: the line the summary ends with (their URLs), then one line for each entry that differs."""
    if not then and not now:
        return ()
    urls, kept = sum(c.urls for c in children), len(now) - len(children)
    said = [f"{plural(urls, 'URL')} of {plural(len(children), 'included sitemap')}"] if children else []
    said += [f"{plural(kept, 'included sitemap')} kept unread (optional)"] if kept else []
    lines = [", and " + ", ".join(said) if said else ""]
    old, new = dict(then), dict(now)
    for loc in dict.fromkeys([*old, *new]):
        if loc not in new:
            lines.append(f"  - included {loc} (no longer listed)")
        elif loc not in old:
            lines.append(f"  + included {loc}")
        elif old[loc] != new[loc]:
            lines.append(f"  ~ included {loc} (lastmod {old[loc] or 'none'}, now {new[loc] or 'none'})")
    return tuple(lines)


def _entries_unless(files: list[tuple[bytes | None, Path]], digests: set[bytes | None]) -> dict[bytes, bytes]:
    """loc -> the whole <url> line, for the files (digest, path) whose digest is not among `digests`."""
    entries: dict[bytes, bytes] = {}
    for digest, path in files:
        if digest not in digests:
            entries.update(_entries(path))
    return entries


def _differing(
    index: Path,
    old: list[tuple[bytes | None, Path]],
    new: list[tuple[bytes | None, Path]],
    reasons: Mapping[bytes, str],
) -> Comparison:
    """What differs, from the files that differ: `old` the published, `new` the fresh, (digest, path) each."""
    old_digests = {d for d, _ in old}
    new_digests = {d for d, _ in new}
    before = _entries_unless(old, new_digests)
    after = _entries_unless(new, old_digests)
    return Comparison(
        index,
        sitemaps=len(new),
        rewritten=sum(1 for d, _ in new if d not in old_digests),
        added=tuple(sorted(set(after) - set(before))),
        removed=tuple(sorted(set(before) - set(after))),
        changed=tuple(sorted(k for k in set(before) & set(after) if before[k] != after[k])),
        missing_files=tuple(p.name for d, p in old if d is None),
        reasons=reasons,
    )


def _account(comparison: Comparison, examples: int) -> tuple[str, ...]:
    """A comparison in a few lines: the verdict, then up to `examples` pages of each kind."""
    if not comparison.found:
        return (f"missing: no sitemap index at {comparison.index}",)
    if comparison.current:
        said = f"current: {plural(comparison.sitemaps, 'sitemap')}, {plural(comparison.pages, 'page')}"
        return (said + "".join(comparison.included[:1]),)
    return _stale(comparison, examples)


def _stale(comparison: Comparison, examples: int) -> tuple[str, ...]:
    """What is stale: the counts, the files missing, and up to `examples` pages added, removed and changed."""
    added, removed, changed = comparison.added, comparison.removed, comparison.changed
    lines = [
        f"stale: {plural(len(added), 'page')} added, {len(removed):,} removed, {len(changed):,} changed;"
        f" {comparison.rewritten:,} of {plural(comparison.sitemaps, 'sitemap')} would be written (run sitemapgen build)"
    ]
    lines.extend(comparison.included[1:])
    if comparison.rewritten and not (added or removed or changed or comparison.included[1:]):
        lines.append("  no page differs: the files around them do (the stylesheet line, or the sitemaps' opening)")
    if comparison.missing_files:
        lines.append(f"  listed but missing: {', '.join(comparison.missing_files)}")
    if comparison.stylesheet is not None:
        lines.append(f"  stylesheet: {comparison.stylesheet} is missing, or not as a build writes it")
    lines.extend(
        f"  {'llms.txt' if path.name == LLMS_NAME else _EXTRA[path.suffix]}: {path} is missing,"
        " or not as a build writes it"
        for path in comparison.text
    )
    published, now = comparison.index_files
    if published != now:
        why = "the sitemaps per index differ"
        lines.append(f"  index files: {published:,} published, {now:,} would be written ({why})")
    for mark, keys in (("+", added), ("-", removed), ("~", changed)):
        reasons = comparison.reasons if mark == "-" else {}
        for key in keys[:examples]:
            reason = reasons.get(key)
            lines.append(f"  {mark} {key.decode('utf-8', 'replace')}" + (f" ({reason})" if reason else ""))
        if len(keys) > examples:
            lines.append(f"  {mark} ... and {len(keys) - examples:,} more")
    return tuple(lines)


def check(config: Config, *, on_warning: Warn | None = None, examples: int = 5) -> CheckResult:
    """Compare the published sitemaps with a fresh build of the docroot, and say how they differ."""
    comparison = compare(config, on_warning=on_warning)
    return CheckResult(comparison.current, _account(comparison, examples))
