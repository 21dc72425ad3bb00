"""The reference reader of a head: beautifulsoup4 with html.parser, which the fast scanner
(`scanner.py`) must agree with (the differential tests use it as the oracle), and the bound
(`tangle`) on the work a head may ask of html.parser.
"""

from __future__ import annotations

from sitemapgen.pages.labels import TITLE, TITLE_TEXT
from sitemapgen.pages.signals import SIGNAL_TAGS, Tag


def scan_tags_bs4(text: str, labels: bool = False) -> list[Tag] | None:
    """The meta and link tags as beautifulsoup4 (html.parser) reads them: the reference. With
    `labels`, the first ``<title>`` too, as a tag whose `TITLE_TEXT` is its text. None where
    html.parser rejects the markup (``<![`` and no name after it, which it asserts on)."""
    import bs4  # only here: most heads never need it, and it costs 45 ms to import
    from bs4.exceptions import ParserRejectedMarkup
    from bs4.filter import SoupStrainer  # bs4 >= 4.13

    names = [*SIGNAL_TAGS, TITLE] if labels else list(SIGNAL_TAGS)
    try:
        soup = bs4.BeautifulSoup(text, "html.parser", parse_only=SoupStrainer(names))
    except ParserRejectedMarkup:
        return None
    tags: list[Tag] = []
    titled = False
    for tag in soup.find_all(names):
        if isinstance(tag, bs4.Tag) and tag.name == TITLE:
            if not titled:
                titled = True
                tags.append((TITLE, {TITLE_TEXT: tag.get_text()}))
        elif isinstance(tag, bs4.Tag):
            attrs = {key: " ".join(value) if isinstance(value, list) else value for key, value in tag.attrs.items()}
            tags.append((tag.name, attrs))
    return tags


#: The most work (see `tangle`) a head may ask of html.parser: about 0.2 s of it.
MAX_TANGLE = 8_000_000


def tangle(text: str) -> int:
    """A bound on the characters html.parser scans in `text`, beyond one pass.

    html.parser looks for the end of each tag from its '<' onward, and a tag
    left open (no '>') sends it to the end of the text, again for every '<'
    after it: 60 KB of unclosed tags, comments or quotes cost it 2-25 s. Each
    '<' scans at most to the next '>' (a quote or comment may carry it further,
    but never past the last '>', after which the bound counts to the end), so
    the sum of (the '<' of a stretch without '>') x (its length) bounds it, and
    is linear to compute. Real heads, 1.5-15 KB, score a few thousand.
    """
    work = 0
    for stretch in text.split(">"):
        opens = stretch.count("<")
        if opens > 1:
            work += opens * len(stretch)
    tail = text.rpartition(">")[2]
    return work + tail.count("<") * len(tail)
