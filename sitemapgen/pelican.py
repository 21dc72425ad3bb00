"""The Pelican plugin's public name, ``PLUGINS = ["sitemapgen.pelican"]`` in a ``pelicanconf.py``:
the plugin itself is `sitemapgen.integrations.pelican`."""

from sitemapgen.integrations.pelican import register

__all__ = ["register"]
