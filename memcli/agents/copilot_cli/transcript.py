"""GitHub Copilot CLI's transcripts: `<copilot home>/session-state/<session id>/events.jsonl`
(where they are: discovery.py), one event a line: `{"type", "data", "id", "timestamp", "parentId"}`,
plus `agentId` on a subagent's events. Copilot appends to the file as the session goes on (a
resumed session too), so an entry's `index` is its line; /rewind is the exception: it writes the
file again without the events it takes back, so the lines before the rewound point keep their
numbers and those after it are new.

Mapping (checked against 1.0.102, its session-events schema and the files it writes):
- `session.start` describes the session: its `context` names the folder and the git branch.
- `user.message` → user (its `content`, as typed; `transformedContent` is what the model got, with
  a timestamp added); injected when Copilot sent it itself (`source`: a skill, another agent,
  autopilot's continuation).
- `assistant.message` → assistant: `content`, `toolRequests` as tool calls (an MCP tool is named
  `<server>-<tool>`), `reasoningText` as thinking, tokens from the `session.usage_record` of the same
  model call (`apiCallId`); a reply that calls no tool ends the turn.
- `tool.execution_complete` → tool, injected: the result the model got, or the error. An MCP
  tool's result is written as its text, a blank line and its `structuredContent` as compact JSON
  (also kept apart in `result.structuredContent`); MCP servers give the structured content in
  the text too (memcli's do), so that copy is left out and the text read once.
- `hook.end` whose output has `additionalContext` (a SessionStart hook's context, memcli's among
  them), `skill.invoked` (the skill's text), `system.notification`, a compaction's summary,
  `session.info` / `.warning` / `.error` → system, injected.
- `system.message` (Copilot's own system prompt, repeated through the file) and every other event
  type of events.py carry no conversation: ignored. A type not there is counted as skipped.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli import plainyaml
from memcli.agents.copilot_cli.discovery import EVENTS, started_in
from memcli.agents.copilot_cli.events import KNOWN
from memcli.agents.parts import Reader
from memcli.transcript.base import json_objects, parse_time, text_of, tool_arguments
from memcli.transcript.model import Entry, ReadStats, SessionInfo, ToolCall, ToolResult
from memcli.transcript.resume import Cursor

NAME = "copilot-cli"  # as the declaration (__init__) names it
_SYSTEM = {"system.notification": "content", "session.info": "message", "session.warning": "message",
           "session.error": "message", "skill.invoked": "content",
           "session.compaction_complete": "summaryContent"}
_USAGE = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
_PENDING = 64  # usage records waiting for their message: a call that failed leaves one behind


def claim_record(obj: dict[str, Any]) -> bool:
    """The first event of every Copilot session."""
    data = obj.get("data")
    return (obj.get("type") == "session.start" and isinstance(data, dict)
            and (data.get("producer") == "copilot-agent" or "copilotVersion" in data))


def describe(path: Path, head: list[dict[str, Any]]) -> list[SessionInfo]:
    start: dict[str, Any] = next((o["data"] for o in head if claim_record(o)), {})
    session_id = start.get("sessionId")
    if not isinstance(session_id, str) or not session_id:
        session_id = path.parent.name if path.name == EVENTS else path.stem
    extra: dict[str, Any] = {}
    if isinstance(start.get("copilotVersion"), str):
        extra["version"] = start["copilotVersion"]
    title = _title(path)
    if title:
        extra["title"] = title
    context = got if isinstance(got := start.get("context"), dict) else {}
    branch = got if isinstance(got := context.get("branch"), str) else None
    return [SessionInfo(NAME, session_id, path, cwd=started_in(start),
                        first_time=parse_time(start.get("startTime")), extra=extra,
                        branch=branch if branch and branch != "HEAD" else None)]


def _title(path: Path) -> str | None:
    """The session's name in `workspace.yaml` beside events.jsonl (the first prompt, or --name)."""
    if path.name != EVENTS:
        return None
    import yaml  # here: `memcli sessions` lists many files; only Copilot's title needs the YAML parser

    try:
        meta = plainyaml.load((path.parent / "workspace.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):  # none yet, or being written
        return None
    except plainyaml.Refused:  # not what Copilot writes: the session goes untitled
        return None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() else None


def entries(info: SessionInfo, stats: ReadStats, cursor: Cursor | None = None) -> Iterator[Entry]:
    """Resume points after every event; what is carried across one is the token counts of model
    calls whose message has not been read yet."""
    start = cursor.start if cursor is not None else None
    pending: dict[str, int] = dict(_uncarry(start.carry if start else ()))
    order: deque[str] = deque(pending, maxlen=_PENDING)
    for index, obj in json_objects(info.path, stats, cursor):
        kind, data = obj.get("type"), obj.get("data")
        if not isinstance(kind, str) or not isinstance(data, dict):
            stats.skip("unknown-record")
        elif kind not in KNOWN:
            stats.skip("unknown-type")
        elif kind == "session.usage_record":
            _count(data, pending, order)
            stats.ignored += 1
        else:
            entry = _entry(index, kind, data, obj, pending)
            if entry is None:
                stats.ignored += 1
            else:
                yield entry
        if cursor is not None:
            cursor.mark(tuple(f"{k}\t{v}" for k, v in pending.items()))


def _uncarry(carry: tuple[str, ...]) -> Iterator[tuple[str, int]]:
    for item in carry:
        key, _, value = item.rpartition("\t")
        if key and value.isdigit():
            yield key, int(value)


def _count(data: dict[str, Any], pending: dict[str, int], order: deque[str]) -> None:
    usage = data.get("usage")
    call = usage.get("apiCallId") if isinstance(usage, dict) else None
    if not isinstance(usage, dict) or not isinstance(call, str):
        return
    numbers = [usage.get(k) for k in _USAGE]
    total = sum(n for n in numbers if isinstance(n, int))
    if len(order) == order.maxlen:
        pending.pop(order[0], None)
    order.append(call)
    pending[call] = pending.get(call, 0) + total


def _entry(index: int, kind: str, data: dict[str, Any], obj: dict[str, Any],
           pending: dict[str, int]) -> Entry | None:
    stamp = parse_time(obj.get("timestamp"))
    side = isinstance(obj.get("agentId"), str) or isinstance(data.get("parentToolCallId"), str)
    if kind == "user.message":
        source = data.get("source")
        injected = (isinstance(source, str) and source not in ("", "user")) or bool(
            data.get("isAutopilotContinuation"))
        return Entry(index, "user", text_of(data.get("content")), stamp, injected=injected or side,
                     sidechain=side)
    if kind == "assistant.message":
        calls = tuple(_call(r) for r in data.get("toolRequests") or [] if isinstance(r, dict))
        text = text_of(data.get("content"))
        call = data.get("apiCallId")
        tokens = pending.pop(call, None) if isinstance(call, str) else None
        if tokens is None and isinstance(data.get("outputTokens"), int):
            tokens = data["outputTokens"]
        thinking = got if isinstance(got := data.get("reasoningText"), str) else ""
        return Entry(index, "assistant", text, stamp, tool_calls=calls, sidechain=side, tokens=tokens,
                     thinking=thinking, final=bool(text) and not calls)
    if kind == "tool.execution_complete":
        return Entry(index, "tool", "", stamp, tool_results=(_result(data),), injected=True, sidechain=side)
    text = _context(kind, data)
    if text:
        return Entry(index, "system", text, stamp, injected=True, sidechain=side)
    return None


def _call(request: dict[str, Any]) -> ToolCall:
    return ToolCall(str(request.get("name", "?")), tool_arguments(request.get("arguments")),
                    request.get("toolCallId") if isinstance(request.get("toolCallId"), str) else None)


def _result(data: dict[str, Any]) -> ToolResult:
    call = got if isinstance(got := data.get("toolCallId"), str) else None
    if data.get("success") is True:
        result = data.get("result")
        if not isinstance(result, dict):
            return ToolResult("", call)
        return ToolResult(_once(text_of(result.get("content")), result.get("structuredContent")), call)
    error = data.get("error")
    return ToolResult(text_of(error.get("message")) if isinstance(error, dict) else "", call, True)


def _once(content: str, structured: Any) -> str:
    """`content` without the copy of `structured` Copilot appends to an MCP tool's text, when
    there is text before it (a tool that gave structured content alone keeps its JSON)."""
    if structured is None:
        return content
    text, blank, tail = content.rpartition("\n\n")  # compact JSON holds no raw line break
    if not blank or not text.strip():
        return content
    try:
        same = json.loads(tail) == structured
    except ValueError:  # the text's own last paragraph
        return content
    return text if same else content


def _context(kind: str, data: dict[str, Any]) -> str:
    """The text of an event that put something into the model's context, else ''."""
    if kind == "hook.end":
        output = data.get("output")
        added = output.get("additionalContext") if isinstance(output, dict) else None
        return added if isinstance(added, str) else ""
    key = _SYSTEM.get(kind)
    value = data.get(key) if key else None
    return value if isinstance(value, str) else ""


READER = Reader(describe, entries, resumable=True, claim_record=claim_record)
