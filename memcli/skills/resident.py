"""The knowledge an agent already has as skills, so `memcli context` does not list it twice.

What the last `memcli skills sync` found the agent lists with the whole description (state.py),
kept only while it still holds: the record's bytes are those the skill was made from, and its
SKILL.md is there. Without a sync there is nothing to leave out: the resident context stays whole.
Read at every session start, so it reads one small file and the records named in it.
"""

from __future__ import annotations

from memcli.recordtext import read_file
from memcli.skills import state
from memcli.skills.sources import file_digest
from memcli.workspace import Workspace


def listed_whole(ws: Workspace, agent: str) -> dict[str, str]:
    """Slug → record path of each knowledge record `agent` (its `--agent` name) lists as a skill
    with its whole description, as the records are now."""
    full = state.load(ws.state_dir).get("full", {}).get(agent)
    if not isinstance(full, dict):
        return {}
    out = {}
    for slug, row in full.items():
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, str) for x in row)):
            continue
        path, digest, skill = row
        data, _ = read_file(ws.root / path)  # bounded, never waits on a FIFO
        if data is None:
            continue
        current = file_digest(data)
        if current == digest and (ws.root / skill).is_file():
            out[slug] = path
    return out
