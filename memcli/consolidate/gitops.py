"""Git for consolidation: the dirty check, the one commit, and bringing the index up to date.

Every call goes through memcli.git: the commit must run the repository's own hooks — a pre-commit
hook that rejects the commit must be able to stop it, and then the apply step is rolled back. Until
git moves HEAD nothing in `.git` but this run's own temporary files changes (see `commit`).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from memcli import git
from memcli.consolidate.scratch import FileChange
from memcli.errors import MemcliError
from memcli.git.group import Child, run_gated
from memcli.values import frozen
from memcli.workspace import STAGING_DIR, Workspace

RUN_TRAILER = "Memcli-Run"


class GitError(MemcliError):
    """A git operation consolidation needs did not work."""


class _Failed(Exception):
    def __init__(self, status: int, stderr: str) -> None:
        super().__init__(stderr)
        self.status, self.stderr = status, stderr


@frozen
class Repo:
    """The repository holding a workspace, with the workspace's path prefix inside it."""

    top: Path  # the working tree's top folder
    prefix: str  # "" when the workspace is the repository root, else "sub/dir/"
    git_dir: Path  # the folder holding this work tree's index (a linked worktree has its own)

    def rel(self, ws_rel: str) -> str:
        return self.prefix + ws_rel


def _run(cwd: Path, args: tuple[str, ...], index: Path | None = None,
         data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return git.run(cwd, *args, data=data, env=git.environment(index=index))
    except git.GitMissing:
        raise GitError("git is not installed (consolidation commits with it)") from None


def _git(cwd: Path, *args: str) -> str:
    done = _run(cwd, args)
    out, err = (x.decode("utf-8", "replace") for x in (done.stdout, done.stderr))
    if done.returncode != 0:
        raise _Failed(done.returncode, (err or out).strip())
    return out


def open_repo(ws: Workspace) -> Repo | None:
    try:
        found = _git(ws.root, "rev-parse", "--show-toplevel", "--absolute-git-dir").splitlines()
    except (_Failed, GitError):
        return None
    top = Path(found[0]).resolve()
    return Repo(top, git.prefix_in(top, ws.root), Path(found[1]))


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


def _plumbing(repo: Repo, *args: str, index: Path | None = None, data: bytes | None = None) -> str:
    """One git call; with `index`, on that index file instead of the repository's own."""
    done = _run(repo.top, args, index, data)
    if done.returncode:
        raise GitError(f"git {args[0]} failed ({_last_line(done.stderr.decode('utf-8', 'replace'))})")
    return done.stdout.decode("utf-8", "replace")


def _last_line(text: str) -> str:
    return git.last_line(text) or "no message"


def find_commit(repo: Repo, run_id: str, parent: str | None) -> str | None:
    """The commit of run `run_id` if it is on HEAD's history since `parent` (a kill after git
    committed; HEAD may have moved on since)."""
    if head(repo) is None:
        return None
    # without a parent (an unborn branch, or a journal of memcli 0.1) the newest commits suffice
    span = [f"{parent}..HEAD"] if parent else ["-n", "100", "HEAD"]
    log = _plumbing(repo, "log", "--format=%H%x00%B%x01", *span)
    for entry in log.split("\x01"):
        sha, _, body = entry.strip().partition("\0")
        if f"{RUN_TRAILER}: {run_id}" in body.splitlines():
            return sha
    return None


def temp_indexes(repo: Repo, run_id: str) -> tuple[Path, Path]:
    """The two index files of one run: the commit's, and the real index's next version. Beside the
    real index, so the second can become `index.lock` by a hard link."""
    base = repo.git_dir / f"memcli-{run_id}"
    return base.with_name(base.name + ".commit-index"), base.with_name(base.name + ".next-index")


def _copy_index(repo: Repo, dest: Path) -> bytes | None:
    """Copy the real index to `dest` (stat data included, so git need not re-hash the tree)."""
    try:
        data = (repo.git_dir / "index").read_bytes()
    except FileNotFoundError:
        dest.unlink(missing_ok=True)
        return None
    dest.write_bytes(data)
    return data


def _blob_lines(repo: Repo, files: list[FileChange], index: Path) -> str:
    """`update-index --index-info` lines putting exactly the journal's new content in `index`."""
    lines = []
    for change in files:
        rel = repo.rel(change.path)
        if change.new is None:
            lines.append(f"0 {'0' * 40}\t{rel}")
            continue
        sha = _plumbing(repo, "hash-object", "-w", f"--path={rel}", "--stdin", data=change.new).strip()
        staged = _plumbing(repo, "ls-files", "-s", "--", rel, index=index).split()
        mode = staged[0] if staged and staged[0] in ("100644", "100755") else "100644"
        lines.append(f"{mode} {sha}\t{rel}")
    return "".join(line + "\n" for line in lines)


def commit(repo: Repo, files: list[FileChange], message: str, *, run_id: str, msg_dir: Path,
           started: Callable[[Child], None]) -> subprocess.CompletedProcess[str]:
    """Commit exactly the new content of `files` on top of HEAD through `git commit`, hooks included.

    The real index is never touched: the commit is built in a temporary index (HEAD plus these
    files, as `git commit --only` would), so a kill at any moment before git moves HEAD leaves the
    repository as it was. Returns how git ended; whether the commit exists is `find_commit`'s call.
    """
    index, _ = temp_indexes(repo, run_id)
    _copy_index(repo, index)
    if head(repo) is None:
        _plumbing(repo, "read-tree", "--empty", index=index)
    else:
        _plumbing(repo, "reset", "-q", "HEAD", index=index)
    _plumbing(repo, "update-index", "--add", "--remove", "--index-info", index=index,
              data=_blob_lines(repo, files, index).encode("utf-8"))
    msg_file = msg_dir / f"consolidate-commit-msg-{run_id}.txt"
    msg_file.parent.mkdir(parents=True, exist_ok=True)
    msg_file.write_text(message, encoding="utf-8")
    try:
        return run_gated(["commit", "-q", "-F", str(msg_file)], cwd=repo.top,
                         env={**os.environ, "GIT_INDEX_FILE": str(index)}, started=started)
    finally:
        msg_file.unlink(missing_ok=True)


def failure(done: subprocess.CompletedProcess[str]) -> GitError:
    why = _last_line(done.stderr or done.stdout or "") if (done.stderr or done.stdout) else ""
    if done.returncode < 0:
        why = f"git was killed by signal {-done.returncode}"
    return GitError(f"git commit failed ({why or f'git exited {done.returncode}'})")


def _lock_is_ours(lock: Path, mine: Path) -> bool:
    try:
        return os.path.samefile(lock, mine)
    except OSError:
        return False


def sync_index(repo: Repo, paths: list[str], sha: str, run_id: str, timeout: float = 5.0) -> None:
    """Make the real index hold commit `sha`'s version of `paths` (what `git commit --only` does
    after committing), respecting git's lock and never leaving one nobody can tell is ours.

    The next index is prepared beside the real one and hard-linked as `index.lock`: the link fails
    while another git holds the lock, and a link left by a kill is provably ours (same file as the
    prepared one) for `drop_temp` to remove. One rename then swaps it in, as git itself does."""
    rels = [repo.rel(p) for p in paths]
    _, nxt = temp_indexes(repo, run_id)
    real, lock = repo.git_dir / "index", repo.git_dir / "index.lock"
    deadline = time.monotonic() + timeout
    while True:
        seen = _copy_index(repo, nxt)
        _plumbing(repo, "reset", "-q", sha, "--", *rels, index=nxt)
        try:
            os.link(nxt, lock)
        except FileExistsError:
            if time.monotonic() > deadline:
                raise GitError(f"{lock} is held by another git process; once it is gone, run "
                               "`memcli status` to finish") from None
            time.sleep(0.05)  # another git holds the index for a moment
            continue
        try:
            current = real.read_bytes() if real.exists() else None
        except OSError:
            current = b""
        if current != seen:  # changed between our copy and our lock: prepare again
            lock.unlink()
            continue
        os.replace(lock, real)
        nxt.unlink(missing_ok=True)
        return


def drop_temp(repo: Repo, run_id: str) -> None:
    """Remove a run's temporary index files, and an `index.lock` that is provably the run's own."""
    lock = repo.git_dir / "index.lock"
    for path in temp_indexes(repo, run_id):
        if _lock_is_ours(lock, path):
            lock.unlink()
        for leftover in (path, path.with_name(path.name + ".lock")):
            leftover.unlink(missing_ok=True)


def unstage(repo: Repo, paths: list[str]) -> None:
    """Put the real index of `paths` back to HEAD: only for journals of memcli 0.1, whose apply
    staged into it. Raises when git cannot (its lock is held): the caller must not claim success."""
    rels = [repo.rel(p) for p in paths]
    if head(repo) is None:
        _plumbing(repo, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *rels)
    else:
        _plumbing(repo, "reset", "-q", "HEAD", "--", *rels)


# -- proposals (memcli.consolidate.proposals): a commit on a branch of its own, nothing checked out --

ZERO = "0" * 40


def build_commit(repo: Repo, files: list[FileChange], message: str, *, run_id: str, parent: str) -> str:
    """A commit of `parent`'s tree with exactly the new content of `files`, made with plumbing
    (hash-object, update-index on a temporary index, write-tree, commit-tree): the working tree,
    the real index and every branch stay as they are, and no commit hook runs (nothing is checked
    out for one to look at; the pull request's checks review it)."""
    index, _ = temp_indexes(repo, run_id)
    try:
        _plumbing(repo, "read-tree", parent, index=index)
        _plumbing(repo, "update-index", "--add", "--remove", "--index-info", index=index,
                  data=_blob_lines(repo, files, index).encode("utf-8"))
        tree = _plumbing(repo, "write-tree", index=index).strip()
        return _plumbing(repo, "commit-tree", tree, "-p", parent, "-F", "-",
                         data=message.encode("utf-8")).strip()
    finally:
        index.unlink(missing_ok=True)


def branch_tip(repo: Repo, name: str) -> str | None:
    try:
        return _git(repo.top, "rev-parse", "--verify", "-q", f"refs/heads/{name}^{{commit}}").strip() or None
    except _Failed:
        return None


def create_branch(repo: Repo, name: str, sha: str) -> None:
    """Branch `name` at `sha`; fails (GitError) when the branch exists already."""
    _plumbing(repo, "update-ref", "-m", "memcli consolidate --propose", f"refs/heads/{name}", sha, ZERO)


def delete_branch(repo: Repo, name: str, expect: str) -> None:
    """Delete branch `name` if it still points at `expect` (never a branch someone moved since)."""
    _plumbing(repo, "update-ref", "-d", f"refs/heads/{name}", expect)


def carries_run(repo: Repo, run_id: str, rev: str) -> str | None:
    """A commit in `rev`'s history whose message has the run's trailer: a proposal merged by a
    rebase or a squash (which keep the message) has no commit in common with it."""
    try:
        log = _git(repo.top, "log", "-F", f"--grep={RUN_TRAILER}: {run_id}", "--format=%H%x00%B%x01", rev)
    except _Failed:
        return None
    for entry in log.split("\x01"):
        sha, _, body = entry.strip().partition("\0")
        if f"{RUN_TRAILER}: {run_id}" in (line.strip() for line in body.splitlines()):
            return sha
    return None
