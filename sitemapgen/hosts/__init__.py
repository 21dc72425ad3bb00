"""The static hosts: what each one serves at a URL, read from its own files.

`base` holds `Host`, the model every host shares; each host is a module of its own
(`netlify`, `cloudflare`, `vercel`, `firebase`, `serve`: its model and the reader of its
own file); `lines` reads the ``_headers`` and ``_redirects`` files Netlify and Cloudflare
share, `files` the rules they all give, `patterns` their matching languages; `load` names
every host in `HOSTS` and reads a host's files from a `Config`.

Adding a static host: a member of `HostName` (`config.words`); a module here with its
`Host` subclass (`respond`, where header matching differs `_headers_for` or `_robots_tags`,
`preferred` forms) and the reader of its file; in `load`, its entry in `HOSTS` and its
reader in `_read_files` (and its file's name in `TOP_FILES`).
"""

from sitemapgen.hosts.base import Answer, CleanUrlHost, Host, page_forms, says_noindex
from sitemapgen.hosts.cloudflare import Cloudflare
from sitemapgen.hosts.files import HeaderRule, HostFiles, Origin, Redirect
from sitemapgen.hosts.firebase import Firebase, read_firebase_json
from sitemapgen.hosts.lines import read_headers_file, read_redirects_file
from sitemapgen.hosts.load import HOSTS, LINE_FILE_LIMIT, TOP_FILES, effective_config, load_host
from sitemapgen.hosts.netlify import Netlify, read_netlify_toml
from sitemapgen.hosts.patterns import (
    glob_pattern,
    netlify_header_pattern,
    netlify_redirect_pattern,
    path_to_regexp,
    splat_pattern,
)
from sitemapgen.hosts.serve import Serve, read_serve_json
from sitemapgen.hosts.vercel import Vercel, read_vercel_json

__all__ = [
    "HOSTS",
    "LINE_FILE_LIMIT",
    "TOP_FILES",
    "Answer",
    "CleanUrlHost",
    "Cloudflare",
    "Firebase",
    "HeaderRule",
    "Host",
    "HostFiles",
    "Netlify",
    "Origin",
    "Redirect",
    "Serve",
    "Vercel",
    "effective_config",
    "glob_pattern",
    "load_host",
    "netlify_header_pattern",
    "netlify_redirect_pattern",
    "page_forms",
    "path_to_regexp",
    "read_firebase_json",
    "read_headers_file",
    "read_netlify_toml",
    "read_redirects_file",
    "read_serve_json",
    "read_vercel_json",
    "says_noindex",
    "splat_pattern",
]
