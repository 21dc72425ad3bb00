"""The toolbox: safe file opening, worker processes, HTTP and bounded gunzip, fault injection. Nothing
here knows what a sitemap is. `fetch`'s names load on first use: urllib3 is imported only by
what reads a URL (the bounded gunzip is `gunzip`, apart from HTTP)."""

from typing import TYPE_CHECKING

from sitemapgen.util.faults import FAULT_ENV, Faults
from sitemapgen.util.gunzip import GzipCorrupt, GzipError, GzipTooLarge, GzipTruncated, gunzip, is_gzip
from sitemapgen.util.lazy import lazy_names
from sitemapgen.util.parallel import BATCH, INLINE, can_fork, ordered_map, usable_cpus, worker_limit
from sitemapgen.util.safeio import (
    NotRegularFile,
    create_exclusive,
    link_into_place,
    open_regular,
    open_regular_below,
    open_regular_stat,
    read_regular,
)

if TYPE_CHECKING:
    from sitemapgen.util.fetch import (
        Answer,
        FetchError,
        get,
        inflate,
        is_url,
        post_json,
        stream,
    )

__getattr__ = lazy_names(
    __name__,
    dict.fromkeys(
        (
            "Answer",
            "FetchError",
            "get",
            "inflate",
            "is_url",
            "post_json",
            "stream",
        ),
        "fetch",
    ),
)

__all__ = [
    "BATCH",
    "FAULT_ENV",
    "INLINE",
    "Answer",
    "FetchError",
    "Faults",
    "GzipCorrupt",
    "GzipError",
    "GzipTooLarge",
    "GzipTruncated",
    "NotRegularFile",
    "can_fork",
    "create_exclusive",
    "get",
    "gunzip",
    "inflate",
    "is_gzip",
    "is_url",
    "link_into_place",
    "open_regular",
    "open_regular_below",
    "open_regular_stat",
    "ordered_map",
    "post_json",
    "read_regular",
    "stream",
    "usable_cpus",
    "worker_limit",
]
