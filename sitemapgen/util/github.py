"""What GitHub Actions reads from a step: workflow commands (``::warning``, ``::error``) and the job
summary (``$GITHUB_STEP_SUMMARY``), each escaped as GitHub reads it. Nothing here knows what it
reports: `commands.ci` and `live.report` say what."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sitemapgen.errors import EnvironmentFailure

#: At most this many findings become annotations; one more line says how many were left out.
MAX_ANNOTATIONS = 50


def in_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def step_summary_path() -> Path | None:
    """GitHub's ``$GITHUB_STEP_SUMMARY``, when it is set."""
    value = os.environ.get("GITHUB_STEP_SUMMARY")
    return Path(value) if value else None


def cell(text: str) -> str:
    """Text that stays in its table cell and in its code span: no pipe, backtick or line end."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'").replace("\r", " ").replace("\n", " ")


def workflow_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub reads it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A workflow command's property value, escaped as GitHub reads it."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def write_summary(path: Path, text: str, *, append: bool) -> None:
    """Write (or, for GitHub's step summary, add to) the Markdown summary file.

    A file this call created and could not fill (a full disk) is removed, so a
    failure leaves no empty summary behind; a file that was there is the user's
    and is left as the failed write left it.
    """
    if append:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
        return
    try:
        fd, created = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644), True
    except FileExistsError:
        fd, created = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC), False
    mine = os.fstat(fd)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError:
        if created:
            with contextlib.suppress(OSError):
                now = os.stat(path, follow_symlinks=False)
                if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):  # still the file we made
                    os.unlink(path)
        raise


def put_summary(text: str, *, to: Path | None, off: bool, done: str = "") -> None:
    """The Markdown summary where it goes: `to`, else GitHub's step summary (added to); nowhere
    when `off`. One that cannot be written is an `EnvironmentFailure`, said with `done`, what the
    command did before it (`` (the sitemaps were published)``)."""
    path = None if off else to or step_summary_path()
    if path is None:
        return
    try:
        write_summary(path, text, append=to is None)
    except OSError as e:
        raise EnvironmentFailure(f"{path}: cannot write the summary: {e.strerror or e}{done}") from e
