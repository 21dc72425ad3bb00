"""The decision of a page dated by its mtime alone, with its head left unread, in one frame.

A build with heads off (`read_heads = false`), no host model, no priority or changefreq rules,
no sections, no images, no documents and `lastmod = mtime` decides a page from its path and its
`stat` alone: whether a path rule leaves it out, whether it is a regular file, its URL and its
mtime. `Decider.decide` gets there through a dozen frames (the page, the entry, the lastmod
chain, the row); here it is one, and the `<url>` element is put together from the mtime's second
directly (`entry.dated_row` and `entry.utc_second_text`: what `row_of` writes, without a
datetime). Anything else (a skip, a symlink, a URL too long, an mtime out of the years a
`datetime` holds) goes to `Decider.decide`, which says why; the outcome is the same either way
(tests/pipeline/test_quick.py checks it byte for byte).
"""

from __future__ import annotations

import os
import stat

from sitemapgen.config.settings import Config
from sitemapgen.config.words import LastmodSource
from sitemapgen.entry import dated_row, utc_second_text
from sitemapgen.pages.walk import Candidate, default_excluded
from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.protocol import MAX_URL_LENGTH, LastmodFormat
from sitemapgen.urls import url_path

_new = tuple.__new__
_LAST_SECOND = 253_402_300_800  # 10000-01-01: the first second a `datetime` does not hold
_SOURCE = LastmodSource.MTIME.value


def applies(config: Config, decider: Decider) -> bool:
    """Whether a page of this build is decided by its path and its `stat` alone."""
    return (
        not config.read_heads
        and decider.host is None
        and decider.images is None
        and not decider.sections
        and not config.rules
        and not config.documents
        and config.lastmod == (LastmodSource.MTIME,)
    )


class MtimeOnly:
    """`Decider.decide` for a build that `applies`, in one frame for a listed page."""

    def __init__(self, decider: Decider) -> None:
        config = decider.config
        self.decider = decider
        self.check = decider.path_rules.check
        self.by_name = decider.path_rules.by_name  # else every page's path is asked about
        self.root = decider.root
        self.base_url = config.base_url
        self.style = config.url_style
        self.date_only = config.lastmod_format is LastmodFormat.DATE

    def decide(self, candidate: Candidate) -> Outcome:
        relpath, is_link = candidate
        if self.by_name:
            out = default_excluded(relpath.rpartition("/")[2])
        else:
            out = self.check(relpath) is not None
        if is_link or out:
            return self.decider.decide(candidate)
        try:
            status = os.stat(self.root + relpath)
        except OSError:
            return self.decider.decide(candidate)
        seconds = status.st_mtime_ns // 1_000_000_000
        loc = self.base_url + url_path(relpath, self.style)
        if not stat.S_ISREG(status.st_mode) or len(loc) > MAX_URL_LENGTH or not 0 <= seconds < _LAST_SECOND:
            return self.decider.decide(candidate)
        row = dated_row(loc, seconds, utc_second_text(seconds, self.date_only))
        return _new(Outcome, (relpath, None, row, None, _SOURCE, (), None, (), None))
