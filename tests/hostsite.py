"""A site that carries every rule kind a static host reads, in each host's own files.

The host tests build it, run the host's own local server on it, and compare
what that server answers with what sitemapgen decides. Run as a script it
writes the site for one host: ``python tests/hostsite.py DIR HOST``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Every page of the site, each a whole HTML page with its own title.
PAGES = (
    "index.html",
    "about.html",
    "contact.html",
    "terms.html",  # a header rule names /terms.html, the file's own path
    "widget.html",  # a file and a folder of one name
    "widget/index.html",
    "docs/index.html",
    "docs/guide.html",
    "docs/api/index.html",
    "docs/api/ref.html",
    "private/index.html",  # /private/* carries noindex
    "private/secret.html",
    "old.html",  # a redirect from the file's own path, not forced
    "old-clean.html",  # a redirect from the clean form /old-clean
    "forced.html",  # a forced redirect (Netlify's 301!, force = true)
    "gone/page.html",  # /gone/* redirects with a splat
    "staging.html",  # noindex only on another host (Cloudflare's host-scoped rule)
    "kept.html",  # noindex for /k*, then detached (Cloudflare's ! line)
    "bot.html",  # X-Robots-Tag: googlebot: noindex
    "none.html",  # X-Robots-Tag: NONE
    "follow.html",  # X-Robots-Tag: nofollow (indexable)
    "query.html",  # a redirect only with a query parameter
    "app/index.html",  # /app/* is rewritten to it (200)
    "blog/index.html",
    "blog/post.html",
)

#: Every `_headers` rule, as (pattern, [header lines]); Netlify and Cloudflare read the same lines.
_HEADERS = (
    ("/*", ["X-Frame-Options: DENY"]),
    ("/private/*", ["X-Robots-Tag: noindex"]),
    ("/terms.html", ["X-Robots-Tag: noindex, nofollow"]),
    ("https://staging.example.pages.dev/*", ["X-Robots-Tag: noindex"]),
    ("/bot.html", ["X-Robots-Tag: googlebot: noindex"]),
    ("/none.html", ["X-Robots-Tag: NONE"]),
    ("/follow.html", ["X-Robots-Tag: nofollow"]),
)

_REDIRECTS_COMMON = (
    "/old.html /about.html 301",
    "/old-clean /about 301",
    "/gone/* /docs/:splat 301",
    "/app/* /app/index.html 200",
)


def _headers_file(host: str) -> str:
    lines = ["# sitemapgen's host test site"]
    for pattern, values in _HEADERS:
        lines.append(pattern)
        lines.extend(f"  {value}" for value in values)
    if host == "cloudflare":
        lines += ["/k*", "  X-Robots-Tag: noindex", "/kept.html", "  ! X-Robots-Tag"]
    return "\n".join(lines) + "\n"


def _redirects_file(host: str) -> str:
    lines = ["# sitemapgen's host test site", *_REDIRECTS_COMMON, "/forced.html /about.html 301!"]
    lines.append("/query.html id=:id /about.html 301")
    return "\n".join(lines) + "\n"


def _json_headers(private: str) -> list[dict[str, object]]:
    def rule(source: str, value: str) -> dict[str, object]:
        return {"source": source, "headers": [{"key": "X-Robots-Tag", "value": value}]}

    return [
        rule(private, "noindex"),
        rule("/terms.html", "noindex, nofollow"),
        rule("/bot.html", "googlebot: noindex"),
        rule("/none.html", "NONE"),
        rule("/follow.html", "nofollow"),
    ]


def _vercel() -> dict[str, object]:
    return {
        "cleanUrls": True,
        "headers": _json_headers("/private/(.*)"),
        "redirects": [
            {"source": "/old.html", "destination": "/about", "permanent": True},
            {"source": "/old-clean", "destination": "/about", "permanent": True},
            {"source": "/gone/:path*", "destination": "/docs/:path*", "permanent": True},
            {"source": "/forced", "destination": "/about", "permanent": True},
        ],
        "rewrites": [{"source": "/app/:path+", "destination": "/app/index.html"}],
    }


def _globbed(gone: str) -> dict[str, object]:
    """Firebase's and serve's rules, alike but for the splat's source: globs, statuses by "type"."""
    return {
        "cleanUrls": True,
        "headers": _json_headers("/private/**"),
        "redirects": [
            {"source": "/old.html", "destination": "/about", "type": 301},
            {"source": "/old-clean", "destination": "/about", "type": 301},
            {"source": gone, "destination": "/docs/:rest", "type": 301},
            {"source": "/forced", "destination": "/about", "type": 301},
        ],
        "rewrites": [{"source": "/app/**", "destination": "/app/index.html"}],
    }


def _firebase() -> dict[str, object]:
    return {"hosting": {"public": "public", **_globbed("/gone/:rest*")}}


def _serve() -> dict[str, object]:
    return _globbed("/gone/:rest")


_NETLIFY_TOML = """\
# sitemapgen's host test site: rules beside _headers and _redirects
[[redirects]]
  from = "/forced-toml"
  to = "/about"
  status = 301
  force = true

[[headers]]
  for = "/contact.html"
  [headers.values]
    X-Frame-Options = "SAMEORIGIN"
"""


def _settings(**values: object) -> Callable[[dict[str, Any]], None]:
    """A variant that sets `values` in the host's JSON config (Firebase's under "hosting")."""

    def apply(config: dict[str, Any]) -> None:
        target = config["hosting"] if "hosting" in config else config
        target.update(values)

    return apply


#: Each host's variants of the site: the base, and its URL-form settings changed.
VARIANTS: dict[str, dict[str, Callable[[dict[str, Any]], None] | None]] = {
    "netlify": {"base": None},
    "cloudflare": {"base": None},
    "vercel": {
        "base": None,
        "trailing-true": _settings(trailingSlash=True),
        "trailing-false": _settings(trailingSlash=False),
        "clean-false": _settings(cleanUrls=False),
    },
    "firebase": {
        "base": None,
        "trailing-true": _settings(trailingSlash=True),
        "trailing-false": _settings(trailingSlash=False),
        "clean-false": _settings(cleanUrls=False),
        "clean-false-trailing-true": _settings(cleanUrls=False, trailingSlash=True),
    },
    "serve": {
        "base": None,
        "trailing-true": _settings(trailingSlash=True),
        "trailing-false": _settings(trailingSlash=False),
        "clean-false": _settings(cleanUrls=False),
        "clean-list": _settings(cleanUrls=["/docs/**"]),
    },
}

#: Paths probed beyond every form of every page: rewrites, query rules, what is not there.
EXTRA_PATHS = ("/app/x", "/app/a/b", "/gone/page", "/forced-toml", "/nope", "/nope.html", "/nope/")


def page(relpath: str) -> str:
    title = _title(relpath)
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f"<title>{title}</title></head><body><h1>{title}</h1></body></html>\n"
    )


def write_site(root: Path, host: str, variant: str = "base") -> Path:
    """The site under `root` with `host`'s own files; returns the docroot (the published directory).

    Netlify and Cloudflare publish `root` itself; Firebase publishes ``root/public``
    (firebase.json sits above it); Vercel and serve read their JSON from the docroot.
    """
    docroot = root / "public" if host == "firebase" else root
    for relpath in PAGES:
        path = docroot / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page(relpath), encoding="utf-8")
    if host in ("netlify", "cloudflare"):
        (docroot / "_headers").write_text(_headers_file(host), encoding="utf-8")
        (docroot / "_redirects").write_text(_redirects_file(host), encoding="utf-8")
    if host == "netlify":
        (root / "netlify.toml").write_text(_NETLIFY_TOML, encoding="utf-8")
    configs = {
        "vercel": ("vercel.json", _vercel),
        "firebase": ("firebase.json", _firebase),
        "serve": ("serve.json", _serve),
    }
    if host in configs:
        name, make = configs[host]
        config = make()
        change = VARIANTS[host][variant]
        if change is not None:
            change(config)
        (root / name).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return docroot


def page_of(body: bytes) -> str | None:
    """The page (relpath) whose text `body` is, or None for anything else."""
    start, end = body.find(b"<title>"), body.find(b"</title>")
    if start < 0 or end < start:
        return None
    title = body[start + 7 : end].decode("utf-8", "replace")
    return next((relpath for relpath in PAGES if _title(relpath) == title), None)


def _title(relpath: str) -> str:
    return relpath.removesuffix(".html").replace("/", " ") or "home"


def probe_paths() -> list[str]:
    """Every path the host tests ask a server about."""
    paths = [form for relpath in PAGES for form in forms(relpath)]
    return list(dict.fromkeys([*paths, *EXTRA_PATHS]))


def forms(relpath: str) -> list[str]:
    """Every URL path a host might answer for the page at `relpath`."""
    head, _, name = relpath.rpartition("/")
    prefix = f"/{head}/" if head else "/"
    if name == "index.html":
        if not head:
            return ["/", "/index.html", "/index"]
        return [prefix, prefix.rstrip("/"), prefix + "index.html", prefix + "index"]
    stem = name.removesuffix(".html")
    return [prefix + name, prefix + stem, prefix + stem + "/"]


if __name__ == "__main__":
    target, which = Path(sys.argv[1]), sys.argv[2]
    os.makedirs(target, exist_ok=True)
    print(write_site(target, which, sys.argv[3] if len(sys.argv) > 3 else "base"))
