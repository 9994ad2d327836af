"""Who last wrote given lines of a file, memcli or a person: what the trust gate asks before it holds
text aimed at agents against a record (memcli.provenance.agent_directives; docs/trust.md).

A line was written by memcli when the commit that last set it (`git blame`) is a consolidation
commit (its `Memcli-Run` trailer) that does not vouch for the file: consolidation names, one
`Memcli-User-Words: <path>` trailer each, the files whose text it let through because their
Sources are the user's own words. Any other commit is a person's (they committed it), and so is a
line not committed yet (a person's edit in progress: the commit path lints what they commit;
memcli's own writes went through the write tools' gate first). Asked only for lines the gate
flagged, so a clean workspace runs no git at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memcli import git

RUN_TRAILER = "Memcli-Run"
VOUCHED_TRAILER = "Memcli-User-Words"
_UNCOMMITTED = "0" * 40


def _blame(root: Path, rel: str, lines: list[int]) -> dict[int, str] | None:
    args = ["blame", "--porcelain"]
    for n in lines:
        args += ["-L", f"{n},{n}"]
    out = git.text(root, *args, "--", rel)
    if out is None:
        return None
    found: dict[int, str] = {}
    for row in out.splitlines():
        parts = row.split(" ")
        if len(parts) >= 3 and len(parts[0]) == 40 and all(c in "0123456789abcdef" for c in parts[0]):
            found[int(parts[2])] = parts[0]
    return found


def _messages(root: Path, shas: Iterable[str]) -> dict[str, str]:
    wanted = sorted(set(shas) - {_UNCOMMITTED})
    if not wanted:
        return {}
    out = git.text(root, "log", "--no-walk=unsorted", "--format=%H%x00%B%x1e", *wanted) or ""
    found = {}
    for chunk in out.split("\x1e"):
        sha, _, body = chunk.strip("\n").partition("\x00")
        if sha:
            found[sha] = body
    return found


def vouches(message: str, rel: str) -> bool:
    return any(line.strip() == f"{VOUCHED_TRAILER}: {rel}" for line in message.splitlines())


def memcli_written(root: Path, rel: str, lines: Iterable[int]) -> set[int]:
    """The lines among `lines` (1-based) of the workspace file `rel` that memcli wrote and did not
    vouch for; none when git cannot tell (no repository: nothing of memcli's was committed)."""
    wanted = sorted({n for n in lines if n > 0})
    if not wanted:
        return set()
    blamed = _blame(root, rel, wanted)
    if not blamed:
        return set()
    messages = _messages(root, blamed.values())
    out = set()
    for n, sha in blamed.items():
        body = messages.get(sha, "")
        if any(line.startswith(f"{RUN_TRAILER}:") for line in body.splitlines()) and not vouches(body, rel):
            out.add(n)
    return out
