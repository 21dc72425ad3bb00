"""Why a page is or is not listed: a view of the decisions `build` makes, for the pages asked.

The pages go through the same `Pipeline` as a build, in one run for all of
them: the walk lists only the directories on their way (so an excluded or
symlinked directory above a page, or an earlier file with the same URL, is
found exactly as the build finds it), then each page is decided and settled as
in a build. Values are formatted as the sitemap writes them.

A page may be asked for by its URL too: it is the file the site's server answers that URL
with, found as a canonical URL is (the host's model with ``host``, else a plain static
server's answer in the configured URL style: `urls.served_files`).
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sitemapgen._types import Warn
from sitemapgen.commands.explain_documents import document_lines, not_a_document
from sitemapgen.config.settings import Config
from sitemapgen.deploy.memory import read_previous_deploy
from sitemapgen.entry import Alternate, format_lastmod, format_priority
from sitemapgen.errors import SitemapgenError
from sitemapgen.hosts.base import Host
from sitemapgen.hosts.load import effective_config
from sitemapgen.hrefs import normalize_url
from sitemapgen.output.outdir import check_docroot
from sitemapgen.pipeline.decide import Outcome
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.forms import Forms
from sitemapgen.skips import Skip, SkipReason, display
from sitemapgen.urls import Served, decoded_path, is_page_name, path_past_base, served_files

logger = logging.getLogger("sitemapgen")


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why one file is or is not in the sitemap, in words for the user.

    `relpath` is the file explained; for a URL that no file answers, the URL as asked.
    """

    relpath: str
    listed: bool
    lines: tuple[str, ...]


def _relpath_in(config: Config, path: str) -> str:
    """`path` (relative to the docroot, or any path to a file in it) as a docroot relpath."""
    candidate = Path(path)
    inside = posixpath.normpath(path.lstrip("/"))  # ./a.html and a//b.html as the walk spells them
    if os.path.lexists(candidate):  # a file by its path; else a path in the docroot, /a.html as ./a.html
        try:
            relpath = os.path.relpath(os.path.abspath(candidate), os.path.abspath(config.docroot)).replace(os.sep, "/")
        except ValueError:
            return inside
        # Outside the docroot from here ("." run elsewhere), but a path in it: the docroot's.
        if not _outside(relpath) or not os.path.lexists(os.path.join(config.docroot, inside)):
            return relpath
    return inside


def _outside(relpath: str) -> bool:
    """Whether a relpath (normalized) leads out of the docroot."""
    return relpath == ".." or relpath.startswith("../")


def _not_a_candidate(config: Config, relpath: str) -> str | None:
    """Why the walk would never consider `relpath` a page, or None if it would."""
    full = os.path.join(config.docroot, relpath)
    if _outside(relpath):
        return "outside the docroot"
    if not os.path.lexists(full):
        return "no such file in the docroot"
    if os.path.isdir(full) and not os.path.islink(full):
        return "a directory, not a page"
    if not is_page_name(relpath):
        return not_a_document(config, relpath)
    return None


def _reason(skip: Skip) -> str:
    """A skip in words, with the detail that says which pattern, page or target."""
    reason, detail = skip.reason, skip.detail
    if reason is SkipReason.EXCLUDED_DIR:
        return f"directory {display(skip.relpath)} excluded by pattern {detail!r}"
    if reason is SkipReason.DIR_SYMLINK and skip.relpath.endswith("/"):
        return f"inside {display(skip.relpath)}, a directory symlink, which is not followed"
    if reason is SkipReason.UNREADABLE and skip.relpath.endswith("/"):
        return f"inside {display(skip.relpath)}, which cannot be read ({detail})"
    if reason is SkipReason.EXCLUDED:
        return f"excluded by pattern {detail!r}"
    return reason.singular + (f" ({display(detail)})" if detail else "")


def _above(relpath: str, found: dict[str, Outcome]) -> Skip | None:
    """The skip of the highest directory above `relpath` that the walk did not enter."""
    parts = relpath.split("/")
    for depth in range(1, len(parts)):
        outcome = found.get("/".join(parts[:depth]) + "/")
        if outcome is not None and outcome.skip is not None:
            return outcome.skip
    return None


def _explained(config: Config, relpath: str, outcome: Outcome, forms: Forms) -> Explanation:
    shown = display(relpath)
    notes = (
        *(f"  warning: {message}" for message in outcome.warnings),
        *(f"  note: {kind.value}: {example}" for kind, example in outcome.notes),
    )
    if outcome.skip is not None:
        return Explanation(relpath, False, (f"{shown}: not listed: {_reason(outcome.skip)}", *notes))
    entry = outcome.entry
    assert entry is not None
    lines = [f"{shown}: listed as {entry.loc}", *document_lines(config, relpath)]
    if entry.lastmod is not None:
        lines.append(
            f"  lastmod {format_lastmod(entry.lastmod, config.lastmod_format)} (from {outcome.lastmod_source})"
        )
    if entry.priority is not None:
        lines.append(f"  priority {format_priority(entry.priority)} (from [[rules]])")
    if entry.changefreq is not None:
        lines.append(f"  changefreq {entry.changefreq.value} (from [[rules]])")
    if entry.section:
        lines.append(f"  in the sitemap series {entry.section!r} (from [[sitemaps]])")
    lines.extend(_alternate(alternate, forms) for alternate in entry.alternates)
    lines.extend(f"  image {image}" for image in entry.images)
    return Explanation(relpath, True, (*lines, *notes))


def _alternate(alternate: Alternate, forms: Forms) -> str:
    """An hreflang link as the build publishes it: a page of this site in the form it is listed."""
    form = forms.listed(alternate.href)
    if form is None or form.listed == alternate.href:
        return f"  hreflang {alternate.hreflang}: {alternate.href}"
    how = "which redirects to it" if form.redirected else "another URL of its file"
    said = f"the head names {alternate.href}, {how}: taken in its listed form"
    return f"  hreflang {alternate.hreflang}: {form.listed} ({said})"


def _decided(config: Config, host: Host | None, targets: list[str], warn: Warn) -> dict[str, Outcome]:
    """The outcome of each of `targets` (and of the directories above them), as `build` decides,
    with the previous deploy read as `build` reads it. What a build says of all its pages is not
    said: each page's own warnings and lastmod source are said under it."""
    previous = read_previous_deploy(config, warn)
    found: dict[str, Outcome] = {}
    try:
        pipeline = Pipeline(config, host, warn=warn, dry_run=True, previous=previous)
        try:
            for outcome in pipeline.outcomes(targets):
                found.setdefault(outcome.relpath, outcome)
        finally:
            pipeline.abort()
    finally:
        if previous is not None:
            previous.close()
    return found


#: What is asked as a URL rather than a path: a scheme, then ``://``.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True, slots=True)
class _Asked:
    """One page asked for: its relpath, and for a URL the line that says which file answers it."""

    relpath: str
    url_line: str | None = None
    unanswered: str | None = None  # a URL no file answers: why, in one line


def _file_of(config: Config, host: Host | None, url: str) -> _Asked:
    """The page the site's server answers `url` with; `SitemapgenError` if `url` is not on the site."""
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        raise SitemapgenError(f"{url}: not an http(s) URL; give a page's URL under {config.base_url} or its path")
    asked, base = normalize_url(url), normalize_url(config.base_url)
    served = None
    if urlsplit(asked)[:2] == urlsplit(base)[:2]:
        served = served_files(asked, base, config.url_style) if host is None else host.served(asked, base)
    if served is None:
        raise SitemapgenError(f"{url}: not a URL of this site, whose pages are under {config.base_url}")
    direct = _first_file(config, served.direct)
    if direct is not None:
        return _Asked(direct, f"{url}: answered with {display(direct)}")
    redirected = _first_file(config, served.redirected)
    if redirected is not None:
        return _Asked(redirected, f"{url}: answered with {display(redirected)} after a redirect")
    named = path_past_base(asked, base) if host is None and served.direct + served.redirected else None
    other = None if named is None else _first_file(config, (decoded_path(named),))
    if other is not None:  # a file that is not a page (robots.txt): its explanation says so
        return _Asked(other, f"{url}: answered with {display(other)}")
    how = _tried(served) if host is None else f" (as {host.name.value} serves the site)"
    return _Asked(url, None, f"{url}: not listed: no file in the docroot answers it{how}")


def _first_file(config: Config, relpaths: tuple[str, ...]) -> str | None:
    return next((relpath for relpath in relpaths if os.path.isfile(os.path.join(config.docroot, relpath))), None)


def _tried(served: Served) -> str:
    tried = (*served.direct, *served.redirected)
    return f" (looked for {', '.join(display(relpath) for relpath in tried)})" if tried else ""


def _asked(config: Config, host: Host | None, page: str) -> _Asked:
    if _URL.match(page):
        return _file_of(config, host, page)
    relpath = _relpath_in(config, page)
    full = os.path.join(config.docroot, relpath)
    if os.path.isdir(full) and not os.path.islink(full):  # a folder: the page it stands for, its index
        names = (posixpath.normpath(posixpath.join(relpath, name)) for name in ("index.html", "index.htm"))
        index = _first_file(config, tuple(names))
        if index is not None:
            return _Asked(index, f"{page}: a directory; its page is {display(index)}")
    return _Asked(relpath)


def explain(config: Config, paths: Sequence[str], *, on_warning: Warn | None = None) -> list[Explanation]:
    """Say, for each of `paths`, why the page is or is not listed, as `build` decides.

    Each of `paths` is a path relative to the docroot, a path to a file in it,
    or a URL under the base URL: the page the site's server answers it with.
    A URL on another host or outside the base URL is a `SitemapgenError`.
    `on_warning` hears what concerns the whole build (a missing git work tree,
    a new content store); what concerns a page is in its explanation.
    """
    check_docroot(config)
    warn = on_warning or logger.warning
    config, host = effective_config(config, warn)
    asked = [_asked(config, host, path) for path in paths]
    relpaths = [page.relpath for page in asked if page.unanswered is None]
    early = {relpath: why for relpath in relpaths if (why := _not_a_candidate(config, relpath)) is not None}
    targets = [relpath for relpath in relpaths if relpath not in early]
    found = _decided(config, host, targets, warn) if targets else {}
    forms = Forms(config, host)
    answers = []
    for page in asked:
        answer = _answer(config, page.relpath, found, early, forms) if page.unanswered is None else None
        if answer is None:
            answers.append(Explanation(page.relpath, False, (page.unanswered or "",)))
        elif page.url_line is not None:
            answers.append(Explanation(answer.relpath, answer.listed, (page.url_line, *answer.lines)))
        else:
            answers.append(answer)
    return answers


def _answer(
    config: Config, relpath: str, found: dict[str, Outcome], early: dict[str, str], forms: Forms
) -> Explanation:
    decided = found.get(relpath)
    if decided is not None:
        return _explained(config, relpath, decided, forms)
    above = _above(relpath, found)
    why = early.get(relpath) or (_reason(above) if above is not None else "not reached by the walk")
    return Explanation(relpath, False, (f"{display(relpath)}: not listed: {why}",))
