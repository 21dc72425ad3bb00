"""What `explain` says of a file that is not an HTML page: a document (see
`pipeline.documents`), or a file that is listed as neither."""

from __future__ import annotations

from sitemapgen.config.settings import Config
from sitemapgen.pipeline.documents import DocumentPatterns
from sitemapgen.urls import is_page_name


def not_a_document(config: Config, relpath: str) -> str | None:
    """Why the walk would never consider `relpath`, a file that is not an HTML page: None if
    it is a document."""
    if not config.documents:
        return "not an HTML page (only .html and .htm files are listed)"
    patterns = DocumentPatterns(config)
    pattern = patterns.pattern_of(relpath)
    if pattern is None:
        return f"not an HTML page, and no documents pattern names it ({', '.join(map(repr, config.documents))})"
    never = patterns.never(relpath)
    if never is not None:
        return f"not an HTML page, and never a document: {never} (documents pattern {pattern!r} names it)"
    return None


def document_lines(config: Config, relpath: str) -> list[str]:
    """The line that says a listed file is a document, and by which pattern; none for a page."""
    pattern = DocumentPatterns(config).pattern_of(relpath) if config.documents and not is_page_name(relpath) else None
    if pattern is None:
        return []
    return [f"  a document, by documents pattern {pattern!r}: listed under its exact path, not read as HTML"]
