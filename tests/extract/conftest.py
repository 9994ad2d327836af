"""Fixtures for extract tests (the model is always the fake HTTP server)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from extract.helpers import FIXTURES, make_ws

from memcli.workspace import Workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return make_ws(tmp_path / "ws")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of the real transcripts (tests/fixtures/transcripts); the Aider history under
    the name discovery looks for."""
    dest = tmp_path / "transcripts"
    shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns("*.md", "*.txt"))
    shutil.copy(FIXTURES / "aider" / "Aider-AI__aider" / "chat-history.md",
                dest / "aider" / "Aider-AI__aider" / ".aider.chat.history.md")
    return dest
