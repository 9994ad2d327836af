"""`memcli sessions`: the agent sessions of this workspace (memcli.sessions)."""

from __future__ import annotations

from pathlib import Path

from memcli.sessions.commands import run_sessions


def run(paths: list[Path] | None = None, *, since: str | None = None, show_all: bool = False,
        as_json: bool = False, workspace: Path | None = None) -> int:
    return run_sessions(workspace, list(paths or []), since=since, as_json=as_json, show_all=show_all)
