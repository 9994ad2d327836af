"""The scratch copy the model works on, and the change set between it and the workspace.

The model's tools write only into a copy of `memory/` + `knowledge/` + the config, under the state
folder; the real workspace is untouched until a clean result is applied in one journaled step.
"""

from __future__ import annotations

import difflib
import hashlib
import shutil
from pathlib import Path

from memcli.config import CONFIG_FILE
from memcli.recordtext import read_file
from memcli.values import frozen
from memcli.workspace import STAGING_DIR, Workspace

SCRATCH_DIR = "consolidate-scratch"


@frozen
class FileChange:
    path: str  # workspace-relative POSIX
    old: bytes | None  # None: the file is new
    new: bytes | None  # None: the file is deleted

    @property
    def op(self) -> str:
        if self.old is None:
            return "create"
        if self.new is None:
            return "delete"
        return "update"

    @property
    def size_before(self) -> int:
        return len(self.old or b"")

    @property
    def size_after(self) -> int:
        return len(self.new or b"")


def _ignore_staging(root: Path):
    staging = (root / STAGING_DIR).resolve()

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if (Path(directory) / n).resolve() == staging}

    return ignore


def scratch_root(ws: Workspace) -> Path:
    return ws.state_dir / SCRATCH_DIR


def clear_stale(ws: Workspace) -> None:
    """Remove scratch copies left by killed runs (called while holding the lock)."""
    base = scratch_root(ws)
    if base.is_dir():
        for child in base.iterdir():
            shutil.rmtree(child, ignore_errors=True)


def make(ws: Workspace, run_id: str) -> Workspace:
    """Copy memory/ (without staging), knowledge/ and the config into a fresh scratch workspace."""
    dest = scratch_root(ws) / run_id
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for top in ("memory", "knowledge"):
        src = ws.root / top
        if src.is_dir() and not src.is_symlink():
            # symlinks stay links, so the tools' confinement sees exactly what the workspace holds
            shutil.copytree(src, dest / top, symlinks=True, ignore=_ignore_staging(ws.root))
        else:
            (dest / top).mkdir()
    for name in (CONFIG_FILE, "pyproject.toml"):
        if (ws.root / name).is_file():
            shutil.copy2(ws.root / name, dest / name)
    return Workspace(dest, ws.config)


def drop(scratch: Workspace) -> None:
    shutil.rmtree(scratch.root, ignore_errors=True)


def _read_files(ws: Workspace) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for rel in ws.iter_files():
        path = ws.root / rel
        if path.is_file() and not path.is_symlink():
            data, _ = read_file(path, follow=False)  # (a FIFO put there since: refused, not waited on)
            if data is not None:
                out[rel] = data
    return out


def fingerprint(ws: Workspace) -> dict[str, str]:
    """Hash of every record file, to notice a human edit that lands while the model works."""
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in _read_files(ws).items()}


def changes(ws: Workspace, scratch: Workspace) -> list[FileChange]:
    """What applying the scratch copy would do to the workspace, sorted by path."""
    before = _read_files(ws)
    after = _read_files(scratch)
    out = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old != new:
            out.append(FileChange(rel, old, new))
    return out


def unified_diff(change: FileChange) -> str:
    old = (change.old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = (change.new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    a = "/dev/null" if change.old is None else f"a/{change.path}"
    b = "/dev/null" if change.new is None else f"b/{change.path}"
    return "".join(difflib.unified_diff(old, new, a, b))
