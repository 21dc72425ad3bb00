"""The site generators whose own sitemaps meet ours, and what to tell their users.

MkDocs, Hugo, Jekyll (jekyll-sitemap) and Sphinx (sphinx-sitemap) write a
``sitemap.xml`` of their own, some with more files beside it: MkDocs a
``sitemap.xml.gz``, Hugo one ``sitemap.xml`` a language under an index. A
build replaces the ``sitemap.xml`` (it is the index's name) but never removes
a file it did not write, so what is left still reads as a sitemap to a crawler
that finds it. This module says so once, naming the files, the generator (from
the docroot's ``<meta name="generator">``) and the setting that turns its
sitemap off. A registry: a generator is one `Generator` line.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from sitemapgen.util.safeio import read_regular


@dataclass(frozen=True, slots=True)
class Generator:
    """A generator that writes sitemaps: how its pages name it, and how to turn them off."""

    name: str
    marker: re.Pattern[str]  # matched on the content of <meta name="generator">
    turn_off: str


GENERATORS: tuple[Generator, ...] = (
    Generator(
        "MkDocs",
        re.compile(r"^mkdocs\b", re.IGNORECASE),
        "MkDocs writes sitemap.xml and sitemap.xml.gz on every build and has no setting to stop it:"
        " delete sitemap.xml.gz after `mkdocs build`",
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


def generator_of(out_dir: Path) -> Generator | None:
    """The generator that built the site in `out_dir`, by its home page's generator meta."""
    try:
        data = read_regular(out_dir / "index.html", limit=_PROBE)
    except (OSError, ValueError):
        return None
    match = _META.search(data)
    if match is None:
        return None
    content = html.unescape(match.group(1).decode("utf-8", "replace")).strip()
    return next((g for g in GENERATORS if g.marker.search(content)), None)


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


def notice(out_dir: Path, replaced: bool, others: list[str]) -> str | None:
    """The one warning for another tool's sitemaps: the ``sitemap.xml`` replaced, and the
    `others` left beside ours; None when there is nothing to say."""
    if not replaced and not others:
        return None
    generator = generator_of(out_dir)
    whose = (generator.name + ("'" if generator.name.endswith("s") else "'s")) if generator else "another tool's"
    said = []
    if replaced:
        said.append(f"{out_dir / 'sitemap.xml'}: replaced {whose} sitemap.xml")
    if others:
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        where = "; " if replaced else f"{out_dir}: "
        found = "it reads a sitemap" if len(others) == 1 else "them reads sitemaps"
        said.append(
            f"{where}{whose} {shown} stay{'s' * (len(others) == 1)} beside ours (sitemapgen removes only what"
            f" it wrote), and a crawler that finds {found} there"
        )
    if generator is not None:
        said.append(f"; {generator.turn_off}")
    return "".join(said)
