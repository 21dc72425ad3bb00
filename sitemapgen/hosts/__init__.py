"""The static hosts: what each one serves at a URL, read from its own files."""

from sitemapgen.hosts.base import Host, load_host, page_forms

__all__ = ["Host", "load_host", "page_forms"]
