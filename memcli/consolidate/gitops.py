"""Git for consolidation: the dirty check, the one commit, and undoing a rejected commit.

Every call is the git CLI (as everywhere in memcli): the commit must run the repository's own
hooks — a pre-commit hook that rejects the commit must be able to stop it, and then the apply
step is rolled back — and a library wrapper would only shell out to the same commands.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memcli.errors import MemcliError
from memcli.workspace import STAGING_DIR, Workspace

RUN_TRAILER = "Memcli-Run"


class GitError(MemcliError):
    """A git operation consolidation needs did not work."""


class _Failed(Exception):
    def __init__(self, status: int, stderr: str) -> None:
        super().__init__(stderr)
        self.status, self.stderr = status, stderr


@dataclass(frozen=True)
class Repo:
    """The repository holding a workspace, with the workspace's path prefix inside it."""

    top: Path  # the working tree's top folder
    prefix: str  # "" when the workspace is the repository root, else "sub/dir/"

    def rel(self, ws_rel: str) -> str:
        return self.prefix + ws_rel


def _git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8",
                              errors="replace", check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (consolidation commits with it)") from None
    if done.returncode != 0:
        raise _Failed(done.returncode, (done.stderr or done.stdout).strip())
    return done.stdout


def open_repo(ws: Workspace) -> Repo | None:
    try:
        top = Path(_git(ws.root, "rev-parse", "--show-toplevel").strip()).resolve()
    except (_Failed, GitError):
        return None
    prefix = ws.root.resolve().relative_to(top).as_posix()
    return Repo(top, "" if prefix == "." else prefix + "/")


def head(repo: Repo) -> str | None:
    try:
        return _git(repo.top, "rev-parse", "--verify", "-q", "HEAD").strip()
    except _Failed:  # an unborn branch: no HEAD yet
        return None


def dirty_paths(repo: Repo) -> list[str]:
    """Uncommitted changes (staged, unstaged, untracked) under memory/ and knowledge/, staging aside."""
    specs = [repo.rel("memory"), repo.rel("knowledge"), f":(exclude){repo.rel(STAGING_DIR)}"]
    out = _git(repo.top, "status", "--porcelain", "-z", "--untracked-files=all", "--", *specs)
    paths = []
    for entry in out.split("\0"):
        if len(entry) > 3 and entry[2] == " ":
            paths.append(entry[3:])
    return paths


def commit_message(repo: Repo, run_id: str) -> str | None:
    """The message of HEAD if it was made by run `run_id` (recovery after a kill), else None."""
    if head(repo) is None:
        return None
    message = _git(repo.top, "log", "-1", "--format=%B")
    return message if f"{RUN_TRAILER}: {run_id}" in message else None


def commit(repo: Repo, paths: list[str], message: str, state_dir: Path) -> str:
    """Stage exactly `paths` and commit only them, hooks included. Returns the new HEAD sha."""
    rels = [repo.rel(p) for p in paths]
    msg_file = state_dir / f"consolidate-commit-msg-{os.getpid()}.txt"
    msg_file.parent.mkdir(parents=True, exist_ok=True)
    msg_file.write_text(message, encoding="utf-8")
    try:
        _git(repo.top, "add", "-A", "--", *rels)
        # `--only` (implied by pathspecs) keeps anything else the user staged out of our commit
        _git(repo.top, "commit", "-q", "-F", str(msg_file), "--", *rels)
    except _Failed as exc:
        unstage(repo, paths)
        detail = exc.stderr.splitlines()
        why = detail[-1].strip() if detail else f"git exited {exc.status}"
        raise GitError(f"git commit failed ({why})") from None
    finally:
        msg_file.unlink(missing_ok=True)
    return _git(repo.top, "rev-parse", "HEAD").strip()


def unstage(repo: Repo, paths: list[str]) -> None:
    """Put the index of `paths` back to HEAD (best effort: used while rolling back)."""
    rels = [repo.rel(p) for p in paths]
    try:
        if head(repo) is None:
            _git(repo.top, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *rels)
        else:
            _git(repo.top, "reset", "-q", "HEAD", "--", *rels)
    except (_Failed, GitError):
        pass  # the files themselves are restored by the caller; a stale index entry is harmless
