"""Exit codes, and the one place an error, Ctrl-C or SIGTERM becomes one line and an exit code.

Exit codes are decided here and only here: 0 done, 1 `check`, `validate` or
`explain` found a problem, 2 bad input (a `SitemapgenError`, or a usage
error), 3 the machine failed (an `EnvironmentFailure`, or any `OSError` or
`MemoryError` the library did not word itself: a full disk, a read-only
mount, a permission, a busy store), 130 interrupted (Ctrl-C), 143 terminated
(SIGTERM, handled as Ctrl-C is: clean-up runs, nothing is half-published),
141 `list` or `diff` stopped because its stdout went away (``| head -1``,
``>&-``), said by nothing, as ``ls | head -1`` does. Every other one is one
line on stderr, if stderr is still there. Any other exception is a bug and
keeps its traceback.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator, Mapping

import typer

from sitemapgen.errors import ConfigError, EnvironmentFailure, NeedsSetting, NotSet, Refusal, SitemapgenError
from sitemapgen.util.streams import GONE, echo

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_BAD_INPUT = 2
EXIT_ENVIRONMENT = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
#: 128 + SIGPIPE: what a shell reports for ``ls | head -1`` when ``ls`` had more to print.
EXIT_READER_GONE = 141


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the signal lands, so that every clean-up Ctrl-C runs runs too."""


def one_line(message: str) -> str:
    """A message as one line, whatever a file name or a config key put in it."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def fail(message: str, code: int) -> typer.Exit:
    echo(f"error: {one_line(message)}", err=True)
    return typer.Exit(code)


def stopped(interrupt: KeyboardInterrupt) -> int:
    """Say that Ctrl-C (or SIGTERM, as `Terminated`) stopped the run; its exit code."""
    terminated = isinstance(interrupt, Terminated)
    echo("terminated" if terminated else "interrupted", err=True)
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Turn the library's errors, the machine's, Ctrl-C and SIGTERM into one line and an exit code."""
    try:
        yield
    except EnvironmentFailure as e:
        raise fail(str(e), EXIT_ENVIRONMENT) from None
    except Refusal as e:
        raise fail(str(e), EXIT_PROBLEM) from None
    except SitemapgenError as e:
        raise fail(str(e), EXIT_BAD_INPUT) from None
    except OSError as e:  # the machine's, where the library did not word it: still one line
        where = f"{e.filename}: " if e.filename else ""
        raise fail(f"{where}{e.strerror or e}", EXIT_ENVIRONMENT) from None
    except MemoryError:
        # --jobs 1 is no cure: a worker's lack of memory is the worker pool's to say (`util.parallel`)
        raise fail("out of memory (allow this process more memory)", EXIT_ENVIRONMENT) from None
    except KeyboardInterrupt as e:
        raise typer.Exit(stopped(e)) from None


def delivered(failure: OSError | None) -> None:
    """For `list` and `diff`, whose output is all they give, after each write: stop, quietly with
    `EXIT_READER_GONE`, when stdout's reader went away or it was closed; a stdout that failed
    otherwise (a full disk) is the machine's failure."""
    if failure is None:
        return
    if failure.errno in GONE:
        raise typer.Exit(EXIT_READER_GONE)
    raise EnvironmentFailure(f"cannot print to stdout: {failure.strerror or failure}")


@contextlib.contextmanager
def flags_named(flags: Mapping[str, str]) -> Iterator[None]:
    """A library `ConfigError` about a parameter in `flags` (parameter -> flag) names the flag
    instead, a parameter that is not set is asked for as the flag (``pass --base-url URL``), and
    one that another needs is named as its flag (``(set --host)``)."""
    try:
        yield
    except NotSet as e:
        if e.key not in flags:
            raise
        raise NotSet(e.key, e.kind, flag=flags[e.key]) from None
    except NeedsSetting as e:
        if e.source is not None or e.key not in flags:
            raise
        raise NeedsSetting(flags[e.key], e.bare, e.other, named=flags.get(e.other)) from None
    except ConfigError as e:
        key = e.key if e.key in flags else e.key.split("[", 1)[0]  # include[1].url: the flag's second value
        if e.source is not None or key not in flags:
            raise
        raise ConfigError(flags[key], e.problem) from None


def usage_failure(error: typer.exceptions.TyperException) -> int:
    """A usage error as one line, ``error: `` and the message as every error is, with a pointer to
    the command's ``--help``."""
    context = getattr(error, "ctx", None)
    hint = f" (see {context.command_path} --help)" if context is not None else ""
    echo(f"error: {one_line(error.format_message())}{hint}", err=True)
    return error.exit_code


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises `Terminated` (once: a second one during clean-up is ignored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
