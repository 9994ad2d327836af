"""Fixtures for the memory-tool tests: a copy of the example workspace and a session factory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tools.helpers import CANDIDATE_SRC, RUN_SRC

from memcli.tools import ToolSession
from memcli.workspace import Workspace


@pytest.fixture
def ws(example_ws: Path) -> Workspace:
    return Workspace.open(example_ws)


@pytest.fixture
def make_session(ws: Workspace) -> Callable[..., ToolSession]:
    def make(**kw: Any) -> ToolSession:
        kw.setdefault("allowed_sources", [RUN_SRC])
        kw.setdefault("knowledge_sources", [CANDIDATE_SRC])
        return ToolSession(ws, **kw)

    return make


@pytest.fixture
def session(make_session: Callable[..., ToolSession]) -> ToolSession:
    return make_session()
