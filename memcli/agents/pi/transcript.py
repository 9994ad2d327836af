"""Pi's sessions: `<agent dir>/sessions/--<cwd, '/' → '-'>--/<time>_<session id>.jsonl`, one entry
a line (where they are: discovery.py). Checked against Pi 0.73.1 (`docs/session-format.md` and
`dist/core/session-manager.js` of its npm package; session format version 3).

The file is appended to (Pi writes nothing until the first answer, then everything so far at once),
and rewritten only to bring an older format up to date, line for line, so an entry's `index` is its
line. The first line is the header (`type: session`: id, cwd, timestamp, `parentSession` for a
fork); every other line has an `id` and a `parentId`: the entries form a tree, and /tree branches
within the file. memcli reads every line in the file's order, the branches left in /tree included
(Pi keeps them, and shows them in /tree: what was said there was said); the summary Pi writes of a
branch left is an entry of its own.

A `/fork` or `/clone` (and `pi --fork <file>`) starts a new file whose header names the parent
(`parentSession`) and copies the path it forks from, each line with its id and time, before the
fork's own turns. Those copies were said in the parent and are read in the parent's file: here they
are ignored, told apart by a time before the header's, so the parent's `memcli_remember` calls and
prompts are not staged or counted twice.

Mapping: `message` lines by `message.role`: `user` → user; `assistant` → assistant (text, `thinking`
blocks, `toolCall` blocks as tool calls, `usage.totalTokens`, final when `stopReason` is `stop`);
`toolResult` → tool, injected; `bashExecution` (a `!command` the user ran, its output added to the
context) → user, injected, as `!command` and the output; `custom` (an extension's message;
`hookMessage` before format 3) and the summary roles → system, injected. `custom_message` (an
extension's message in the context), `compaction` and `branch_summary` (their summaries) → system,
injected. The header, model and thinking-level changes, names, labels and extensions' own state
(`custom`) carry no conversation: ignored. Any other line kind or role is skipped and counted.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.parts import Reader
from memcli.transcript.base import json_objects, parse_time, text_of
from memcli.transcript.model import Entry, ReadStats, SessionInfo, ToolCall, ToolResult
from memcli.transcript.resume import Cursor

NAME = "pi"  # as the declaration (__init__) names it
NO_CONVERSATION = {"session", "model_change", "thinking_level_change", "session_info", "label", "custom"}
SUMMARIES = {"compaction", "branch_summary"}
KINDS = NO_CONVERSATION | SUMMARIES | {"message", "custom_message"}
_CONTEXT_ROLES = {"custom", "hookMessage", "branchSummary", "compactionSummary"}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def sniff(obj: dict[str, Any]) -> bool:
    """The header, or an entry of the tree (an `id` and a `parentId`, which may be null)."""
    kind = obj.get("type")
    if kind == "session":
        return isinstance(obj.get("id"), str) and isinstance(obj.get("cwd"), str) and "timestamp" in obj
    return kind in KINDS and isinstance(obj.get("id"), str) and "parentId" in obj


def describe(path: Path, head: list[dict[str, Any]]) -> list[SessionInfo]:
    header = next((o for o in head if o.get("type") == "session"), {})
    match = _UUID.search(path.stem)
    fallback = match.group(0) if match else path.stem
    session_id = header["id"] if isinstance(header.get("id"), str) else fallback
    extra: dict[str, Any] = {}
    if isinstance(header.get("version"), int):
        extra["version"] = header["version"]
    if isinstance(header.get("parentSession"), str):
        extra["forked_from"] = header["parentSession"]  # /fork, /clone: the session file it came from
    names = [o["name"] for o in head if o.get("type") == "session_info" and isinstance(o.get("name"), str)]
    if names and names[-1].strip():
        extra["title"] = names[-1].strip()  # /name: the latest one counts
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
    first = parse_time(header.get("timestamp")) or next(
        (t for o in head if (t := parse_time(o.get("timestamp")))), None)
    return [SessionInfo(NAME, session_id, path, cwd=cwd, first_time=first, extra=extra)]


def _assistant(index: int, msg: dict[str, Any], stamp: Any) -> Entry:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[ToolCall] = []
    content = msg.get("content")
    for block in content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
        elif kind == "toolCall":
            args = block.get("arguments")
            arguments = args if isinstance(args, dict) else text_of(args)
            calls.append(ToolCall(str(block.get("name", "?")), arguments, block.get("id")))
    usage = msg.get("usage")
    tokens = usage.get("totalTokens") if isinstance(usage, dict) else None
    return Entry(index, "assistant", "\n\n".join(texts), stamp, tool_calls=tuple(calls),
                 final=msg.get("stopReason") == "stop", tokens=tokens if isinstance(tokens, int) else None,
                 thinking="\n\n".join(thinking))


def _message(index: int, msg: dict[str, Any], stamp: Any, stats: ReadStats) -> Entry | None:
    role = msg.get("role")
    if role == "user":
        return Entry(index, "user", text_of(msg.get("content")), stamp)
    if role == "assistant":
        return _assistant(index, msg, stamp)
    if role == "toolResult":
        result = ToolResult(text_of(msg.get("content")), msg.get("toolCallId"), bool(msg.get("isError")))
        return Entry(index, "tool", "", stamp, tool_results=(result,), injected=True)
    if role == "bashExecution":
        bang = "!!" if msg.get("excludeFromContext") else "!"  # `!!`: shown to the user only
        text = f"{bang}{text_of(msg.get('command'))}\n\n{text_of(msg.get('output'))}"
        return Entry(index, "user", text, stamp, injected=True)
    if role in _CONTEXT_ROLES:
        text = text_of(msg.get("content")) if "content" in msg else text_of(msg.get("summary"))
        return Entry(index, "system", text, stamp, injected=True)
    stats.skip("unknown-role")
    return None


def _entry(index: int, obj: dict[str, Any], stats: ReadStats) -> Entry | None:
    kind = obj.get("type")
    stamp = parse_time(obj.get("timestamp"))
    if kind == "message":
        msg = obj.get("message")
        if not isinstance(msg, dict):
            stats.skip("no-message")
            return None
        return _message(index, msg, stamp or parse_time(msg.get("timestamp")), stats)
    if kind == "custom_message":
        return Entry(index, "system", text_of(obj.get("content")), stamp, injected=True)
    if kind in SUMMARIES:
        return Entry(index, "system", text_of(obj.get("summary")), stamp, injected=True)
    if kind in NO_CONVERSATION:
        stats.ignored += 1
    else:
        stats.skip("unknown-type")
    return None


def _copied(obj: dict[str, Any], forked_at: dt.datetime | None) -> bool:
    """A line a fork copied from its parent: written before the fork's header, by its own time."""
    stamp = parse_time(obj.get("timestamp"))
    return forked_at is not None and stamp is not None and stamp < forked_at


def entries(info: SessionInfo, stats: ReadStats, cursor: Cursor | None = None) -> Iterator[Entry]:
    """One entry a line at most, nothing carried from line to line: every line is a resume point."""
    forked_at = info.first_time if "forked_from" in info.extra else None  # the header's time
    for index, obj in json_objects(info.path, stats, cursor):
        if _copied(obj, forked_at):
            stats.ignored += 1  # the parent's entry, read in the parent's file
            entry = None
        else:
            entry = _entry(index, obj, stats)
        if entry is not None:
            yield entry
        if cursor is not None:
            cursor.mark()  # after the yield: the stream's counts include the entry


READER = Reader(describe, entries, resumable=True, claim_record=sniff)
