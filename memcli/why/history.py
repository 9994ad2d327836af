"""A record's history: every commit that touched it (renames followed), and for consolidation
commits the operation, categories and reasons they carry, the staging items the record came from
and the tool calls the run refused."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memcli import git
from memcli import history as runs
from memcli.records.models import Source
from memcli.staging import staging_prefix
from memcli.workspace import Workspace

RUN_TRAILER = "Memcli-Run"  # the trailer consolidation writes (memcli.consolidate.gitops)
REFUSED_TRAILER = "Memcli-Refused-Calls"  # and its count of refused tool calls (consolidate.message)
_FILE_LINE = re.compile(r"^- (added|updated|replaced|dropped) (\S+?)(?: \[([^\]]*)\])? (\S+) → (\S+) chars$")
_STAGING_ID = re.compile(r"\b([\w-]+)-(\d+)-(\d+)-([0-9a-f]{10})\b")
_REFUSED_LINE = re.compile(r"^- (\S+) (\S+): (\S.*)$")  # `- memory_write memory/decisions/x.md: code`


@dataclass
class Change:
    commit: str
    date: str
    author: str
    by: str  # "consolidate" (with run id) or "human"
    subject: str
    path: str  # the record's path in that commit (renames are followed)
    run_id: str | None = None
    outcome: str | None = None
    categories: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    size: str | None = None
    staging: list[str] = field(default_factory=list)
    refused: int = 0  # tool calls the run refused (a poisoning attempt stopped, a path outside memory)
    refusals: list[dict[str, Any]] = field(default_factory=list)  # tool, code, path (and line, when local)


def history(ws: Workspace, rel: str) -> tuple[list[Change], str | None]:
    """Every commit that touched the record, newest first (renames followed); a note when git has none."""
    top = git.top(ws.root)
    if top is None:
        return [], "not a git repository: no history"
    prefix = git.prefix_in(top, ws.root)
    raw = git.text(top, "log", "--follow", "--name-only", "-z",
                   "--format=%x01%H%x00%aI%x00%an%x00%B%x00", "--", prefix + rel)
    if raw is None:
        return [], "no commit yet"
    out = []
    for chunk in raw.split("\x01")[1:]:
        parts = chunk.split("\x00")
        sha, date, author, body = parts[0], parts[1], parts[2], parts[3]
        names = [p.strip("\n") for p in parts[4:] if p.strip("\n")]
        path = (names[0] if names else prefix + rel).removeprefix(prefix)
        out.append(_change(sha, date, author, body, path))
    if not out:
        return [], "not committed yet"
    return out, None


def _change(sha: str, date: str, author: str, body: str, path: str) -> Change:
    lines = body.strip("\n").splitlines()
    subject = lines[0] if lines else ""
    run = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith(f"{RUN_TRAILER}:")), None)
    change = Change(sha, date, author, "consolidate" if run else "human", subject, path, run_id=run)
    if run is None:
        return change
    mine = listing = False
    for line in lines:
        key, _, value = line.partition(":")
        if key == REFUSED_TRAILER and value.strip().isdigit():
            change.refused = int(value)
        listing = line.startswith("Refused tool calls (") or (listing and line.startswith("- "))
        refused = _REFUSED_LINE.match(line) if listing else None
        if refused:
            change.refusals.append({"tool": refused.group(1), "path": refused.group(2),
                                    "code": refused.group(3)})
            continue
        match = _FILE_LINE.match(line)
        if match:
            mine = match.group(2) == path
            if mine:
                change.outcome = match.group(1)
                change.categories = [c.strip() for c in (match.group(3) or "").split(",") if c.strip()]
                change.size = f"{match.group(4)} → {match.group(5)} chars"
            continue
        if mine and line.startswith("    "):
            change.reasons.append(line.strip())
        elif not line.startswith("    "):
            mine = False
    change.staging = list(dict.fromkeys(m.group(0) for m in _STAGING_ID.finditer(body)))
    return change


def refusals_here(ws: Workspace, changes: list[Change]) -> None:
    """A run this machine recorded (runs.json) gives each refused call with its reason; the commit
    message alone names the tool, the target and the rule."""
    for change in changes:
        run = runs.find(ws, "consolidate", change.run_id) if change.run_id else None
        if run is not None and isinstance(run.get("refusals"), list):
            change.refusals = run["refusals"]
            change.refused = int(run.get("refused") or len(change.refusals))


def staging_for(changes: list[Change], sources: list[Source]) -> None:
    """Keep, for each consolidation, only the staging items whose span one of the record's Sources
    overlaps: those are the items the record came from (ids name their session and range)."""
    for change in changes:
        keep = []
        for item in change.staging:
            match = _STAGING_ID.fullmatch(item)
            assert match is not None
            start, end = int(match.group(2)), int(match.group(3))
            for src in sources:
                same = match.group(1) == staging_prefix(src.session_id)
                if same and src.range[0] <= end and src.range[1] >= start:
                    keep.append(item)
                    break
        change.staging = keep
