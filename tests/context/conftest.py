"""A knowledge-record writer for context tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


def _write(root: Path, rel: str, front: str, body: str = "Body.") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")


def _knowledge(root: Path, slug: str, description: str, *, kind: str = "fact", invoked: bool = True,
               updated: str = "2026-05-01T10:00:00+09:00", field: str = "model_invocation") -> None:
    front = (
        f"created_at: 2026-04-01T10:00:00+09:00\nupdated_at: {updated}\nkind: {kind}\n"
        f"description: {description!r}\n{field}: {'true' if invoked else 'false'}\nuser_invocable: true\n"
        "last_sources:\n  - session_id: s-1\n    range: [0, 2]\n"
    )
    _write(root, f"knowledge/{slug}.md", front)


@pytest.fixture
def write() -> Callable[..., None]:
    return _write


@pytest.fixture
def knowledge() -> Callable[..., None]:
    return _knowledge
