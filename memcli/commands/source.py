"""`memcli source SESSION:START-END`: the transcript entries a Source points to (memcli.sessions)."""

from __future__ import annotations

from pathlib import Path

from memcli.sessions.commands import run_source


def run(spec: str, *, paths: list[Path] | None = None, as_json: bool = False,
           workspace: Path | None = None) -> int:
    return run_source(workspace, spec, list(paths or []), as_json=as_json)
