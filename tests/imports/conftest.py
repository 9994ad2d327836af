"""Fixtures for import tests: a workspace with every kind of document (the model is the fake server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from imports.helpers import World, make_world


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)
