"""Last commit time of every tracked path, from one `git log` pass (lastmod source 'git')."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sitemapgen.config.words import GitDate
from sitemapgen.errors import SitemapgenError


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
