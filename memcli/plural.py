"""Counts in words: `1 commit`, `2 commits` — one helper, so no message says `1 commits`."""

from __future__ import annotations

from collections.abc import Mapping


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, the plural (`many`, default word + "s") unless count is 1."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def counted(counts: Mapping[str, int]) -> str:
    """Counts keyed by plural nouns (`{"decisions": 1, "requests": 0}`, the keys of a run's JSON)
    in words: `1 decision, 0 requests`. A key that is no plural in -s (`added`) is said as it is."""
    return ", ".join(f"{n} {key[:-1] if n == 1 and key.endswith('s') else key}" for key, n in counts.items())
