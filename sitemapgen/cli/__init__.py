"""The ``sitemapgen`` command line: typer over `sitemapgen.commands`, and what only a command line
needs (its options, progress on a terminal, exit codes). The process starts in `sitemapgen.__main__`,
which loads `cli.program` only once it runs."""
