"""The `ws` fixture: a git repository made a memcli workspace, without records yet."""

from __future__ import annotations

from pathlib import Path

import pytest
from skills.kit import git


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text("", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    return root
