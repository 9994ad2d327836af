"""Git plumbing for staging refs: read a published set, build a new one, push it with a lease.

A published set is a commit (no parent: the ref's history is not worth keeping) whose tree holds
`<id>.json` staging files. It is built from blobs with hash-object / mktree / commit-tree, so the
working tree, the index and the current branch are never touched.
"""

from __future__ import annotations

from pathlib import Path

from memcli import git as git_cli
from memcli.errors import MemcliError

PREFIX = "refs/memcli/staging/"


class GitFailed(MemcliError):
    """A git command the shared staging needs failed (the message carries git's own words)."""


def tracking(remote: str) -> str:
    """Where this clone keeps its copy of `remote`'s staging refs."""
    return f"refs/memcli/remotes/{remote}/"


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """commit-tree needs an identity; a CI runner often has none configured, and this commit is
    plumbing nobody reads, so a fixed one stands in rather than fail."""
    try:
        return git_cli.output(root, *args, data=stdin, env=git_cli.environment(identity=True))
    except git_cli.GitFailed as exc:
        raise GitFailed(str(exc)) from None


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
    done = git_cli.run(root, "push", "--porcelain", f"--force-with-lease={ref}:{expect or ''}", remote,
                       f"{new}:{ref}" if new else f":{ref}", env=git_cli.environment(identity=True))
    if done.returncode == 0:
        return True
    report = done.stdout.decode("utf-8", "replace")
    if any(line.startswith("!") for line in report.splitlines()):
        return False  # rejected: stale lease (or the ref changed under us): fetch and try again
    why = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]
    raise GitFailed(f"git push to {remote} failed: {why}")
