"""One plural helper for every count a message prints."""

from __future__ import annotations

import pytest

from memcli.plural import plural


@pytest.mark.parametrize(("count", "word", "many", "said"), [
    (0, "commit", None, "0 commits"), (1, "commit", None, "1 commit"), (2, "commit", None, "2 commits"),
    (1, "record", None, "1 record"), (1, "decision", None, "1 decision"),
    (3, "entry", "entries", "3 entries"),
])
def test_plural(count: int, word: str, many: str | None, said: str) -> None:
    assert plural(count, word, many) == said
