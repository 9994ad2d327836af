"""memcli JSONL, for any other agent: one `{"role": ..., "content": ...}` object per line.

`role` is user / assistant / tool / system (`human` → user, `ai` / `model` → assistant); `content`
a string or a list of `{"text"}` blocks. Optional per line: `timestamp` (ISO-8601 or epoch),
`tool_calls` ([{name, arguments, id}]), `tool_results` ([{content, id, is_error}]), `injected`,
`sidechain`, `final`, `tokens`. The session id is the first line's `session_id` when given, else the
file name without `.jsonl`. This is also the fallback reader for a file no reader claims: its
lines are then all counted as skipped, so `memcli sessions` shows what could not be read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.parts import Discovery, Reader
from memcli.transcript.base import json_objects, parse_time, text_of, tool_arguments
from memcli.transcript.model import Entry, ReadStats, Role, SessionInfo, ToolCall, ToolResult
from memcli.transcript.resume import Cursor

NAME = "memcli-jsonl"  # as the declaration (__init__) names it
_ROLES: dict[str, Role] = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant",
                           "model": "assistant", "tool": "tool", "system": "system"}


def sniff(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("role"), str) and "content" in obj and "type" not in obj


def describe(path: Path, head: list[dict[str, Any]]) -> list[SessionInfo]:
    first = head[0] if head else {}
    session_id = got if isinstance(got := first.get("session_id"), str) else path.stem
    cwd = got if isinstance(got := first.get("cwd"), str) else None
    stamp = next((t for o in head if (t := parse_time(o.get("timestamp")))), None)
    return [SessionInfo(NAME, session_id, path, cwd=cwd, first_time=stamp)]


def _calls(raw: Any) -> tuple[ToolCall, ...]:
    out = []
    for call in raw if isinstance(raw, list) else []:
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            out.append(ToolCall(call["name"], tool_arguments(call.get("arguments", {})), call.get("id")))
    return tuple(out)


def _results(raw: Any) -> tuple[ToolResult, ...]:
    return tuple(ToolResult(text_of(r.get("content")), r.get("id"), bool(r.get("is_error")))
                 for r in (raw if isinstance(raw, list) else []) if isinstance(r, dict))


def entries(info: SessionInfo, stats: ReadStats, cursor: Cursor | None = None) -> Iterator[Entry]:
    """One entry per line; stateless, so every line read is a resume point."""
    for index, obj in json_objects(info.path, stats, cursor):
        role = _ROLES.get(got) if isinstance(got := obj.get("role"), str) else None
        if role is None or "content" not in obj:
            stats.skip("unknown-type")
            if cursor is not None:
                cursor.mark()
            continue
        tokens = obj.get("tokens") if isinstance(obj.get("tokens"), int) else None
        yield Entry(index, role, text_of(obj["content"]), parse_time(obj.get("timestamp")),
                    tool_calls=_calls(obj.get("tool_calls")), tool_results=_results(obj.get("tool_results")),
                    injected=bool(obj.get("injected")), sidechain=bool(obj.get("sidechain")),
                    final=bool(obj.get("final")), tokens=tokens)
        if cursor is not None:
            cursor.mark()  # after the yield: the stream's counts include the entry


READER = Reader(describe, entries, resumable=True, claim_record=sniff)
DISCOVERY = Discovery(is_transcript=lambda path: path.name.endswith(".jsonl"))  # given as paths only
