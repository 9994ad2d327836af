"""`memcli consolidate`: Phase 2 (memcli.consolidate), one locked, all-or-nothing git commit."""

from __future__ import annotations

from pathlib import Path

from memcli.boundary import terminable
from memcli.commands import open_workspace
from memcli.consolidate.run import Options
from memcli.consolidate.run import run as consolidate
from memcli.progress import check_mode


def run(*, if_needed: bool = False, dry_run: bool = False, no_commit: bool = False, allow_dirty: bool = False,
        model: str | None = None, keep_published: bool = False, as_json: bool = False,
        progress: str = "auto", workspace: Path | None = None, propose: bool = False) -> int:
    opts = Options(if_needed, dry_run, no_commit, allow_dirty, model, as_json, keep_published,
                   check_mode(progress), propose)
    return terminable(lambda: consolidate(open_workspace(workspace), opts))
