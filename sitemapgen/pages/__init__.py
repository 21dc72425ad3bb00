"""The input: the docroot's pages (`walk`, each directory listed by `lister`), each page's head
read (`head`: its bytes decoded by `encoding`, its tags found by the fast `scanner`, or by the
`reference` reader, beautifulsoup4), what a head says (`signals`), and what a page named as a not-found or search page
says it is (`kinds`)."""

from sitemapgen.pages.head import facts_from_bytes, read_head, read_head_bytes
from sitemapgen.pages.signals import HeadFacts
from sitemapgen.pages.walk import Candidate, Page, Walk, iter_pages, page_at

__all__ = [
    "Candidate",
    "HeadFacts",
    "Page",
    "Walk",
    "facts_from_bytes",
    "iter_pages",
    "page_at",
    "read_head",
    "read_head_bytes",
]
