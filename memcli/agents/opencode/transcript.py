"""OpenCode's sessions read into entries (checked against OpenCode 1.18.33; database.py says where
they are, and what a session's "file" and "line" are).

One entry per part, its index the part's position in the session. Mapping, by the part's `type` and
its message's `role`:
- `text` of a user message: the human's prompt (role user); `synthetic` text is OpenCode's or a
  plugin's (a file read for an @-mention, memcli's context at a session's first prompt): role system,
  injected. `ignored` text is left out of the conversation by OpenCode itself: ignored here too;
- `text` of an assistant message: role assistant, final when the message ended the turn (`finish`
  "stop"); a compaction's summary (`summary` true) is injected system text;
- `reasoning`: an assistant entry holding its thinking;
- `tool`: an assistant entry with the call (`tool` named `<server>_<tool>` for an MCP server's,
  `state.input`, `callID`) and, once it ran, its result (`state.output`, or `state.error`);
- `file` of a user message: an attachment, injected as `[file <name>]` (never its data URL);
  `subtask`: a command's prompt for a subagent, injected user text;
- a subagent's session (the task tool's: `parent_id`) is all sidechain, its user text injected;
- `step-start`, `step-finish` (its tokens are counted), `snapshot`, `patch`, `agent`, `retry` and
  `compaction` carry no conversation: ignored. A part of any other type, or of a message of another
  role, is counted as skipped ("unknown-type", "unknown-role"), never dropped silently.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.opencode import database
from memcli.agents.parts import Claim, Reader
from memcli.transcript.base import parse_time, text_of
from memcli.transcript.model import Entry, ReadStats, SessionInfo, ToolCall, ToolResult

NAME = "opencode"  # as the declaration (__init__) names it
IGNORED = {"step-start", "step-finish", "snapshot", "patch", "agent", "retry", "compaction"}
KNOWN = IGNORED | {"text", "reasoning", "tool", "file", "subtask"}


def claim_file(path: Path, head: bytes) -> Claim | None:
    return Claim(None) if database.is_opencode(path, head) else None


def describe(path: Path, head: Any = None) -> list[SessionInfo]:
    """Every session in the database (discovery keeps the workspace's: discovery.py)."""
    sizes = database.sizes(path)
    infos = []
    for s in database.sessions(path):
        extra: dict[str, Any] = {"format": "sqlite", "title": s.title, "version": s.version}
        if s.parent_id:
            extra["parent"] = s.parent_id  # a subagent's session (the task tool)
        infos.append(SessionInfo(NAME, s.id, path, cwd=s.directory or None, first_time=parse_time(s.created),
                                 last_time=parse_time(s.updated), size=sizes.get(s.id, 0), extra=extra))
    return infos


def entries(info: SessionInfo, stats: ReadStats) -> Iterator[Entry]:
    path = Path(info.path)
    messages = database.messages(path, info.session_id)
    sidechain = "parent" in info.extra
    for index, part in enumerate(database.parts(path, info.session_id)):
        stats.lines += 1
        try:
            obj = json.loads(part.data)
        except ValueError:
            stats.skip("not-json")
            continue
        if not isinstance(obj, dict):
            stats.skip("not-an-object")
            continue
        message = messages.get(part.message_id, {})
        role, kind = message.get("role"), obj.get("type")
        if role not in ("user", "assistant"):
            stats.skip("unknown-role")
            continue
        entry = _entry(index, obj, message, parse_time(part.created))
        if entry is not None:  # a subagent's prompt is its parent's model's: not the human's words
            yield (dataclasses.replace(entry, sidechain=True, injected=entry.injected or entry.role == "user")
                   if sidechain else entry)
        elif kind in KNOWN:  # no conversation in it (an ignored text, an assistant's attachment)
            if kind == "step-finish":
                _count_tokens(obj, stats)
            stats.ignored += 1
        else:
            stats.skip("unknown-type")


def _entry(index: int, part: dict[str, Any], message: dict[str, Any], stamp: Any) -> Entry | None:
    kind, user = part.get("type"), message.get("role") == "user"
    text = got if isinstance(got := part.get("text"), str) else ""
    if kind == "text" and not part.get("ignored"):
        if part.get("synthetic") or (not user and message.get("summary") is True):
            return Entry(index, "system", text, stamp, injected=True)
        if user:
            return Entry(index, "user", text, stamp)
        return Entry(index, "assistant", text, stamp, final=message.get("finish") == "stop")
    if kind == "reasoning":
        return Entry(index, "assistant", "", stamp, thinking=text)
    if kind == "tool":
        return _tool(index, part, stamp)
    if kind == "file" and user:
        name = part.get("filename") or (part.get("source") or {}).get("path") or part.get("mime") or "?"
        return Entry(index, "system", f"[file {name}]", stamp, injected=True)
    if kind == "subtask" and user:
        prompt = got if isinstance(got := part.get("prompt"), str) else ""
        return Entry(index, "user", prompt, stamp, injected=True)
    return None


def _tool(index: int, part: dict[str, Any], stamp: Any) -> Entry:
    state = got if isinstance(got := part.get("state"), dict) else {}
    args = state.get("input")
    call_id = got if isinstance(got := part.get("callID"), str) else None
    call = ToolCall(str(part.get("tool", "?")), args if isinstance(args, dict) else text_of(args), call_id)
    results: tuple[ToolResult, ...] = ()
    if state.get("status") == "completed":
        results = (ToolResult(text_of(state.get("output")), call_id),)
    elif state.get("status") == "error":
        results = (ToolResult(text_of(state.get("error")), call_id, is_error=True),)
    return Entry(index, "assistant", "", stamp, tool_calls=(call,), tool_results=results)


def _count_tokens(part: dict[str, Any], stats: ReadStats) -> None:
    tokens = got if isinstance(got := part.get("tokens"), dict) else {}
    total = tokens.get("total")
    if not isinstance(total, int):
        total = sum(v for k in ("input", "output", "reasoning") if isinstance(v := tokens.get(k), int))
    stats.tokens += total


READER = Reader(describe, entries, claim_file=claim_file)
