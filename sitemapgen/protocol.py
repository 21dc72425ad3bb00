"""The sitemap protocol's words and limits, and the file names it fixes: a leaf that imports
nothing of ours (``shared/spec`` holds the texts these come from)."""

from __future__ import annotations

import enum
import re

#: The sitemap and index elements' namespace (sitemaps.org schema 0.9), and hreflang links'.
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
#: Google's image extension (``<image:image><image:loc>``), and the most images one ``<url>`` may list.
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
MAX_IMAGES_PER_URL = 1_000

#: The index's name at the output's root, and robots.txt's, where crawlers look for them.
INDEX_NAME = "sitemap.xml"
ROBOTS_FILE = "robots.txt"
#: llmstxt.org's file at the site's root (``llms_txt = true`` writes it).
LLMS_NAME = "llms.txt"
#: A sitemap file of this tool's, as its index lists them first: ``sitemap-N.xml.gz``, or with a
#: section's name (``sitemap-blog-N.xml.gz``).
CHUNK_FILE = re.compile(r"^sitemap-(?:([a-z0-9_-]+)-)?([1-9][0-9]*)\.xml\.gz$")


def our_chunks(locs: list[str]) -> list[bool]:
    """For each entry of an index of ours, whether it is one of our chunk files: named as a chunk,
    in the folder of the first entry (a build lists its own sitemaps first). Any other entry is
    another build's sitemap the index lists beside ours (``include``)."""
    folder = locs[0].rstrip("/").rpartition("/")[0] if locs else ""
    flags = []
    for loc in locs:
        where, _, name = loc.rstrip("/").rpartition("/")
        flags.append(where == folder and CHUNK_FILE.match(name) is not None)
    return flags


#: What is written unless told otherwise: the limits of the protocol text in force since 2008
#: (``shared/spec``), which every consumer accepts.
DEFAULT_BYTES_PER_SITEMAP = 10_485_760
DEFAULT_SITEMAPS_PER_INDEX = 1_000
#: The current protocol's hard limits (sitemaps.org and Google since 2016): configuration may
#: raise the defaults up to these, never past them. Older consumers still stop at the defaults.
MAX_URLS_PER_SITEMAP = 50_000
MAX_BYTES_PER_SITEMAP = 52_428_800
MAX_SITEMAPS_PER_INDEX = 50_000
#: Below this a sitemap cannot hold its own header plus one long entry.
MIN_BYTES_PER_SITEMAP = 1_024

#: The sitemaps.org schema's bounds for `<loc>`; the protocol text says "less
#: than 2,048 characters", so 2,048 itself is already too long.
MIN_URL_LENGTH = 12
MAX_URL_LENGTH = 2047

#: A `<loc>` as this tool writes it, and as a file of ours is read back by bytes.
LOC = re.compile(rb"<loc>([^<]*)</loc>")

#: xsd:language, which the XHTML schema requires of hreflang ("x-default" fits too).
LANGUAGE = re.compile(r"^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$")


class ChangeFreq(enum.Enum):
    """The seven words the protocol allows in ``<changefreq>``."""

    ALWAYS = "always"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"
    NEVER = "never"


class LastmodFormat(enum.Enum):
    """How much of a W3C Datetime ``<lastmod>`` carries."""

    DATETIME = "datetime"  # 2004-10-26T08:56:39+00:00, as `date --iso-8601=seconds -u`
    DATE = "date"  # 2004-10-26
