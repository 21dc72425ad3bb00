"""The site generators whose own sitemaps meet ours, and what to tell their users.

MkDocs, Hugo, Jekyll (jekyll-sitemap) and Sphinx (sphinx-sitemap) write a
``sitemap.xml`` of their own, some with more files beside it: MkDocs a
``sitemap.xml.gz``, Hugo one ``sitemap.xml`` a language under an index. A
build replaces the ``sitemap.xml`` (it is the index's name): expected, and
said in the summary (`replaced`), not warned of. It never removes a file it
did not write, so what is left beside ours still reads as a sitemap to a
crawler that finds it: that is the warning (`notice`), said once the build has
published, naming the files, the generator (from the docroot's home page) and
what makes the files stop appearing. A registry: a generator is one
`Generator` line.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from pathlib import Path

from sitemapgen.util.safeio import open_regular, read_regular


@dataclass(frozen=True, slots=True)
class Generator:
    """A generator that writes sitemaps: how its pages name it, and how to turn them off."""

    name: str
    marker: re.Pattern[str]  # matched on the content of <meta name="generator">
    turn_off: str  # what stops the files beside ours appearing; followed, the warning is not said again
    signature: re.Pattern[bytes] | None = None  # matched on the home page's end, for themes with no generator meta


GENERATORS: tuple[Generator, ...] = (
    Generator(
        "MkDocs",
        re.compile(r"^mkdocs\b", re.IGNORECASE),
        "MkDocs writes sitemap.xml.gz on every build unless sitemapgen runs as its plugin: add sitemapgen"
        " to plugins in mkdocs.yml (plugins: [search, sitemapgen]), or delete sitemap.xml.gz after"
        " `mkdocs build`",
        # MkDocs' own themes (mkdocs, readthedocs) end every page with this comment
        re.compile(rb"<!--\s*MkDocs version\s*:"),
    ),
    Generator(
        "Zensical",
        re.compile(r"^zensical\b", re.IGNORECASE),
        "Zensical writes a sitemap.xml for each project (each language) on every build, with no"
        " setting to stop it: delete the ones named here after `zensical build`",
    ),
    Generator(
        "Hugo", re.compile(r"^hugo\b", re.IGNORECASE), "turn Hugo's off with disableKinds = ['sitemap'] in hugo.toml"
    ),
    Generator(
        "Jekyll",
        re.compile(r"^jekyll\b", re.IGNORECASE),
        "turn Jekyll's off by removing jekyll-sitemap from plugins in _config.yml",
    ),
    Generator(
        "Sphinx",
        re.compile(r"^(?:sphinx|docutils)\b", re.IGNORECASE),
        "turn Sphinx's off by removing sphinx_sitemap from extensions in conf.py",
    ),
)

_META = re.compile(rb"""<meta\s+name\s*=\s*["']?generator["']?\s+content\s*=\s*["']([^"'>]*)""", re.IGNORECASE)
#: What a generator's sitemap file is named: sitemap.xml.gz, sitemap_index.xml, sitemap-en.xml ...
SITEMAP_NAME = re.compile(r"^sitemap[\w.-]*\.xml(?:\.gz)?$", re.IGNORECASE)
_LOC = re.compile(rb"<loc>\s*([^<\s]+)\s*</loc>")
_PROBE = 16_384
_TAIL = 1_024


def generator_of(out_dir: Path) -> Generator | None:
    """The generator that built the site in `out_dir`, by its home page's generator meta
    (or, for a theme that writes none, the generator's signature at the page's end)."""
    try:
        with open(open_regular(out_dir / "index.html"), "rb") as f:
            start = f.read(_PROBE)
            f.seek(max(os.fstat(f.fileno()).st_size - _TAIL, 0))
            end = f.read(_TAIL)
    except (OSError, ValueError):
        return None
    match = _META.search(start)
    if match is not None:
        content = html.unescape(match.group(1).decode("utf-8", "replace")).strip()
        return next((g for g in GENERATORS if g.marker.search(content)), None)
    return next((g for g in GENERATORS if g.signature is not None and g.signature.search(end)), None)


def listed_by(index: Path, out_dir: Path, base_url: str) -> list[str]:
    """The files under `out_dir` that another tool's index at `index` lists (Hugo's one
    sitemap a language), as relative paths; none when it cannot be read."""
    try:
        data = read_regular(index, limit=1 << 20)
    except (OSError, ValueError):
        return []
    if b"<sitemapindex" not in data:
        return []  # a urlset: its locs are pages, not sitemaps
    found = []
    for raw in _LOC.findall(data):
        loc = html.unescape(raw.decode("utf-8", "replace"))
        if loc.startswith(base_url):
            relative = loc[len(base_url) :]
            if relative and ".." not in relative.split("/") and (out_dir / relative).is_file():
                found.append(relative)
    return found


def whose(generator: Generator | None) -> str:
    """``MkDocs'``, ``Hugo's``; ``another tool's`` when the generator is not known."""
    if generator is None:
        return "another tool's"
    return generator.name + ("'" if generator.name.endswith("s") else "'s")


def replaced(out_dir: Path) -> str:
    """What the summary says of the other tool's ``sitemap.xml`` a build replaced."""
    return f"{whose(generator_of(out_dir))} sitemap.xml"


def notice(out_dir: Path, others: list[str]) -> str | None:
    """The one warning for another tool's sitemaps, the `others` left beside ours; None when
    there are none."""
    if not others:
        return None
    generator = generator_of(out_dir)
    shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
    found = "it reads a sitemap" if len(others) == 1 else "them reads sitemaps"
    said = (
        f"{out_dir}: {whose(generator)} {shown} stay{'s' * (len(others) == 1)} beside ours (sitemapgen removes"
        f" only what it wrote), and a crawler that finds {found} there"
    )
    return said if generator is None else f"{said}; {generator.turn_off}"
