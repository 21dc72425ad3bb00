"""The ``sitemapgen`` command line: typer over `sitemapgen.commands`, and what only a command line
needs (its options, progress on a terminal, exit codes). The process starts in `sitemapgen.__main__`."""

from __future__ import annotations

#: As typing.TYPE_CHECKING, without loading typing (the less loads before the program, the less
#: memory the command needs before it can say it has too little).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from sitemapgen.cli.program import app, main


def __getattr__(name: str) -> object:
    if name not in ("app", "main"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from sitemapgen.cli import program

    return getattr(program, name)


__all__ = ["app", "main"]
