"""What a build knows of the deploy before it: the previous sitemaps (`previous`), the manifest
published beside ours (`manifest`), what changed (`changes`), and IndexNow (`indexnow`)."""

from sitemapgen.deploy.changes import Changes, read_changes
from sitemapgen.deploy.manifest import ManifestWriter, fingerprint_settings, has_manifest
from sitemapgen.deploy.previous import Previous, read_previous

__all__ = [
    "Changes",
    "ManifestWriter",
    "Previous",
    "fingerprint_settings",
    "has_manifest",
    "read_changes",
    "read_previous",
]
