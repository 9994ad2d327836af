"""Every git call memcli makes: the git CLI in a folder, its output, its failures.

No other module spawns git. Every call is the git CLI, not a library: consolidation's commit must
run the repository's own hooks, and the rest is plumbing a wrapper would only shell out for. This
module imports nothing heavy, since the commit path and session start (code anchors) use it.

    run / output / text   one command: its whole result / its output or GitFailed / its text or None
    top / top_and_head    the repository root above a folder (and its HEAD commit)
    merge_file            git's own three-way line merge of three texts
    memcli.git.history    what the history says of paths (renames, deletions)
    memcli.git.group      a child started in its own process group, ended as a whole
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.errors import MemcliError

if TYPE_CHECKING:
    import subprocess

MARKER = 7  # git's conflict marker size, as `merge-file` writes it by default

# commit-tree and a plumbing commit need an identity; a CI runner often has none configured
PLUMBING_IDENTITY = {"GIT_AUTHOR_NAME": "memcli", "GIT_AUTHOR_EMAIL": "memcli@localhost",
                     "GIT_COMMITTER_NAME": "memcli", "GIT_COMMITTER_EMAIL": "memcli@localhost"}


class GitFailed(MemcliError):
    """A git command did not work; `reason` is git's own last line (or why git could not run)."""

    def __init__(self, command: str, reason: str, status: int | None = None) -> None:
        super().__init__(f"git {command} failed: {reason}")
        self.command, self.reason, self.status = command, reason, status


class GitMissing(GitFailed):
    """git is not installed on this machine."""

    def __init__(self, command: str) -> None:
        super().__init__(command, "git is not installed")


def environment(*, index: Path | None = None, identity: bool = False,
                extra: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The environment of a call: this process's, with another index file, the plumbing identity
    where the user set none, or `extra`; None when nothing changes."""
    if index is None and not identity and not extra:
        return None
    env = dict(os.environ)
    if identity:
        for key, value in PLUMBING_IDENTITY.items():
            env.setdefault(key, value)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    env.update(extra or {})
    return env


def run(cwd: Path, *args: str, data: bytes | None = None,
        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in `cwd`, whatever its exit status; GitMissing when there is no git."""
    import subprocess  # here: a session start imports this module for its anchors, and runs no git

    try:
        return subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, check=False,
                              env=dict(env) if env is not None else None)
    except FileNotFoundError:
        raise GitMissing(args[0] if args else "") from None


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def output(cwd: Path, *args: str, data: bytes | None = None, env: Mapping[str, str] | None = None) -> bytes:
    """What `git ARGS` printed; GitFailed (with git's last line) when it exits non-zero."""
    done = run(cwd, *args, data=data, env=env)
    if done.returncode != 0:
        why = last_line(done.stderr.decode("utf-8", "replace")) or f"exit {done.returncode}"
        raise GitFailed(args[0] if args else "", why, done.returncode)
    return done.stdout


def text(cwd: Path, *args: str, data: bytes | None = None) -> str | None:
    """`output` as text, or None where git cannot answer (no repository, no commit, no git)."""
    try:
        return output(cwd, *args, data=data).decode("utf-8", "surrogateescape")
    except GitFailed:
        return None


def top(cwd: Path) -> Path | None:
    """The top folder of the repository holding `cwd`, or None outside one (or without git)."""
    found = text(cwd, "rev-parse", "--show-toplevel")
    return Path(found.strip()) if found else None


def top_and_head(cwd: Path) -> tuple[Path | None, str | None]:
    """The repository's top folder and HEAD commit in one call (None, None outside a repository;
    no HEAD before the first commit)."""
    try:
        done = run(cwd, "rev-parse", "--show-toplevel", "--verify", "-q", "HEAD")
    except GitMissing:
        return None, None
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    found = Path(lines[0]) if lines else None
    return found, (lines[1] if found is not None and len(lines) > 1 and done.returncode == 0 else None)


def prefix_in(top_dir: Path, folder: Path) -> str:
    """`folder`'s path inside the repository at `top_dir`, as a prefix: "" at its root, else "a/b/"."""
    rel = folder.resolve().relative_to(top_dir.resolve()).as_posix()
    return "" if rel == "." else rel + "/"


def merge_file(ours: bytes, base: bytes, theirs: bytes) -> subprocess.CompletedProcess[bytes]:
    """git's three-way line merge (`git merge-file -p`, labels ours/base/theirs): the merged bytes on
    stdout, and the number of conflict hunks (or a failure, above 127) as the exit status."""
    import tempfile  # here: only a merge needs it; search's anchor checks load this module too


    with tempfile.TemporaryDirectory(prefix="memcli-merge-") as tmp:
        names = []
        for name, content in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(tmp, name)
            Path(path).write_bytes(content)
            names.append(path)
        return run(Path(tmp), "merge-file", "-p", f"--marker-size={MARKER}", "-L", "ours", "-L", "base",
                   "-L", "theirs", *names)
