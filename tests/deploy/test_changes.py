"""What changed between two deploys, and the drop guard's boundary."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from sitemapgen.deploy.changes import GONE, Changes, Refused
from sitemapgen.deploy.previous import Previous

BASE = "https://example.com/"


@pytest.fixture
def previous() -> Iterator[Callable[[dict[str, str | None]], Previous]]:
    """A previous deploy that listed what it is given; closed after the test (its database with it)."""
    made: list[Previous] = []

    def make(listed: dict[str, str | None]) -> Previous:
        made.append(Previous("test", BASE))
        made[-1].found = True
        made[-1].db.executemany("INSERT INTO listed VALUES (?, ?)", list(listed.items()))
        return made[-1]

    yield make
    for each in made:
        each.close()


@pytest.mark.parametrize(
    ("before", "now", "left_out", "added", "removed", "changed"),
    [
        pytest.param({}, {"a": "1"}, {}, ["a"], [], [], id="all-new"),
        pytest.param({"a": "1"}, {"a": "1"}, {}, [], [], [], id="same"),
        pytest.param({"a": "1"}, {"a": "2"}, {}, [], [], [("a", "1", "2")], id="lastmod-changed"),
        pytest.param({"a": None}, {"a": "2"}, {}, [], [], [("a", None, "2")], id="lastmod-appears"),
        pytest.param({"a": "1", "b": "1"}, {"a": "1"}, {}, [], [("b", GONE)], [], id="gone"),
        pytest.param({"a": "1", "b": "1"}, {"a": "1"}, {"b": "noindex"}, [], [("b", "noindex")], [], id="noindex"),
        pytest.param({"a": "1"}, {"a": "1"}, {"z": "noindex"}, [], [], [], id="left-out-never-listed"),
    ],
)
def test_the_diff(
    previous: Callable[[dict[str, str | None]], Previous],
    before: dict[str, str | None],
    now: dict[str, str],
    left_out: dict[str, str],
    added: list[str],
    removed: list[tuple[str, str]],
    changed: list[tuple[str, str | None, str]],
) -> None:
    changes = Changes(previous({BASE + k: v for k, v in before.items()}))
    for loc, lastmod in now.items():
        changes.see(BASE + loc, lastmod)
    for loc, why in left_out.items():
        changes.left_out(BASE + loc, why)
    assert list(changes.added()) == [BASE + a for a in added]
    assert list(changes.removed()) == [(BASE + loc, why) for loc, why in removed]
    assert list(changes.changed()) == [(BASE + loc, old, new) for loc, old, new in changed]
    assert str(changes.counts()) == f"+{len(added)} -{len(removed)} ~{len(changed)}"


@pytest.mark.parametrize(
    ("listed", "kept", "limit", "refused"),
    [
        pytest.param(10, 5, 50, False, id="exactly-the-limit"),
        pytest.param(10, 4, 50, True, id="past-the-limit"),
        pytest.param(10, 10, 0, False, id="nothing-removed-limit-0"),
        pytest.param(10, 9, 0, True, id="one-removed-limit-0"),
        pytest.param(0, 0, 0, False, id="a-first-deploy"),
    ],
)
def test_the_drop_guard(
    previous: Callable[[dict[str, str | None]], Previous], listed: int, kept: int, limit: float, refused: bool
) -> None:
    changes = Changes(previous({f"{BASE}{i}": None for i in range(listed)}))
    for i in range(kept):
        changes.see(f"{BASE}{i}", None)
    if refused:
        with pytest.raises(Refused, match=r"refusing to publish: .* Nothing was published"):
            changes.guard(limit)
    else:
        changes.guard(limit)
