"""The apply step, journaled: a kill at any point is completed or rolled back by the next command.

Before the first workspace file is touched, a journal with the old and the new content of every
file to change is written (atomically) next to the lock. Then the files are written, the commit is
made, the consumed staging files are removed and the journal is deleted. `recover()` reads a
journal left by a killed process: if the commit exists (or no commit was asked for and every file
was written) it finishes the job, otherwise it puts every file back.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from memcli.atomicio import atomic_delete, atomic_write_bytes, atomic_write_text
from memcli.consolidate import gitops
from memcli.consolidate.lock import pid_alive
from memcli.consolidate.scratch import FileChange
from memcli.errors import MemcliError
from memcli.workspace import Workspace

JOURNAL_NAME = "consolidate-apply.journal"  # not *.json: never mistaken for a staging file


class ApplyFailed(MemcliError):
    """The result could not be applied; the workspace was put back as it was."""


@dataclass(frozen=True)
class Applied:
    sha: str | None  # None: --no-commit


def journal_path(ws: Workspace) -> Path:
    return ws.staging_dir / JOURNAL_NAME


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _write_journal(ws: Workspace, data: dict[str, object]) -> None:
    atomic_write_text(journal_path(ws), json.dumps(data))


def _put(ws: Workspace, path: str, content: bytes | None) -> None:
    target = ws.abspath(path)
    if content is None:
        atomic_delete(target)
    else:
        atomic_write_bytes(target, content)


def _roll_back(ws: Workspace, files: list[FileChange], repo: gitops.Repo | None) -> list[str]:
    """Restore every old content; returns the paths that could not be restored (should be none)."""
    stuck = []
    for change in files:
        try:
            current = ws.abspath(change.path).read_bytes() if ws.abspath(change.path).is_file() else None
            if current != change.old:
                _put(ws, change.path, change.old)
        except OSError:
            stuck.append(change.path)
    if repo is not None:
        gitops.unstage(repo, [c.path for c in files])
    return stuck


def _remove_staging(ws: Workspace, ids: list[str]) -> None:
    for staging_id in ids:
        atomic_delete(ws.staging_dir / f"{staging_id}.json")


def apply(
    ws: Workspace,
    files: list[FileChange],
    *,
    run_id: str,
    consumed: list[str],
    repo: gitops.Repo | None,
    message: str,
) -> Applied:
    """Write `files` into the workspace, commit them (when `repo`), then drop the consumed staging."""
    journal = {
        "run_id": run_id,
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "phase": "applying",
        "commit": repo is not None,
        "consumed": consumed,
        "files": [{"path": c.path, "old": _b64(c.old), "new": _b64(c.new)} for c in files],
    }
    try:
        _write_journal(ws, journal)
    except OSError as exc:
        raise ApplyFailed(f"cannot write the apply journal ({exc.strerror}); nothing was changed") from None
    for change in files:
        try:
            _put(ws, change.path, change.new)
        except OSError as exc:
            stuck = _roll_back(ws, files, repo)
            atomic_delete(journal_path(ws))
            raise ApplyFailed(
                f"cannot write {change.path} ({exc.strerror}); every file was put back"
                + (f" except {', '.join(stuck)}" if stuck else "")
                + ", no commit was made and the staging files are kept"
            ) from None
    sha = None
    if repo is not None:
        try:
            sha = gitops.commit(repo, [c.path for c in files], message, ws.state_dir)
        except gitops.GitError as exc:
            _roll_back(ws, files, repo)
            atomic_delete(journal_path(ws))
            raise ApplyFailed(f"{exc}; every file was put back and the staging files are kept") from None
    journal["phase"] = "committed" if repo is not None else "applied"
    _write_journal(ws, journal)
    _remove_staging(ws, consumed)
    atomic_delete(journal_path(ws))
    return Applied(sha)


def recover(ws: Workspace) -> str | None:
    """Finish or undo an apply step a killed process left behind. Returns what was done, if anything."""
    path = journal_path(ws)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise MemcliError(
            f"{path}: unreadable apply journal ({exc}); inspect it and remove it by hand"
        ) from None
    if data.get("host") != socket.gethostname():
        # a shared folder: that host may be applying right now, and only it can tell
        return f"an apply journal of host {data.get('host')} is pending ({path}); run memcli there"
    if data.get("pid") != os.getpid() and pid_alive(int(data.get("pid", 0))):
        return None  # a live run is applying right now: leave it alone
    files = [FileChange(f["path"], _unb64(f["old"]), _unb64(f["new"])) for f in data["files"]]
    repo = gitops.open_repo(ws) if data.get("commit") else None
    run_id = str(data["run_id"])
    done = data.get("phase") in ("committed", "applied")
    if not done and repo is not None and gitops.commit_message(repo, run_id) is not None:
        done = True  # killed after git committed, before the journal said so
    if done:
        for change in files:
            with contextlib.suppress(OSError):
                current = ws.abspath(change.path).read_bytes() if ws.abspath(change.path).is_file() else None
                if current != change.new:
                    _put(ws, change.path, change.new)
        _remove_staging(ws, [str(x) for x in data.get("consumed", [])])
        atomic_delete(path)
        return f"completed the apply step of interrupted consolidation run {run_id}"
    stuck = _roll_back(ws, files, repo)
    if stuck:
        raise MemcliError(
            f"interrupted consolidation run {run_id}: could not restore {', '.join(stuck)}; "
            f"the old content is in {path}"
        )
    atomic_delete(path)
    return f"rolled back the interrupted apply step of consolidation run {run_id}; staging files kept"
