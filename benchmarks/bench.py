"""How fast is sitemapgen, against `find` on the same tree in the same session?

Generates three built sites (see the README's "Speed"): "real", copies of the real
generators' sites of tests/realsites, each in a folder of its own with its links put
under it, and with what real heads carry beyond the fixtures (JSON-LD, analytics,
inline styles, preloads: `_extras`); "real, self-canonical", the same with a canonical
on every page; "synthetic", made-up heads of nine short tags. Pages of 5-30 KB, an
asset beside each, mtimes over five years. Then times, interleaved and repeated, on
each tree:

- `find DOCROOT -name '*.html' -printf '%T@ %P\\n'` (the baseline, ratio 1.0)
- a bare Python `os.scandir` walk with a stat per page
- the floor of head reading: that walk reading each page's head as sitemapgen does (no
  parsing), in one process and in two
- `sitemapgen build` with head reading off (mtime only) and on

and prints a table of medians per tree: seconds, pages/s, peak RSS, ratio to find on that
tree; then the head work a page costs on each generator's heads, as written and as in the tree.
Run: `make bench` (N=200000) or `make bench N=1000000`. With `--baseline DIR`
(a checkout of another version, e.g. `git worktree add /tmp/base HEAD~1`),
the same sitemapgen cases run that version too (in its own directory), interleaved with this one.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

_NOW = 1_795_000_000  # 2026-11: a fixed "now", so a seed gives the same tree

WORDS = (
    "static site sitemap crawler index page section archive release guide reference "
    "über café naïve déjà vu tutorial install configure deploy build cache header footer"
).split()

BARE_WALK = """
import os, sys
def walk(top):
    stack = [top]
    n = 0
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif e.name.endswith(".html"):
                    e.stat(); n += 1
    return n
print(walk(sys.argv[1]))
"""

#: The floor for head reading: the same walk, and each page's head read as sitemapgen reads it
#: (4 KiB, then on to the end of the head), in JOBS processes (batches of 512 pages), no parsing.
BARE_HEADS = """
import os, sys
from concurrent.futures import ProcessPoolExecutor
def batches(top):
    stack, found, pages = [top], [], []
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif e.name.endswith(".html"):
                    pages.append(e.path)
                    if len(pages) == 512:
                        found.append(pages)
                        pages = []
    return found + [pages]
def heads(pages):
    n = 0
    for path in pages:
        os.stat(path)
        fd = os.open(path, os.O_RDONLY)
        try:
            data = os.read(fd, 4096)
            while b"</head" not in data.lower() and len(data) < 65536:
                more = os.read(fd, 16384)
                if not more:
                    break
                data += more
        finally:
            os.close(fd)
        n += 1
    return n
jobs = int(sys.argv[2])
found = batches(sys.argv[1])
if jobs == 1:
    print(sum(map(heads, found)))
else:
    with ProcessPoolExecutor(jobs) as pool:
        print(sum(pool.map(heads, found)))
"""


def _head(rng: random.Random, url: str, kind: str, lang_pair: tuple[str, str] | None) -> str:
    tags = [
        '<meta charset="utf-8">',
        f"<title>{' '.join(rng.choices(WORDS, k=5))}</title>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="description" content="{" ".join(rng.choices(WORDS, k=20))}">',
        f'<meta property="og:title" content="{" ".join(rng.choices(WORDS, k=4))}">',
        f'<meta property="og:url" content="{url}">',
        '<link rel="stylesheet" href="/assets/site.css">',
        '<link rel="icon" href="/assets/favicon.png">',
        '<script src="/assets/site.js" defer></script>',
    ]
    if kind == "noindex":
        tags.append('<meta name="robots" content="noindex, follow">')
    elif kind == "canonical":
        tags.append('<link rel="canonical" href="https://example.com/elsewhere/">')
    elif kind == "redirect":
        tags = ['<meta charset="utf-8">', '<meta http-equiv="refresh" content="0; url=https://example.com/new/">']
    elif kind == "self":
        tags.append(f'<link rel="canonical" href="{url}">')
    if lang_pair:
        for lang in lang_pair:
            tags.append(f'<link rel="alternate" hreflang="{lang}" href="https://example.com/{lang}/page/">')
    return '<!DOCTYPE html>\n<html lang="en">\n<head>\n  ' + "\n  ".join(tags) + "\n</head>\n"


def generate(
    root: Path,
    n: int,
    *,
    seed: int,
    self_canonical: bool,
    min_kb: int,
    max_kb: int,
    asset_every: int = 1,
) -> None:
    """A built site of `n` pages (plus an asset for every `asset_every` pages) under `root`, its
    heads made up (the synthetic tree: nine short tags, and a signal on a few pages)."""
    rng = random.Random(seed)
    filler = (" ".join(rng.choices(WORDS, k=4000)) + "\n").encode()
    per_dir = 200
    for i in range(n):
        section = f"section-{i // (per_dir * 50):03}"
        directory = root / section / f"group-{(i // per_dir) % 50:02}"
        if i % per_dir == 0:
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "assets").mkdir(exist_ok=True)
        if i % 97 == 0:
            name = f"über café {i}.html"
        elif i % 10 == 0:
            name = f"post-{i}/index.html"
            (directory / f"post-{i}").mkdir(exist_ok=True)
        else:
            name = f"page-{i}.html"
        url = f"https://example.com/{section}/{directory.name}/{name.removesuffix('index.html')}"
        roll = rng.random()
        kind = "self" if self_canonical else "plain"
        if roll < 0.02:
            kind = "noindex"
        elif roll < 0.05:
            kind = "canonical"
        elif roll < 0.06:
            kind = "redirect"
        langs = ("en", "de") if rng.random() < 0.05 else None
        head = _head(rng, url, kind, langs).encode()
        size = rng.randint(min_kb, max_kb) * 1024
        body = b"<body>\n<main>\n" + filler * (size // len(filler) + 1)
        page = directory / name
        page.write_bytes(head + body[: max(0, size - len(head))] + b"\n</main>\n</body>\n</html>\n")
        when = _NOW - rng.randrange(5 * 365 * 86_400)  # as real trees: mtimes spread over years
        os.utime(page, (when, when))
        if i % asset_every == 0:
            (directory / "assets" / f"img-{i}.png").write_bytes(
                b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(64))
            )


REALSITES = Path(__file__).resolve().parent.parent / "tests" / "realsites"
FIXTURE_BASE = b"https://example.org/"
#: More languages for the multilingual Zensical site, in its own markup: real multilingual docs
#: carry 10-20 hreflang links (the 14-language site of issue 12), the fixture three.
MORE_LANGUAGES = ("es", "it", "pt", "nl", "pl", "sv", "da", "fi", "cs", "ja", "zh", "ko")


def real_sites() -> list[tuple[str, list[tuple[str, bytes]]]]:
    """Every fixture site of tests/realsites: its name, and each page's relpath and head as its
    generator wrote it, up to ``</head>``. The multilingual Zensical site comes twice: as built,
    and with 12 more languages in its alternate block (links to language homes, as it writes them)."""
    from sitemapgen.pages.head import read_head_bytes

    sites = []
    for site in sorted(p / "site" for p in REALSITES.iterdir() if (p / "site").is_dir()):
        pages = []
        for path in sorted(site.rglob("*.html")):
            if path.name == "404.html":
                continue  # never listed: a copy of it is no page of the tree
            data, _, _ = read_head_bytes(str(path))
            pages.append((path.relative_to(site).as_posix(), data))
        sites.append((site.parent.name, pages))
        if site.parent.name == "zensical-multilingual":
            link = re.compile(rb'( *)<link rel="alternate" href="/fr/" hreflang="fr">\n')
            more = [
                (
                    relpath,
                    link.sub(
                        lambda m: (
                            m.group(0)
                            + b"".join(
                                m.group(1)
                                + b'<link rel="alternate" href="/%s/" hreflang="%s">\n' % (lang.encode(), lang.encode())
                                for lang in MORE_LANGUAGES
                            )
                        ),
                        data,
                    ),
                )
                for relpath, data in pages
            ]
            sites.append(("zensical-15-languages", more))
    return sites


#: What real heads carry beyond the fixtures' (issue 12): JSON-LD on about half the pages, an
#: analytics snippet on half, a 4-12 KB inline style on some, font preloads with a bare attribute.
ANALYTICS = (
    b"<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}"
    b"gtag('js',new Date());gtag('config','G-BENCH0001');if(location.hash&&location.hash.length<64)"
    b"{document.documentElement.classList.add('has-hash')}</script>\n"
)


def _extras(rng: random.Random, url: bytes) -> bytes:
    extras = b""
    if rng.random() < 0.3:
        extras += (
            b'<link rel="preload" href="/fonts/inter-var.woff2" as="font" type="font/woff2" crossorigin>\n'
            b'<link rel="preload" href="/fonts/mono.woff2" as="font" type="font/woff2" crossorigin>\n'
        )
    if rng.random() < 0.5:
        words = " ".join(rng.choices(WORDS, k=rng.randint(30, 300)))
        extras += (
            b'<script type="application/ld+json">{"@context":"https://schema.org","@type":"TechArticle",'
            b'"url":"%s","headline":"%s","dateModified":"2024-03-0%dT10:00:00+00:00"}</script>\n'
        ) % (url, words.encode(), rng.randint(1, 9))
    if rng.random() < 0.5:
        extras += ANALYTICS
    if rng.random() < 0.15:
        rules = [
            f".c{i}{{margin:{i % 7}px {i % 5}rem;color:#{i * 2654435761 % 0xFFFFFF:06x}}}"
            for i in range(rng.randint(4_000, 12_000) // 40)
        ]
        extras += b"<style>" + "".join(rules).encode() + b"</style>\n"
    return extras


_ROOT_RELATIVE = re.compile(rb"""((?:href|src|content)=["']?)/(?!/)""")


def copied_head(data: bytes, url_prefix: bytes) -> bytes:
    """A fixture's head as it is in a copy of its site under `url_prefix` (percent-encoded): its
    absolute and root-relative URLs put under it."""
    head = data.replace(FIXTURE_BASE, b"https://example.com/%s/" % url_prefix)
    return _ROOT_RELATIVE.sub(rb"\1/" + url_prefix + b"/", head)  # quote() leaves no backslash


def generate_real(
    root: Path, n: int, *, seed: int, self_canonical: bool, min_kb: int, max_kb: int, asset_every: int = 1
) -> None:
    """A built site of `n` pages under `root`, from copies of the fixture sites (real generators'
    heads), each copy under a folder of its own, so that its links (canonical, hreflang, feeds,
    relative and root-relative) stay true: every absolute or root-relative URL of a copy is put
    under that folder. Each page also gets `_extras`, a size of `min_kb`-`max_kb`, an asset beside
    it that its body shows (``<img>``) and an mtime over five years; with `self_canonical`, a
    canonical naming itself where its head has none. Copies take turns, site by site; every 97th
    copy's folder is non-ASCII."""
    from urllib.parse import quote

    rng = random.Random(seed)
    filler = (" ".join(rng.choices(WORDS, k=4000)) + "\n").encode()
    sites = real_sites()
    count = 0
    copy = 0
    while count < n:
        name, pages = sites[copy % len(sites)]
        folder = f"café {copy}" if copy % 97 == 0 else f"{name}-{copy}"
        prefix = f"part-{copy // 500:03}/{folder}"
        url_prefix = quote(prefix).encode()
        for relpath, data in pages:
            if count == n:
                break
            url = b"https://example.com/%s/%s" % (url_prefix, quote(relpath.removesuffix("index.html")).encode())
            head = copied_head(data, url_prefix)
            if self_canonical and b'rel="canonical"' not in head:
                head += b'<link rel="canonical" href="%s">\n' % url
            head += _extras(rng, url) + b"</head>\n"
            page = root / prefix / relpath
            page.parent.mkdir(parents=True, exist_ok=True)
            size = rng.randint(min_kb, max_kb) * 1024
            figure = b'<p><img src="figure-%d.png" alt="figure %d"></p>\n' % (count, count)
            body = b"<body>\n<main>\n" + figure * (count % asset_every == 0) + filler * (size // len(filler) + 1)
            page.write_bytes(head + body[: max(0, size - len(head))] + b"\n</main>\n</body>\n</html>\n")
            when = _NOW - rng.randrange(5 * 365 * 86_400)
            os.utime(page, (when, when))
            if count % asset_every == 0:
                (page.parent / f"figure-{count}.png").write_bytes(
                    b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(64))
                )
            count += 1
        copy += 1


def real_heads(repeat: int) -> list[str]:
    """Head work on heads as real generators write them (the fixtures of tests/realsites), and
    as the real tree carries them (with `_extras`: scripts, styles, preloads): per page, the
    microseconds from head bytes to `HeadFacts` (no file reading), and how many heads the fast
    scanner hands to beautifulsoup4. Table rows, in Markdown."""
    from sitemapgen.pages.encoding import decode_head
    from sitemapgen.pages.head import facts_from_bytes, says_nothing
    from sitemapgen.pages.scanner import forget_seen, scan_tags_fast

    def best_of(copies: list[list[tuple[bytes, str]]]) -> float:
        # Each pass over another copy of the site, as in a tree: what a page shares with the
        # other pages of its site (read once, see scanner._TAGS) is shared, its own URLs are not.
        # Each pass starts with nothing read, as a build does: a tag read in the pass before
        # would be read again in a tree, where no page is seen twice.
        best = float("inf")
        for _ in range(repeat):
            forget_seen()
            started = time.perf_counter()
            for heads in copies:
                for data, url in heads:
                    facts_from_bytes(data, url)
            best = min(best, (time.perf_counter() - started) / sum(map(len, copies)))
        return best * 1e6

    rows = []
    rng = random.Random(1)
    for name, pages in real_sites():
        copies = []
        tree = []
        for k in range(40):
            prefix = f"copy-{k}".encode()
            heads = [(copied_head(data, prefix), f"https://example.com/copy-{k}/{relpath}") for relpath, data in pages]
            copies.append(heads)
            tree.append([(data + _extras(rng, url.encode()), url) for data, url in heads])
        flat = [head for heads in tree for head in heads]
        to_bs4 = sum(1 for data, _ in flat if not says_nothing(data) and scan_tags_fast(decode_head(data)) is None)
        size = statistics.median(len(data) for data, _ in copies[0]) / 1024
        tree_size = statistics.median(len(data) for data, _ in flat) / 1024
        rows.append(
            f"| {name} | {len(pages)} | {size:.1f} KB | {best_of(copies):.0f} µs | {tree_size:.1f} KB"
            f" | {best_of(tree):.0f} µs | {to_bs4} of {len(flat)} |"
        )
    return rows


@dataclass
class Sample:
    seconds: float
    rss_kib: int


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> Sample:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({code}):\n{err}")
    return Sample(seconds, usage.ru_maxrss)


Case = tuple[str, str]  # (tree, what)
FIND = "find -name '*.html' -printf"


def _generate_trees(trees: dict[str, Path], n: int, *, seed: int, min_kb: int, max_kb: int) -> None:
    asset_every = 1 if n <= 300_000 else 10  # tmpfs has an inode limit too
    for label, root in trees.items():
        started = time.perf_counter()
        if label == "synthetic":
            generate(root, n, seed=seed, self_canonical=False, min_kb=min_kb, max_kb=max_kb, asset_every=asset_every)
        else:
            self_canonical = label == "real, self-canonical"
            generate_real(
                root, n, seed=seed, self_canonical=self_canonical, min_kb=min_kb, max_kb=max_kb, asset_every=asset_every
            )
        seconds = time.perf_counter() - started
        print(f"generated {label}: {n:,} pages of {min_kb}-{max_kb} KB in {seconds:.0f} s", file=sys.stderr)


def _cases(
    trees: dict[str, Path], build: list[str], baseline: Path | None, images: Path
) -> dict[Case, tuple[list[str], str | None]]:
    """Each case's command, and the PYTHONPATH it runs with (a baseline's). Per tree, find
    first: the ratios are to find on the same tree. On the real tree, also a build with
    `images` on (`images`: a config file that says so), which reads every page whole."""
    cases: dict[Case, tuple[list[str], str | None]] = {}
    ours: dict[Case, list[str]] = {}
    for label, root in trees.items():
        cases[label, FIND] = (["find", str(root), "-name", "*.html", "-printf", r"%T@ %P\n"], None)
        cases[label, "python scandir walk + stat"] = ([sys.executable, "-c", BARE_WALK, str(root)], None)
        for procs in (1, 2):
            what = f"python walk + read each head, {procs} process{'es' * (procs > 1)} (the floor)"
            cases[label, what] = ([sys.executable, "-c", BARE_HEADS, str(root), str(procs)], None)
        if label != "real, self-canonical":
            ours[label, "sitemapgen, heads off (mtime only)"] = [*build, "--no-read-heads", str(root)]
        ours[label, "sitemapgen, heads on"] = [*build, str(root)]
        if label == "real":
            ours[label, "sitemapgen, heads on, images = true"] = [*build, "--config", str(images), str(root)]
    cases.update((key, (cmd, None)) for key, cmd in ours.items())
    if baseline is not None:
        for (label, what), cmd in ours.items():
            if "images" in what:
                continue  # a key the baseline may not know
            module = [sys.executable, "-m", "sitemapgen", *cmd[1:]]
            cases[label, f"baseline {what.removeprefix('sitemapgen, ')}"] = (module, str(baseline.resolve()))
    return cases


def _timed(cases: dict[Case, tuple[list[str], str | None]], repeat: int, out: Path) -> dict[Case, list[Sample]]:
    # As an installed package runs: its bytecode compiled (pip compiles it; the warm-up writes it here).
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    samples: dict[Case, list[Sample]] = {key: [] for key in cases}
    for turn in range(repeat + 1):  # round 0 warms up: page cache, .pyc files
        for key, (cmd, path) in cases.items():  # interleaved, so drift hits every case alike
            # A baseline runs in its checkout: `python -m` puts the working directory first on
            # sys.path, before PYTHONPATH, so from this checkout it would run this version.
            sample = run(cmd, env if path is None else {**env, "PYTHONPATH": path}, cwd=path)
            if turn:
                samples[key].append(sample)
            shutil.rmtree(out, ignore_errors=True)
    return samples


def _print_tables(trees: dict[str, Path], samples: dict[Case, list[Sample]], n: int) -> None:
    for label in trees:
        find_median = statistics.median(s.seconds for s in samples[label, FIND])
        print(f"\nTree: {label}\n")
        print("| what | seconds | pages/s | peak RSS | × find |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for (tree, what), runs in samples.items():
            if tree == label:
                seconds = statistics.median(s.seconds for s in runs)
                rss = statistics.median(s.rss_kib for s in runs) / 1024
                print(f"| {what} | {seconds:.2f} | {n / seconds:,.0f} | {rss:.0f} MiB | {seconds / find_median:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--pages", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where to generate (default: /dev/shm, else a temp dir)")
    parser.add_argument("--min-kb", type=int, default=None)
    parser.add_argument("--max-kb", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=None, help="passed to sitemapgen build --jobs")
    parser.add_argument("--keep", action="store_true", help="keep the generated trees")
    parser.add_argument("--baseline", type=Path, default=None, help="a checkout of another version to time too")
    args = parser.parse_args()
    n = args.pages
    # 200,000 pages of 5-30 KB are 3.5 GB a tree; a million such pages (and as many assets: inodes)
    # would not fit in memory-backed /dev/shm, so the big run uses smaller pages, and an asset
    # for every tenth page, unless told otherwise.
    min_kb = args.min_kb if args.min_kb is not None else (5 if n <= 300_000 else 1)
    max_kb = args.max_kb if args.max_kb is not None else (30 if n <= 300_000 else 4)
    shm = Path("/dev/shm")
    base = args.dir or (shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir()))
    work = Path(tempfile.mkdtemp(prefix="sitemapgen-bench-", dir=base))
    sitemapgen = shutil.which("sitemapgen", path=str(Path(sys.executable).parent)) or "sitemapgen"
    try:
        trees = {"real": work / "real", "real, self-canonical": work / "real-self", "synthetic": work / "synthetic"}
        _generate_trees(trees, n, seed=args.seed, min_kb=min_kb, max_kb=max_kb)
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        out = work / "out"
        build = [sitemapgen, "build", "--base-url", "https://example.com/", "--out", str(out), "--quiet", *jobs]
        images = work / "images.toml"
        images.write_text("images = true\n")
        samples = _timed(_cases(trees, build, args.baseline, images), args.repeat, out)
        print(
            f"\n{n:,} pages, {args.repeat} runs each, medians; {date.today()}, {platform.machine()},"
            f" {os.cpu_count()} CPUs, Python {platform.python_version()}, trees on {base}"
        )
        _print_tables(trees, samples, n)
        print()
        print("Head work per page, bytes to facts (best of runs; each run over 40 copies of the site, starting")
        print("with nothing read, as a build does): on the fixtures' heads as their generators wrote them")
        print("(tests/realsites), and with what the real tree adds (scripts, styles, preloads):")
        print()
        print("| generator | pages | median head | µs a page | in the tree | µs a page | heads bs4 reads |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in real_heads(args.repeat):
            print(row)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
