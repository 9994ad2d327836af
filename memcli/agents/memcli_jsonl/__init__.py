"""memcli's own JSONL (`{"role": ..., "content": ...}` a line), for any agent memcli has no reader
for, and the reader of last resort: a file no other agent claims is read as one, every line it
cannot read counted as skipped (memcli/agents/registry.py: FALLBACK).

- transcript.py  the format read into entries; in a folder given explicitly, its `*.jsonl` files

memcli finds no such files by itself: they are given as paths (`--path`, `[sessions] paths`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "memcli-jsonl"
TITLE = "memcli JSONL"
HOOKS = None  # an agent writing it runs no memcli hooks
TOOL_NAMES: tuple[str, ...] = ()  # as the agent that wrote the file named them


def load() -> Parts:
    # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.memcli_jsonl import transcript
    from memcli.agents.parts import Parts

    return Parts(transcript.READER, transcript.DISCOVERY)
