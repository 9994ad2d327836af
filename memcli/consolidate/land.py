"""The one step that makes a run's change set real, whichever route produced it (the model
conversation here, or a coding agent): journaled into the workspace and committed on the
checked-out branch (memcli.consolidate.journal), or, with `propose`, committed on a branch of its
own for review while the workspace stays as it is (memcli.consolidate.proposals). Either way the
consumed staging files are used up exactly once: removed after the commit, or held by the proposal."""

from __future__ import annotations

from memcli.consolidate import gitops, journal, proposals
from memcli.consolidate.journal import Applied
from memcli.consolidate.scratch import FileChange
from memcli.errors import UsageError
from memcli.workspace import Workspace


def land(ws: Workspace, changes: list[FileChange], *, run_id: str, consumed: list[str],
         repo: gitops.Repo | None, message: str, propose: bool = False) -> Applied:
    if not propose:
        return journal.apply(ws, changes, run_id=run_id, consumed=consumed, repo=repo, message=message)
    if repo is None:
        raise UsageError("--propose commits on a branch: it needs a git repository (and no --no-commit)")
    made = proposals.create(ws, repo, changes, run_id=run_id, consumed=consumed, message=message)
    return Applied(made.commit, branch=made.branch)
