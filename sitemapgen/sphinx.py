"""The Sphinx extension's public name, ``extensions = ["sitemapgen.sphinx"]`` in a ``conf.py``:
the extension itself is `sitemapgen.integrations.sphinx`."""

from sitemapgen.integrations.sphinx import setup

__all__ = ["setup"]
