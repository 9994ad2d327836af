"""`memcli extract`: Phase 1 over this workspace's sessions (memcli.extract), or, with `--hook`,
hand the session an agent's hook names to a detached worker and return at once."""

from __future__ import annotations

from pathlib import Path

from memcli.boundary import terminable
from memcli.commands import extract_hook, open_workspace
from memcli.extract.run import run as extract
from memcli.progress import check_mode
from memcli.sessions.query import parse_since  # one --since syntax for every command


def run(paths: list[Path] | None = None, *, model: str | None = None, since: str | None = None,
        dry_run: bool = False, stale: bool = False, redo: bool = False, hook: bool = False,
        as_json: bool = False, progress: str = "auto", workspace: Path | None = None) -> int:
    if hook:
        return extract_hook.run(workspace=workspace)
    return terminable(lambda: extract(open_workspace(workspace), paths=paths or None,
                                      since=parse_since(since), model=model, dry_run=dry_run, as_json=as_json,
                                      stale=stale, redo=redo, progress_mode=check_mode(progress)))
