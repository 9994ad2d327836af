"""Counts in words: `1 commit`, `2 commits` — one helper, so no message says `1 commits`."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, the plural (`many`, default word + "s") unless count is 1."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
