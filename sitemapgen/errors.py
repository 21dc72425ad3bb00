"""The errors sitemapgen raises on purpose.

Everything the user can cause (bad config, bad flags, a missing docroot) is a
`SitemapgenError` whose message is written for them; the CLI turns it into one
line and exit code 2. When the machine rather than the input fails (a full
disk, a read-only mount, a permission, a busy store, no memory) it is an
`EnvironmentFailure`, exit 3, so a CI step can tell "fix your site" from "fix
your runner". Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Callable


class SitemapgenError(Exception):
    """Base of every error meant for the user rather than for a debugger."""


class ConfigError(SitemapgenError):
    """A setting is wrong; the message names where it came from and the key.

    `key` is the dotted path of the offending setting (``rules[2].priority``)
    and `source` the file or flag it came from, so a caller that merges
    several sources can re-attribute the error without parsing the text.
    """

    def __init__(self, key: str, problem: str, *, source: str | None = None, shown: str | None = None) -> None:
        self.key = key
        self.problem = problem
        self.source = source
        # `shown`: the key in the words of the file it came from ("priority in the 1st [[rules]] block")
        super().__init__(": ".join(part for part in (source, shown or key, problem) if part))

    def located(self, source: str, prefix: str = "", *, words: Callable[[str], str] | None = None) -> ConfigError:
        """The same problem, attributed to `source` and nested under `prefix`; `words` shows the
        key path as that source's reader counts (a TOML file's blocks from 1)."""
        key = prefix + self.key if self.key else ""
        return ConfigError(key, self.problem, source=source, shown=words(key) if words and key else None)


class NotSet(ConfigError):
    """A setting with no default that no source gave, asked for as the library's parameter
    (``pass base_url=URL``) or, given the CLI's `flag`, as the flag (``pass --base-url URL``)."""

    def __init__(self, key: str, kind: str, *, flag: str | None = None) -> None:
        how = f"{flag} {kind}" if flag else f"{key}={kind}"
        super().__init__(key, f"is not set: pass {how} or set {key} in sitemapgen.toml")
        self.kind = kind


class NeedsSetting(ConfigError):
    """A value that needs another setting, `other`, named as the caller names it: ``(set host)``
    for the library, ``(set --host)`` given the CLI's flag as `named`."""

    def __init__(self, key: str, problem: str, other: str, *, named: str | None = None) -> None:
        super().__init__(key, f"{problem} (set {named or other})")
        self.bare = problem
        self.other = other


class DocrootError(SitemapgenError):
    """The docroot or output directory cannot be used."""


class Refusal(SitemapgenError):
    """The input is fine, but what it would do is refused (the drop guard, an engine's no): exit 1."""


class EnvironmentFailure(SitemapgenError):
    """The machine failed the run, not its input: the message names the path and the reason."""


def os_failure(path: object, what: str, error: OSError) -> EnvironmentFailure:
    """`error` as one line for the user: ``PATH: cannot WHAT: reason``."""
    return EnvironmentFailure(f"{path}: cannot {what}: {error.strerror or error}")
