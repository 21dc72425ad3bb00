"""The page -> source file map a site generator's plugin leaves beside the sitemaps, for the CLI.

The MkDocs plugin and the Sphinx extension know which file each page was made
from (`GitPages`); flags cannot say it. With ``lastmod`` git, they leave it in
the docroot as `SOURCES_NAME`, so that ``sitemapgen check`` (``build``, ``list``,
``explain``) given the same settings dates each page as the plugin did. Paths
in it are relative (the source directory to the docroot, each source to that
directory): it names no home directory, and still holds when the checkout moves.
The same pages give the same bytes, and a file already holding them is left
untouched. It is replaced only where the file there is one of ours; one that is
not, or is not as we write it, is bad input, named in one line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sitemapgen.config.words import GitPages
from sitemapgen.errors import ConfigError, EnvironmentFailure, SitemapgenError
from sitemapgen.util.safeio import NotRegularFile, read_regular, write_beside

#: The map's file name in the docroot. Not ``sitemap*``: no tool takes it for a sitemap.
SOURCES_NAME = "sitemapgen-sources.json"
#: The first key, and the format's version.
SOURCES_KEY = "sitemapgen-sources"
SOURCES_VERSION = 1
_LIMIT = 64 << 20  # far above the map of a 200,000-page site


def encode(docroot: Path, pages: GitPages) -> bytes:
    """`pages` as the file holds them: the same pages, the same bytes."""
    directory = os.path.abspath(pages.directory)
    value: dict[str, Any] = {
        SOURCES_KEY: SOURCES_VERSION,
        "directory": os.path.relpath(directory, os.path.abspath(docroot)),
        "pages": {
            page: os.path.relpath(os.path.join(directory, source), directory)
            for page, source in sorted(pages.sources.items())
        },
        "every": sorted(set(pages.every)),
    }
    if pages.shows:  # Pelican's pages made of others; absent from the maps of the other plugins
        value["shows"] = {
            page: [os.path.relpath(os.path.join(directory, source), directory) for source in sources]
            for page, sources in sorted(pages.shows.items())
        }
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _raw(path: Path) -> bytes | None:
    """The file's bytes; None where there is none. Anything but a regular file (a symlink, a
    directory) is not one sitemapgen wrote."""
    try:
        return read_regular(path, limit=_LIMIT + 1, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except NotRegularFile as e:
        raise _not_ours(path, e.kind) from None
    except OSError as e:
        if not path.is_symlink():
            raise EnvironmentFailure(f"{path}: cannot read it: {e.strerror or e}") from None
        raise _not_ours(path, "a symlink") from None


def _not_ours(path: Path, what: str) -> ConfigError:
    return ConfigError("", f"{what}, not the page-source map sitemapgen writes there; move it away", source=str(path))


def read_page_sources(docroot: Path) -> GitPages | None:
    """The map a plugin left in `docroot`; None where there is none. One that is not ours, or
    not as we write it, is a `ConfigError` naming the file and the key."""
    path = docroot / SOURCES_NAME
    raw = _raw(path)
    if raw is None:
        return None
    if len(raw) > _LIMIT:
        raise _not_ours(path, f"over {_LIMIT >> 20} MiB")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        raise _not_ours(path, "not JSON") from None
    if not isinstance(value, dict) or value.get(SOURCES_KEY) != SOURCES_VERSION:
        raise _not_ours(path, f"no {SOURCES_KEY!r}: {SOURCES_VERSION}")
    directory, pages, every = value.get("directory"), value.get("pages"), value.get("every")
    shows = value.get("shows", {})
    if not isinstance(directory, str) or not directory:
        raise ConfigError("directory", "must be a path relative to the docroot", source=str(path))
    if not isinstance(pages, dict) or not all(isinstance(s, str) and s for s in pages.values()):
        raise ConfigError("pages", "must map each page to its source file", source=str(path))
    if not isinstance(every, list) or not all(isinstance(page, str) for page in every):
        raise ConfigError("every", "must be a list of pages", source=str(path))
    return GitPages(docroot / directory, pages, tuple(every), _shows(shows, path))


def _shows(value: object, path: Path) -> dict[str, tuple[str, ...]]:
    """The map's ``shows`` (Pelican's pages made of others): each page's list of source files."""
    if not isinstance(value, dict) or not all(
        isinstance(sources, list) and all(isinstance(s, str) and s for s in sources) for sources in value.values()
    ):
        raise ConfigError("shows", "must map each page to the source files of what it shows", source=str(path))
    return {page: tuple(sources) for page, sources in value.items()}


def write_page_sources(docroot: Path, pages: GitPages) -> bool:
    """Leave `pages` in `docroot`, replacing only a map of ours; False where the one there
    already said the same (then untouched). A file there that is not ours is a `ConfigError`."""
    path = docroot / SOURCES_NAME
    data = encode(docroot, pages)
    old = _raw(path)
    if old == data:
        return False
    if old is not None:
        read_page_sources(docroot)  # ours, as we write it: else said, and left as it is
    try:
        write_beside(path, data, over=old is not None)  # a rename: never through a symlink put there meanwhile
    except FileExistsError:
        raise SitemapgenError(f"{path}: appeared while sitemapgen wrote it; run the build again") from None
    except OSError as e:
        raise EnvironmentFailure(f"{path}: cannot write it: {e.strerror or e}") from None
    return True
