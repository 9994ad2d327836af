"""`consolidate --propose`: a run's result as a branch to review, and what becomes of its staging.

A proposal is the run's one commit on a new branch `memcli/proposal/<run>` whose parent is HEAD;
the working tree, the index and the checked-out branch stay as they were. Its staging files leave
the staging pool for `memory/_staging/proposals/<run>/` beside a `proposal.json`, so no other run
(here, in another worktree, or after a `staging pull`) uses them while it is reviewed:
- accepted: the branch was merged (its tip is in HEAD or in the branch it was proposed on, or a
  commit there carries its `Memcli-Run` trailer: a rebase or squash merge) — the held files are
  deleted, consumed exactly once, and the proposal branch is deleted if nobody moved it;
- rejected (`memcli proposals reject <run> --reason ...`): the branch is deleted and the held
  files move, with the reason, to the state folder's `rejected-proposals/<run>/`; no run proposes
  them again (they are in no staging pool) and a person can still read them there;
- a run killed half-way: a hold without its commit is finished if the branch exists, else its
  files go back to staging (`recover`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from memcli import history
from memcli.atomicio import atomic_write_text
from memcli.consolidate import gitops
from memcli.consolidate.lock import guard
from memcli.consolidate.scratch import FileChange
from memcli.errors import MemcliError, UsageError
from memcli.git import branches as git_branches
from memcli.values import frozen
from memcli.workspace import Workspace

PREFIX = "memcli/proposal/"
HOLD_DIR = "proposals"  # under the clone's staging folder
REJECTED_DIR = "rejected-proposals"  # under the clone's state folder
META = "proposal.json"


@frozen
class Proposal:
    run_id: str
    branch: str
    base: str | None  # the branch it was proposed on (None: a detached HEAD)
    parent: str  # the commit it was made on
    staging: tuple[str, ...]
    created_at: str
    commit: str | None = None  # None until the branch exists (a run killed in between)
    state: str = "open"  # open | accepted | gone (branch deleted, not merged) | rejected
    merged_in: str | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "branch": self.branch, "base": self.base, "parent": self.parent,
                "staging": list(self.staging), "created_at": self.created_at, "commit": self.commit,
                "state": self.state, "merged_in": self.merged_in, "reason": self.reason}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        return cls(str(data["run_id"]), str(data["branch"]), data.get("base"), str(data["parent"]),
                   tuple(str(x) for x in data.get("staging", [])), str(data.get("created_at", "")),
                   data.get("commit"), str(data.get("state", "open")), data.get("merged_in"),
                   data.get("reason"))

    def review(self) -> list[str]:
        """How a person looks at it and decides (printed after the run and by `memcli proposals`)."""
        base = self.base or self.parent[:10]
        return [f"review:  git diff {base}...{self.branch}   (or: git log -p {base}..{self.branch})",
                f"share:   git push origin {self.branch}, then open a pull request into {base}",
                f"accept:  git merge {self.branch}   (on {base}; the merge driver merges records)",
                f"reject:  memcli proposals reject {self.run_id} --reason \"...\""]


def hold_root(ws: Workspace) -> Path:
    return ws.staging_dir / HOLD_DIR


def _hold(ws: Workspace, run_id: str) -> Path:
    return hold_root(ws) / run_id


def _save(folder: Path, proposal: Proposal) -> None:
    atomic_write_text(folder / META, json.dumps(proposal.to_json(), indent=1, ensure_ascii=False) + "\n")


def _load(folder: Path) -> Proposal | None:
    try:
        return Proposal.from_json(json.loads((folder / META).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _move_back(ws: Workspace, folder: Path) -> None:
    """Put a hold's staging files back into the pool and drop the hold."""
    for path in folder.glob("*.json"):
        if path.name != META:
            os.replace(path, ws.staging_dir / path.name)
    shutil.rmtree(folder, ignore_errors=True)


def create(ws: Workspace, repo: gitops.Repo, changes: list[FileChange], *, run_id: str,
           consumed: list[str], message: str) -> Proposal:
    """Hold the consumed staging, make the commit and its branch; on a git failure the staging goes
    back to the pool and nothing is left behind."""
    parent = gitops.head(repo)
    if parent is None:
        raise UsageError("--propose needs a first commit to propose on; commit once, or run without it")
    proposal = Proposal(run_id, PREFIX + run_id, git_branches.current(repo.top), parent, tuple(consumed),
                        history.now())
    folder = _hold(ws, run_id)
    folder.mkdir(parents=True, exist_ok=False)
    _save(folder, proposal)  # first: a kill from here on is settled by `recover`
    for staging_id in consumed:
        with contextlib.suppress(FileNotFoundError):
            os.replace(ws.staging_dir / f"{staging_id}.json", folder / f"{staging_id}.json")
    try:
        sha = gitops.build_commit(repo, changes, message, run_id=run_id, parent=parent)
        gitops.create_branch(repo, proposal.branch, sha)
    except gitops.GitError:
        _move_back(ws, folder)
        raise
    proposal = replace(proposal, commit=sha)
    _save(folder, proposal)
    return proposal


def _merged_in(repo: gitops.Repo, p: Proposal, tip: str | None) -> str | None:
    """Where the proposal was merged: HEAD, or the branch it was proposed on."""
    targets = ["HEAD"] + ([f"refs/heads/{p.base}"] if p.base else [])
    commit = tip or p.commit  # the branch deleted after a merge: its commit tells
    for target in targets:
        if commit is not None and commit != p.parent and git_branches.is_ancestor(repo.top, commit, target):
            return target.removeprefix("refs/heads/")
        if gitops.carries_run(repo, p.run_id, target) is not None:
            return target.removeprefix("refs/heads/")
    return None


def _recover(ws: Workspace, repo: gitops.Repo, folder: Path, p: Proposal | None) -> Proposal | None:
    tip = gitops.branch_tip(repo, p.branch) if p is not None else None
    if p is None or (p.commit is None and tip is None):
        _move_back(ws, folder)  # killed before its branch existed: as if it never ran
        return None
    if p.commit is None:
        p = replace(p, commit=tip)
        _save(folder, p)
    return p


def settle(ws: Workspace, repo: gitops.Repo | None) -> list[Proposal]:
    """Every proposal held here, accepted ones finished (their staging consumed, their branch gone);
    the open and the gone ones are returned as they are."""
    root = hold_root(ws)
    if repo is None or not root.is_dir():
        return []
    out = []
    with guard(ws):
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            p = _recover(ws, repo, folder, _load(folder))
            if p is None:
                continue
            tip = gitops.branch_tip(repo, p.branch)
            where = _merged_in(repo, p, tip)
            if where is not None:
                if tip is not None and (tip == p.commit or git_branches.is_ancestor(repo.top, tip, where)):
                    with contextlib.suppress(gitops.GitError):
                        gitops.delete_branch(repo, p.branch, tip)
                shutil.rmtree(folder, ignore_errors=True)
                p = replace(p, state="accepted", merged_in=where)
                _record(ws, p)
            elif tip is None:
                p = replace(p, state="gone")
            out.append(p)
    return out


def reject(ws: Workspace, repo: gitops.Repo, run_id: str, reason: str) -> Proposal:
    """Delete the proposal's branch; its staging goes, with `reason`, to `rejected-proposals/`."""
    if not reason.strip():
        raise UsageError("say why with --reason: it is recorded with the rejected staging items")
    run_id = run_id.removeprefix(PREFIX)
    open_ = {p.run_id: p for p in settle(ws, repo)}
    if run_id not in open_:
        raise UsageError(f"no open proposal {run_id!r}; `memcli proposals` lists them")
    p = open_[run_id]
    if p.state == "accepted":
        raise UsageError(f"proposal {run_id} is merged into {p.merged_in} already; revert that merge instead")
    with guard(ws):
        tip = gitops.branch_tip(repo, p.branch)
        if tip is not None:
            gitops.delete_branch(repo, p.branch, tip)
        p = replace(p, state="rejected", reason=reason.strip())
        dest = ws.clone_state_dir / REJECTED_DIR / run_id
        if dest.exists():
            raise MemcliError(f"{dest} exists already; move it away and reject again")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(_hold(ws, run_id)), str(dest))
        _save(dest, p)
    _record(ws, p)
    return p


def rejected(ws: Workspace) -> list[Proposal]:
    root = ws.clone_state_dir / REJECTED_DIR
    found = (_load(folder) for folder in sorted(root.iterdir())) if root.is_dir() else ()
    return [p for p in found if p is not None]


def _record(ws: Workspace, p: Proposal) -> None:
    now = history.now()
    history.record(ws, "proposals", {"run_id": p.run_id, "started_at": p.created_at, "finished_at": now,
                                     "result": p.state, "branch": p.branch, "commit": p.commit,
                                     "merged_in": p.merged_in, "reason": p.reason,
                                     "consumed": len(p.staging)})
