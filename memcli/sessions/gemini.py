"""Gemini CLI: `~/.gemini/tmp/<sha256 of the project path>/chats/session-<time>-<id8>.json`.

One JSON object per file, rewritten as the session grows (not appended), so it is read whole; the
files are small. An entry's `index` is the message's position in `messages` (0-based), not a line
number: the file has no stable lines. Mapping: `user` → user; `gemini` (or `model`) → assistant with
its `toolCalls` as tool calls AND their `result`s as tool results on the same entry (Gemini stores
both in one message); `thoughts` → thinking; `tokens.total` → tokens; `info` / `error` / `warning`
→ system, injected. A file cut mid-write (unparsable) reads as no entries, truncated.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.sessions.base import ReadStats, SessionReadError, open_binary, parse_time, text_of
from memcli.sessions.model import Entry, SessionInfo, ToolCall, ToolResult

AGENT = "gemini-cli"
MAX_FILE = 512 * 1024 * 1024


def sniff(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("messages"), list) and ("sessionId" in obj or "projectHash" in obj)


def load(path: Path) -> dict[str, Any] | None:
    """The session object, or None when the file is not (yet) one complete JSON object."""
    with open_binary(path) as fh:
        data = fh.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise SessionReadError(f"{path}: a Gemini session file over {MAX_FILE >> 20} MB is not supported")
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def describe(path: Path, obj: dict[str, Any] | None) -> list[SessionInfo]:
    obj = obj or {}
    session_id = obj.get("sessionId") if isinstance(obj.get("sessionId"), str) else path.stem
    extra = {"project_hash": obj["projectHash"]} if isinstance(obj.get("projectHash"), str) else {}
    return [SessionInfo(AGENT, session_id, path, first_time=parse_time(obj.get("startTime")),
                        last_time=parse_time(obj.get("lastUpdated")), extra=extra)]


def _tools(calls: Any) -> tuple[tuple[ToolCall, ...], tuple[ToolResult, ...]]:
    tool_calls: list[ToolCall] = []
    results: list[ToolResult] = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        args = call.get("args")
        args = args if isinstance(args, dict) else text_of(args)
        tool_calls.append(ToolCall(str(call.get("name", "?")), args, call.get("id")))
        outputs = []
        for part in call.get("result") or []:
            response = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
            if isinstance(response, dict):
                outputs.append(text_of(response.get("output", response.get("error", response))))
        if outputs or "result" in call:
            results.append(ToolResult("\n".join(outputs), call.get("id"), call.get("status") == "error"))
    return tuple(tool_calls), tuple(results)


def _thinking(thoughts: Any) -> str:
    parts = []
    for thought in thoughts if isinstance(thoughts, list) else []:
        if isinstance(thought, dict):
            parts.append(": ".join(str(thought[k]) for k in ("subject", "description") if thought.get(k)))
    return "\n".join(p for p in parts if p)


def entries(info: SessionInfo, stats: ReadStats) -> Iterator[Entry]:
    obj = load(info.path)
    if obj is None:
        stats.truncated = True
        return
    messages = obj.get("messages") if isinstance(obj.get("messages"), list) else []
    stats.lines = len(messages)
    for index, msg in enumerate(messages):
        if not isinstance(msg, dict):
            stats.skip("not-an-object")
            continue
        kind, stamp = msg.get("type"), parse_time(msg.get("timestamp"))
        text = text_of(msg.get("content"))
        if kind == "user":
            yield Entry(index, "user", text, stamp)
        elif kind in ("gemini", "model"):
            calls, results = _tools(msg.get("toolCalls"))
            tokens = msg.get("tokens", {}).get("total") if isinstance(msg.get("tokens"), dict) else None
            tokens = tokens if isinstance(tokens, int) else None
            # as for Claude Code: a reply that calls no tool ends the turn
            thinking = _thinking(msg.get("thoughts"))
            yield Entry(index, "assistant", text, stamp, tool_calls=calls, tool_results=results,
                        tokens=tokens, thinking=thinking, final=bool(text) and not calls)
        elif kind in ("info", "error", "warning"):
            yield Entry(index, "system", text, stamp, injected=True)
        else:
            stats.skip("unknown-type")
