"""Gemini CLI's transcripts, in the two layouts it has written (where they are: discovery.py).

- JSONL, from 0.61 on: `<gemini home>/tmp/<project name>/chats/session-<time>-<id8>.jsonl` (a
  subagent's: `chats/<parent session id>/<session id>.jsonl`), appended to. Replayed by
  replay.py: an entry's `index` is the line its message first appeared on, `end` the last line
  that rewrote it (Gemini writes a message again as its tool calls and results come in).
- JSON, before: `tmp/<sha256 of the project path>/chats/session-<time>-<id8>.json`, one object
  rewritten whole as the session grows, so read whole; an entry's `index` is the message's position
  in `messages` (the file has no stable lines). A file cut mid-write reads as no entries, truncated.

Mapping (both): `user` → user, with the `<hook_context>` blocks Gemini adds to the prompt (the
SessionStart context, memcli's own among them) taken out; a user message that is only the
`<session_context>` Gemini writes at start, or only hook context → system, injected; one carrying
tool results (`functionResponse` parts, 0.61) → tool, injected, unless its results are already on
the call's entry (then it is no entry). `gemini` (or `model`) → assistant with its `toolCalls` as
tool calls and their `result`s as tool results on the same entry; `thoughts` → thinking;
`tokens.total` → tokens. `info` / `error` / `warning` → system, injected. Any other type is skipped
and counted.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.gemini_cli import replay
from memcli.agents.parts import Claim, Reader
from memcli.transcript.base import SessionReadError, open_binary, parse_time, text_of
from memcli.transcript.model import Entry, ReadStats, SessionInfo, ToolCall, ToolResult

NAME = "gemini-cli"  # as the declaration (__init__) names it
MAX_FILE = 512 * 1024 * 1024
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?</hook_context>\s*", re.DOTALL)


def sniff(obj: dict[str, Any]) -> bool:
    """A whole JSON session (before 0.61)."""
    return isinstance(obj.get("messages"), list) and ("sessionId" in obj or "projectHash" in obj)


is_header = replay.is_header  # the first line of a JSONL session (0.61 on)


def claim_file(path: Path, head: bytes) -> Claim | None:
    """A JSON session (before 0.61): one object, written pretty-printed or named `.json`."""
    body = head.lstrip()
    first_line = body.split(b"\n", 1)[0].strip()
    if not (body.startswith(b"{") and (first_line == b"{" or path.suffix == ".json")):
        return None
    obj = load(path)
    if obj is not None and sniff(obj):
        return Claim(obj)
    if obj is None and b'"messages"' in head and b'"sessionId"' in head:
        return Claim(None)  # a Gemini file being rewritten right now
    return None


def claim_record(obj: dict[str, Any]) -> bool:
    """The header of a JSONL session, or a JSON session written on one line."""
    return sniff(obj) or is_header(obj)


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


def describe(path: Path, head: dict[str, Any] | list[dict[str, Any]] | None) -> list[SessionInfo]:
    """`head`: the whole legacy object (None while it is being rewritten), or a file's first
    records: a JSONL header among them, or a legacy object written on one line."""
    obj = next((o for o in head if claim_record(o)), {}) if isinstance(head, list) else head or {}
    jsonl = isinstance(head, list) and not sniff(obj)
    session_id = got if isinstance(got := obj.get("sessionId"), str) else path.stem
    extra: dict[str, Any] = {"format": "jsonl" if jsonl else "json"}
    if isinstance(obj.get("projectHash"), str):
        extra["project_hash"] = obj["projectHash"]
    if obj.get("kind") == "subagent":
        extra["parent"] = path.parent.name  # chats/<parent session id>/<session id>.jsonl
    return [SessionInfo(NAME, session_id, path, first_time=parse_time(obj.get("startTime")),
                        last_time=parse_time(obj.get("lastUpdated")), extra=extra)]


def entries(info: SessionInfo, stats: ReadStats) -> Iterator[Entry]:
    if info.extra.get("format") == "jsonl":
        _header, found = replay.replay(Path(info.path), stats)
        messages = [(m.index, m.end, m.record) for m in found]
    else:
        obj = load(Path(info.path))
        if obj is None:
            stats.truncated = True
            return
        listed = got if isinstance(got := obj.get("messages"), list) else []
        stats.lines = len(listed)
        messages = [(i, i, m) for i, m in enumerate(listed)]
    answered = {c.get("id") for _i, _e, m in messages if isinstance(m, dict)
                for c in _list(m.get("toolCalls")) if isinstance(c, dict) and "result" in c}
    sidechain = "parent" in info.extra
    for index, end, msg in messages:
        if not isinstance(msg, dict):
            stats.skip("not-an-object")
            continue
        entry = _entry(msg, index, answered)
        if entry is None:
            if msg.get("type") in ("user", "gemini", "model", "info", "error", "warning"):
                stats.ignored += 1
            else:
                stats.skip("unknown-type")
            continue
        yield dataclasses.replace(entry, sidechain=sidechain, end=end if end != index else None)


def _entry(msg: dict[str, Any], index: int, answered: set[Any]) -> Entry | None:
    kind, stamp = msg.get("type"), parse_time(msg.get("timestamp"))
    content = msg.get("content")
    if kind == "user":
        raw = _text(content)
        text = _HOOK_CONTEXT.sub("", raw).strip() if "<hook_context>" in raw else raw
        if _responses(content) and not text:
            results = tuple(r for r in _responses(content) if r.call_id not in answered)
            return Entry(index, "tool", "", stamp, tool_results=results, injected=True) if results else None
        if not text.strip() or raw.lstrip().startswith("<session_context>"):  # Gemini's, or hooks'
            return Entry(index, "system", raw, stamp, injected=True)
        return Entry(index, "user", text, stamp)
    if kind in ("gemini", "model"):
        text = _text(content)
        calls, results = _tools(msg.get("toolCalls"))
        tokens = msg.get("tokens", {}).get("total") if isinstance(msg.get("tokens"), dict) else None
        # as for Claude Code: a reply that calls no tool ends the turn
        return Entry(index, "assistant", text, stamp, tool_calls=calls, tool_results=results,
                     tokens=tokens if isinstance(tokens, int) else None,
                     thinking=_thinking(msg.get("thoughts")), final=bool(text) and not calls)
    if kind in ("info", "error", "warning"):
        return Entry(index, "system", _text(content), stamp, injected=True)
    return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(content: Any) -> str:
    """The text of a content: a string, or Gemini parts (thought parts and calls are not text)."""
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
                         and not p.get("thought"))
    return text_of(content)


def _output(part: Any) -> tuple[str, Any, bool] | None:
    """(text, call id, is error) of one `functionResponse` part."""
    call = part.get("functionResponse") if isinstance(part, dict) else None
    response = call.get("response") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(response, dict):
        return None
    error = "error" in response and "output" not in response
    return text_of(response.get("output", response.get("error", response))), call.get("id"), error


def _responses(content: Any) -> tuple[ToolResult, ...]:
    found = (_output(p) for p in _list(content))
    return tuple(ToolResult(text, call_id, error) for text, call_id, error in filter(None, found))


def _tools(calls: Any) -> tuple[tuple[ToolCall, ...], tuple[ToolResult, ...]]:
    tool_calls: list[ToolCall] = []
    results: list[ToolResult] = []
    for call in _list(calls):
        if not isinstance(call, dict):
            continue
        args = call.get("args")
        args = args if isinstance(args, dict) else text_of(args)
        tool_calls.append(ToolCall(str(call.get("name", "?")), args, call.get("id")))
        outputs = [found[0] for found in map(_output, _list(call.get("result"))) if found]
        if outputs or "result" in call:
            results.append(ToolResult("\n".join(outputs), call.get("id"), call.get("status") == "error"))
    return tuple(tool_calls), tuple(results)


def _thinking(thoughts: Any) -> str:
    parts = []
    for thought in _list(thoughts):
        if isinstance(thought, dict):
            parts.append(": ".join(str(thought[k]) for k in ("subject", "description") if thought.get(k)))
    return "\n".join(p for p in parts if p)


READER = Reader(describe, entries, claim_file=claim_file, claim_record=claim_record)
