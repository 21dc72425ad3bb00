"""The Sphinx extension: ``extensions = ["sitemapgen.sphinx"]`` in ``conf.py`` (the ``[sphinx]`` extra).

A thin adapter over `build`: when an ``html`` or ``dirhtml`` build finishes
without error, the library runs on its output directory with ``html_baseurl``
as the base URL and the ``sitemapgen_*`` values of ``conf.py`` as options (the
keys of ``sitemapgen.toml``: ``sitemapgen_exclude``, ``sitemapgen_lastmod``...).
Warnings go through Sphinx's logger; bad options fail the build in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from sitemapgen._version import __version__
from sitemapgen.commands.build import build
from sitemapgen.config.loader import FILE_KEYS, config_from_values
from sitemapgen.errors import SitemapgenError

logger = logging.getLogger(__name__)

#: The builders whose output is a site of HTML pages.
BUILDERS = ("html", "dirhtml")
PREFIX = "sitemapgen_"


def setup(app: Sphinx) -> dict[str, Any]:
    for key in FILE_KEYS:
        app.add_config_value(PREFIX + key, None, "", types=())
    app.connect("build-finished", build_finished)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}


def build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.name not in BUILDERS:
        return
    values = {key: value for key in FILE_KEYS if (value := getattr(app.config, PREFIX + key)) is not None}
    if "base_url" not in values:
        if not app.config.html_baseurl:
            logger.warning("sitemapgen: html_baseurl is not set in conf.py; no sitemap written")
            return
        values["base_url"] = app.config.html_baseurl
    try:
        settings = config_from_values(Path(app.outdir), values, source="conf.py", prefix=PREFIX)
        result = build(settings, on_warning=logger.warning)
    except SitemapgenError as e:
        raise ExtensionError(f"sitemapgen: {e}") from e
    logger.info(result.summary())
