"""The words a setting's value takes: every enum of the configuration (and the git source
mapping), in a module that knows nothing of `Config`, so that the stages that define what a word
does (hosts, lastmod sources) can import them without importing the settings."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

#: How many bytes of a page are read to find its head, unless told otherwise (``head_max_bytes``).
DEFAULT_MAX_BYTES = 65_536


class Chunking(enum.Enum):
    """How pages are cut into sitemap files."""

    STABLE = "stable"  # content-defined: one page's change rewrites one file
    FILL = "fill"  # fill each file to the limits: fewest files, but a change shifts every later file


class RobotsTxt(enum.Enum):
    """What to do with the docroot's robots.txt."""

    OFF = "off"  # leave it alone
    UPDATE = "update"  # add or update the Sitemap: lines, if the file exists
    CREATE = "create"  # the same, and create the file if it is missing


class HostName(enum.Enum):
    """The static host the docroot is published on (``--host``)."""

    PLAIN = "plain"  # any static server: the URL style decides (no host files read)
    NETLIFY = "netlify"
    CLOUDFLARE = "cloudflare"
    VERCEL = "vercel"
    FIREBASE = "firebase"
    SERVE = "serve"


class LastmodSource(enum.Enum):
    """The sources a ``lastmod`` chain may name (each has its `Source` in `lastmod.SOURCES`)."""

    MTIME = "mtime"
    GIT = "git"
    META = "meta"
    CONTENT = "content"

    @property
    def reads_heads(self) -> bool:
        """Whether the source needs the page's head read (config refuses it with read_heads off)."""
        return self is LastmodSource.META


class GitDate(enum.Enum):
    """Which of a commit's two times dates the files it touched."""

    COMMIT = "commit"  # when the commit was made (or last rebased, amended, cherry-picked)
    AUTHOR = "author"  # when its change was first written: what Hugo's .GitInfo and many users take


@dataclass(frozen=True, slots=True)
class GitSource:
    """Maps a docroot page to the file in git whose history dates it (regex and replacement).

    `source` is one replacement, or candidates tried in order: the first path
    that git knows wins (``X.md``, else ``X/index.md``, else ``X/_index.md``;
    the translated file, else the English one).
    """

    match: str
    source: str | tuple[str, ...]

    @property
    def sources(self) -> tuple[str, ...]:
        return (self.source,) if isinstance(self.source, str) else self.source


@dataclass(frozen=True, slots=True)
class GitPages:
    """The source file each built page was made from, as the site generator that built it knows
    (the MkDocs plugin and the Sphinx extension pass it; not a config file's key).

    `sources` maps a page's path in the docroot (``/`` separators: ``guide/index.html``) to its
    source file, absolute or relative to `directory`, where git runs (the project: the docs
    directory, Sphinx's source directory), wherever the docroot is (``mkdocs serve`` builds into
    a temporary one). ``[[git_sources]]`` rules come first; a page neither names is dated by its
    own path, if it is in the repository.

    `every` names the pages made from every source (Sphinx's ``genindex``, ``py-modindex`` and
    ``search``; a theme's search page): each is dated by the newest date git gives the sources.
    `shows` maps a page made from some of them (Pelican's index, tag and archive pages) to the
    source files of what it shows: dated by the newest of their dates.
    """

    directory: Path
    sources: Mapping[str, str | Path]
    every: tuple[str, ...] = ()
    shows: Mapping[str, tuple[str | Path, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SiteFacts:
    """What a site generator knows of its pages that the built site does not say (the Pelican
    plugin passes it; not a config file's key), by each page's path in the docroot.

    `clusters`: a page's hreflang cluster, (language, page) of each of its versions, itself
    included, in place of its head's links (a theme's links between i18n_subsites' subsites name
    ``/fr/../a.html``). `dates`: its date from the generator's metadata, for lastmod ``meta``
    (Pelican's ``modified``, else ``date``).
    """

    clusters: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    dates: Mapping[str, datetime] = field(default_factory=dict)
