"""What git says of branches: the one checked out, a branch's tip and where it was created, and
whether one commit's work is in another (ancestry, or the same patches after a rebase or squash).

Every answer is None or False where git cannot tell (no repository, an unknown commit, no reflog):
the caller decides what an unknown means, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

from memcli import git

DETACHED = "HEAD"  # what agents record (Claude Code's gitBranch) for a detached HEAD


def _text(cwd: Path, *args: str) -> str | None:
    try:
        return git.output(cwd, *args).decode("utf-8", "surrogateescape").strip()
    except (git.GitFailed, OSError):  # OSError: the folder is gone (a removed worktree)
        return None


def current(cwd: Path) -> str | None:
    """The branch checked out in the working tree at `cwd` (None: detached HEAD, or no repository)."""
    return _text(cwd, "symbolic-ref", "--short", "-q", "HEAD") or None


def worktree_top(cwd: Path) -> Path | None:
    """The top folder of the working tree holding `cwd` (a linked worktree's own top)."""
    found = _text(cwd, "rev-parse", "--show-toplevel")
    return Path(found) if found else None


def common_dir(cwd: Path) -> Path | None:
    """The git folder every worktree of the clone holding `cwd` shares (tells one clone from another)."""
    found = _text(cwd, "rev-parse", "--path-format=absolute", "--git-common-dir")
    return Path(found).resolve() if found else None


def head(cwd: Path) -> str | None:
    return _text(cwd, "rev-parse", "--verify", "-q", "HEAD^{commit}") or None


def tip(root: Path, name: str) -> str | None:
    """The commit branch `name` points at: the local branch, else a remote-tracking one of that
    name (a teammate's branch known here only as `origin/<name>`); None when no ref has it."""
    local = _text(root, "rev-parse", "--verify", "-q", f"refs/heads/{name}^{{commit}}")
    if local:
        return local
    found = _text(root, "for-each-ref", "--format=%(objectname)", f"refs/remotes/*/{name}")
    return found.splitlines()[0] if found else None


def tips(root: Path) -> dict[str, str]:
    """Every branch's tip in one call: local branches by name, and remote-tracking ones by the name
    they have on their remote where no local branch has it (as `tip` finds them)."""
    found = _text(root, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", "refs/remotes")
    local: dict[str, str] = {}
    remote: dict[str, str] = {}
    for line in (found or "").splitlines():
        sha, _, ref = line.partition(" ")
        if ref.startswith("refs/heads/"):
            local[ref.removeprefix("refs/heads/")] = sha
        elif ref.count("/") >= 3 and not ref.endswith("/HEAD"):
            remote.setdefault(ref.split("/", 3)[3], sha)
    return {**remote, **local}


def forked_at(root: Path, name: str) -> str | None:
    """Where local branch `name` was created: the oldest entry of its reflog (None without one,
    e.g. once the reflog expired, or in a clone that never had the branch locally)."""
    found = _text(root, "reflog", "show", "--format=%H", f"refs/heads/{name}", "--")
    return found.splitlines()[-1] if found else None


def trunk(root: Path) -> str | None:
    """The branch `origin/HEAD` names (the remote's default branch), when this clone knows it."""
    found = _text(root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
    return found.split("/", 1)[1] if found and "/" in found else None


def is_ancestor(root: Path, commit: str, of: str) -> bool:
    """True when `commit` is `of` or one of its ancestors (False also for an unknown commit)."""
    try:
        return git.run(root, "merge-base", "--is-ancestor", commit, of).returncode == 0
    except git.GitMissing:
        return False


PATCH_SCAN = 1_000  # commits of `into` since the fork whose patches are compared, at most


def patches_in(root: Path, commit: str, into: str) -> bool:
    """Is the work of `commit` in `into` although `commit` is not an ancestor: every commit of it
    that `into` lacks has its patch in `into` (a rebase onto it, "rebase and merge"), or all of
    them together are one commit there (a squash merge of exactly that state). Not looked for when
    `into` has more than PATCH_SCAN commits since the fork (each of them would be diffed)."""
    base = _text(root, "merge-base", into, commit)
    ahead = _text(root, "rev-list", "--count", f"{base}..{into}") if base else None
    if not base or not ahead or int(ahead) > PATCH_SCAN:
        return False
    cherry = _text(root, "cherry", into, commit)
    marks = [line[:1] for line in (cherry or "").splitlines() if line.strip()]
    if not marks:
        return False
    if all(m == "-" for m in marks):
        return True
    whole = _patch_ids(root, git.run(root, "diff", base, commit).stdout)
    if not whole:
        return False
    ours = _patch_ids(root, git.run(root, "log", "-p", "--no-merges", "--format=commit %H",
                                    f"{base}..{into}").stdout)
    return bool(whole & ours)


def _patch_ids(root: Path, patch: bytes) -> set[str]:
    if not patch.strip():
        return set()
    done = git.run(root, "patch-id", "--stable", data=patch)
    return {line.split()[0] for line in done.stdout.decode("ascii", "replace").splitlines() if line.strip()}
