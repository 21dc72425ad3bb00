"""The head-signal table: its words and its readers agree, in both directions."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from sitemapgen.entry import Alternate
from sitemapgen.pages.head import parse_head, says_nothing
from sitemapgen.pages.scanner import may_decide
from sitemapgen.pages.signals import (
    DECIDING_WORDS,
    SIGNAL_TAGS,
    SIGNALS,
    HeadFacts,
    LabelledFacts,
    Tag,
    facts_from_tags,
)

PAGE = "https://example.com/a/page.html"

#: For each signal: a tag that carries it, and what it makes of it.
CARRIERS = {
    "noindex": ('<meta name="GoogleBot" content="NOINDEX, follow">', HeadFacts(noindex=True)),
    "refresh": (
        '<meta http-equiv="Refresh" content="0; url=/b.html">',
        HeadFacts(refresh="https://example.com/b.html"),
    ),
    "modified": ('<meta property="article:modified_time" content="2024-01-02">', HeadFacts(modified="2024-01-02")),
    "canonical": ('<link rel="canonical" href="../c.html">', HeadFacts(canonical="https://example.com/c.html")),
    "hreflang": (
        '<link rel="alternate" hreflang="de" href="/de/">',
        HeadFacts(alternates=(Alternate("de", "https://example.com/de/"),)),
    ),
}


def test_every_signal_has_a_carrier_and_names_are_unique() -> None:
    assert sorted(CARRIERS) == sorted(s.name for s in SIGNALS)
    assert {s.tag for s in SIGNALS} == set(SIGNAL_TAGS) == {"meta", "link"}


@pytest.mark.parametrize("signal", SIGNALS, ids=lambda s: s.name)
def test_each_signal_is_read_and_its_tag_holds_one_of_its_words(signal: object) -> None:
    from sitemapgen.pages.signals import Signal

    assert isinstance(signal, Signal)
    tag, expected = CARRIERS[signal.name]
    assert parse_head(f"<title>t</title>{tag}", PAGE) == expected
    assert parse_head(f"<title>t</title>{tag}", PAGE, fast=False) == expected
    assert any(word in tag.lower() for word in signal.words)  # the table's words are what find it
    assert may_decide(tag)
    assert not says_nothing(tag.encode())


@pytest.mark.parametrize("word", DECIDING_WORDS)
def test_every_deciding_word_is_looked_for(word: str) -> None:
    assert may_decide(f' name="{word.upper()}"')
    assert not says_nothing(f"<meta x={word}>".encode())


_KEYS = st.sampled_from(["name", "content", "rel", "href", "hreflang", "http-equiv", "property", "itemprop", "lang"])
_VALUES = st.one_of(
    st.sampled_from(
        [
            "noindex",
            "none",
            "refresh",
            "canonical",
            "alternate",
            "robots",
            "googlebot",
            "article:modified_time",
            "last-modified",
            "datemodified",
            "0; url=/x",
            "/x",
            "de",
            "stylesheet",
            "2024-01-01",
            "description",
            "og:title",
        ]
    ),
    st.text(max_size=12),
)


@given(tags=st.lists(st.tuples(st.sampled_from(SIGNAL_TAGS), st.dictionaries(_KEYS, _VALUES, max_size=5)), max_size=6))
def test_no_reader_acts_on_a_tag_without_a_deciding_word(tags: list[tuple[str, dict[str, str]]]) -> None:
    """The other direction: what the prefilters let pass unparsed can never carry a signal."""
    text = " ".join(f"{key}={value}" for _, attrs in tags for key, value in attrs.items()).lower()
    assume(not any(word in text for word in DECIDING_WORDS))
    assert facts_from_tags(tags, PAGE) == HeadFacts()


#: How a refresh's URL was read before `refresh_url`: right, but quadratic in a run of white space.
_REFRESH_PATTERN = re.compile(r"""^\s*(\d*\.?\d*)\s*[;,]?\s*(?:url\s*=\s*)?(['"]?)(.*?)\2\s*$""", re.I | re.S)


@settings(max_examples=3000)
@given(st.text(alphabet=st.sampled_from("0123456789.;, \t\n\u00a0\u0663urlURL=\"'ab/x"), max_size=24))
def test_a_refresh_url_is_read_as_the_pattern_reads_it(content: str) -> None:
    from sitemapgen.pages.signals import refresh_url

    match = _REFRESH_PATTERN.match(content)
    assert match is not None
    assert refresh_url(content) == match.group(3)


def test_a_long_run_of_white_space_in_a_refresh_is_read_in_one_pass() -> None:
    """A refresh whose content holds a megabyte of spaces: the quadratic pattern took minutes
    (a 64 KiB page, seconds); a child process is given far more time than one pass needs."""
    import subprocess
    import sys

    head = '<meta http-equiv="refresh" content="0; url=/a' + " " * 1_000_000 + 'b">'
    code = "import sys; from sitemapgen.pages.head import parse_head; print(parse_head(sys.stdin.read(), {page!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code.format(page="https://example.com/p.html")],
        input=head,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert f"refresh='https://example.com/a{'%20' * 1_000_000}b'" in done.stdout


_SAYING = [
    ("link", {"rel": "canonical", "href": "https://example.com/docs/page.html"}),
    ("link", {"rel": "canonical", "href": "/docs/other/"}),
    ("link", {"rel": "Canonical", "href": "page.html"}),
    ("link", {"rel": "canonical", "href": "http://[::1"}),  # resolves to nothing
    ("link", {"rel": "canonical", "href": ""}),
    ("meta", {"property": "article:modified_time", "content": "2024-01-02T03:04:05+00:00"}),
    ("meta", {"name": "last-modified", "content": "2023-05-06"}),
    ("meta", {"name": "robots", "content": "noindex"}),
    ("meta", {"http-equiv": "refresh", "content": "0; url=/x/"}),
    ("link", {"rel": "alternate", "hreflang": "de", "href": "/de/"}),
    ("link", {"rel": "alternate canonical", "hreflang": "fr", "href": "/fr/"}),
]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_SAYING), max_size=5))
@example([_SAYING[5], _SAYING[6]])  # the first modified time counts
@example([_SAYING[0], _SAYING[1]])  # two canonicals: search engines ignore both
def test_a_head_of_canonicals_and_modified_times_reads_as_every_signal_would(tags: list[Tag]) -> None:
    # facts_from_said takes a head that says only canonicals and modified times (most heads)
    # without the bookkeeping every other signal needs: the facts must be the same.
    from sitemapgen.pages.signals import _found_facts, facts_from_said, said_by

    said = [(tag, said_by(*tag)) for tag in tags]
    assert facts_from_said(said, PAGE) == _found_facts(said, PAGE)


def test_with_lang_is_replace() -> None:
    # Every field set to something other than its default: a field added to HeadFacts and left
    # out of with_lang would fail this.
    facts = HeadFacts(
        noindex=True,
        canonical="https://example.com/c",
        canonical_conflict=True,
        refresh="https://example.com/r",
        alternates=(Alternate("de", "https://example.com/de/"),),
        modified="2024-01-01",
        problem="p",
        fragment=True,
        hreflang_conflicts=("fr",),
        lang="en",
    )
    assert all(getattr(facts, f.name) != f.default for f in dataclasses.fields(HeadFacts))
    assert facts.with_lang("de") == dataclasses.replace(facts, lang="de")
    assert facts.with_lang(None) == dataclasses.replace(facts, lang=None)
    labelled = LabelledFacts(**{f.name: getattr(facts, f.name) for f in dataclasses.fields(HeadFacts)}, title="t")
    assert labelled.with_lang("de") == dataclasses.replace(labelled, lang="de")
    assert (labelled.with_lang("de").title, facts.title, facts.description) == ("t", None, None)
