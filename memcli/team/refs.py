"""Git plumbing for staging refs: read a published set, build a new one, push it with a lease.

A published set is a commit (no parent: the ref's history is not worth keeping) whose tree holds
`<id>.json` staging files. It is built from blobs with hash-object / mktree / commit-tree, so the
working tree, the index and the current branch are never touched.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from memcli.errors import MemcliError

PREFIX = "refs/memcli/staging/"


class GitFailed(MemcliError):
    """A git command the shared staging needs failed (the message carries git's own words)."""


def tracking(remote: str) -> str:
    """Where this clone keeps its copy of `remote`'s staging refs."""
    return f"refs/memcli/remotes/{remote}/"


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    done = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, check=False,
                          env=_env())
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitFailed(f"git {args[0]} failed: {why[-1] if why else f'exit {done.returncode}'}")
    return done.stdout


def _env() -> dict[str, str]:
    """commit-tree needs an identity; a CI runner often has none configured, and this commit is
    plumbing nobody reads, so fall back to a fixed one rather than fail."""
    env = dict(os.environ)
    for key, value in (("GIT_AUTHOR_NAME", "memcli"), ("GIT_AUTHOR_EMAIL", "memcli@localhost"),
                       ("GIT_COMMITTER_NAME", "memcli"), ("GIT_COMMITTER_EMAIL", "memcli@localhost")):
        env.setdefault(key, value)
    return env


def fetch(root: Path, remote: str) -> dict[str, str]:
    """Bring `remote`'s staging refs here (pruning deleted ones); their oids by publisher name."""
    local = tracking(remote)
    git(root, "fetch", "-q", "--no-tags", "--prune", remote, f"+{PREFIX}*:{local}*")
    out = git(root, "for-each-ref", "--format=%(objectname) %(refname)", local).decode()
    refs = {}
    for line in out.splitlines():
        oid, ref = line.split(" ", 1)
        refs[ref[len(local):]] = oid
    return refs


def entries(root: Path, oid: str | None) -> dict[str, str]:
    """Staging id → blob oid of a published set (an empty dict for no set)."""
    if oid is None:
        return {}
    out = git(root, "ls-tree", "-z", oid).decode()
    found = {}
    for entry in filter(None, out.split("\0")):
        meta, name = entry.split("\t", 1)
        if meta.split()[1] == "blob" and name.endswith(".json"):
            found[name[: -len(".json")]] = meta.split()[2]
    return found


def read_blobs(root: Path, oids: list[str]) -> list[bytes]:
    if not oids:
        return []
    out = git(root, "cat-file", "--batch", stdin="".join(f"{o}\n" for o in oids).encode())
    blobs, pos = [], 0
    for _ in oids:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        blobs.append(out[header_end + 1 : header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return blobs


def write_blobs(root: Path, files: list[Path]) -> list[str]:
    if not files:
        return []
    out = git(root, "hash-object", "-w", "--no-filters", "--stdin-paths",
              stdin="".join(f"{p}\n" for p in files).encode())
    return out.decode().split()


def build(root: Path, items: dict[str, str], message: str) -> str:
    """A commit whose tree holds `items` (staging id → blob oid) as `<id>.json`."""
    listing = "".join(f"100644 blob {oid}\t{sid}.json\0" for sid, oid in sorted(items.items()))
    tree = git(root, "mktree", "-z", stdin=listing.encode()).decode().strip()
    return git(root, "commit-tree", tree, "-m", message).decode().strip()


def push(root: Path, remote: str, name: str, new: str | None, expect: str | None) -> bool:
    """Set (or, with `new` None, delete) `remote`'s ref of publisher `name`, only if it still is
    `expect` (None: it must not exist). False when the lease failed: someone moved it first."""
    ref = PREFIX + name
    done = subprocess.run(
        ["git", "-C", str(root), "push", "--porcelain", f"--force-with-lease={ref}:{expect or ''}", remote,
         f"{new}:{ref}" if new else f":{ref}"], capture_output=True, check=False, env=_env())
    if done.returncode == 0:
        return True
    report = done.stdout.decode("utf-8", "replace")
    if any(line.startswith("!") for line in report.splitlines()):
        return False  # rejected: stale lease (or the ref changed under us): fetch and try again
    why = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]
    raise GitFailed(f"git push to {remote} failed: {why}")
