"""The hosts' files read as each host reads them: line formats, patterns, what is rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemapgen.errors import ConfigError
from sitemapgen.hosts.base import page_forms, says_noindex
from sitemapgen.hosts.firebase import read_firebase_json
from sitemapgen.hosts.lines import read_headers_file, read_redirects_file
from sitemapgen.hosts.netlify import read_netlify_toml
from sitemapgen.hosts.patterns import (
    glob_pattern,
    netlify_header_pattern,
    netlify_redirect_pattern,
    path_to_regexp,
    splat_pattern,
)
from sitemapgen.hosts.serve import read_serve_json
from sitemapgen.hosts.vercel import read_vercel_json


@pytest.mark.parametrize(
    ("value", "noindex"),
    [
        ("noindex", True),
        ("NOINDEX", True),
        ("none", True),
        ("NONE", True),
        ("noindex, nofollow", True),
        ("nofollow", False),
        ("googlebot: noindex", True),
        ("Bingbot: none", True),
        ("otherbot: noindex", False),
        ("otherbot: noindex, googlebot: noindex", True),
        ("unavailable_after: 25 Jun 2030 15:00:00 PST", False),
        ("max-snippet: 20, noindex", True),
        ("index, follow", False),
        ("", False),
    ],
)
def test_x_robots_tag_values(value: str, noindex: bool) -> None:
    assert says_noindex(value) is noindex


@pytest.mark.parametrize(
    ("relpath", "forms"),
    [
        ("index.html", ("", "index.html", "index")),
        ("a.html", ("a.html", "a", "a/")),
        ("d/index.html", ("d/", "d", "d/index.html", "d/index")),
        ("d/b.htm", ("d/b.htm", "d/b", "d/b/")),
    ],
)
def test_page_forms(relpath: str, forms: tuple[str, ...]) -> None:
    assert page_forms(relpath) == forms


# (pattern compiler, source, path, matches)
PATTERNS = [
    (splat_pattern, "/gone/*", "/gone/a/b.html", True),
    (splat_pattern, "/gone/*", "/gone/", True),
    (splat_pattern, "/gone/*", "/gone", False),  # Cloudflare: the splat's slash is literal
    (splat_pattern, "/blog/:slug", "/blog/post.html", True),
    (splat_pattern, "/blog/:slug", "/blog/a/b", False),
    (splat_pattern, "/Terms.html", "/terms.html", False),  # case-sensitive
    (netlify_header_pattern, "/private/*", "/private", True),
    (netlify_header_pattern, "/private/*", "/privateer", True),
    (netlify_header_pattern, "/private/*", "/private/a/b", True),
    (netlify_header_pattern, "/private/**", "/private", False),
    (netlify_header_pattern, "/Terms.html", "/terms.html/", True),  # any case, a trailing slash
    (netlify_header_pattern, "/k*", "/kept.html", True),
    (netlify_redirect_pattern, "/gone/*", "/gone", True),
    (netlify_redirect_pattern, "/old-clean", "/old-clean/", True),
    (netlify_redirect_pattern, "/slash/", "/slash", True),
    (netlify_redirect_pattern, "/Case", "/case", False),
    (netlify_redirect_pattern, "/pre*fix", "/prefix", False),  # a splat inside a segment matches nothing
    (path_to_regexp, "/gone/:path*", "/gone", True),
    (path_to_regexp, "/gone/:path*", "/gone/a/b", True),
    (path_to_regexp, "/gone/:path+", "/gone", False),
    (path_to_regexp, "/private/(.*)", "/private/", True),
    (path_to_regexp, "/private/(.*)", "/private", False),
    (path_to_regexp, "/old-clean", "/old-clean/", True),
    (path_to_regexp, "/OLD", "/old", True),
    (glob_pattern, "/private/**", "/private", False),
    (glob_pattern, "/private/**", "/private/", True),
    (glob_pattern, "/private/**", "/private/a/b.html", True),
    (glob_pattern, "/private/*", "/private/a/b", False),
    (glob_pattern, "/{bot,none}", "/none", True),
    (glob_pattern, "**", "/anything/at/all", True),
]


@pytest.mark.parametrize(("compile_source", "source", "path", "matches"), PATTERNS)
def test_patterns(compile_source: object, source: str, path: str, matches: bool) -> None:
    pattern = compile_source(source)  # type: ignore[operator]
    assert (pattern.fullmatch(path) is not None) is matches


def test_vercel_sources_are_strict_and_case_sensitive(tmp_path: Path) -> None:
    (tmp_path / "vercel.json").write_text(
        json.dumps({"redirects": [{"source": "/old-clean", "destination": "/about"}]}), encoding="utf-8"
    )
    files = read_vercel_json(tmp_path / "vercel.json", "vercel.json")
    (rule,) = files.redirects
    assert rule.source.fullmatch("/old-clean")
    assert not rule.source.fullmatch("/old-clean/")
    assert not rule.source.fullmatch("/OLD-CLEAN")
    assert rule.status == 308  # permanent by default


# (host, _redirects line, rejected because)
REDIRECT_LINES = [
    ("cloudflare", "/forced.html /about.html 301!", "no forced rules"),
    ("cloudflare", "/query.html id=:id /about.html 301", "no query or condition"),
    ("cloudflare", "/x /about 999", "allows the statuses"),
    ("cloudflare", "/app/* /app/index.html 200", "infinite loop"),
    ("cloudflare", "/proxy https://example.net/ 200", "relative paths only"),
    ("cloudflare", "https://example.com/x /about 301", "only relative URLs"),
    ("netlify", "/bad-no-dest", "no destination"),
    ("netlify", "/x foo 301", 'must start with "/"'),
    ("netlify", "/y /z abc", "invalid status code"),
]


@pytest.mark.parametrize(("host", "line", "because"), REDIRECT_LINES)
def test_redirect_lines_a_host_rejects(host: str, line: str, because: str) -> None:
    rules, rejected = read_redirects_file(f"# a comment\n\n{line}\n", "_redirects", host)
    assert rules == []
    (message,) = rejected
    assert message.startswith("_redirects line 3: ")
    assert because in message


def test_redirect_lines_each_host_reads() -> None:
    text = (
        "/old.html /about.html\n/forced.html /about.html 301!\n/q id=:id /about 302\n"
        "/gone/* /docs/:splat 301  # moved\n"
    )
    netlify, rejected = read_redirects_file(text, "_redirects", "netlify")
    assert rejected == []
    assert [(r.status, r.force, r.conditional) for r in netlify] == [
        (301, False, False),
        (301, True, False),
        (302, False, True),
        (301, False, False),
    ]
    cloudflare, rejected = read_redirects_file(text, "_redirects", "cloudflare")
    assert [(r.status, r.origin.where) for r in cloudflare] == [(302, "line 1"), (301, "line 4")]  # 302 by default
    assert len(rejected) == 2


def test_cloudflare_redirect_limits() -> None:
    static = "".join(f"/s{i} /about 301\n" for i in range(2_001))
    rules, rejected = read_redirects_file(static, "_redirects", "cloudflare")
    assert len(rules) == 2_000
    assert rejected == ["_redirects line 2001: past Cloudflare's limit of 2,000 static redirects: ignored"]
    dynamic = "".join(f"/d{i}/* /about 301\n" for i in range(101))
    rules, rejected = read_redirects_file(dynamic, "_redirects", "cloudflare")
    assert len(rules) == 100
    assert "100 dynamic" in rejected[0]


def test_headers_file_cloudflare() -> None:
    text = (
        "/*\n  X-Frame-Options: DENY\n"
        "https://staging.example.pages.dev/*\n  X-Robots-Tag: noindex\n"
        "/kept.html\n  ! X-Robots-Tag\n"
        "/docs/**\n  X-Robots-Tag: noindex\n"
        "http://plain.example.com/*\n  X-Robots-Tag: noindex\n"
        "/empty\n"
        "/dup\n  X-A: 1\n/dup\n  X-B: 2\n"
    )
    rules, rejected = read_headers_file(text, "_headers", "cloudflare")
    assert [rule.origin.text for rule in rules] == ["/*", "https://staging.example.pages.dev/*", "/kept.html", "/dup"]
    scoped = rules[1]
    assert scoped.host is not None
    assert scoped.host.fullmatch("staging.example.pages.dev")
    assert not scoped.host.fullmatch("example.com")
    assert rules[2].detach == ("x-robots-tag",)
    assert rules[3].headers == (("x-b", "2"),)  # a path twice: the later rule
    assert [message.split(": ", 2)[2] for message in rejected] == [
        "only one * is allowed per rule",
        "a URL must use https://",
        "no headers under it",
    ]


def test_headers_file_netlify_takes_a_url_line_for_a_header() -> None:
    text = (
        "/terms.html\n  X-Robots-Tag: nofollow\nhttps://staging.example.pages.dev/*\n  X-Robots-Tag: noindex\nstray\n"
    )
    rules, rejected = read_headers_file(text, "_headers", "netlify")
    (rule,) = rules
    assert rule.headers == (
        ("x-robots-tag", "nofollow"),
        ("https", "//staging.example.pages.dev/*"),
        ("x-robots-tag", "noindex"),
    )
    assert "for a header of the rule at line 1" in rejected[0]
    assert "Netlify drops 'stray'" in rejected[1]


def test_netlify_toml(tmp_path: Path) -> None:
    (tmp_path / "netlify.toml").write_text(
        '[[redirects]]\nfrom = "/a"\nto = "/b"\nforce = true\n'
        '[[redirects]]\nfrom = "/q"\nto = "/b"\nquery = {id = ":id"}\n'
        '[[headers]]\nfor = "/private/*"\n[headers.values]\nX-Robots-Tag = "noindex"\n',
        encoding="utf-8",
    )
    redirects, headers, rejected = read_netlify_toml(tmp_path / "netlify.toml", "netlify.toml")
    assert [(r.status, r.force, r.conditional) for r in redirects] == [(301, True, False), (301, False, True)]
    assert headers[0].headers == (("x-robots-tag", "noindex"),)
    assert headers[0].source.fullmatch("/private")
    # counted as a reader counts the blocks: from 1
    assert str(redirects[0].origin) == "netlify.toml 1st [[redirects]] block: from = '/a', to = '/b', status = 301"
    assert str(redirects[1].origin) == "netlify.toml 2nd [[redirects]] block: from = '/q', to = '/b', status = 301"
    assert str(headers[0].origin) == "netlify.toml 1st [[headers]] block: for = '/private/*'"
    assert rejected == []


# (file name, content, the one-line error)
BAD_FILES = [
    ("vercel.json", "{", "vercel.json: not valid JSON"),
    ("vercel.json", '{"cleanUrls": "yes"}', "vercel.json: cleanUrls: must be true or false"),
    ("vercel.json", '{"redirects": [{"destination": "/a"}]}', "vercel.json: redirects[0]: needs one of source"),
    ("vercel.json", '{"redirects": [{"source": "/a", "destination": "/b", "statusCode": 200}]}', "statusCode"),
    ("serve.json", '{"headers": [{"source": 3}]}', "serve.json: headers[0].source: must be a string"),
    ("firebase.json", '{"hosting": [{}, {}]}', "firebase.json: hosting: lists several sites"),
    ("firebase.json", '{"hosting": {"redirects": [{"regex": "(", "destination": "/"}]}}', "not a pattern"),
    (
        "netlify.toml",
        "[[redirects]]\nfrom = 3\n",
        "netlify.toml: from in the 1st [[redirects]] block: must be a string",
    ),
    (
        "netlify.toml",
        '[[redirects]]\nfrom = "/a"\nto = "/b"\n[[redirects]]\nfrom = "/c"\nto = "/d"\nstatus = "x"\n',
        "netlify.toml: status in the 2nd [[redirects]] block: must be a number, got 'x'",
    ),
    ("netlify.toml", '[[headers]]\nfor = "/"\nvalues = 3\n', "netlify.toml: values in the 1st [[headers]] block: must"),
]


@pytest.mark.parametrize(("name", "content", "error"), BAD_FILES)
def test_bad_files_are_one_line_errors(tmp_path: Path, name: str, content: str, error: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    reader = {
        "vercel.json": read_vercel_json,
        "serve.json": read_serve_json,
        "firebase.json": read_firebase_json,
        "netlify.toml": read_netlify_toml,
    }[name]
    with pytest.raises(ConfigError) as caught:
        reader(path, name)
    assert error in str(caught.value)
    assert "\n" not in str(caught.value)


def test_serve_matches_header_sources_as_globs_and_redirect_sources_both_ways(tmp_path: Path) -> None:
    """serve-handler's getHeaders asks minimatch alone (case-sensitive); redirects also path-to-regexp."""
    (tmp_path / "serve.json").write_text(
        json.dumps(
            {
                "headers": [
                    {"source": "/private/(.*)", "headers": [{"key": "X-Robots-Tag", "value": "noindex"}]},
                    {"source": "/Terms.html", "headers": [{"key": "X-Robots-Tag", "value": "noindex"}]},
                    {"source": "private/**", "headers": [{"key": "X-Robots-Tag", "value": "noindex"}]},
                ],
                "redirects": [{"source": "/Old/:page", "destination": "/new/:page"}],
            }
        ),
        encoding="utf-8",
    )
    files = read_serve_json(tmp_path / "serve.json", "serve.json")
    parens, terms, private = (rule.source for rule in files.headers)
    assert not parens.fullmatch("/private/a.html")
    assert not terms.fullmatch("/terms.html")
    assert private.fullmatch("/private/a.html")
    (redirect,) = files.redirects
    assert redirect.source.fullmatch("/old/a/")
