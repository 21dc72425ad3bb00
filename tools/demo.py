"""`make demo`: the sample site's clean run first, then its three traps, each warning explained.

1. sitemapgen build on sample_site with sample_site.toml, which leaves the traps out: the summary,
   the index, the first lines of the sitemap it lists, and sitemapgen validate on them.
2. sitemapgen list on the whole site, with no config (it writes nothing): each warning it gives,
   followed by one line saying what the trap is and what to do about it.

Runs the `sitemapgen` beside this Python (the venv's). Exit 1 if the clean run warns, a command
fails, or a warning has no explanation here (or an explanation no warning), so the demo cannot
drift from what sitemapgen says. `--out DIR` writes the clean run's sitemaps there instead of
into sample_site/ (the tests use it).
"""

from __future__ import annotations

import argparse
import gzip
import re
import shlex
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
BASE = "https://example.com/"
SITE = "sample_site"

#: Each trap, by the file its warning names, and one line on what it is and how it is silenced.
TRAPS = {
    "docs/reference/index.html": "its canonical names docs/reference.html, which does not exist: search engines"
    " ignore such a canonical, so the page is listed at its own URL; fix the link (or remove it).",
    "partials/nav.html": "a template fragment the generator copied into the output, not a page, so it is"
    ' left out; exclude = ["partials/"] says that on purpose and silences it.',
    "docs/mirror.html": "its canonical is on another host (mirror.example.net), and a sitemap lists its own"
    " host's pages only, so it is left out; exclude it if that is meant.",
}


def sitemapgen(*args: str, quiet_stdout: bool = False, show_stderr: bool = True) -> subprocess.CompletedProcess[str]:
    """Run sitemapgen from the top of the checkout, showing the command as typed, and what it
    prints (its summary and warnings are on stderr)."""
    shown = shlex.join(["sitemapgen", *args]) + (" > /dev/null" if quiet_stdout else "")
    print(f"$ {shown}", flush=True)
    command = [str(Path(sys.executable).parent / "sitemapgen"), *args]
    done = subprocess.run(command, cwd=TOP, capture_output=True, text=True, check=False)
    if not quiet_stdout:
        print(done.stdout, end="")
    if show_stderr or done.returncode != 0:
        print(done.stderr, end="", flush=True)
    if done.returncode != 0:
        sys.exit(f"demo: sitemapgen {args[0]} exited {done.returncode}")
    return done


def warnings(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("warning:")]


def clean_run(out: Path | None) -> None:
    print(f"=== 1/2 the clean run: {SITE} with sample_site.toml, which leaves out the three traps")
    folder = TOP / SITE if out is None else out
    for old in [*folder.glob("sitemap.xml"), *folder.glob("sitemap-*.xml"), *folder.glob("sitemap-*.xml.gz")]:
        old.unlink()  # an earlier demo's: this one shows a first build, from sitemap-1 on
    where = [] if out is None else ["--out", str(out)]
    if warnings(sitemapgen("build", SITE, "--config", "sample_site.toml", *where)):
        sys.exit("demo: the clean run warned (above)")
    index = folder / "sitemap.xml"
    shown = index.relative_to(TOP) if index.is_relative_to(TOP) else index
    print(f"--- {shown}: the index, the file to submit")
    text = index.read_text(encoding="utf-8")
    print(text, end="")
    first = re.search(r"<loc>[^<]*/([^/<]+)</loc>", text)
    if first is None:
        sys.exit(f"demo: {index} lists no sitemap")
    name = first.group(1)
    with gzip.open(folder / name, "rt", encoding="utf-8") as f:
        lines = f.readlines()
    print(f"--- {shown.parent / name}: the first sitemap it lists (first 6 lines of {len(lines)}, uncompressed)")
    print("".join(lines[:6]), end="")
    sitemapgen("validate", str(shown), "--base-url", BASE)


def traps() -> None:
    print()
    print(f"=== 2/2 the traps: the whole of {SITE}, no config (sitemapgen list writes nothing)")
    listed = sitemapgen("list", SITE, "--base-url", BASE, quiet_stdout=True, show_stderr=False)
    explained: set[str] = set()
    for line in listed.stderr.splitlines():
        print(line)
        if not line.startswith("warning:"):
            continue
        names = [name for name in TRAPS if re.search(rf"\b{re.escape(name)}\b", line)]
        if len(names) != 1:
            sys.exit("demo: a warning no trap explains (above): say what it means in tools/demo.py")
        explained.add(names[0])
        print(f"  -> {names[0]}: {TRAPS[names[0]]}")
    if missing := sorted(set(TRAPS) - explained):
        sys.exit(f"demo: no warning for {', '.join(missing)}: is it still a trap?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the clean run's sitemaps here, not into sample_site/")
    options = parser.parse_args()
    clean_run(options.out.resolve() if options.out else None)
    traps()


if __name__ == "__main__":
    main()
