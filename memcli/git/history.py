"""What git's history says of paths: where each was renamed to, when it was deleted, whether git
ever tracked it. Read from one `git log -M --name-status` walk of HEAD; code anchors (memcli.anchors)
and gc-report's code drift (memcli.gc.drift) judge missing paths with it."""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

from memcli import git
from memcli.values import frozen

CHAIN = 50  # bound on following a chain of renames


@frozen
class History:
    renamed_to: dict[str, tuple[str, str, str]]  # old path → (new path, commit, date)
    deleted: dict[str, tuple[str, str]]  # path → (commit, date) of its last deletion
    ever: frozenset[str]

    def renames_of(self, path: str) -> list[tuple[str, str, str]]:
        """The renames that followed `path`, in order: (new path, commit, date) each, at most CHAIN."""
        steps: list[tuple[str, str, str]] = []
        current = path
        while path in self.ever and len(steps) < CHAIN and current in self.renamed_to:
            steps.append(self.renamed_to[current])
            current = steps[-1][0]
        return steps


def rename_history(top: Path) -> History:
    """The history of HEAD in the repository at `top` (an empty one before the first commit, or
    without git)."""
    try:
        raw = git.output(top, "log", "-M", "--name-status", "-z", "--format=%x01%H%x00%cI", "HEAD")
    except git.GitFailed:
        return History({}, {}, frozenset())  # no commit yet
    renamed: dict[str, tuple[str, str, str]] = {}
    deleted: dict[str, tuple[str, str]] = {}
    ever: set[str] = set()
    for chunk in reversed(raw.decode("utf-8", "surrogateescape").split("\x01")[1:]):  # oldest first
        fields = chunk.split("\x00")
        sha, date, rest = fields[0], fields[1], [f.strip("\n") for f in fields[2:]]
        i = 0
        while i < len(rest):
            status = rest[i]
            if not status:
                i += 1
                continue
            if status[0] in "RC":
                old, new = rest[i + 1], rest[i + 2]
                ever.update((old, new))
                if status[0] == "R":
                    renamed[old] = (new, sha, date)
                renamed.pop(new, None)
                deleted.pop(new, None)
                i += 3
                continue
            path = rest[i + 1]
            ever.add(path)
            if status[0] == "D":
                deleted[path] = (sha, date)
            elif status[0] == "A":
                renamed.pop(path, None)
                deleted.pop(path, None)
            i += 2
    return History(renamed, deleted, frozenset(ever))


def path_verdict(path: str, tracked: Container[str], history: History) -> dict[str, str] | None:
    """A path git tracked once: renamed (to the first name on its chain still `tracked`) or deleted,
    with the commit; None for a path git never tracked."""
    if path not in history.ever:
        return None
    current, via = path, None
    for _ in range(CHAIN):
        step = history.renamed_to.get(current)
        if step is None:
            break
        current, via = step[0], step
        if current in tracked:
            return {"status": "renamed", "new_path": current, "commit": via[1], "date": via[2]}
    gone = history.deleted.get(current)
    evidence = {"status": "deleted"}
    if gone:
        evidence |= {"commit": gone[0], "date": gone[1]}
    if current != path:
        evidence["last_path"] = current
    return evidence
