"""``python -m sitemapgen`` and the ``sitemapgen`` command: `run` loads the command line
(`cli.program`) only once it runs, so that running out of memory while loading it (typer, the
package, a compiled extension) is one line and exit 3 too, as it is during a command
(`cli.exits.handled`)."""

from __future__ import annotations

import os
import sys

#: Made before anything is loaded, and written with one system call: saying it needs no memory.
OUT_OF_MEMORY = b"error: out of memory (allow this process more memory)\n"
#: What CPython itself raises when an allocation fails deep in an import (docs/performance.md).
PYTHON_FAILED = (
    b"error: Python failed while starting (SystemError), as it does when out of memory under this"
    b" process's address-space limit (allow this process more memory)\n"
)
#: What CPython's parser raises when an allocation fails while it compiles one of our modules.
PARSER_FAILED = (
    b"error: Python failed while loading sitemapgen (a SyntaxError in its own source, as the parser"
    b" says when out of memory under this process's address-space limit; allow this process more memory)\n"
)
#: `exits.EXIT_ENVIRONMENT`, which cannot be imported before the program is loaded.
_EXIT_ENVIRONMENT = 3
#: errno.ENOMEM, without loading errno.
_ENOMEM = 12
#: The address space that loading the program and reading its command line take, with room to
#: spare (what it measures: docs/performance.md), so that no compiled extension meets the end of
#: it while loading: one may abort the process with a message of its own, not raise MemoryError.
_PROGRAM_ROOM = 32 << 20


def run() -> None:
    """Console-script entry point."""
    try:
        _load_hashlib()
        if not _room_to_load():
            raise MemoryError
        from sitemapgen.cli.program import main
        from sitemapgen.util.parallel import collect_less
        from sitemapgen.util.streams import flush_all

        collect_less()
        code = main()
        flush_all()  # a reader gone at the last moment: dropped here, not at the interpreter's exit
    except MemoryError:
        _out_of_memory(OUT_OF_MEMORY)
    except ImportError as e:  # a compiled extension the system could not map into memory
        if not _no_room(e):
            raise
        _out_of_memory(OUT_OF_MEMORY)
    except SystemError:
        if not _memory_limited():
            raise
        _out_of_memory(PYTHON_FAILED)
    except SyntaxError:  # our modules compile (the tests import each): only memory can fail it
        if not _memory_limited():
            raise
        _out_of_memory(PARSER_FAILED)
    except OSError as e:  # ENOMEM from the import system itself (listing a package's folder)
        if e.errno != _ENOMEM:
            raise
        _out_of_memory(OUT_OF_MEMORY)
    sys.exit(code)


def _load_hashlib() -> None:
    """Load hashlib with its logging held: out of memory, its blake2 module cannot load, and
    hashlib logs that with a traceback (then the program fails on the missing blake2b)."""
    import logging

    logging.disable(logging.CRITICAL)
    try:
        import hashlib
    finally:
        logging.disable(logging.NOTSET)
    if not hasattr(hashlib, "blake2b") and _memory_limited():
        raise MemoryError


def _room_to_load() -> bool:
    """Whether the address space has `_PROGRAM_ROOM` free (under a limit; without one, the
    kernel decides, as for any program): mapped and given back at once, never touched."""
    if not _memory_limited():
        return True
    import mmap

    try:
        mmap.mmap(-1, _PROGRAM_ROOM).close()
    except OSError as e:
        if e.errno != _ENOMEM:
            raise
        return False
    return True


def _no_room(error: ImportError) -> bool:
    text = str(error)
    return "failed to map segment" in text or "cannot allocate memory" in text.lower()


def _memory_limited() -> bool:
    try:
        import resource

        return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY
    except (MemoryError, ImportError):  # too little even to look (or to map resource): limited
        return True


def _out_of_memory(line: bytes) -> None:
    """Say `line` and exit 3, at once: with no memory left, an orderly exit can fail again."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # out of memory (or a closed stream): what is buffered may go
            pass
    os.write(2, line)
    os._exit(_EXIT_ENVIRONMENT)


if __name__ == "__main__":
    run()
