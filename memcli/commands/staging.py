"""`memcli staging push|pull|clear`: shared staging through git refs (memcli.team)."""

from __future__ import annotations

from pathlib import Path

from memcli.commands import open_workspace
from memcli.team.staging import run_clear, run_pull, run_push


def push(remote: str = "origin", *, name: str | None = None, workspace: Path | None = None) -> int:
    return run_push(open_workspace(workspace), remote, name)


def pull(remote: str = "origin", *, workspace: Path | None = None) -> int:
    return run_pull(open_workspace(workspace), remote)


def clear(*, workspace: Path | None = None) -> int:
    return run_clear(open_workspace(workspace))
