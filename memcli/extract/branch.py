"""Which git branch a staging file's items come from (staging's `branch`), at extraction.

The branch the agent recorded wins: per entry (Claude Code's `gitBranch`, so a session that moved
to a new branch stages its later items there), else for the session (Codex's `session_meta.git`,
Copilot CLI's `session.start` context: the branch it started on). An agent that records none
(Gemini CLI, OpenCode, Pi, Aider) gets the branch checked out now in the folder the session ran in,
which is right when extraction follows the session (the capture hooks) and may not be for a session
extracted long after on another branch. The commit is the branch's tip now (else what the agent
recorded), and `forked_at` where the branch was created (its reflog): consolidation judges with
them whether the branch's work has reached another one (memcli.consolidate.branches).

Outside git, for a session that ran in another repository (its folder belongs to another clone,
or is gone and this clone has no branch of the name it recorded), or on a detached HEAD with
nothing recorded, there is no branch: the items belong to any branch, as those of files written
before memcli recorded it.
"""

from __future__ import annotations

from pathlib import Path

from memcli.git import branches
from memcli.staging import Branch
from memcli.transcript.model import SessionInfo


class BranchResolver:
    """Resolves and remembers (per folder and branch) for one extract run: git runs a few times
    per session, not per chunk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._common = branches.common_dir(root)
        self._places: dict[str | None, tuple[Path | None, bool]] = {}
        self._current: dict[Path, str | None] = {}
        self._facts: dict[tuple[Path, str], tuple[str | None, str | None]] = {}

    def _place(self, cwd: str | None) -> tuple[Path | None, bool]:
        """The worktree the session ran in (None: not in this clone), and whether that is known
        (its folder still exists) rather than assumed to be the workspace's."""
        if cwd not in self._places:
            if self._common is None:
                found: tuple[Path | None, bool] = (None, False)
            elif cwd and Path(cwd).is_dir():
                ours = branches.common_dir(Path(cwd)) == self._common
                found = (branches.worktree_top(Path(cwd)) if ours else None, True)
            else:
                found = (branches.worktree_top(self.root), False)
            self._places[cwd] = found
        return self._places[cwd]

    def _branch_facts(self, top: Path, name: str) -> tuple[str | None, str | None]:
        if (top, name) not in self._facts:
            self._facts[(top, name)] = (branches.tip(top, name), branches.forked_at(top, name))
        return self._facts[(top, name)]

    def resolve(self, info: SessionInfo, recorded: str | None) -> Branch | None:
        """The branch of items from `info` whose entries record `recorded` (None: they record none)."""
        top, known = self._place(info.cwd)
        if top is None:
            return None  # outside git, or in another repository: its branches are not this one's
        name = recorded or info.branch
        if name is not None and not known and self._branch_facts(top, name)[0] is None:
            # The session's folder is gone and this clone has no such branch: a session of another
            # clone, or of a branch deleted since. Its items belong to any branch rather than wait.
            return None
        if name is None:
            if top not in self._current:
                self._current[top] = branches.current(top)
            name = self._current[top]
        if name is None:
            return None  # a detached HEAD: any branch
        commit, forked = self._branch_facts(top, name)
        return Branch(name=name, commit=commit or info.commit, forked_at=forked, worktree=str(top))
