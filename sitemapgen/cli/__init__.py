"""The ``sitemapgen`` command: typer over `sitemapgen.commands`, and what only a command line
needs (its options, progress on a terminal, the GitHub Actions report)."""

from sitemapgen.cli.program import app, main, run

__all__ = ["app", "main", "run"]
