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

_UUID = re.compile(rb'"uuid"\s*:\s*"([^"]+)"')


def copied_uuids(path: Path, session_id: str) -> frozenset[str]:
    """The `uuid`s of the lines of `path` (the file of `session_id`) that were copied from the
    sessions its lines name in `requestSessionId`, as found in those sessions' files. The copies
    come first, so `path` is read up to its own first answer; the parents' files a line at a time
    (a transcript can be far larger than what a reader may hold)."""
    parents: set[str] = set()
    try:
        with path.open("rb") as fh:
            for line in fh:
                try:
                    obj = json.loads(line)
                except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the limit
                    continue
                if not isinstance(obj, dict):
                    continue
                named = obj.get("requestSessionId")
                if isinstance(named, str) and named != session_id and "/" not in named and named.strip("."):
                    parents.add(named)
                elif obj.get("type") == "assistant":
                    break  # the session's own first answer: the copies, if any, came before it
    except OSError:
        return frozenset()
    found: set[str] = set()
    for parent in parents:
        try:
            with (path.parent / f"{parent}.jsonl").open("rb") as fh:
                found.update(m.decode(errors="replace") for line in fh for m in _UUID.findall(line))
        except OSError:
            continue  # gone: its copies here are the only record left
    return frozenset(found)
