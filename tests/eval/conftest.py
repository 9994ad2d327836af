"""Fixtures of the `memcli eval` tests (builders: tests/support/eval_workspace.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.eval_workspace import History


@pytest.fixture
def history(tmp_path: Path) -> History:
    return History(tmp_path)
