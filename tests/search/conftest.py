"""Small crafted workspaces for the search tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_DATES = "created_at: 2026-04-01T10:00:00+09:00\nupdated_at: 2026-04-02T10:00:00+09:00\n"
_SOURCES = "sources:\n  - session_id: s1\n    range: [0, 3]\n"


class Records:
    """Writes valid records of each kind under a workspace root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "memory").mkdir(parents=True, exist_ok=True)

    def write(self, rel: str, text: str, *, age_s: float | None = 3600) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if age_s is not None:  # an old mtime: the index trusts mtime+size without re-hashing
            old = path.stat().st_mtime - age_s
            os.utime(path, (old, old))
        return path

    def decision(self, slug: str, body: str, *, status: str = "resolved",
                 replaced_by: str | None = None) -> Path:
        extra = f"replaced_by: {replaced_by}\n" if replaced_by else ""
        front = f"{_DATES}status: {status}\n{extra}{_SOURCES}"
        return self.write(f"memory/decisions/{slug}.md", f"---\n{front}---\n{body}\n")

    def request(self, slug: str, body: str, *, age_s: float | None = 3600) -> Path:
        return self.write(f"memory/requests/{slug}.md", f"---\n{_DATES}{_SOURCES}---\n{body}\n", age_s=age_s)

    def knowledge(self, slug: str, description: str, body: str, *, kind: str = "fact",
                  invocation: bool = True) -> Path:
        front = (f"{_DATES}kind: {kind}\ndescription: {description}\n"
                 f"model_invocation: {str(invocation).lower()}\nuser_invocable: true\nlast_sources: []\n")
        return self.write(f"knowledge/{slug}.md", f"---\n{front}---\n{body}\n")

    def workflow(self, slug: str, description: str, body: str) -> Path:
        front = (f"{_DATES}description: {description}\nauto_invoke: false\nuser_invocable: true\n"
                 "requires: []\n")
        return self.write(f"memory/workflow/{slug}.md", f"---\n{front}---\n{body}\n")

    def summary(self, body: str) -> Path:
        return self.write("memory/summary.md", f"---\nupdated_at: 2026-04-02T10:00:00+09:00\n---\n{body}\n")


@pytest.fixture
def records(tmp_path: Path) -> Records:
    return Records(tmp_path / "ws")
