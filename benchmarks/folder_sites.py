"""A built site of folders of about a hundred pages each, as a shop, a blog or a web app writes it.

The shape of issue 37's tree, which the unique trees did not have: folders of 80-120 pages
(a folder's `index.html` among them), an asset beside each page (an image, a stylesheet or a
script, by the page's name), heads that carry inline scripts and JSON-LD blobs of 0.3-12 KB
(most pages: a product's offers and reviews, a blog's JSON-LD graph and its emoji script, a web
app's page props), and about 3% of page names not ASCII. Three head templates, one a folder in
turn: a shop (product JSON-LD, a data layer push), a blog (WordPress with Yoast: a JSON-LD
graph, `article:modified_time`, a feed link) and a web app (Next's pages router: its
`__NEXT_DATA__`). Every page's title, description and canonical are its own (none shared, as on
a real site; tests/test_bench.py checks it); 1% of the pages are noindex and 0.5% redirect stubs.
Folders are `part-NNN/<template>-<k>/`, so that a page's template is its folder's name less its
number, as in the unique trees.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from unique_sites import BASE, NOW, VOCAB, _iso, unique_name

#: Words that make a page's name non-ASCII, as real sites' slugs carry them.
NON_ASCII = ("café", "über", "naïve", "größe", "résumé", "jalapeño", "kraków", "zürich", "東京", "smörgåsbord")
#: The words of an ASCII page name.
SLUG_WORDS = tuple(word for word in VOCAB if word.isascii() and word.islower())
#: What sits beside a page, by its name: images mostly, a stylesheet or a script for some.
ASSETS = (("jpg", b"\xff\xd8\xff\xe0"), ("png", b"\x89PNG\r\n\x1a\n"), ("webp", b"RIFF"), ("css", b""), ("js", b""))


@dataclass(frozen=True, slots=True)
class FolderPage:
    """One page's own fields."""

    url: str  # absolute, percent-encoded
    folder: str  # the folder's absolute URL path
    title: str
    description: str
    modified: str
    canonical: bool
    number: int
    blob: str  # the page's own inline data, 0.3-12 KB, or "" (JSON-safe words)


def _shop(p: FolderPage) -> str:
    canonical = f'<link rel="canonical" href="{p.url}">\n' if p.canonical else ""
    reviews = (
        f',"review":[{{"@type":"Review","reviewBody":"{p.blob}","author":{{"@type":"Person","name":"A buyer"}}}}]'
        if p.blob
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{p.title} – Example Shop</title>\n"
        f'<meta name="description" content="{p.description}">\n{canonical}'
        f'<meta property="og:type" content="product">\n<meta property="og:title" content="{p.title}">\n'
        f'<meta property="og:url" content="{p.url}">\n'
        f'<meta property="og:image" content="{p.folder}{p.number}.jpg">\n'
        '<link rel="stylesheet" href="/static/shop.3f9a1c.css">\n'
        '<script src="/static/shop.8e2b4d.js" defer></script>\n'
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product",'
        f'"name":"{p.title}","sku":"SKU-{p.number:07}","url":"{p.url}","offers":{{"@type":"Offer",'
        f'"price":"{p.number % 997}.{p.number % 100:02}","priceCurrency":"EUR"}}{reviews}}}</script>\n'
        "<script>window.dataLayer=window.dataLayer||[];dataLayer.push({event:'view_item',"
        f"item_id:'SKU-{p.number:07}',item_name:'{p.title}'}});</script>\n</head>"
    )


#: WordPress's emoji loader, inline in the head of most WordPress sites (shortened, the same on every page).
_EMOJI = (
    '<script>window._wpemojiSettings={"baseUrl":"https:\\/\\/s.w.org\\/images\\/core\\/emoji\\/15.0.3\\/72x72\\/",'
    '"ext":".png","svgUrl":"https:\\/\\/s.w.org\\/images\\/core\\/emoji\\/15.0.3\\/svg\\/","svgExt":".svg"};'
    "!function(i,n){var o,s,e;function c(e){try{var t={supportTests:e,timestamp:(new Date).valueOf()};"
    "sessionStorage.setItem(o,JSON.stringify(t))}catch(e){}}function p(e,t,n){e.clearRect(0,0,e.canvas.width,"
    "e.canvas.height),e.fillText(t,0,0);var t=new Uint32Array(e.getImageData(0,0,e.canvas.width,"
    "e.canvas.height).data)}}(window,document,window._wpemojiSettings);</script>\n"
)


def _blog(p: FolderPage) -> str:
    canonical = f'<link rel="canonical" href="{p.url}" />\n' if p.canonical else ""
    graph = (
        '<script type="application/ld+json" class="yoast-schema-graph">{"@context":"https://schema.org","@graph":'
        f'[{{"@type":"Article","@id":"{p.url}#article","headline":"{p.title}","dateModified":"{p.modified}",'
        f'"articleSection":["{p.blob}"]}},{{"@type":"WebPage","@id":"{p.url}","url":"{p.url}","name":"{p.title}"}}]}}'
        "</script>\n"
        if p.blob
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en-US">\n<head>\n<meta charset="UTF-8" />\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1" />\n'
        "<!-- This site is optimized with the Yoast SEO plugin v23.9 -->\n"
        f"<title>{p.title} | Example Blog</title>\n"
        f'<meta name="description" content="{p.description}" />\n'
        '<meta name="robots" content="index, follow, max-image-preview:large" />\n'
        f'{canonical}<meta property="og:locale" content="en_US" />\n<meta property="og:type" content="article" />\n'
        f'<meta property="og:title" content="{p.title}" />\n<meta property="og:url" content="{p.url}" />\n'
        f'<meta property="article:modified_time" content="{p.modified}" />\n{graph}'
        "<!-- / Yoast SEO plugin. -->\n"
        '<link rel="alternate" type="application/rss+xml" title="Example Blog &raquo; Feed" href="/feed/" />\n'
        f"{_EMOJI}"
        '<link rel="stylesheet" id="wp-block-library-css" href="/wp-includes/css/dist/block-library/style.min.css'
        '?ver=6.7.1" media="all" />\n</head>'
    )


def _app(p: FolderPage) -> str:
    canonical = f'<link rel="canonical" href="{p.url}"/>' if p.canonical else ""
    data = (
        '<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"title":"'
        f'{p.title}","body":"{p.blob}"}}}},"page":"/[folder]/[slug]","query":{{"n":"{p.number}"}},'
        '"buildId":"k2Hq9fPz","isFallback":false,"gsp":true}</script>'
        if p.blob
        else ""
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>'
        '<meta name="viewport" content="width=device-width"/>'
        f'<title>{p.title} · Example App</title><meta name="description" content="{p.description}"/>{canonical}'
        f'<meta property="og:title" content="{p.title}"/><meta property="og:url" content="{p.url}"/>'
        '<link rel="preload" href="/_next/static/css/7a1c2e.css" as="style"/>'
        '<link rel="stylesheet" href="/_next/static/css/7a1c2e.css" data-n-g=""/>'
        '<script defer="" nomodule="" src="/_next/static/chunks/polyfills-c67a75d1b6f99dc8.js"></script>'
        '<script src="/_next/static/chunks/webpack-ee7e63bc15b31913.js" defer=""></script>'
        f"{data}</head>"
    )


TEMPLATES: dict[str, Callable[[FolderPage], str]] = {"shop": _shop, "blog": _blog, "app": _app}


def _redirect(target: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Redirecting to {target}</title>\n'
        f'<meta http-equiv="refresh" content="0; url={target}">\n<link rel="canonical" href="{target}">\n</head>'
    )


@dataclass
class _Blobs:
    """Each page's inline data: 0.3-12 KB (log-uniform) on 85% of the pages, its words taken
    from a long text at a place of its own, so that no two are alike."""

    rng: random.Random
    text: str

    def next(self) -> str:
        if self.rng.random() >= 0.85:
            return ""
        size = int(300 * 40 ** self.rng.random())
        start = self.rng.randrange(len(self.text) - size)
        return self.text[start : start + size]


def generate_folders(
    root: Path,
    n: int,
    *,
    seed: int,
    canonical: bool = True,
    min_kb: int,
    max_kb: int,
    asset_every: int = 1,
    folder_pages: tuple[int, int] = (80, 120),
) -> None:
    """`n` pages under `root`, in folders of `folder_pages` pages, each folder one template's
    (shop, blog, app in turn); with `canonical`, each page names itself as canonical (the same
    seed without it gives the same tree, canonicals left out). An asset beside every
    `asset_every`-th page."""
    rng = random.Random(seed)
    words = " ".join(rng.choices(VOCAB, k=20_000))
    blobs = _Blobs(rng, words)
    filler = (words + "\n").encode()
    stamps = rng.sample(range(5 * 365 * 86_400), n)
    number = 0
    folder_number = 0
    names = list(TEMPLATES)
    while number < n:
        template = names[folder_number % len(names)]
        rel_folder = f"part-{folder_number // 100:03}/{template}-{folder_number}/"
        folder_url = "/" + rel_folder
        size = min(n - number, rng.randint(*folder_pages))
        for k in range(size):
            own = unique_name(number)
            if k == 0:
                name = "index.html"
            elif rng.random() < 0.03:
                name = f"{rng.choice(NON_ASCII)}-{own.lower()}.html"
            else:
                name = f"{own.lower()}-{rng.choice(SLUG_WORDS)}.html"
            url = BASE.rstrip("/") + quote(folder_url + ("" if name == "index.html" else name))
            mtime = NOW - stamps[number]
            roll = rng.random()
            if roll < 0.005 and k:
                head = _redirect(BASE.rstrip("/") + folder_url)
            else:
                title = f"{own} {' '.join(rng.choices(VOCAB, k=rng.randint(2, 6)))}"
                if rng.random() < 0.05:
                    title += " &amp; " + " ".join(rng.choices(VOCAB, k=2))
                page = FolderPage(
                    url=url,
                    folder=folder_url,
                    title=title,
                    description=f"{' '.join(rng.choices(VOCAB, k=rng.randint(8, 25)))} {own}.",
                    modified=_iso(mtime),
                    canonical=canonical,
                    number=number,
                    blob=blobs.next(),
                )
                head = TEMPLATES[template](page)
                if roll < 0.015:  # a search or tag page that the site keeps out of search engines
                    head = head.replace("index, follow, max-image-preview:large", "noindex, follow")
                    if "noindex" not in head:
                        head = head.replace("</head>", '<meta name="robots" content="noindex, follow">\n</head>')
            path = root / rel_folder / name
            data = head.encode() + b"\n<body>\n<main>\n"
            data += filler[: max(0, rng.randint(min_kb, max_kb) * 1024 - len(data))]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data + b"\n</main>\n</body>\n</html>\n")
            os.utime(path, (mtime, mtime))
            if number % asset_every == 0:
                ext, magic = ASSETS[number % len(ASSETS)]
                path.with_suffix(f".{ext}").write_bytes(magic + rng.randbytes(48))
            number += 1
        folder_number += 1
