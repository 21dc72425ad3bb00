"""Lastmod source 'git': the last commit that touched the page or its source, with the last
commit time of every tracked path read in one `git log` pass."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapgen._types import Warn
from sitemapgen.config.words import GitDate, LastmodSource
from sitemapgen.errors import SitemapgenError
from sitemapgen.lastmod.base import Source
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Page

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config
    from sitemapgen.deploy.previous import Previous


@dataclass(frozen=True, slots=True)
class GitDates:
    """Last commit time per path, from one `git log` pass over the whole repository."""

    root: Path  # the repository's top level
    dates: Mapping[str, datetime]  # path relative to `root` -> commit time
    shallow_paths: frozenset[str]  # paths whose only commit is a shallow boundary: date unknown
    shallow: bool


def _git(args: Sequence[str], cwd: Path) -> bytes:
    result = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, capture_output=True, check=False)
    if result.returncode != 0:
        raise SitemapgenError(f"git {' '.join(args)}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def read_git_dates(directory: Path, date: GitDate = GitDate.COMMIT) -> GitDates | None:
    """Every tracked path's last commit time (commit or author time, as `date` says), or
    None when `directory` is not in a git work tree.

    One `git log --name-only -z` pass, newest commit first: the first time a
    path appears is its last change. In a shallow clone the boundary commits
    seem to add every file at once; paths seen only there are reported apart,
    never given that commit's date.
    """
    try:
        top = _git(["rev-parse", "--show-toplevel"], directory).decode().strip()
    except (SitemapgenError, FileNotFoundError):
        return None
    root = Path(top)
    shallow = _git(["rev-parse", "--is-shallow-repository"], root).strip() == b"true"
    boundary: set[str] = set()
    if shallow:
        shallow_file = Path(_git(["rev-parse", "--git-path", "shallow"], root).decode().strip())
        shallow_file = shallow_file if shallow_file.is_absolute() else root / shallow_file
        boundary = set(shallow_file.read_text().split())
    stamp_format = "%at" if date is GitDate.AUTHOR else "%ct"
    out = _git(["log", "-z", "--name-only", "--no-renames", f"--format=%x01%H {stamp_format}", "HEAD", "--"], root)
    dates: dict[str, datetime] = {}
    unknown: set[str] = set()
    when: datetime | None = None
    at_boundary = False
    for field in out.split(b"\0"):
        if field.startswith(b"\n"):
            field = field[1:]
        if field.startswith(b"\x01"):
            header, _, first = field[1:].partition(b"\n")
            sha, _, stamp = header.decode().partition(" ")
            when = datetime.fromtimestamp(int(stamp), tz=UTC)
            at_boundary = sha in boundary
            field = first
        if not field or when is None:
            continue
        path = os.fsdecode(field)
        if path in dates or path in unknown:
            continue
        if at_boundary:
            unknown.add(path)
        else:
            dates[path] = when
    return GitDates(root, dates, frozenset(unknown), shallow)


class GitLastmod(Source):
    """The last commit that touched the page, or the source file `[[git_sources]]` maps it to."""

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.git: GitDates | None = read_git_dates(config.docroot, config.git_date)
        self.docroot = config.docroot
        self.git_date = config.git_date
        self.prefix = ""
        self.rewrites = [(re.compile(g.match), g.sources) for g in config.git_sources]
        if self.git is None:
            chain = list(config.lastmod)
            after = chain[chain.index(LastmodSource.GIT) + 1 :] if LastmodSource.GIT in chain else []
            instead = f"using the next source ({after[0].value!r})" if after else "no page gets a lastmod from it"
            warn(f"lastmod 'git': {config.docroot} is not in a git work tree; {instead}")
            return
        prefix = os.path.relpath(os.path.realpath(config.docroot), os.path.realpath(self.git.root))
        self.prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
        if self.git.shallow:
            warn(
                "lastmod 'git': this is a shallow clone; files last changed before its oldest commit"
                f" ({len(self.git.shallow_paths):,} paths) get the next source's lastmod, not a made-up date."
                " Fetch the full history (e.g. actions/checkout with fetch-depth: 0)"
            )

    def odd_dates(self, future: bool) -> str:
        other = "commit" if self.git_date is GitDate.AUTHOR else "author"
        return (
            f"the last commits that touched them carry that {self.git_date.value} date (a clock set wrong where"
            f" they were made): if their {other} dates are right, set git_date = \"{other}\"; else put 'content'"
            " before 'git' in lastmod"
        )

    def why_none(self) -> str | None:
        """Said as it opened when there is no work tree; else what git knows of the docroot."""
        git = self.git
        if git is None:
            return None
        shallow = ", or last changed before this shallow clone's oldest commit" if git.shallow else ""
        if self.rewrites:
            return (
                f"neither the pages nor the files [[git_sources]] maps them to are tracked by git{shallow};"
                " check each rule's match and source against `git ls-files`"
            )
        tracked = any(path.startswith(self.prefix) for path in (*git.dates, *git.shallow_paths))
        if tracked:
            why = f"none of the pages is tracked by git{shallow}"
        elif self.ignored():
            why = f"git ignores {self.docroot} (built output)"
        else:
            why = f"git tracks no file in {self.docroot}"
        return (
            f"{why}; map built pages to the files they are made from with [[git_sources]] in the config,"
            " or date them by content: lastmod 'content' with previous, the deployed index"
            " (--lastmod content --previous URL)"
        )

    def ignored(self) -> bool:
        """Whether git ignores the docroot (or a folder above it in the work tree)."""
        assert self.git is not None
        if not self.prefix:
            return False
        result = subprocess.run(
            ["git", "check-ignore", "-q", "--", self.prefix.rstrip("/")],
            cwd=self.git.root,
            capture_output=True,
            check=False,
        )
        return result.returncode == 0

    def paths_of(self, relpath: str) -> list[str]:
        """The paths in the repository whose history may date the page at `relpath`, in
        order: the first rule that matches gives its candidates; no rule, the page's own."""
        for pattern, sources in self.rewrites:
            if pattern.search(relpath):
                return [pattern.sub(source, relpath, count=1) for source in sources]
        return [self.prefix + relpath]

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | None:
        """The date of the first candidate git knows; None (the next source) when git knows
        none, or the first it knows was last changed before a shallow clone's history."""
        git = self.git
        if git is None:
            return None
        for path in self.paths_of(page.relpath):
            when = git.dates.get(path)
            if when is not None:
                return when
            if path in git.shallow_paths:
                return None
        return None
