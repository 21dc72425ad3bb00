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
from sitemapgen.config.words import GitDate, GitPages, LastmodSource
from sitemapgen.lastmod.base import Source
from sitemapgen.lastmod.pagesources import read_page_sources
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


class GitUnavailable(Exception):
    """Git cannot give dates here: `str()` says what that means, in git's own first words."""


#: git's words, as it prints them in the C locale, and what they mean for the build.
_DUBIOUS = re.compile(r"dubious ownership in repository at '(.*)'")
_NO_COMMIT = ("does not have any commits yet", "bad default revision 'HEAD'")


def _git(args: Sequence[str], cwd: Path) -> bytes:
    env = {**os.environ, "LC_ALL": "C"}  # git's messages as written, whatever the user's locale
    try:
        result = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args], cwd=cwd, env=env, capture_output=True, check=False
        )
    except OSError as e:  # no git on PATH, or not runnable
        if not cwd.is_dir():
            raise GitUnavailable(f"{cwd} is not a directory") from None
        raise GitUnavailable(f"cannot run git ({e.strerror or e}): install git, or put it on PATH") from None
    if result.returncode != 0:
        lines = result.stderr.decode(errors="replace").strip().splitlines() or [f"exit status {result.returncode}"]
        raise GitUnavailable(_meaning(lines[0], cwd))
    return result.stdout


def _meaning(said: str, cwd: Path) -> str:
    """What git's first line `said` means, and git's line itself."""
    quoted = f'(git: "{said}")'
    dubious = _DUBIOUS.search(said)
    if dubious:
        where = dubious.group(1)
        return (
            f"git refuses the repository at {where}, which another user owns {quoted};"
            f" if you trust it: git config --global --add safe.directory {where}"
        )
    if "not a git repository" in said:
        return f"{cwd} is not in a git work tree {quoted}"
    if any(words in said for words in _NO_COMMIT):
        return f"the repository at {cwd} has no commit yet {quoted}"
    return f"git failed in {cwd} {quoted}"


def read_git_dates(directory: Path, date: GitDate = GitDate.COMMIT) -> GitDates | None:
    """`git_dates`, or None when git cannot give them (not a work tree, no git...)."""
    try:
        return git_dates(directory, date)
    except GitUnavailable:
        return None


def git_dates(directory: Path, date: GitDate = GitDate.COMMIT) -> GitDates:
    """Every tracked path's last commit time (commit or author time, as `date` says), in the
    repository `directory` is in; `GitUnavailable` when git cannot tell (no git, not in a work
    tree, git refuses the repository, no commit yet...), saying why in git's words.

    One `git log --name-only -z` pass, newest commit first: the first time a
    path appears is its last change. In a shallow clone the boundary commits
    seem to add every file at once; paths seen only there are reported apart,
    never given that commit's date.
    """
    root = Path(_git(["rev-parse", "--show-toplevel"], directory).decode().strip())
    shallow = _git(["rev-parse", "--is-shallow-repository"], root).strip() == b"true"
    boundary: set[str] = set()
    if shallow:
        shallow_file = Path(_git(["rev-parse", "--git-path", "shallow"], root).decode().strip())
        shallow_file = shallow_file if shallow_file.is_absolute() else root / shallow_file
        boundary = set(shallow_file.read_text().split())
    stamp_format = "%at" if date is GitDate.AUTHOR else "%ct"
    # HEAD left to log's default: named, in a repository with no commit git says only "bad
    # revision 'HEAD'"; unnamed, it says the branch has no commits yet.
    out = _git(["log", "-z", "--name-only", "--no-renames", f"--format=%x01%H {stamp_format}", "--"], root)
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
    """The last commit that touched the page, or the source file `[[git_sources]]` or the site
    generator maps it to (`Config.git_pages`; without it, the map its plugin left in the docroot,
    `pagesources`); a page made from every source, the newest of their commits."""

    def __init__(self, config: Config, warn: Warn, dry_run: bool, previous: Previous | None = None) -> None:
        self.git: GitDates | None = None
        self.docroot = config.docroot
        self.git_date = config.git_date
        self.prefix: str | None = None  # the docroot in the repository; None: outside it
        self.rewrites = [(re.compile(g.match), g.sources) for g in config.git_sources]
        self.sources: dict[str, str] = {}  # page -> its source file in the repository (git_pages)
        self.every: frozenset[str] = frozenset()  # pages made from every source (git_pages)
        self.shows: dict[str, tuple[str, ...]] = {}  # page -> the sources of what it shows (git_pages)
        self.newest: datetime | None = None  # the newest commit of those sources
        pages = config.git_pages if config.git_pages is not None else read_page_sources(config.docroot)
        try:
            self.git = git_dates(config.docroot if pages is None else pages.directory, config.git_date)
        except GitUnavailable as e:
            chain = list(config.lastmod)
            after = chain[chain.index(LastmodSource.GIT) + 1 :] if LastmodSource.GIT in chain else []
            instead = f"using the next source ({after[0].value!r})" if after else "no page gets a lastmod from it"
            warn(f"lastmod 'git': {e}; {instead}")
            return
        self.prefix = _in_repository(self.git.root, config.docroot)
        if self.prefix is not None:
            self.prefix = "" if self.prefix == "." else self.prefix + "/"
        if pages is not None:
            self.sources, self.shows = _sources_in_repository(self.git.root, pages)
            self.every = frozenset(pages.every)
            self.newest = max(filter(None, map(self.git.dates.get, self.sources.values())), default=None)
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
        """Said as it opened when git could not run; else what git knows of the sources or the docroot."""
        git = self.git
        if git is None:
            return None
        shallow = ", or last changed before this shallow clone's oldest commit" if git.shallow else ""
        if self.rewrites:
            return (
                f"neither the pages nor the files [[git_sources]] maps them to are tracked by git{shallow};"
                " check each rule's match and source against `git ls-files`"
            )
        if self.sources:
            return (
                f"git tracks none of the source files the pages were built from{shallow};"
                " commit them (git add, git commit), or date the pages by content: lastmod 'content'"
            )
        prefix = self.prefix
        tracked = prefix is not None and any(path.startswith(prefix) for path in (*git.dates, *git.shallow_paths))
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
        order: the first rule that matches gives its candidates; no rule, the source file
        the generator made it from; neither, the page's own (if the docroot is in the repository)."""
        ruled = self._ruled(relpath)
        if ruled is not None:
            return ruled
        source = self.sources.get(relpath)
        if source is not None:
            return [source]
        return [] if self.prefix is None else [self.prefix + relpath]

    def _ruled(self, relpath: str) -> list[str] | None:
        """The candidates of the first `[[git_sources]]` rule that matches `relpath`; None if none does."""
        for pattern, sources in self.rewrites:
            if pattern.search(relpath):
                return [pattern.sub(source, relpath, count=1) for source in sources]
        return None

    def date(self, page: Page, head: HeadFacts | None, warn: Warn) -> datetime | None:
        """The date of the first candidate git knows; None (the next source) when git knows
        none, or the first it knows was last changed before a shallow clone's history. A page
        made from every source (no rule naming it) gets the newest of their commits, one made from
        some of them (`GitPages.shows`) the newest of those."""
        git = self.git
        if git is None:
            return None
        if page.relpath in self.every and self._ruled(page.relpath) is None:
            return self.newest
        shown = self.shows.get(page.relpath)
        if shown is not None and self._ruled(page.relpath) is None:
            return max(filter(None, map(git.dates.get, shown)), default=None)
        for path in self.paths_of(page.relpath):
            when = git.dates.get(path)
            if when is not None:
                return when
            if path in git.shallow_paths:
                return None
        return None


def _in_repository(root: Path, path: Path) -> str | None:
    """`path` relative to the repository's top level `root` (``/`` separators), None outside it."""
    relative = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace(os.sep, "/")


def _sources_in_repository(root: Path, pages: GitPages) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """`pages`' sources as paths in the repository at `root` (those outside it left out): each
    page's own, and those of what each page of `GitPages.shows` shows.

    Only the directory's symlinks are resolved, once: a source that is a symlink is
    tracked by git as the link, so its own path is what git's history names.
    """
    given = os.path.abspath(pages.directory)
    real = os.path.realpath(given)
    top = os.path.realpath(root)

    def in_repository(source: str | Path) -> str | None:
        path = os.path.normpath(os.path.join(given, source))
        if path.startswith(given + os.sep):
            path = real + path[len(given) :]
        else:
            path = os.path.realpath(path)
        relative = os.path.relpath(path, top)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return None
        return relative.replace(os.sep, "/")

    found = {page: path for page, source in pages.sources.items() if (path := in_repository(source)) is not None}
    shows = {
        page: tuple(path for source in sources if (path := in_repository(source)) is not None)
        for page, sources in pages.shows.items()
    }
    return found, shows
