"""``python -m sitemapgen``: the same as the ``sitemapgen`` command."""

from sitemapgen.cli import run

if __name__ == "__main__":
    run()
