"""`memcli merge-driver BASE OURS THEIRS PATH`: git's merge driver for records (memcli.merge).

git runs it once per file both branches changed, so its start-up is paid per file: the lean route
(memcli.lean) comes here without Typer."""

from __future__ import annotations

from pathlib import Path

from memcli.merge.driver import main as driver


def run(base: Path, ours: Path, theirs: Path, path: str) -> int:
    return driver([str(base), str(ours), str(theirs), path])
