"""`memcli import`: what the agents' memory and instruction files say, into staging (memcli.imports)."""

from __future__ import annotations

from pathlib import Path

from memcli.boundary import terminable
from memcli.commands import open_workspace
from memcli.imports.run import run as import_documents
from memcli.progress import check_mode


def run(paths: list[Path] | None = None, *, kind: str | None = None, model: str | None = None,
        dry_run: bool = False, as_json: bool = False, progress: str = "auto",
        workspace: Path | None = None) -> int:
    return terminable(lambda: import_documents(open_workspace(workspace), paths=paths or [], kind=kind,
                                               model=model, dry_run=dry_run, as_json=as_json,
                                               progress_mode=check_mode(progress)))
