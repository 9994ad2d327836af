"""One plural helper for every count a message prints."""

from __future__ import annotations

import pytest

from memcli.commands.status import _run_line
from memcli.plural import counted, plural


@pytest.mark.parametrize(("count", "word", "many", "said"), [
    (0, "commit", None, "0 commits"), (1, "commit", None, "1 commit"), (2, "commit", None, "2 commits"),
    (1, "record", None, "1 record"), (1, "decision", None, "1 decision"),
    (3, "entry", "entries", "3 entries"),
])
def test_plural(count: int, word: str, many: str | None, said: str) -> None:
    assert plural(count, word, many) == said


def test_counted_says_a_run_s_counts_keyed_by_plural_nouns() -> None:
    assert counted({"chunks": 1, "decisions": 1, "discussions": 0, "requests": 2}) == \
        "1 chunk, 1 decision, 0 discussions, 2 requests"
    assert counted({"added": 1, "updated": 0}) == "1 added, 0 updated"  # no plural noun: as it is


def test_status_says_one_of_each_in_the_singular() -> None:
    line = _run_line({"finished_at": "2026-01-01T00:00:00Z", "result": "done",
                      "counts": {"chunks": 1, "decisions": 1, "requests": 0}, "prompt_tokens": 5})
    assert "done (1 chunk, 1 decision, 0 requests)" in line, line
