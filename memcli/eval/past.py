"""The memory as it was: record files at a past commit, read with git plumbing (no checkout).

`git log` lists the commits that touched `memory/` or `knowledge/` (with their commit times);
the memory at a moment is the tree of the newest of them committed before it (`git ls-tree`), and
its files are read in one `git cat-file --batch` per set of blobs not read yet. Nothing in the
working tree or the index is touched. Not a git repository, or no git: `available` is False and
`note` says why, so the report can say "unknown" instead of guessing.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from pathlib import Path

from memcli import git
from memcli.workspace import STAGING_DIR

TOPS = ("memory", "knowledge")


def _git(cwd: Path, *args: str, data: bytes | None = None) -> bytes | None:
    try:
        return git.output(cwd, *args, data=data)
    except git.GitFailed:  # not a repository, no commit, or no git on this machine
        return None


class MemoryHistory:
    """The record files of the workspace at `root` as of any past moment."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.note: str | None = None
        self.commits: list[tuple[float, str]] = []  # (commit time, sha), oldest first
        self._trees: dict[str, dict[str, str]] = {}
        self._blobs: dict[str, bytes] = {}
        self.top: Path | None = git.top(root)
        if self.top is None:
            self.note = "not a git repository: what the memory held before each session is unknown"
            return
        self.prefix = git.prefix_in(self.top, root)
        log = _git(self.top, "log", "--format=%ct %H", "HEAD", "--", *(self.prefix + t for t in TOPS))
        for line in (log or b"").decode().splitlines():
            stamp, _, sha = line.partition(" ")
            self.commits.append((float(stamp), sha))
        self.commits.sort()
        self._times = [t for t, _ in self.commits]

    @property
    def available(self) -> bool:
        return self.top is not None

    def commit_before(self, when: dt.datetime) -> str | None:
        """The newest commit touching the records made at or before `when`; None: nothing yet."""
        at = bisect_right(self._times, when.timestamp())
        return self.commits[at - 1][1] if at else None

    def files(self, sha: str) -> dict[str, str]:
        """Workspace-relative path → blob id of every file under memory/ and knowledge/ (staging left out)."""
        if sha not in self._trees:
            raw = _git(self.top or self.root, "ls-tree", "-r", "-z", sha, "--",
                       *(self.prefix + t for t in TOPS)) or b""
            tree: dict[str, str] = {}
            for item in raw.split(b"\0"):
                head, _, name = item.partition(b"\t")
                fields = head.split()
                if len(fields) != 3 or fields[1] != b"blob":
                    continue
                rel = name.decode("utf-8", "surrogateescape").removeprefix(self.prefix)
                if not rel.startswith(STAGING_DIR + "/"):
                    tree[rel] = fields[2].decode()
            self._trees[sha] = tree
        return self._trees[sha]

    def read(self, blobs: list[str]) -> dict[str, bytes]:
        """The bytes of each blob (read once, then remembered)."""
        todo = [b for b in dict.fromkeys(blobs) if b not in self._blobs]
        if todo:
            asked = "".join(f"{b}\n" for b in todo).encode()
            out = _git(self.top or self.root, "cat-file", "--batch", data=asked)
            self._blobs.update(_parse_batch(out or b""))
        return {b: self._blobs.get(b, b"") for b in blobs}


def _parse_batch(out: bytes) -> dict[str, bytes]:
    """`git cat-file --batch` output: `<sha> <type> <size>\\n<content>\\n` per object."""
    found: dict[str, bytes] = {}
    at = 0
    while at < len(out):
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3:  # `<sha> missing`
            continue
        size = int(header[2])
        found[header[0].decode()] = out[at : at + size]
        at += size + 1
    return found
