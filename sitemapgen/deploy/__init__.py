"""What a build knows of the deploy before it: the previous sitemaps (`previous`), the manifest
published beside ours (`manifest`), what changed (`changes`), IndexNow (`indexnow`), and the other
builds' sitemaps its index lists (`include`); `source` reads a deployed set for `previous` and
`include` alike, and `memory` is a build's use of them (read the previous deploy, see the rows). The
names of `previous` and `changes` load on first use: a build without a previous deploy imports
neither (nor urllib3)."""

from typing import TYPE_CHECKING

from sitemapgen.deploy.manifest import ManifestWriter, fingerprint_settings, has_manifest
from sitemapgen.util.lazy import lazy_names

if TYPE_CHECKING:
    from sitemapgen.deploy.changes import Changes, read_changes
    from sitemapgen.deploy.previous import Previous, read_previous

__getattr__ = lazy_names(
    __name__, {"Changes": "changes", "read_changes": "changes", "Previous": "previous", "read_previous": "previous"}
)

__all__ = [
    "Changes",
    "ManifestWriter",
    "Previous",
    "fingerprint_settings",
    "has_manifest",
    "read_changes",
    "read_previous",
]
