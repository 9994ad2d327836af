"""Workspaces the store tests read two ways: the bundled example, and a generated one (the speed
benches' generator, with broken records, replaced decisions, anchors and odd entries added)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from store.kit import REPO, extras, workspace_gen
from support.git import git


@pytest.fixture
def example(tmp_path: Path) -> Path:
    root = tmp_path / "example"
    shutil.copytree(REPO / "examples" / "workspace", root)
    return root


@pytest.fixture
def generated(tmp_path: Path) -> Path:
    root = workspace_gen.generate(tmp_path / "generated", 300)
    extras(root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "records")
    return root
