"""Entries and session lists as text for people and as JSON for scripts (pure functions)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from memcli.transcript.model import Entry, SessionInfo, ToolCall, ToolResult

ARG_CHARS = 160  # one tool call on one line
RESULT_LINES = 12  # enough of a tool result to see what happened; the file has the rest
RESULT_CHARS = 1_500


def iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value else None


def short_time(value: dt.datetime | None) -> str:
    if value is None:
        return "-"
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def minute(value: dt.datetime | None) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M") if value else "-"


def human_size(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024  # type: ignore[assignment]
    return f"{size} B"


def info_json(info: SessionInfo) -> dict[str, Any]:
    return {"agent": info.agent, "session_id": info.session_id, "path": str(info.path), "cwd": info.cwd,
            "entries": info.entries, "skipped": info.skipped, "first_time": iso(info.first_time),
            "last_time": iso(info.last_time), "size": info.size,
            "extra": json.loads(json.dumps(info.extra, default=str))}


def entry_json(entry: Entry) -> dict[str, Any]:
    return {
        "index": entry.index, "end": entry.span[1], "role": entry.role, "timestamp": iso(entry.timestamp),
        "text": entry.text, "thinking": entry.thinking or None,
        "tool_calls": [{"name": c.name, "arguments": c.arguments, "call_id": c.call_id}
                       for c in entry.tool_calls],
        "tool_results": [{"content": r.content, "call_id": r.call_id, "is_error": r.is_error}
                         for r in entry.tool_results],
        "injected": entry.injected, "sidechain": entry.sidechain, "final": entry.final,
        "tokens": entry.tokens,
    }


def call_line(call: ToolCall) -> str:
    if isinstance(call.arguments, dict):
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in call.arguments.items())
    else:
        args = json.dumps(call.arguments, ensure_ascii=False)
    args = args.replace("\n", "\\n")
    if len(args) > ARG_CHARS:
        args = args[:ARG_CHARS] + "…"
    return f"→ {call.name}({args})"


def result_lines(result: ToolResult) -> list[str]:
    status = "error" if result.is_error else "result"
    text = result.content
    lines = text.splitlines()
    shown = "\n".join(lines[:RESULT_LINES])[:RESULT_CHARS]
    more = len(text) - len(shown)
    out = [f"← {status}" + (f" ({len(text)} chars, {more} not shown)" if more > 0 else "") + ":"]
    out.extend("    " + line for line in shown.splitlines())
    return out


def entry_text(entry: Entry) -> str:
    first, last = entry.span
    where = f"[{first}]" if first == last else f"[{first}-{last}]"
    flags = [f for f, on in (("injected", entry.injected), ("sidechain", entry.sidechain),
                             ("final", entry.final)) if on]
    head = f"{where} {entry.role}" + (f" ({', '.join(flags)})" if flags else "")
    if entry.timestamp is not None:
        head += f" · {short_time(entry.timestamp)}"
    lines = [head]
    if entry.thinking:
        lines.append("  (thinking) " + entry.thinking.strip().replace("\n", "\n  "))
    if entry.text.strip():
        lines.extend("  " + line for line in entry.text.strip().splitlines())
    lines.extend("  " + call_line(c) for c in entry.tool_calls)
    for result in entry.tool_results:
        lines.extend("  " + line for line in result_lines(result))
    return "\n".join(lines)
