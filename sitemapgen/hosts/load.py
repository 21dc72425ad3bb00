"""The registry of hosts and the one loader: which model serves each ``--host``, the host's
files read from where the config says they are, and the effective config (the host's URL
form applied), which every command resolves once. The only module of `hosts` that reads a
`Config`."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sitemapgen._types import Warn
from sitemapgen.config.words import HostName
from sitemapgen.errors import ConfigError
from sitemapgen.hosts.base import Host
from sitemapgen.hosts.cloudflare import Cloudflare
from sitemapgen.hosts.files import HeaderRule, HostFiles, Redirect
from sitemapgen.hosts.firebase import Firebase, read_firebase_json
from sitemapgen.hosts.lines import read_headers_file, read_redirects_file
from sitemapgen.hosts.netlify import Netlify, read_netlify_toml
from sitemapgen.hosts.serve import Serve, read_serve_json
from sitemapgen.hosts.vercel import Vercel, read_vercel_json
from sitemapgen.util.safeio import read_regular

if TYPE_CHECKING:
    from sitemapgen.config.settings import Config

#: The host models, one class per host, named as ``--host`` names it (``plain`` has none).
HOSTS: dict[HostName, type[Host]] = {
    HostName.CLOUDFLARE: Cloudflare,
    HostName.NETLIFY: Netlify,
    HostName.FIREBASE: Firebase,
    HostName.VERCEL: Vercel,
    HostName.SERVE: Serve,
}

#: The file a host keeps at the project's top (or in the docroot), which --host-config names.
TOP_FILES = {
    HostName.NETLIFY: "netlify.toml",
    HostName.VERCEL: "vercel.json",
    HostName.FIREBASE: "firebase.json",
    HostName.SERVE: "serve.json",
}


#: The most of a ``_headers`` or ``_redirects`` file read (Cloudflare's limits make 4 MB).
LINE_FILE_LIMIT = 16 * 1_048_576


def _line_file(docroot: Path, name: str) -> str | None:
    """A docroot file of a line format (``_headers``, ``_redirects``), or None if there is none.

    A symlink to outside the docroot is not read (its lines would be said back in warnings),
    nor a FIFO or a device (it would never end)."""
    path = docroot / name
    if path.is_symlink() and not os.path.realpath(path).startswith(os.path.join(os.path.realpath(docroot), "")):
        raise ConfigError("", "a symlink to outside the docroot: not read", source=str(path))
    try:
        data = read_regular(path, follow_symlinks=True, limit=LINE_FILE_LIMIT + 1)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError("", f"cannot read it: {e.strerror or e}", source=str(path)) from None
    if len(data) > LINE_FILE_LIMIT:
        raise ConfigError("", f"larger than {LINE_FILE_LIMIT:,} bytes: not a host's rules file", source=str(path))
    return data.decode("utf-8", "replace")


def _top_file(config: Config, name: str) -> Path | None:
    """--host-config, else the file in the docroot, else beside it (the project's top), but
    for serve.json, which serve reads from the directory it serves only."""
    if config.host_config is not None:
        if not config.host_config.is_file():
            raise ConfigError("host_config", f"no such file: {config.host_config}")
        return config.host_config
    places = [config.docroot] if config.host is HostName.SERVE else [config.docroot, config.docroot.resolve().parent]
    for place in places:
        if (place / name).is_file():
            return place / name
    return None


def _line_files(config: Config, host: HostName) -> HostFiles:
    """Netlify's and Cloudflare's files: ``_redirects`` (first) and ``_headers`` in the
    docroot, then for Netlify netlify.toml's tables."""
    docroot = Path(config.docroot)
    redirects: list[Redirect] = []
    headers: list[HeaderRule] = []
    rejected: list[str] = []
    text = _line_file(docroot, "_redirects")
    if text is not None:
        redirects, rejected = read_redirects_file(text, "_redirects", host.value)
    text = _line_file(docroot, "_headers")
    if text is not None:
        headers, refused = read_headers_file(text, "_headers", host.value)
        rejected += refused
    top = _top_file(config, TOP_FILES[host]) if host in TOP_FILES else None
    if top is not None:
        more_redirects, more_headers, refused = read_netlify_toml(top, str(top))
        redirects, headers, rejected = redirects + more_redirects, headers + more_headers, rejected + refused
    return HostFiles(tuple(redirects), tuple(headers), rejected=tuple(rejected))


def _read_files(config: Config) -> HostFiles:
    """What `config.host` reads, from where it keeps it."""
    host = config.host
    if host is HostName.CLOUDFLARE and config.host_config is not None:
        raise ConfigError("host_config", "Cloudflare Pages reads only _headers and _redirects, in the docroot")
    if host in (HostName.NETLIFY, HostName.CLOUDFLARE):
        return _line_files(config, host)
    top = _top_file(config, TOP_FILES[host])
    if top is None:  # each host's defaults: serve's cleanUrls is on unless its file says otherwise
        return HostFiles(clean_urls=host is HostName.SERVE)
    shown = str(top)
    if host is HostName.VERCEL:
        return read_vercel_json(top, shown)
    if host is HostName.SERVE:
        return read_serve_json(top, shown)
    files, public = read_firebase_json(top, shown)
    if public is not None and (top.parent / public).resolve() != Path(config.docroot).resolve():
        raise ConfigError("hosting.public", f"is {public!r}, which is not the docroot {config.docroot}", source=shown)
    return files


def effective_config(config: Config, warn: Warn) -> tuple[Config, Host | None]:
    """`config` as its host serves it, and the host model (None for ``plain``): the host's
    preferred URL form becomes `url_style`, the style of what is not asked of the host
    (robots.txt, reports). Lines of the host's files that it would reject are said through `warn`.
    Every command resolves this once, before any stage sees the config."""
    host = load_host(config)
    if host is None:
        return config, None
    for line in host.files.rejected:
        warn(line)
    return dataclasses.replace(config, url_style=host.style), host


def load_host(config: Config) -> Host | None:
    """The host model for `config.host` (see `HOSTS`), from its files; None for ``plain``.
    A file the host would not accept is a `ConfigError`; lines it would reject are in its
    files' `rejected`."""
    if config.host is HostName.PLAIN:
        return None
    production = urlsplit(config.base_url).hostname or ""  # without a port: hosts match the name
    return HOSTS[config.host](_read_files(config), Path(config.docroot), production, config.url_style)
