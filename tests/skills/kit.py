"""Records, a sync, and what it wrote, for the skills tests (imported as `skills.kit`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from memcli.skills import place
from memcli.skills.sync import Result, sync
from memcli.workspace import Workspace

TS = "2026-04-01T10:00:00+09:00"


def knowledge(root: Path, slug: str, description: str = "How to do it.", body: str = "Do it so.", *,
              kind: str = "howto", model: bool = True, user: bool = True) -> Path:
    front = (f"created_at: {TS}\nupdated_at: {TS}\nkind: {kind}\ndescription: {json.dumps(description)}\n"
             f"model_invocation: {str(model).lower()}\nuser_invocable: {str(user).lower()}\n"
             "last_sources:\n  - session_id: s-1\n    range: [0, 2]\n")
    path = root / "knowledge" / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")
    return path


def workflow(root: Path, slug: str, description: str = "How to release.", body: str = "1. Tag.\n2. Push.",
             *, auto: bool = False, user: bool = True, requires: tuple[str, ...] = ()) -> Path:
    front = (f"created_at: {TS}\nupdated_at: {TS}\ndescription: {json.dumps(description)}\n"
             f"auto_invoke: {str(auto).lower()}\nuser_invocable: {str(user).lower()}\n"
             f"requires: {json.dumps(list(requires))}\n")
    path = root / "memory" / "workflow" / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")
    return path


def run_sync(root: Path, *agents: str, dry_run: bool = False) -> Result:
    return sync(Workspace.open(root), place.chosen(list(agents or ["all"])), dry_run=dry_run)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under the agents' skill folders: path → bytes."""
    out = {}
    for folder in place.skill_folders():
        for path in sorted((root / folder).rglob("*")):
            if path.is_file():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def stamps(root: Path) -> dict[str, int]:
    return {rel: (root / rel).stat().st_mtime_ns for rel in tree(root)}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout
