"""How fast is sitemapgen, against `find` and against the floor, on the same tree in the same session?

Generates built sites (see docs/performance.md); by default three:

- "unique, self-canonical", the main case: sites written through real generators' head
  templates (`unique_sites`: Sphinx, MkDocs-material, Hugo, Jekyll, Docusaurus, Starlight,
  Next, VitePress, Eleventy), every per-page field of every page its own, and a canonical
  naming itself on every page, as every real generator writes one; both folder shapes (one
  page a folder, and flat folders of hundreds);
- "unique, no canonical": the same tree with the canonicals left out;
- "folders of ~100, self-canonical": the shape of issue 37's tree (`folder_sites`): folders
  of 80-120 pages, an asset beside each page, inline scripts and JSON-LD of 0.3-12 KB in most
  heads, 3% of page names not ASCII, every page its own and naming itself as canonical;
- "real": copies of the real generators' sites of tests/realsites, each in a folder of its
  own, with what real heads carry beyond the fixtures (`_extras`): kept so that figures can
  be compared with the earlier ones (its heads repeat from copy to copy).

`--trees` also offers "folders-no-canonical" (the folders tree, its canonicals left out),
"real-self" (the real tree with a canonical on every page) and "synthetic" (made-up heads of
nine short tags). Pages of 4-12 KB, an asset beside each, mtimes over five years. Then times,
interleaved and repeated, on each tree:

- `find DOCROOT -name '*.html' -printf '%T@ %P\\n'` (the baseline, ratio 1.0)
- a bare Python `os.scandir` walk with a stat per page
- the floor: that walk reading each page's head as sitemapgen does (no parsing), in one
  process and in as many as the build runs (`--jobs`, 2 by default)
- `sitemapgen build --jobs JOBS` with head reading on, and off (mtime only, `--no-read-heads`)

and prints a table of medians per tree: seconds, pages/s, peak RSS, ratio to find and to the
floor (in JOBS processes) on that tree, and CPU seconds (user and system, the workers'
included) and their ratio to the floor's; the targets and whether they hold; the head work a
page costs on each tree's own heads (a sample, no head read twice); and on each generator's
heads of tests/realsites, as written and as in the real tree.
Run: `make bench` (N=200000) or `make bench N=1000000`. With `--baseline DIR`
(a checkout of another version, e.g. `git worktree add /tmp/base HEAD~1`),
the same sitemapgen cases run that version too (in its own directory), interleaved with this one.
"""

from __future__ import annotations

import argparse
import compileall
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

from folder_sites import generate_folders
from unique_sites import generate_unique

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
    cpu: float = 0.0  # user and system seconds, of the case and of the children it waited for


#: Runs a case (its argv) and prints its seconds, its peak RSS (KiB) and its exit code. The
#: kernel reports a child's peak as at least its parent's when it was forked (the peak is carried
#: over to the new program), and this bench, having generated the trees, is large: a case forked
#: from it would read as large as it. Forked from this small launcher instead, it reads as its
#: own, or the launcher's (a few MiB) if smaller. Its output goes to /dev/null, its errors through.
LAUNCH = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
"""


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> Sample:
    done = subprocess.run([sys.executable, "-c", LAUNCH, *cmd], capture_output=True, env=env, cwd=cwd, check=False)
    err = done.stderr.decode(errors="replace")
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: the launcher failed ({done.returncode}):\n{err}")
    seconds, rss_kib, code, cpu = done.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({code}):\n{err}")
    return Sample(float(seconds), int(rss_kib), float(cpu))


Case = tuple[str, str]  # (tree, what)
FIND = "find -name '*.html' -printf"
MAIN = "unique, self-canonical"
FOLDERS = "folders of ~100, self-canonical"
#: Each tree the bench can make, by its --trees key: its label, and how it is generated.
TREES = {
    "unique": MAIN,
    "unique-no-canonical": "unique, no canonical",
    "folders": FOLDERS,
    "folders-no-canonical": "folders of ~100, no canonical",
    "real": "real",
    "real-self": "real, self-canonical",
    "synthetic": "synthetic",
}
DEFAULT_TREES = "unique,unique-no-canonical,folders,real"
HEADS_ON = "sitemapgen, heads on"
HEADS_ON_PYTHON = "sitemapgen, heads on, pure Python (SITEMAPGEN_PURE_PYTHON=1)"
HEADS_OFF = "sitemapgen, heads off (mtime only)"


def floor_name(jobs: int) -> str:
    return f"the floor: walk + read each head, {jobs} process{'es' * (jobs > 1)}"


def generate_tree(label: str, root: Path, n: int, *, seed: int, min_kb: int, max_kb: int, asset_every: int) -> None:
    """The tree of that label (see TREES) with `n` pages under `root`."""
    sizes = {"min_kb": min_kb, "max_kb": max_kb, "asset_every": asset_every}
    if label.startswith("unique"):
        generate_unique(root, n, seed=seed, canonical=label == MAIN, **sizes)
    elif label.startswith("folders"):
        generate_folders(root, n, seed=seed, canonical=label == FOLDERS, **sizes)
    elif label == "synthetic":
        generate(root, n, seed=seed, self_canonical=False, **sizes)
    else:
        generate_real(root, n, seed=seed, self_canonical=label == "real, self-canonical", **sizes)


def _generate_trees(trees: dict[str, Path], n: int, *, seed: int, min_kb: int, max_kb: int) -> None:
    asset_every = 1 if n <= 300_000 else 10  # tmpfs has an inode limit too
    for label, root in trees.items():
        started = time.perf_counter()
        generate_tree(label, root, n, seed=seed, min_kb=min_kb, max_kb=max_kb, asset_every=asset_every)
        seconds = time.perf_counter() - started
        print(f"generated {label}: {n:,} pages of {min_kb}-{max_kb} KB in {seconds:.0f} s", file=sys.stderr)


def _cases(
    trees: dict[str, Path], build: list[str], baseline: Path | None, jobs: int, images: Path
) -> dict[Case, tuple[list[str], str | None]]:
    """Each case's command, and the PYTHONPATH it runs with (a baseline's). Per tree, find
    first: the ratios are to find on the same tree, and to the floor in as many processes as
    the build runs; heads off too, on every tree (its pages' names and folders differ, so its
    cost does). On "real", also a build with `images` on (`images`: a config file that
    says so), which reads every page whole."""
    cases: dict[Case, tuple[list[str], str | None]] = {}
    ours: dict[Case, list[str]] = {}
    for label, root in trees.items():
        cases[label, FIND] = (["find", str(root), "-name", "*.html", "-printf", r"%T@ %P\n"], None)
        cases[label, "python scandir walk + stat"] = ([sys.executable, "-c", BARE_WALK, str(root)], None)
        for procs in sorted({1, jobs}):
            cases[label, floor_name(procs)] = ([sys.executable, "-c", BARE_HEADS, str(root), str(procs)], None)
        ours[label, HEADS_OFF] = [*build, "--no-read-heads", str(root)]
        ours[label, HEADS_ON] = [*build, str(root)]
        if label == MAIN:  # the scanner without its compiled part (as where no C compiler is)
            ours[label, HEADS_ON_PYTHON] = ["env", "SITEMAPGEN_PURE_PYTHON=1", *build, str(root)]
        if label == "real":
            ours[label, "sitemapgen, heads on, images = true"] = [*build, "--config", str(images), str(root)]
    cases.update((key, (cmd, None)) for key, cmd in ours.items())
    if baseline is not None:
        for (label, what), cmd in ours.items():
            if "images" in what or "pure Python" in what:
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
        print(f"timed round {turn} of {repeat} (round 0 warms up)", file=sys.stderr)
    return samples


@dataclass
class Figures:
    """One case's medians."""

    seconds: float
    rss_mib: float
    to_find: float
    to_floor: float
    cpu: float = 0.0
    cpu_to_floor: float = 0.0


def figures(samples: dict[Case, list[Sample]], jobs: int) -> dict[Case, Figures]:
    """Each case's medians, and its ratios to find and to the floor (in `jobs` processes) on its tree."""
    medians = {key: statistics.median(s.seconds for s in runs) for key, runs in samples.items()}
    cpu = {key: statistics.median(s.cpu for s in runs) for key, runs in samples.items()}
    return {
        (tree, what): Figures(
            medians[tree, what],
            statistics.median(s.rss_kib for s in runs) / 1024,
            medians[tree, what] / medians[tree, FIND],
            medians[tree, what] / medians[tree, floor_name(jobs)],
            cpu[tree, what],
            cpu[tree, what] / max(cpu[tree, floor_name(jobs)], 1e-9),
        )
        for (tree, what), runs in samples.items()
    }


def _print_tables(trees: dict[str, Path], results: dict[Case, Figures], n: int) -> None:
    for label in trees:
        print(f"\nTree: {label}\n")
        print("| what | seconds | pages/s | peak RSS | × find | × floor | CPU s | CPU × floor |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for (tree, what), f in results.items():
            if tree == label:
                print(
                    f"| {what} | {f.seconds:.2f} | {n / f.seconds:,.0f} | {f.rss_mib:.0f} MiB"
                    f" | {f.to_find:.1f} | {f.to_floor:.1f} | {f.cpu:.2f} | {f.cpu_to_floor:.1f} |"
                )


def _verdict(measured: float, target: float, unit: str) -> str:
    return "holds" if measured <= target else f"**misses**, {measured:.1f}{unit} vs target {target:g}{unit}"


#: A million pages with heads on, in seconds at most.
MILLION_SECONDS = 25


def targets(results: dict[Case, Figures], n: int, jobs: int) -> list[str]:
    """The targets: against the floor on every tree (heads on at most twice it, heads off at most
    it), against find on the main tree, peak memory, and a million pages; what this run
    measured, and whether each holds, as table rows."""

    def every_tree(what: str, name: str, most: float) -> list[str]:
        return [
            f"| {name} ≤ {most:g}× the floor | {tree} | {f.to_floor:.1f}× | {_verdict(f.to_floor, most, '×')} |"
            for (tree, case), f in results.items()
            if case == what
        ]

    on_floor = every_tree(HEADS_ON, "heads on", 2)  # one row a tree: each runs heads on and off
    off_floor = every_tree(HEADS_OFF, "heads off", 1)
    if (MAIN, HEADS_ON) not in results:
        return [f"| (the {MAIN} tree was not run: its targets not measured) | | | |", *on_floor, *off_floor]
    on, off = results[MAIN, HEADS_ON], results[MAIN, HEADS_OFF]
    rss = max(f.rss_mib for (_, what), f in results.items() if what.startswith("sitemapgen"))
    rows = [
        f"| every page self-canonical ≤ 6× find | {MAIN} | {on.to_find:.1f}× | {_verdict(on.to_find, 6, '×')} |",
        *on_floor,
        f"| heads off ≤ 2.5× find | {MAIN} | {off.to_find:.1f}× | {_verdict(off.to_find, 2.5, '×')} |",
        *off_floor,
        f"| peak RSS ≤ 64 MiB | every tree, every build | {rss:.0f} MiB | {_verdict(rss, 64, ' MiB')} |",
    ]
    million = f"| a million pages, heads on, < {MILLION_SECONDS} s | {MAIN}, 1,000,000 pages |"
    if n == 1_000_000:
        rows.append(f"{million} {on.seconds:.1f} s | {_verdict(on.seconds, MILLION_SECONDS, ' s')} |")
    else:
        guess = on.seconds * 1_000_000 / n
        rows.append(
            f"{million} not measured at this N ({n:,}); extrapolated linearly: {guess:.0f} s"
            f" | not measured ({'would hold' if guess < MILLION_SECONDS else 'would miss'} if linear) |"
        )
    return rows


def _pages_of(root: Path) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        found.extend(
            os.path.relpath(os.path.join(folder, name), root) for name in sorted(files) if name.endswith(".html")
        )
    return found


def head_work(root: Path, *, sample: int, seed: int) -> list[tuple[str, int, float, float, float]]:
    """Head work on a tree's own heads, in this process: for a random sample of its pages, read
    once each (no head seen twice: their own fields, and their template lines as a build reads
    them, after the pages before), the µs a page from head bytes to facts (`facts_from_bytes`:
    the prefilter, decoding, `parse_head`) and of `parse_head` alone on the decoded text (over
    another sample), in CPU time (the machine may be busy with other work). Per generator (its
    site folders' names), and for the whole sample: rows of (generator, pages, median head KB,
    µs bytes to facts, µs parse_head)."""
    from sitemapgen.pages import scanner
    from sitemapgen.pages.encoding import decode_head
    from sitemapgen.pages.head import facts_from_bytes, parse_head, read_head_bytes
    from sitemapgen.urls import page_url

    pages = _pages_of(root)
    rng = random.Random(seed)
    picked = rng.sample(pages, min(len(pages), 2 * sample))
    heads = [(p, read_head_bytes(str(root / p))[0], page_url(BASE_URL, Path(p).as_posix())) for p in picked]
    whole, parse_only = heads[: len(heads) // 2], heads[len(heads) // 2 :]
    texts = [(p, decode_head(data), url) for p, data, url in parse_only]
    forget = getattr(scanner, "forget_seen", lambda: None)
    forget()
    spent: dict[str, list[float]] = {}
    for relpath, data, url in whole:
        started = time.thread_time()
        facts_from_bytes(data, url)
        spent.setdefault(_generator_of(relpath), []).append(time.thread_time() - started)
    parsed: dict[str, list[float]] = {}
    forget()
    for relpath, text, url in texts:
        started = time.thread_time()
        parse_head(text, url)
        parsed.setdefault(_generator_of(relpath), []).append(time.thread_time() - started)
    sizes: dict[str, list[int]] = {}
    for relpath, data, _ in heads:
        sizes.setdefault(_generator_of(relpath), []).append(len(data))
    rows = []
    for name in sorted(spent):
        times, only = spent[name], parsed.get(name, [0.0])
        rows.append((name, len(times), statistics.median(sizes[name]) / 1024, _mean_us(times), _mean_us(only)))
    every = [t for times in spent.values() for t in times]
    every_parse = [t for times in parsed.values() for t in times]
    all_sizes = [size for group in sizes.values() for size in group]
    rows.append(("all", len(every), statistics.median(all_sizes) / 1024, _mean_us(every), _mean_us(every_parse)))
    return rows


BASE_URL = "https://example.com/"


def _compile(packages: list[Path]) -> None:
    """Each module of `packages` compiled to bytecode beside it, as pip compiles a package it
    installs, before anything is timed: a build then loads them as an installed sitemapgen does.
    Where PYTHONDONTWRITEBYTECODE is set (as on some machines and CI images), an editable
    install's modules would be compiled from source again in each build (0.3 s of each)."""
    for package in packages:
        if not compileall.compile_dir(package, quiet=1):
            raise SystemExit(f"{package}: a module did not compile")


def _scanner() -> str:
    """Which scanner reads heads in this run's builds."""
    from sitemapgen.pages import scanner

    if scanner.COMPILED is None:
        return "the compiled scanner is not built (or SITEMAPGEN_PURE_PYTHON is set): heads read in Python"
    return "heads read with the compiled scanner (sitemapgen/pages/_scan.c)"


def _mean_us(seconds: list[float]) -> float:
    return sum(seconds) / len(seconds) * 1e6 if seconds else 0.0


def _generator_of(relpath: str) -> str:
    """The generator of a page of a unique tree (its site folder's name, as `unique_sites`
    names it), or of the real tree (its copy's fixture); "other" where the folder does not say."""
    parts = Path(relpath).parts
    if len(parts) < 2 or parts[1].startswith("café"):
        return "other"
    return parts[1].rsplit("-", 1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--pages", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where to generate (default: /dev/shm, else a temp dir)")
    parser.add_argument("--min-kb", type=int, default=None)
    parser.add_argument("--max-kb", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=2, help="sitemapgen build --jobs, and the floor's processes (2)")
    parser.add_argument("--trees", default=DEFAULT_TREES, help=f"which trees, of {', '.join(TREES)} ({DEFAULT_TREES})")
    parser.add_argument("--sample", type=int, default=3000, help="pages a tree whose head work is timed (3000)")
    parser.add_argument("--keep", action="store_true", help="keep the generated trees")
    parser.add_argument("--baseline", type=Path, default=None, help="a checkout of another version to time too")
    args = parser.parse_args()
    n, jobs = args.pages, args.jobs
    unknown = set(args.trees.split(",")) - set(TREES)
    if unknown:
        parser.error(f"--trees: no tree {', '.join(sorted(unknown))} (there are {', '.join(TREES)})")
    # Only a page's head is read (4 KiB first: every page here has that much), so what follows it
    # changes nothing the build or the floor reads, only the memory that memory-backed /dev/shm
    # gives the trees: 200,000 pages of 4-12 KB are 1.6 GB a tree (5-30 KB were 3.5 GB, too much
    # for three trees on a machine others share). A million pages (and as many assets: inodes)
    # use 1-4 KB, and an asset for every tenth page, unless told otherwise.
    min_kb = args.min_kb if args.min_kb is not None else (4 if n <= 300_000 else 1)
    max_kb = args.max_kb if args.max_kb is not None else (12 if n <= 300_000 else 4)
    shm = Path("/dev/shm")
    base = args.dir or (shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir()))
    work = Path(tempfile.mkdtemp(prefix="sitemapgen-bench-", dir=base))
    sitemapgen = shutil.which("sitemapgen", path=str(Path(sys.executable).parent)) or "sitemapgen"
    packages = [Path(__file__).resolve().parent.parent / "sitemapgen"]
    if args.baseline is not None:
        packages.append(args.baseline / "sitemapgen")
    _compile(packages)
    try:
        keys = [key for key in TREES if key in args.trees.split(",")]
        trees = {TREES[key]: work / key for key in keys}
        _generate_trees(trees, n, seed=args.seed, min_kb=min_kb, max_kb=max_kb)
        out = work / "out"
        build = [sitemapgen, "build", "--base-url", BASE_URL, "--out", str(out), "--quiet", "--jobs", str(jobs)]
        images = work / "images.toml"
        images.write_text("images = true\n")
        samples = _timed(_cases(trees, build, args.baseline, jobs, images), args.repeat, out)
        results = figures(samples, jobs)
        print(
            f"\n{n:,} pages, {jobs} processes, {args.repeat} interleaved runs each, medians; {date.today()},"
            f" {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, trees on {base};"
            f" {_scanner()}; modules compiled to bytecode first, as pip installs them"
        )
        _print_tables(trees, results, n)
        print(f"\nTargets (set for trees of 200,000 pages, 2 processes; this run: {n:,} pages, {jobs}):\n")
        print("| target | tree | measured | holds |")
        print("| --- | --- | ---: | --- |")
        for row in targets(results, n, jobs):
            print(row)
        for label, root in trees.items():
            print(f"\nHead work a page on the {label} tree's own heads, in one process, CPU time ({args.sample:,}")
            print("pages each, no head read twice): bytes to facts (prefilter, decoding, parse_head), and parse_head")
            print("alone:\n")
            print("| generator | pages | median head | µs a page, bytes to facts | µs a page, parse_head |")
            print("| --- | ---: | ---: | ---: | ---: |")
            for name, count, size, whole, parse in head_work(root, sample=args.sample, seed=args.seed):
                print(f"| {name} | {count:,} | {size:.1f} KB | {whole:.0f} µs | {parse:.0f} µs |")
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
