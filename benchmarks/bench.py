"""How fast is sitemapgen, against `find` on the same tree in the same session?

Generates built sites (pages of 5-30 KB, as many assets, mtimes spread over five years, a mix of noindex,
canonical-elsewhere, redirect-stub and hreflang pages, non-ASCII and spaced
names; a variant where every page carries a self-referencing canonical link;
and a variant whose heads are real generators' heads, those of
tests/realsites, each with its page's own URL put in), then times,
interleaved and repeated:

- `find DOCROOT -name '*.html' -printf '%T@ %P\\n'` (the baseline, ratio 1.0)
- a bare Python `os.scandir` walk with a stat per page
- the floor of head reading: that walk reading each page's head as sitemapgen does (no
  parsing), on the real-heads tree, in one process and in two
- `sitemapgen build` with head reading on, on both trees, and off (mtime only)
- `sitemapgen list` with head reading on (the same decisions, printed instead of written)

and prints a table of medians: seconds, pages/s, peak RSS, ratio to find; then the head work a
page costs on heads as real generators write them (the fixtures in tests/realsites).
Run: `make bench` (N=200000) or `make bench N=1000000`. With `--baseline DIR`
(a checkout of another version, e.g. `git worktree add /tmp/base HEAD~1`),
the same sitemapgen cases run that version too, interleaved with this one.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
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
#: (4 KiB, then on to the end of the head), in JOBS processes (one per directory batch), no parsing.
BARE_HEADS = """
import os, sys
from concurrent.futures import ProcessPoolExecutor
def dirs(top):
    stack, found = [top], []
    while stack:
        d = stack.pop()
        pages = []
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif e.name.endswith(".html"):
                    pages.append(e.path)
        if pages:
            found.append(pages)
    return found
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
batches = dirs(sys.argv[1])
if jobs == 1:
    print(sum(map(heads, batches)))
else:
    with ProcessPoolExecutor(jobs) as pool:
        print(sum(pool.map(heads, batches, chunksize=4)))
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


def real_templates() -> list[bytes]:
    """Every head in tests/realsites as its generator wrote it, up to ``</head>``, with the page's
    own URL (canonical, og:url, a self hreflang) as ``{URL}``: heads of real pages to multiply."""
    from sitemapgen.head import read_head_bytes

    templates = []
    for site in sorted(p / "site" for p in REALSITES.iterdir() if (p / "site").is_dir()):
        for path in sorted(site.rglob("*.html")):
            data, _, _ = read_head_bytes(str(path))
            relpath = path.relative_to(site).as_posix()
            own = "https://example.org/" + (relpath.removesuffix("index.html"))
            templates.append(data.replace(own.encode(), b"{URL}") + b"</head>\n")
    return templates


def generate(
    root: Path,
    n: int,
    *,
    seed: int,
    self_canonical: bool,
    min_kb: int,
    max_kb: int,
    asset_every: int = 1,
    templates: list[bytes] | None = None,
) -> None:
    """A built site of `n` pages (plus an asset for every `asset_every` pages) under `root`;
    with `templates`, each page's head is one of them (real generators' heads), its own URL put in."""
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
        if templates:
            head = rng.choice(templates).replace(b"{URL}", url.encode())
        else:
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


def real_heads(repeat: int) -> list[str]:
    """Head work on heads as real generators write them (the fixtures of tests/realsites):
    per page, the microseconds from head bytes to `HeadFacts` (no file reading), and how many
    heads the fast scanner hands to beautifulsoup4. Table rows, in Markdown."""
    from sitemapgen.head import decode_head, facts_from_bytes, read_head_bytes, says_nothing, scan_tags_fast

    rows = []
    for site in sorted(p / "site" for p in REALSITES.iterdir() if (p / "site").is_dir()):
        heads = []
        for path in sorted(site.rglob("*.html")):
            data, _, _ = read_head_bytes(str(path))
            url = "https://example.org/" + path.relative_to(site).as_posix()
            heads.append((data, url))
        to_bs4 = sum(1 for data, _ in heads if not says_nothing(data) and scan_tags_fast(decode_head(data)) is None)
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            for _ in range(20):
                for data, url in heads:
                    facts_from_bytes(data, url)
            best = min(best, (time.perf_counter() - started) / (20 * len(heads)))
        size = statistics.median(len(data) for data, _ in heads) / 1024
        rows.append(
            f"| {site.parent.name} | {len(heads)} | {size:.1f} KB | {best * 1e6:.0f} µs | {to_bs4} of {len(heads)} |"
        )
    return rows


@dataclass
class Sample:
    seconds: float
    rss_kib: int


def run(cmd: list[str], env: dict[str, str] | None = None) -> Sample:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({code}):\n{err}")
    return Sample(seconds, usage.ru_maxrss)


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
    # 200,000 pages of 5-30 KB are 3.5 GB; a million such pages (and as many assets: inodes)
    # would not fit in memory-backed /dev/shm, so the big run uses smaller pages, and an asset
    # for every tenth page, unless told otherwise.
    min_kb = args.min_kb if args.min_kb is not None else (5 if n <= 300_000 else 1)
    max_kb = args.max_kb if args.max_kb is not None else (30 if n <= 300_000 else 4)
    shm = Path("/dev/shm")
    base = args.dir or (shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir()))
    work = Path(tempfile.mkdtemp(prefix="sitemapgen-bench-", dir=base))
    sitemapgen = shutil.which("sitemapgen", path=str(Path(sys.executable).parent)) or "sitemapgen"
    try:
        trees = {"mixed": work / "mixed", "self-canonical": work / "self", "real heads": work / "real"}
        templates = real_templates()
        for label, root in trees.items():
            started = time.perf_counter()
            generate(
                root,
                n,
                seed=args.seed,
                self_canonical=label == "self-canonical",
                min_kb=min_kb,
                max_kb=max_kb,
                asset_every=1 if n <= 300_000 else 10,  # tmpfs has an inode limit too
                templates=templates if label == "real heads" else None,
            )
            print(
                f"generated {label}: {n:,} pages of {min_kb}-{max_kb} KB in {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
            )
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        out = work / "out"
        build = [sitemapgen, "build", "--base-url", "https://example.com/", "--out", str(out), "--quiet", *jobs]
        find = ["find", str(trees["mixed"]), "-name", "*.html", "-printf", r"%T@ %P\n"]
        ours = {
            "sitemapgen, heads off (mtime only)": [*build, "--no-read-heads", str(trees["mixed"])],
            "sitemapgen, heads on": [*build, str(trees["mixed"])],
            "sitemapgen, heads on, self-canonical on every page": [*build, str(trees["self-canonical"])],
            "sitemapgen, heads on, real generators' heads": [*build, str(trees["real heads"])],
        }
        cases: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "find -name '*.html' -printf": (find, None),
            "python scandir walk + stat": ([sys.executable, "-c", BARE_WALK, str(trees["mixed"])], None),
            "python walk + read each head, 1 process (the floor)": (
                [sys.executable, "-c", BARE_HEADS, str(trees["real heads"]), "1"],
                None,
            ),
            "python walk + read each head, 2 processes (the floor)": (
                [sys.executable, "-c", BARE_HEADS, str(trees["real heads"]), "2"],
                None,
            ),
            **{label: (cmd, None) for label, cmd in ours.items()},
            "sitemapgen list, heads on": (
                [sitemapgen, "list", "--base-url", "https://example.com/", *jobs, str(trees["mixed"])],
                None,
            ),
        }
        if args.baseline is not None:
            env = {**os.environ, "PYTHONPATH": str(args.baseline.resolve())}
            for label, cmd in ours.items():
                module = [sys.executable, "-m", "sitemapgen", *cmd[1:]]
                cases[f"baseline {label.removeprefix('sitemapgen, ')}"] = (module, env)
        samples: dict[str, list[Sample]] = {label: [] for label in cases}
        for cmd, env in cases.values():  # warm-up: page cache, .pyc files
            run(cmd, env)
            shutil.rmtree(out, ignore_errors=True)
        for _ in range(args.repeat):
            for label, (cmd, env) in cases.items():  # interleaved, so drift hits every case alike
                samples[label].append(run(cmd, env))
                shutil.rmtree(out, ignore_errors=True)
        find_median = statistics.median(s.seconds for s in samples["find -name '*.html' -printf"])
        print()
        print(
            f"{n:,} pages, {args.repeat} runs each, medians; {date.today()}, {platform.machine()},"
            f" {os.cpu_count()} CPUs, Python {platform.python_version()}, tree on {base}"
        )
        print()
        print("| what | seconds | pages/s | peak RSS | × find |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for label, runs in samples.items():
            seconds = statistics.median(s.seconds for s in runs)
            rss = statistics.median(s.rss_kib for s in runs) / 1024
            print(f"| {label} | {seconds:.2f} | {n / seconds:,.0f} | {rss:.0f} MiB | {seconds / find_median:.1f} |")
        print()
        print("Head work on real generators' heads (tests/realsites; best of runs, bytes to facts, per page):")
        print()
        print("| generator | pages | median head | µs a page | heads bs4 reads |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for row in real_heads(args.repeat):
            print(row)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
