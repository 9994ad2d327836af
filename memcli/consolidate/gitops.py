"""Git for consolidation: the dirty check, the one commit, and undoing a rejected commit.

GitPython (imported lazily) finds the repository and reads state; the commit itself goes through
the git CLI (`repo.git.commit`) so the repository's own hooks run — a pre-commit hook that rejects
the commit must be able to stop it, and then the apply step is rolled back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memcli.errors import MemcliError
from memcli.workspace import STAGING_DIR, Workspace

RUN_TRAILER = "Memcli-Run"


class GitError(MemcliError):
    """A git operation consolidation needs did not work."""


@dataclass(frozen=True)
class Repo:
    """The repository holding a workspace, with the workspace's path prefix inside it."""

    handle: object  # git.Repo; typed loosely so this module imports without GitPython
    prefix: str  # "" when the workspace is the repository root, else "sub/dir/"

    @property
    def git(self):
        return self.handle.git  # type: ignore[attr-defined]

    def rel(self, ws_rel: str) -> str:
        return self.prefix + ws_rel


def open_repo(ws: Workspace) -> Repo | None:
    import git

    try:
        handle = git.Repo(ws.root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    top = Path(handle.working_tree_dir or ws.root).resolve()
    prefix = ws.root.resolve().relative_to(top).as_posix()
    return Repo(handle, "" if prefix == "." else prefix + "/")


def head(repo: Repo) -> str | None:
    import git

    try:
        return repo.git.rev_parse("--verify", "-q", "HEAD")
    except git.GitCommandError:  # an unborn branch: no HEAD yet
        return None


def dirty_paths(repo: Repo) -> list[str]:
    """Uncommitted changes (staged, unstaged, untracked) under memory/ and knowledge/, staging aside."""
    specs = [repo.rel("memory"), repo.rel("knowledge"), f":(exclude){repo.rel(STAGING_DIR)}"]
    out = repo.git.status("--porcelain", "-z", "--untracked-files=all", "--", *specs)
    paths = []
    for entry in out.split("\0"):
        if len(entry) > 3 and entry[2] == " ":
            paths.append(entry[3:])
    return paths


def commit_message(repo: Repo, run_id: str) -> str | None:
    """The message of HEAD if it was made by run `run_id` (recovery after a kill), else None."""
    if head(repo) is None:
        return None
    message = repo.git.log("-1", "--format=%B")
    return message if f"{RUN_TRAILER}: {run_id}" in message else None


def commit(repo: Repo, paths: list[str], message: str, state_dir: Path) -> str:
    """Stage exactly `paths` and commit only them, hooks included. Returns the new HEAD sha."""
    import git

    rels = [repo.rel(p) for p in paths]
    msg_file = state_dir / f"consolidate-commit-msg-{os.getpid()}.txt"
    msg_file.parent.mkdir(parents=True, exist_ok=True)
    msg_file.write_text(message, encoding="utf-8")
    try:
        repo.git.add("-A", "--", *rels)
        # `--only` (implied by pathspecs) keeps anything else the user staged out of our commit
        repo.git.commit("-q", "-F", str(msg_file), "--", *rels)
    except git.GitCommandError as exc:
        unstage(repo, paths)
        detail = (exc.stderr or exc.stdout or "").strip().splitlines()
        why = detail[-1] if detail else f"git exited {exc.status}"
        raise GitError(f"git commit failed ({why.removeprefix('stderr: ').strip()!s})") from None
    finally:
        msg_file.unlink(missing_ok=True)
    return repo.git.rev_parse("HEAD")


def unstage(repo: Repo, paths: list[str]) -> None:
    """Put the index of `paths` back to HEAD (best effort: used while rolling back)."""
    import git

    rels = [repo.rel(p) for p in paths]
    try:
        if head(repo) is None:
            repo.git.rm("-r", "-q", "--cached", "--ignore-unmatch", "--", *rels)
        else:
            repo.git.reset("-q", "HEAD", "--", *rels)
    except git.GitCommandError:
        pass  # the files themselves are restored by the caller; a stale index entry is harmless
