"""A forked Claude Code session's copies of its parent's history.

`claude --resume <id> --fork-session` (2.1.332) starts a new session file that begins with the
parent's conversation copied line for line (each line's `uuid` and time kept, its `sessionId`
made the new one's), then the fork's own turns. No line says where the copy ends, but an
assistant line copied from another session keeps the id of the session its request was made in,
`requestSessionId`; the fork's own lines carry none (nor do `--resume` and `--continue` without
`--fork-session`, which append to the session's own file and copy nothing).

The copies were said in the parent and are read in the parent's file (beside this one, named by
its id), so here they are left out by their `uuid`: the parent's `memcli_remember` calls and
prompts are not staged or counted twice. A parent whose file is gone leaves its copies in: they are
then the only record of what was said.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_MARK = b'"requestSessionId"'
_UUID = re.compile(rb'"uuid"\s*:\s*"([^"]+)"')


def copied_uuids(path: Path, session_id: str) -> frozenset[str]:
    """The `uuid`s of the lines of `path` (the file of `session_id`) that were copied from the
    sessions its lines name in `requestSessionId`, as found in those sessions' files."""
    try:
        data = path.read_bytes()
    except OSError:
        return frozenset()
    if _MARK not in data:  # the common case: not a fork
        return frozenset()
    parents: set[str] = set()
    for line in data.splitlines():
        if _MARK not in line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        named = obj.get("requestSessionId") if isinstance(obj, dict) else None
        if isinstance(named, str) and named != session_id and "/" not in named and named.strip("."):
            parents.add(named)
    found: set[str] = set()
    for parent in parents:
        try:
            found.update(m.decode() for m in _UUID.findall((path.parent / f"{parent}.jsonl").read_bytes()))
        except (OSError, UnicodeDecodeError):
            continue  # gone: its copies here are the only record left
    return frozenset(found)
