"""What a build leaves on disk: the sitemaps and their index (`writer`), the chunk being written
and the publisher that names it (`chunks`), a published set read back (`published`), the output
directory's claim, lock and journal (`outdir`), the files the previous index listed (`retired`),
the text sitemap (`text`) and llms.txt (`llms`), written together (`extras`) and each proved ours
by a record (`owned`), robots.txt's ``Sitemap:`` lines
(`robots`), and the names other generators give their sitemaps (`generators`)."""

from sitemapgen.output.outdir import ClaimedOutput, check_docroot, check_output, claim_output
from sitemapgen.output.published import file_digest, read_published
from sitemapgen.output.robots import RobotsOutcome, update_robots_txt
from sitemapgen.output.writer import SitemapFile, WriteResult, write_rows, write_sitemaps

__all__ = [
    "ClaimedOutput",
    "RobotsOutcome",
    "SitemapFile",
    "WriteResult",
    "check_docroot",
    "check_output",
    "claim_output",
    "file_digest",
    "read_published",
    "update_robots_txt",
    "write_rows",
    "write_sitemaps",
]
