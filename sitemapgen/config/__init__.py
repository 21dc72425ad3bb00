"""What a build is asked to do: the words a setting takes (`words`), each value's check
(`checks`), the frozen `Config` (`settings`), the writer's `Limits` drawn from it (`limits`),
the other sitemaps its index lists (`include`), and where it comes from (`loader`: a TOML
file, pyproject.toml, flags, a plugin's options)."""

from sitemapgen.config.checks import check_indexnow_key, unknown_key
from sitemapgen.config.include import Include
from sitemapgen.config.limits import Limits
from sitemapgen.config.loader import FILE_KEYS, config_from_values, load_config
from sitemapgen.config.settings import Config, Rule, Section
from sitemapgen.config.words import (
    DEFAULT_MAX_BYTES,
    Chunking,
    GitDate,
    GitPages,
    GitSource,
    HostName,
    LastmodSource,
    RobotsTxt,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FILE_KEYS",
    "Chunking",
    "Config",
    "GitDate",
    "GitPages",
    "GitSource",
    "HostName",
    "Include",
    "LastmodSource",
    "Limits",
    "RobotsTxt",
    "Rule",
    "Section",
    "check_indexnow_key",
    "config_from_values",
    "load_config",
    "unknown_key",
]
