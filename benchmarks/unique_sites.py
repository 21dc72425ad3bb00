"""Built sites whose pages are each their own, as real sites' pages are.

A tree of many sites, each written by one generator's head template (the shapes of
tests/realsites for Sphinx, MkDocs-material, Hugo and Jekyll; of the generators' own templates
for Docusaurus, Starlight, Next, VitePress and Eleventy), with every per-page field filled
for that page alone: title, description, canonical, ``og:url``, ``og:title``,
``og:description``, ``article:modified_time``, JSON-LD dates and headline, hreflang hrefs,
inline script bodies. No two pages share a title, a description, a canonical, an ``og:url`` or
an ``article:modified_time`` (tests/test_bench.py checks it). Both folder shapes: one page a
folder (``a/b/index.html``: Hugo, Docusaurus, Starlight, Next, Eleventy, MkDocs and Sphinx
``dirhtml``) and flat folders of hundreds (Sphinx ``html``, MkDocs without directory URLs,
VitePress, Jekyll posts). Multilingual sites (Hugo, Docusaurus, Starlight) write each page in
every language, each naming the others. A few pages as generators write them beside the rest:
redirect stubs (Hugo aliases) and noindex pages (search pages, tag pages).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

NOW = 1_795_000_000  # 2026-11: a fixed "now", so a seed gives the same tree
BASE = "https://example.com/"

#: A consonant and a run of vowels each: a word of them reads back one way only.
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou", "ei")]
VOCAB = (
    "static site sitemap crawler index page section archive release guide reference über café naïve "
    "tutorial install configure deploy build cache header footer plugin theme search query server client "
    "token stream buffer render template layout schema version upgrade migrate network proxy route handler "
    "event signal worker queue thread process memory storage bucket object upload download image asset "
    "font color palette grid column table chart metric alert monitor logging tracing profile benchmark test "
    "fixture mock release changelog roadmap license contribute community forum support answer question "
    "déjà vu résumé façade jalapeño smörgåsbord Zürich Kraków São Paulo"
).split()


def unique_name(i: int) -> str:
    """A made-up word for the number `i`, its own (`i` in base len(_SYLLABLES), as syllables)."""
    out = [_SYLLABLES[i % len(_SYLLABLES)]]
    i //= len(_SYLLABLES)
    while True:
        out.append(_SYLLABLES[i % len(_SYLLABLES)])
        i //= len(_SYLLABLES)
        if not i:
            break
    return "".join(out).capitalize()


def _iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(seconds))


@dataclass(frozen=True, slots=True)
class Page:
    """One page's own fields, as its generator's template fills them."""

    url: str  # absolute, percent-encoded
    site: str  # the site's absolute URL path, e.g. /part-000/hugo-3/
    up: str  # from the page's folder to the site's root: "", "../", ...
    title: str
    description: str
    section: str
    lang: str
    alternates: tuple[tuple[str, str], ...]  # (hreflang, absolute href), the page itself included
    published: str
    modified: str  # unique to the page
    canonical: bool
    number: int  # the page's own number in the tree
    neighbour: str  # another page's title (prev/next links, breadcrumbs)


def _docs_head(generator: str) -> Callable[[Page], str]:
    """Sphinx (alabaster, sphinxext-opengraph, html_baseurl) as in tests/realsites/sphinx9-*."""

    def head(p: Page) -> str:
        canonical = f'    <link rel="canonical" href="{p.url}" />\n' if p.canonical else ""
        return (
            f'<!DOCTYPE html>\n\n<html lang="{p.lang}" data-content_root="{p.up or "./"}">\n  <head>\n'
            '    <meta charset="utf-8" />\n'
            '    <meta name="viewport" content="width=device-width, initial-scale=1.0" />'
            '<meta name="viewport" content="width=device-width, initial-scale=1" />\n'
            f'<meta content="{p.description}" name="description" />\n'
            f'<meta property="og:title" content="{p.title}" />\n'
            '<meta property="og:type" content="website" />\n'
            f'<meta property="og:url" content="{p.url}" />\n'
            f'<meta property="og:site_name" content="{generator} documentation" />\n'
            f'<meta property="og:description" content="{p.description}" />\n\n'
            f"    <title>{p.title} &#8212; {generator} 2.{p.number % 7} documentation</title>\n"
            f'    <link rel="stylesheet" type="text/css" href="{p.up}_static/pygments.css?v=5ecbeea2" />\n'
            f'    <link rel="stylesheet" type="text/css" href="{p.up}_static/basic.css?v=b08954a9" />\n'
            f'    <link rel="stylesheet" type="text/css" href="{p.up}_static/alabaster.css?v=27fed22d" />\n'
            f'    <script src="{p.up}_static/documentation_options.js?v=4621528c"></script>\n'
            f'    <script src="{p.up}_static/doctools.js?v=fd6eb6e6"></script>\n'
            f'    <script src="{p.up}_static/sphinx_highlight.js?v=6ffebe34"></script>\n'
            f"{canonical}"
            f'    <link rel="index" title="Index" href="{p.up}genindex.html" />\n'
            f'    <link rel="search" title="Search" href="{p.up}search.html" />\n'
            f'    <link rel="next" title="{p.neighbour}" href="{p.up}index.html" />\n'
            f'    <link rel="prev" title="{p.section}" href="{p.up}index.html" />\n'
            "   \n"
            f'  <link rel="stylesheet" href="{p.up}_static/custom.css" type="text/css" />\n'
            "  \n\n  \n  \n\n  </head>"
        )

    return head


def _material(p: Page) -> str:
    """MkDocs-material, as in tests/realsites/mkdocs-material."""
    canonical = f'      \n        <link rel="canonical" href="{p.url}">\n      \n' if p.canonical else "      \n"
    return (
        f'\n<!doctype html>\n<html lang="{p.lang}" class="no-js">\n  <head>\n    \n'
        '      <meta charset="utf-8">\n'
        '      <meta name="viewport" content="width=device-width,initial-scale=1">\n      \n'
        f'        <meta name="description" content="{p.description}">\n      \n      \n'
        f'        <meta name="author" content="{p.neighbour}">\n      \n'
        f"{canonical}"
        f'      \n        <link rel="prev" href="{p.up}">\n      \n      \n'
        f'        <link rel="next" href="{p.up}{p.section}/">\n      \n      \n'
        f'      <link rel="icon" href="{p.up}assets/images/favicon.png">\n'
        '      <meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.1">\n    \n    \n      \n'
        f"        <title>{p.title} - {p.section.capitalize()}</title>\n      \n    \n    \n"
        f'      <link rel="stylesheet" href="{p.up}assets/stylesheets/main.57a0d79d.min.css">\n'
        "      \n      \n\n\n    \n    \n      \n    \n    \n      \n        \n        \n"
        '        <link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>\n'
        '        <link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto:300,300i,400,400i,'
        '700,700i%7CRoboto+Mono:400,400i,700,700i&display=fallback">\n'
        '        <style>:root{--md-text-font:"Roboto";--md-code-font:"Roboto Mono"}</style>\n      \n    \n    \n'
        '    <script>__md_scope=new URL("' + (p.up or ".") + '",location),__md_hash=e=>[...e].reduce(((e,_)=>'
        "(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem("
        't.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,'
        "JSON.stringify(_))}catch(e){}}</script>\n    \n      \n\n    \n    \n  </head>"
    )


def _analytics(p: Page) -> str:
    path = p.url.removeprefix(BASE.rstrip("/"))
    return (
        "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}"
        f"gtag('js',new Date());gtag('config','G-BENCH0001',{{page_path:'{path}',page_title:'{p.title}'}})"
        "</script>"
    )


def _hugo(p: Page) -> str:
    """Hugo (a PaperMod-like theme: robots, canonical, hreflang, og:, article:, JSON-LD), as the
    head of tests/realsites/hugo-multilingual, with what themes add."""
    lines = [
        "<!DOCTYPE html>",
        f'<html lang="{p.lang}" dir="auto">',
        '<head><meta charset="utf-8">',
        '<meta http-equiv="X-UA-Compatible" content="IE=edge">',
        '<meta name="viewport" content="width=device-width, initial-scale=1, shrink-to-fit=no">',
        '<meta name="robots" content="index, follow">',
        f"<title>{p.title} | {p.section.capitalize()}</title>",
        f'<meta name="keywords" content="{p.section}, {p.neighbour}">',
        f'<meta name="description" content="{p.description}">',
        '<meta name="author" content="The Authors">',
    ]
    if p.canonical:
        lines.append(f'<link rel="canonical" href="{p.url}">')
    lines += [
        f'<link crossorigin="anonymous" href="{p.site}assets/css/stylesheet.2211ca3164be7830024f6aad2b3a2e520843a64f'
        '8f048445c3401c1249aa051d.css" integrity="sha256-IhHKMWS+eDACT2qtKzouUghDpk+PBIRFw0AcEkmqBR0=" '
        'rel="preload stylesheet" as="style">',
        f'<link rel="icon" href="{BASE}favicon.ico">',
        *(f'<link rel="alternate" hreflang="{lang}" href="{href}">' for lang, href in p.alternates),
        f"<noscript><style>#theme-toggle,.top-link{{display:none}}</style></noscript>{_analytics(p)}",
        f'<meta property="og:url" content="{p.url}">',
        '<meta property="og:site_name" content="Hugo site">',
        f'<meta property="og:title" content="{p.title}">',
        f'<meta property="og:description" content="{p.description}">',
        f'<meta property="og:locale" content="{p.lang}">',
        '<meta property="og:type" content="article">',
        f'<meta property="article:section" content="{p.section}">',
        f'<meta property="article:published_time" content="{p.published}">',
        f'<meta property="article:modified_time" content="{p.modified}">',
        '<meta name="twitter:card" content="summary">',
        f'<meta name="twitter:title" content="{p.title}">',
        f'<meta name="twitter:description" content="{p.description}">',
        '<script type="application/ld+json">',
        '{\n  "@context": "https://schema.org",\n  "@type": "BlogPosting",',
        f'  "headline": "{p.title}",\n  "name": "{p.title}",\n  "description": "{p.description}",',
        f'  "datePublished": "{p.published}",\n  "dateModified": "{p.modified}",',
        f'  "mainEntityOfPage": {{"@type": "WebPage", "@id": "{p.url}"}}\n}}',
        "</script>",
        "</head>",
    ]
    return "\n".join(lines)


def _jekyll(p: Page) -> str:
    """Jekyll with jekyll-seo-tag and jekyll-feed, as tests/realsites/jekyll-seo writes a post."""
    canonical = f'<link rel="canonical" href="{p.url}" />\n' if p.canonical else ""
    return (
        f'<!DOCTYPE html>\n<html lang="{p.lang}">\n<head>\n  <meta charset="utf-8">\n'
        '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "  <!-- Begin Jekyll SEO tag v2.8.0 -->\n"
        f"<title>{p.title} | Jekyll blog</title>\n"
        '<meta name="generator" content="Jekyll v4.3.1" />\n'
        f'<meta property="og:title" content="{p.title}" />\n'
        '<meta name="author" content="The Authors" />\n'
        f'<meta property="og:locale" content="{p.lang}" />\n'
        f'<meta name="description" content="{p.description}" />\n'
        f'<meta property="og:description" content="{p.description}" />\n'
        f"{canonical}"
        f'<meta property="og:url" content="{p.url}" />\n'
        '<meta property="og:site_name" content="Jekyll blog" />\n'
        '<meta property="og:type" content="article" />\n'
        f'<meta property="article:published_time" content="{p.published}" />\n'
        f'<meta property="article:modified_time" content="{p.modified}" />\n'
        '<meta name="twitter:card" content="summary" />\n'
        f'<meta property="twitter:title" content="{p.title}" />\n'
        '<script type="application/ld+json">\n'
        '{"@context":"https://schema.org","@type":"BlogPosting","author":{"@type":"Person","name":"The Authors"},'
        f'"dateModified":"{p.modified}","datePublished":"{p.published}","description":"{p.description}",'
        f'"headline":"{p.title}","mainEntityOfPage":{{"@type":"WebPage","@id":"{p.url}"}},"url":"{p.url}"}}'
        "</script>\n<!-- End Jekyll SEO tag -->\n\n"
        f'  <link type="application/atom+xml" rel="alternate" href="{BASE.rstrip("/")}{p.site}feed.xml" '
        'title="Jekyll blog" />\n'
        f"  {_analytics(p)}\n</head>"
    )


def _docusaurus(p: Page) -> str:
    """Docusaurus 3 (react-helmet tags on one line, hreflang with x-default, a breadcrumb list)."""
    locales = "".join(
        f'<meta data-rh="true" property="og:locale:alternate" content="{lang}">'
        for lang, _ in p.alternates
        if lang not in (p.lang, "x-default")
    )
    links = "".join(
        f'<link data-rh="true" rel="alternate" href="{href}" hreflang="{lang}">' for lang, href in p.alternates
    )
    canonical = f'<link data-rh="true" rel="canonical" href="{p.url}">' if p.canonical else ""
    return (
        f'<!doctype html>\n<html lang="{p.lang}" dir="ltr" class="docs-wrapper plugin-docs plugin-id-default '
        f'docs-version-current docs-doc-page docs-doc-id-{p.section}/{p.number}" data-has-hydrated="false">\n'
        '<head>\n<meta charset="UTF-8">\n<meta name="generator" content="Docusaurus v3.6.3">\n'
        f'<title data-rh="true">{p.title} | Docusaurus site</title>'
        '<meta data-rh="true" name="viewport" content="width=device-width,initial-scale=1">'
        '<meta data-rh="true" name="twitter:card" content="summary_large_image">'
        f'<meta data-rh="true" property="og:url" content="{p.url}">'
        f'<meta data-rh="true" property="og:locale" content="{p.lang}">{locales}'
        f'<meta data-rh="true" name="docusaurus_locale" content="{p.lang}">'
        f'<meta data-rh="true" name="docsearch:language" content="{p.lang}">'
        '<meta data-rh="true" name="docusaurus_version" content="current">'
        '<meta data-rh="true" name="docusaurus_tag" content="docs-default-current">'
        f'<meta data-rh="true" property="og:title" content="{p.title} | Docusaurus site">'
        f'<meta data-rh="true" name="description" content="{p.description}">'
        f'<meta data-rh="true" property="og:description" content="{p.description}">'
        f'<link data-rh="true" rel="icon" href="{p.site}img/favicon.ico">{canonical}{links}'
        '<script data-rh="true" type="application/ld+json">{"@context":"https://schema.org","@type":'
        '"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1,"name":"'
        f'{p.neighbour}","item":"{BASE.rstrip("/")}{p.site}{p.section}/"}},{{"@type":"ListItem","position":2,'
        f'"name":"{p.title}","item":"{p.url}"}}]}}</script>'
        f'<link rel="alternate" type="application/rss+xml" href="{p.site}blog/rss.xml" title="Docusaurus site RSS">\n'
        f'<link rel="stylesheet" href="{p.site}assets/css/styles.4f1a2b3c.css">\n'
        f'<script src="{p.site}assets/js/runtime~main.8d3e1f2a.js" defer="defer"></script>\n'
        f'<script src="{p.site}assets/js/main.5e6f7a8b.js" defer="defer"></script>\n</head>'
    )


def _starlight(p: Page) -> str:
    """Starlight on Astro (one line; canonical, og:, hreflang to each locale's page)."""
    canonical = f'<link rel="canonical" href="{p.url}"/>' if p.canonical else ""
    links = "".join(f'<link rel="alternate" href="{href}" hreflang="{lang}"/>' for lang, href in p.alternates)
    return (
        f'<!DOCTYPE html><html lang="{p.lang}" dir="ltr" data-has-toc data-has-sidebar data-theme="dark">'
        '<head><meta charset="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/>'
        f"<title>{p.title} | Starlight docs</title>{canonical}"
        f'<link rel="sitemap" href="{p.site}sitemap-index.xml"/>'
        f'<link rel="shortcut icon" href="{p.site}favicon.svg" type="image/svg+xml"/>'
        '<meta name="generator" content="Astro v4.16.18"/><meta name="generator" content="Starlight v0.29.3"/>'
        f'<meta property="og:title" content="{p.title}"/><meta property="og:type" content="article"/>'
        f'<meta property="og:url" content="{p.url}"/><meta property="og:locale" content="{p.lang}"/>'
        f'<meta property="og:description" content="{p.description}"/>'
        '<meta property="og:site_name" content="Starlight docs"/>'
        '<meta name="twitter:card" content="summary_large_image"/>'
        f'<meta name="description" content="{p.description}"/>{links}'
        "<script>\n\twindow.StarlightThemeProvider = (() => {\n\t\tconst storedTheme =\n\t\t\ttypeof localStorage "
        "!== 'undefined' && localStorage.getItem('starlight-theme');\n\t\tconst theme =\n\t\t\tstoredTheme ||\n\t\t\t"
        "(window.matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark');\n\t\t"
        "document.documentElement.dataset.theme = theme === 'light' ? 'light' : 'dark';\n\t\treturn {\n\t\t\t"
        "updatePickers(theme = storedTheme || 'auto') {},\n\t\t};\n\t})();\n</script>"
        f'<script type="module" src="{p.site}_astro/page.7qqag-5g.js"></script>'
        f'<link rel="stylesheet" href="{p.site}_astro/index.BLrVYIAk.css"/></head>'
    )


def _next(p: Page) -> str:
    """Next.js App Router (the metadata API's canonical, og: and article: tags, on one line)."""
    canonical = f'<link rel="canonical" href="{p.url}"/>' if p.canonical else ""
    return (
        f'<!DOCTYPE html><html lang="{p.lang}"><head><meta charSet="utf-8"/>'
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
        f'<link rel="stylesheet" href="{p.site}_next/static/css/a1b2c3d4e5f60718.css" data-precedence="next"/>'
        f'<link rel="preload" as="script" fetchPriority="low" href="{p.site}_next/static/chunks/webpack-4c1f.js"/>'
        f'<script src="{p.site}_next/static/chunks/fd9d1056-2821b0f0cabcd8bd.js" async=""></script>'
        f'<script src="{p.site}_next/static/chunks/main-app-{p.number:x}.js" async=""></script>'
        f'<title>{p.title}</title><meta name="description" content="{p.description}"/>{canonical}'
        f'<meta property="og:title" content="{p.title}"/><meta property="og:description" content="{p.description}"/>'
        f'<meta property="og:url" content="{p.url}"/><meta property="og:type" content="article"/>'
        f'<meta property="article:published_time" content="{p.published}"/>'
        f'<meta property="article:modified_time" content="{p.modified}"/>'
        '<meta name="twitter:card" content="summary_large_image"/>'
        f'<meta name="twitter:title" content="{p.title}"/><meta name="twitter:description" content="{p.description}"/>'
        f'<script src="{p.site}_next/static/chunks/polyfills-42372ed130431b0a.js" noModule=""></script></head>'
    )


def _vitepress(p: Page) -> str:
    """VitePress (no clean URLs: flat `.html` pages; its per-page chunk preloaded)."""
    canonical = f'    <link rel="canonical" href="{p.url}">\n' if p.canonical else ""
    chunk = p.url.rsplit("/", 1)[-1].removesuffix(".html").replace("%", "_")
    return (
        f'<!DOCTYPE html>\n<html lang="{p.lang}" dir="ltr">\n  <head>\n    <meta charset="utf-8">\n'
        '    <meta name="viewport" content="width=device-width,initial-scale=1">\n'
        f"    <title>{p.title} | VitePress docs</title>\n"
        f'    <meta name="description" content="{p.description}">\n'
        '    <meta name="generator" content="VitePress v1.5.0">\n'
        f'    <link rel="preload stylesheet" href="{p.site}assets/style.BXjxs6GD.css" as="style">\n'
        f'    <script type="module" src="{p.site}assets/app.CAB6gPkf.js"></script>\n'
        f'    <link rel="preload" href="{p.site}assets/inter-roman-latin.Di8DUHzh.woff2" as="font" '
        'type="font/woff2" crossorigin="">\n'
        f'    <link rel="modulepreload" href="{p.site}assets/chunks/theme.Bfn7Mshb.js">\n'
        f'    <link rel="modulepreload" href="{p.site}assets/{p.section}_{chunk}.md.{p.number:08x}.lean.js">\n'
        f"{canonical}"
        f'    <meta property="og:title" content="{p.title}">\n'
        f'    <meta property="og:description" content="{p.description}">\n'
        f'    <meta property="og:url" content="{p.url}">\n'
        '    <script id="check-dark-mode">(()=>{const e=localStorage.getItem("vitepress-theme-appearance")||"auto",'
        'a=window.matchMedia("(prefers-color-scheme: dark)").matches;(!e||e==="auto"?a:e==="dark")&&'
        'document.documentElement.classList.add("dark")})();</script>\n'
        '    <script id="check-mac-os">document.documentElement.classList.toggle("mac",'
        "/Mac|iPhone|iPod|iPad/i.test(navigator.platform));</script>\n  </head>"
    )


def _eleventy(p: Page) -> str:
    """Eleventy (eleventy-base-blog: an inline style bundle, a feed link; canonical and og: added)."""
    canonical = f'\t\t<link rel="canonical" href="{p.url}">\n' if p.canonical else ""
    return (
        f'<!doctype html>\n<html lang="{p.lang}">\n\t<head>\n\t\t<meta charset="utf-8">\n'
        '\t\t<meta name="viewport" content="width=device-width, initial-scale=1.0">\n'
        f"\t\t<title>{p.title}</title>\n"
        f'\t\t<meta name="description" content="{p.description}">\n'
        f'\t\t<link rel="alternate" href="{p.site}feed/feed.xml" type="application/atom+xml" title="Eleventy blog">\n'
        '\t\t<meta name="generator" content="Eleventy v3.0.0">\n'
        f"{canonical}"
        f'\t\t<meta property="og:title" content="{p.title}">\n'
        f'\t\t<meta property="og:url" content="{p.url}">\n'
        f'\t\t<meta property="og:description" content="{p.description}">\n'
        f'\t\t<meta property="article:modified_time" content="{p.modified}">\n'
        "\t\t<style>:root{--color-gray-20:#e0e0e0;--color-gray-50:#C0C0C0;--color-gray-90:#333;"
        "--background-color:#fff;--text-color:var(--color-gray-90);--text-color-link:#082840}"
        "*{box-sizing:border-box}html,body{padding:0;margin:0 auto;font-family:-apple-system,system-ui,sans-serif;"
        "color:var(--text-color);background-color:var(--background-color)}img{max-width:100%}"
        '.links-nextprev{display:flex;justify-content:space-between;gap:.5em 1em;list-style:"";padding:1em 0}'
        "</style>\n"
        '\t\t<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting",'
        f'"headline":"{p.title}","datePublished":"{p.published}","dateModified":"{p.modified}"}}</script>\n'
        f"\t\t{_analytics(p)}\n\t</head>"
    )


@dataclass(frozen=True, slots=True)
class Generator:
    name: str
    head: Callable[[Page], str]
    flat: bool  # flat folders of hundreds (`section/slug.html`), else one page a folder
    languages: tuple[str, ...] = ("en",)
    x_default: bool = False


GENERATORS = (
    Generator("sphinx-html", _docs_head("sphinx"), flat=True),
    Generator("hugo", _hugo, flat=False, languages=("en", "de")),
    Generator("mkdocs-material", _material, flat=False),
    Generator("docusaurus", _docusaurus, flat=False, languages=("en", "fr"), x_default=True),
    Generator("jekyll", _jekyll, flat=True),
    Generator("starlight", _starlight, flat=False, languages=("en", "de", "ja")),
    Generator("next", _next, flat=False),
    Generator("vitepress", _vitepress, flat=True),
    Generator("eleventy", _eleventy, flat=False),
    Generator("sphinx-dirhtml", _docs_head("sphinx"), flat=False),
    Generator("mkdocs-flat", _material, flat=True),
)


def _redirect(target: str) -> str:
    """A Hugo alias page (its own template), kept out of a sitemap by its refresh."""
    return (
        f'<!DOCTYPE html>\n<html lang="en-us">\n  <head>\n    <title>{target}</title>\n'
        f'    <link rel="canonical" href="{target}">\n    <meta name="robots" content="noindex">\n'
        f'    <meta charset="utf-8">\n    <meta http-equiv="refresh" content="0; url={target}">\n  </head>'
    )


def _words(rng: random.Random, k: int) -> str:
    return " ".join(rng.choices(VOCAB, k=k))


@dataclass
class _Writer:
    """Writes pages: the body after the head, the size, the mtime, an asset beside it."""

    rng: random.Random
    filler: bytes
    min_kb: int
    max_kb: int
    asset_every: int
    count: int = 0

    def write(self, path: Path, head: str, mtime: int) -> None:
        data = head.encode() + b"\n<body>\n<main>\n"
        size = self.rng.randint(self.min_kb, self.max_kb) * 1024
        data += self.filler[: max(0, size - len(data))] + b"\n</main>\n</body>\n</html>\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (mtime, mtime))
        if self.count % self.asset_every == 0:
            (path.parent / f"figure-{self.count}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + self.rng.randbytes(64))
        self.count += 1


def generate_unique(
    root: Path,
    n: int,
    *,
    seed: int,
    canonical: bool = True,
    min_kb: int,
    max_kb: int,
    asset_every: int = 1,
    site_pages: tuple[int, int] = (500, 5_000),
    folder_pages: tuple[int, int] = (100, 500),
) -> None:
    """`n` pages under `root`, site after site, each site a generator's (in turn) of
    `site_pages` pages, its flat folders of `folder_pages` pages; with `canonical`, each page
    names itself as canonical (the same seed without it gives the same tree, canonicals left
    out). 1% of the pages are redirect stubs and 1% noindex tag pages. Every 97th site's folder
    (the 6th, the 103rd, ...) is non-ASCII, with a space."""
    rng = random.Random(seed)
    filler = (_words(rng, 6000) + "\n").encode() * 8
    writer = _Writer(rng, filler, min_kb, max_kb, asset_every)
    stamps = rng.sample(range(5 * 365 * 86_400), n)  # each page's own modified time
    number = 0
    site_number = 0
    while number < n:
        gen = GENERATORS[site_number % len(GENERATORS)]
        folder = f"{gen.name}-{'café ' * (site_number % 97 == 5)}{site_number}"
        site = f"/part-{site_number // 100:03}/{quote(folder)}/"
        site_dir = root / f"part-{site_number // 100:03}" / folder
        left = min(n - number, rng.randint(*site_pages))
        section, in_section, section_size = "", 0, 0
        while left > 0:
            if in_section >= section_size:
                section = f"{rng.choice(VOCAB[:90])}-{number}"
                in_section, section_size = 0, rng.randint(*folder_pages)
            roll = rng.random()
            if roll < 0.01 and number > 0:  # a redirect stub, to the page before
                relpath = f"old/{unique_name(number).lower()}/index.html"
                target = f"{BASE.rstrip('/')}{site}{section}/"
                writer.write(site_dir / relpath, _redirect(target), NOW - stamps[number])
                number, left = number + 1, left - 1
                continue
            langs = gen.languages[: max(1, min(len(gen.languages), left))]
            name = unique_name(number).lower()
            slug = f"{name}-{rng.choice(VOCAB[:90])}"
            base_rel = f"{section}/{slug}.html" if gen.flat else f"{section}/{slug}/index.html"
            rels = [base_rel if k == 0 else f"{lang}/{base_rel}" for k, lang in enumerate(langs)]
            urls = [
                f"{BASE.rstrip('/')}{site}{quote(rel.removesuffix('index.html') if not gen.flat else rel)}"
                for rel in rels
            ]
            alternates: tuple[tuple[str, str], ...] = ()
            if len(langs) > 1:
                alternates = tuple(zip(langs, urls, strict=True))
                if gen.x_default:
                    alternates += (("x-default", urls[0]),)
            noindex = roll < 0.02 and len(langs) == 1
            for lang, rel, url in zip(langs, rels, urls, strict=True):
                own = unique_name(number)
                title = f"{own} {_words(rng, rng.randint(2, 6))}"
                if rng.random() < 0.05:
                    title += " &amp; " + _words(rng, 2)
                page = Page(
                    url=url,
                    site=site,
                    up="../" * rel.count("/"),
                    title=title,
                    description=f"{_words(rng, rng.randint(8, 30))} {own} {_words(rng, rng.randint(4, 12))}.",
                    section=section,
                    lang=lang,
                    alternates=alternates,
                    published=_iso(NOW - stamps[number] - rng.randrange(2 * 365 * 86_400)),
                    modified=_iso(NOW - stamps[number]),
                    canonical=canonical,
                    number=number,
                    neighbour=_words(rng, 3),
                )
                head = gen.head(page)
                if noindex:  # a tag page, say, that the theme keeps out of search engines
                    head = head.replace('<meta name="robots" content="index, follow">\n', "")
                    head = head.replace("</head>", '<meta name="robots" content="noindex, follow">\n</head>')
                writer.write(site_dir / rel, head, NOW - stamps[number])
                number, left, in_section = number + 1, left - 1, in_section + 1
        site_number += 1
