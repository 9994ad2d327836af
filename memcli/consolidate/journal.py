"""The apply step, journaled: a kill at any point is completed or rolled back by the next command.

Before the first workspace file is touched, a journal with the old and the new content of every
file to change is written (atomically) next to the lock. Then the files are written, the commit is
made (the git child's pid is journaled before it may start), the consumed staging files are removed
and the journal is deleted.

The point of no return is git moving HEAD to the run's commit; nothing in the real index changes
before it (`gitops.commit`). `recover()` reads a journal left by a killed process, ends the run's
git if it still runs, then: if the commit exists (or no commit was asked for and every file was
written) it finishes the job, otherwise it puts back every file that still holds what the run
wrote. A file that holds anything else was edited by a human meanwhile: it is kept and named.
Either way the temp files the killed writes left beside those files go (atomicio.leftover_of).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
from dataclasses import field
from pathlib import Path
from typing import Any, NoReturn

from memcli import history
from memcli.atomicio import atomic_delete, atomic_write_bytes, atomic_write_text, leftovers
from memcli.consolidate import gitops
from memcli.consolidate.lock import guard
from memcli.consolidate.scratch import FileChange
from memcli.errors import MemcliError
from memcli.git.group import Child, end_group, pid_alive, process_tag
from memcli.values import frozen
from memcli.workspace import STAGING_DIR, Workspace

JOURNAL_NAME = "consolidate-apply.journal"  # not *.json: never mistaken for a staging file
VERSION = 2  # 1 (memcli 0.1) staged into the real index before committing


class ApplyFailed(MemcliError):
    """The result could not be applied; every file the run wrote was put back."""

    def __init__(self, message: str, kept: list[str] | None = None) -> None:
        super().__init__(message)
        self.kept = kept or []  # human edits found in the run's files, kept as they were


@frozen
class Applied:
    sha: str | None  # None: --no-commit
    kept: list[str] = field(default_factory=list)  # edited by a human after the run wrote them
    pending: str | None = None  # committed, but the git index could not be brought up to date yet
    branch: str | None = None  # the commit is on this branch, not the checked-out one (a proposal)


def journal_path(ws: Workspace) -> Path:
    """Beside this worktree's own files, never in the clone's shared staging: another worktree
    settling it would put this one's content into its own files."""
    return ws.root / STAGING_DIR / JOURNAL_NAME


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _write_journal(ws: Workspace, data: dict[str, Any]) -> None:
    atomic_write_text(journal_path(ws), json.dumps(data))


def _read(ws: Workspace, path: str) -> bytes | None:
    target = ws.abspath(path)
    return target.read_bytes() if target.is_file() else None


def _put(ws: Workspace, path: str, content: bytes | None) -> None:
    target = ws.abspath(path)
    if content is None:
        atomic_delete(target)
    else:
        atomic_write_bytes(target, content)


def _roll_back(ws: Workspace, files: list[FileChange]) -> tuple[list[str], list[str]]:
    """Put back the old content of every file that holds exactly what the run wrote. Returns the
    files kept because they hold something else (a human's edit), and those that could not be put back."""
    kept, stuck = [], []
    for change in files:
        try:
            current = _read(ws, change.path)
            if current == change.new:
                _put(ws, change.path, change.old)
            elif current != change.old:
                kept.append(change.path)
        except OSError:
            stuck.append(change.path)
    return kept, stuck


def _sweep(ws: Workspace, files: list[FileChange]) -> None:
    """Remove the temp files that writes of `files` killed before their rename left beside them."""
    by_folder: dict[Path, set[str]] = {}
    for change in files:
        target = ws.abspath(change.path)
        by_folder.setdefault(target.parent, set()).add(target.name)
    for folder, names in by_folder.items():
        for name in leftovers(folder, names):
            atomic_delete(folder / name)


def _kept_note(kept: list[str], committed: bool = False) -> str:
    if not kept:
        return ""
    where = "uncommitted, on top of the commit" if committed else "as edited"
    return f"; kept the edit made meanwhile to {', '.join(kept)} ({where})"


def _remove_staging(ws: Workspace, ids: list[str]) -> None:
    for staging_id in ids:
        atomic_delete(ws.staging_dir / f"{staging_id}.json")


def _files(data: dict[str, Any]) -> list[FileChange]:
    return [FileChange(f["path"], _unb64(f["old"]), _unb64(f["new"])) for f in data["files"]]


def _fail(ws: Workspace, files: list[FileChange], repo: gitops.Repo | None, run_id: str,
          why: str) -> NoReturn:
    kept, stuck = _roll_back(ws, files)
    if repo is not None:
        gitops.drop_temp(repo, run_id)
    if not stuck:
        atomic_delete(journal_path(ws))  # else recovery tries again with the journal's old content
    undone = "every file the run wrote was put back"
    if stuck:
        undone += f" except {', '.join(stuck)} (its old content is in {journal_path(ws)})"
    raise ApplyFailed(f"{why}; {undone}{_kept_note(kept)}; no commit was made and the staging files are kept",
                      kept)


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
    journal: dict[str, Any] = {
        "version": VERSION,
        "run_id": run_id,
        "pid": os.getpid(),
        "proc": process_tag(os.getpid()),
        "host": socket.gethostname(),
        "phase": "applying",
        "commit": repo is not None,
        "parent": gitops.head(repo) if repo is not None else None,
        "consumed": consumed,
        "files": [{"path": c.path, "old": _b64(c.old), "new": _b64(c.new)} for c in files],
    }
    try:
        _write_journal(ws, journal)
    except OSError as exc:
        raise ApplyFailed(f"cannot write the apply journal ({exc.strerror}); nothing was changed") from None
    try:
        return _apply(ws, files, journal, repo, message)
    except ApplyFailed:
        raise
    except BaseException:  # an interrupt or a bug mid-apply: end in the old or the new state now
        with contextlib.suppress(MemcliError, OSError):
            _settle(ws, journal, repo)
        raise


def _apply(ws: Workspace, files: list[FileChange], journal: dict[str, Any], repo: gitops.Repo | None,
           message: str) -> Applied:
    run_id = journal["run_id"]
    for change in files:
        if _read(ws, change.path) != change.old:  # never overwrite a human's edit
            _fail(ws, files, repo, run_id, f"{change.path} was edited while the run applied its result")
        try:
            _put(ws, change.path, change.new)
        except OSError as exc:
            _fail(ws, files, repo, run_id, f"cannot write {change.path} ({exc.strerror})")
    sha = None
    if repo is not None:
        def started(child: Child) -> None:
            journal["phase"], journal["git"] = "committing", child.to_json()
            _write_journal(ws, journal)

        try:
            done = gitops.commit(repo, files, message, run_id=run_id, msg_dir=ws.state_dir, started=started)
        except gitops.GitError as exc:
            _fail(ws, files, repo, run_id, str(exc))
        sha = gitops.find_commit(repo, run_id, journal["parent"])  # git may die after moving HEAD
        if sha is None:
            _fail(ws, files, repo, run_id, str(gitops.failure(done)))
        journal["phase"], journal["sha"] = "committed", sha
    else:
        journal["phase"] = "applied"
    _write_journal(ws, journal)
    _remove_staging(ws, journal["consumed"])
    if repo is not None and sha is not None:
        try:
            gitops.sync_index(repo, [c.path for c in files], sha, run_id)
        except gitops.GitError as exc:
            return Applied(sha, _edited_since(ws, files), str(exc))  # the journal stays for recovery
        gitops.drop_temp(repo, run_id)
    atomic_delete(journal_path(ws))
    return Applied(sha, _edited_since(ws, files))


def _edited_since(ws: Workspace, files: list[FileChange]) -> list[str]:
    return [c.path for c in files if _read(ws, c.path) != c.new]


def _run_alive(data: dict[str, Any]) -> bool:
    pid = int(data.get("pid", 0))
    if pid == os.getpid() or not pid_alive(pid):
        return False
    tag = data.get("proc")
    return tag is None or process_tag(pid) in (None, tag)


def _record(ws: Workspace, run_id: str, **changes: Any) -> None:
    """Tell the run history what became of a run that was killed while applying."""
    for entry in reversed(history.runs(ws, "consolidate")):
        if entry.get("run_id") == run_id:
            history.record(ws, "consolidate", {**entry, **changes, "finished_at": history.now()})
            return


def _settle(ws: Workspace, data: dict[str, Any], repo: gitops.Repo | None) -> str:
    """Finish the apply step of `data` if its commit exists, else undo it. The run's git has ended."""
    files, run_id = _files(data), str(data["run_id"])
    sha = data.get("sha")
    if repo is not None and sha is None:
        sha = gitops.find_commit(repo, run_id, data.get("parent"))
    if sha is not None or (repo is None and data.get("phase") == "applied"):
        if repo is not None and sha is not None:
            gitops.drop_temp(repo, run_id)  # an index.lock the kill left, if provably ours
            gitops.sync_index(repo, [c.path for c in files], sha, run_id)  # raises: journal kept
            gitops.drop_temp(repo, run_id)
        _remove_staging(ws, [str(x) for x in data.get("consumed", [])])
        _sweep(ws, files)
        atomic_delete(journal_path(ws))
        kept = _edited_since(ws, files)
        _record(ws, run_id, result="committed" if sha else "applied", commit=sha, error=None)
        done = f"commit {sha[:10]}" if sha else "no commit asked for"
        return (f"completed the apply step of interrupted consolidation run {run_id} ({done})"
                + _kept_note(kept, committed=True))
    kept, stuck = _roll_back(ws, files)
    if stuck:
        raise MemcliError(f"interrupted consolidation run {run_id}: could not restore {', '.join(stuck)}; "
                          f"the old content is in {journal_path(ws)}")
    if repo is not None:
        if data.get("version") != VERSION:
            gitops.unstage(repo, [c.path for c in files])  # memcli 0.1 staged into the real index
        gitops.drop_temp(repo, run_id)
    _sweep(ws, files)
    atomic_delete(journal_path(ws))
    why = "killed while applying its result; rolled back" + _kept_note(kept)
    _record(ws, run_id, result="failed", error=why)
    return (f"rolled back the interrupted apply step of consolidation run {run_id}; staging files kept"
            + _kept_note(kept))


def recover(ws: Workspace) -> str | None:
    """Finish or undo an apply step a killed process left behind. Returns what was done, if anything;
    raises (keeping the journal) when it cannot do either yet."""
    if not journal_path(ws).exists():
        return None
    with guard(ws):  # `memcli status` and a starting run may both find the journal: one settles it
        return _recover(ws)


def _recover(ws: Workspace) -> str | None:
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
    if _run_alive(data):
        return None  # a live run is applying right now: leave it alone
    if isinstance(data.get("git"), dict):
        child = Child.from_json(data["git"])
        # git orphaned by the kill could still finish the commit after we put the old files back
        if not end_group(child):
            raise MemcliError(f"git (pid {child.pid}) of interrupted consolidation run {data['run_id']} "
                              "does not end; run the command again once it is gone")
    repo = gitops.open_repo(ws) if data.get("commit") else None
    try:
        return _settle(ws, data, repo)
    except gitops.GitError as exc:
        raise MemcliError(f"interrupted consolidation run {data['run_id']}: {exc}") from None
