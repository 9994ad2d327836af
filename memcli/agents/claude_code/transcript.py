"""Claude Code's transcripts: `~/.claude/projects/<encoded-cwd>/<session>.jsonl`, one record a line.

Mapping (see docs/sessions.md):
- One API response is written as several `assistant` lines sharing `message.id` (one content block
  each). They become ONE entry: `index` = its first line, `end` = its last line, text / thinking /
  tool calls joined in order, tokens = the response's usage counted once. Lines of other kinds
  in between (progress, snapshots) do not break the merge; a user line or another response does.
- `user` lines with `tool_result` blocks are role "tool", injected. `isMeta` text, local command
  output, interrupts and a subagent's prompt are role "user" but injected (not the human's words).
  A slash command is the human's: `<command-name>/x</command-name><command-args>a</command-args>` → "/x a".
- `attachment` lines (2.1.x: hook output, environment, tool listings, ...) are context Claude Code
  adds, not said by anyone: ignored, except `queued_command`, a prompt the user typed while the
  agent was busy, which is role "user" (injected when Claude Code marks it meta or it came from
  elsewhere: a task notification, a plugin, another agent).
- The other kinds carry no conversation (`summary`, `system`, `progress`, snapshots, titles, request
  shapes, costs; the full list of 2.1.332 is NO_CONVERSATION): ignored, counted as ignored. A kind
  missing from it is counted as skipped, an unknown kind: a newer Claude Code's format change shows.
- The title is the last `custom-title` (the user's), else `ai-title`, else the first `summary`.
- Every line names the git branch checked out then (`gitBranch`; "HEAD" when detached): it
  becomes the entry's `branch` (a response's: its first line's).
- Subagent files (`agent-<id>.jsonl` beside the session, or `<session>/subagents/agent-<id>.jsonl`)
  are sessions of their own, id `<parent session>/agent-<id>`; all their entries are sidechain.
- A fork (`--fork-session`) begins with its parent's conversation copied: those lines are read in
  the parent's file, not again here (fork.py).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.claude_code.fork import copied_uuids
from memcli.agents.parts import Reader
from memcli.transcript.base import json_objects, parse_time, text_of
from memcli.transcript.model import Entry, ReadStats, SessionInfo, ToolCall, ToolResult
from memcli.transcript.resume import Cursor

NAME = "claude-code"  # as the declaration (__init__) names it
CONVERSATION = {"user", "assistant", "attachment"}
# every other line kind Claude Code 2.1.332 writes (from its transcript loader's table of kinds)
NO_CONVERSATION = {
    "summary", "system", "progress", "file-history-snapshot", "file-history-delta", "queue-operation",
    "last-prompt", "api-request", "api-request-resumed", "api-request-shape", "api-request-blob",
    "frame-link", "observer-ref", "continued-in", "resume-head-vouch", "attribution-snapshot",
    "custom-title", "ai-title", "tag", "relocated", "agent-name", "agent-color", "agent-setting", "mode",
    "permission-mode", "session-owner", "isolation-latch", "dev-mods", "atis-latch", "worktree-state",
    "bridge-session", "tools-used", "data-flow-records", "data-flow-incomplete", "derived-from", "pr-link",
    "history-suppression", "ended-by-model", "cost-state", "content-replacement", "memory-mode",
    "artifact-comment-monitor", "artifact-autoreact-ledger", "fork-context-ref", "repl-mode",
    "hybrid-organization", "host-row",
}
_HUMAN_ORIGINS = {None, "human", "person", "composer", "voice-call", "remote"}  # who typed a queued prompt
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_INJECTED_PREFIXES = ("<local-command-stdout>", "<local-command-stderr>", "Caveat: The messages below",
                      "[Request interrupted by user", "<system-reminder>", "<user-prompt-submit-hook>")


def sniff(obj: dict[str, Any]) -> bool:
    kind = obj.get("type")
    if kind in ("user", "assistant"):
        return isinstance(obj.get("message"), dict) and ("uuid" in obj or "sessionId" in obj)
    if kind == "attachment":
        return isinstance(obj.get("attachment"), dict) and ("uuid" in obj or "sessionId" in obj)
    return kind in NO_CONVERSATION and any(k in obj for k in ("leafUuid", "messageId", "sessionId", "uuid"))


def session_id_for(path: Path, record_session: str | None) -> tuple[str, str | None]:
    """(session id, parent session id) for a main or subagent file."""
    stem = path.stem
    if not stem.startswith("agent-"):
        return stem, None
    if path.parent.name == "subagents":  # 2.1.x: <session>/subagents/agent-<id>.jsonl
        parent = path.parent.parent.name
    else:  # 2.0.x: agent-<id>.jsonl next to the session file; its records name the parent
        parent = record_session or "unknown"
    return f"{parent}/{stem}", parent


def describe(path: Path, head: list[dict[str, Any]]) -> list[SessionInfo]:
    record_session = next((o["sessionId"] for o in head if isinstance(o.get("sessionId"), str)), None)
    cwd = next((o["cwd"] for o in head if isinstance(o.get("cwd"), str)), None)
    branch = next((b for o in head if (b := _branch(o))), None)
    first = next((t for o in head if (t := parse_time(o.get("timestamp")))), None)
    title = _title(head)
    session_id, parent = session_id_for(path, record_session)
    extra: dict[str, Any] = {}
    if parent:
        extra["parent"] = parent
    if title:
        extra["title"] = title
    if record_session and record_session != session_id and not parent:
        extra["recorded_session_id"] = record_session
    return [SessionInfo(NAME, session_id, path, cwd=cwd, first_time=first, extra=extra, branch=branch)]


def _title(head: list[dict[str, Any]]) -> str | None:
    for kind, key in (("custom-title", "customTitle"), ("ai-title", "aiTitle")):
        named = [o[key] for o in head if o.get("type") == kind and isinstance(o.get(key), str) and o[key]]
        if named:
            return named[-1]
    summaries = (o.get("summary") for o in head if o.get("type") == "summary")
    return next((text for text in summaries if isinstance(text, str)), None)


class _Response:
    """The lines of one API response, merged into one entry."""

    def __init__(self, index: int, obj: dict[str, Any], msg: dict[str, Any], sidechain: bool) -> None:
        self.index = self.end = index
        self.message_id = msg.get("id")
        self.timestamp = parse_time(obj.get("timestamp"))
        self.sidechain = sidechain
        self.branch = _branch(obj)
        self.texts: list[str] = []
        self.thinking: list[str] = []
        self.calls: list[ToolCall] = []
        self.tokens: int | None = None
        self.final = False
        self.add(index, msg)

    def add(self, index: int, msg: dict[str, Any]) -> None:
        self.end = index
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
                self.texts.append(block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                self.thinking.append(block["thinking"])
            elif kind == "tool_use":
                args = block.get("input")
                self.calls.append(ToolCall(str(block.get("name", "?")), args if isinstance(args, dict) else
                                           text_of(args), block.get("id")))
        tokens = _usage(msg.get("usage"))
        if tokens is not None:  # every part repeats the usage; the last is the most complete
            self.tokens = max(tokens, self.tokens or 0)
        if msg.get("stop_reason") == "end_turn":
            self.final = True

    def build(self, counted: deque[str]) -> Entry:
        tokens = self.tokens
        if self.message_id and self.message_id in counted:
            tokens = None  # a response split around other lines: its usage is counted once
        elif self.message_id:
            counted.append(self.message_id)
        # Claude Code loops while the model calls tools, so a response with text and no tool call
        # ends its turn (1.0.x logs no stop_reason to say so).
        final = self.final or (bool(self.texts) and not self.calls)
        return Entry(self.index, "assistant", "\n\n".join(self.texts), self.timestamp,
                     tool_calls=tuple(self.calls), sidechain=self.sidechain, final=final, tokens=tokens,
                     end=self.end if self.end != self.index else None, thinking="\n\n".join(self.thinking),
                     branch=self.branch)


def _branch(obj: dict[str, Any]) -> str | None:
    name = obj.get("gitBranch")
    return name if isinstance(name, str) and name and name != "HEAD" else None


def _usage(usage: Any) -> int | None:
    if not isinstance(usage, dict):
        return None
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    values = [usage.get(k) for k in keys]
    numbers = [v for v in values if isinstance(v, int)]
    return sum(numbers) if numbers else None


def _user_entry(index: int, obj: dict[str, Any], msg: dict[str, Any], sidechain: bool) -> Entry:
    content = msg.get("content")
    stamp = parse_time(obj.get("timestamp"))
    results: list[ToolResult] = []
    texts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.append(ToolResult(text_of(block.get("content")), block.get("tool_use_id"),
                                          bool(block.get("is_error"))))
            elif isinstance(block, dict | str):
                texts.append(text_of([block]))
    else:
        texts.append(text_of(content))
    text = "\n\n".join(t for t in texts if t)
    if results:
        return Entry(index, "tool", text, stamp, tool_results=tuple(results), injected=True,
                     sidechain=sidechain, branch=_branch(obj))
    command = _COMMAND.search(text)
    if command:
        args = _ARGS.search(text)
        text = f"{command.group(1).strip()} {args.group(1).strip() if args else ''}".strip()
    # isCompactSummary: the summary Claude Code writes as a user message after compacting context
    injected = (bool(obj.get("isMeta")) or bool(obj.get("isCompactSummary")) or sidechain
                or text.lstrip().startswith(_INJECTED_PREFIXES))
    return Entry(index, "user", text, stamp, injected=injected, sidechain=sidechain, branch=_branch(obj))


def _queued_prompt(index: int, obj: dict[str, Any], sidechain: bool) -> Entry | None:
    """A prompt typed while the agent worked (attachment `queued_command`), or None for other attachments."""
    att = obj.get("attachment")
    if not isinstance(att, dict) or att.get("type") != "queued_command":
        return None
    text = text_of(att.get("prompt"))
    if not text:
        return None
    origin = att.get("origin")
    who = origin.get("kind") if isinstance(origin, dict) else None
    injected = bool(att.get("isMeta")) or who not in _HUMAN_ORIGINS or sidechain
    return Entry(index, "user", text, parse_time(obj.get("timestamp") or att.get("timestamp")),
                 injected=injected, sidechain=sidechain, branch=_branch(obj))


def entries(info: SessionInfo, stats: ReadStats, cursor: Cursor | None = None) -> Iterator[Entry]:
    """Resume points: every line boundary where no response is open. A response still open at the
    end of what was read may go on in lines appended later, so a resumed read starts at its first
    line and yields it whole; the ids whose usage was counted are carried across the point."""
    side_file = "parent" in info.extra
    copied = frozenset() if side_file else copied_uuids(info.path, info.session_id)
    pending: _Response | None = None
    start = cursor.start if cursor is not None else None
    counted: deque[str] = deque(start.carry if start else (), maxlen=256)
    for index, obj in json_objects(info.path, stats, cursor):
        if cursor is not None and pending is None:
            cursor.mark_before(tuple(counted))  # marked late, so skipped lines before count in
        kind = obj.get("type")
        if kind not in CONVERSATION:
            if kind in NO_CONVERSATION:
                stats.ignored += 1
            else:
                stats.skip("unknown-type")
            continue
        if copied and obj.get("uuid") in copied:
            stats.ignored += 1  # the parent's line, read in the parent's file
            continue
        sidechain = side_file or bool(obj.get("isSidechain"))
        if kind == "attachment":
            queued = _queued_prompt(index, obj, sidechain)
            if queued is None:
                stats.ignored += 1
                continue
            if pending is not None:
                yield pending.build(counted)
                pending = None
            yield queued
            continue
        msg = obj.get("message")
        if not isinstance(msg, dict):
            stats.skip("no-message")
            continue
        if kind == "assistant":
            if pending is not None and pending.message_id and pending.message_id == msg.get("id"):
                pending.add(index, msg)
                continue
            if pending is not None:
                yield pending.build(counted)
                if cursor is not None:
                    cursor.mark_before(tuple(counted))  # the new response opens at this line
            pending = _Response(index, obj, msg, sidechain)
            continue
        if pending is not None:
            yield pending.build(counted)
            pending = None
        yield _user_entry(index, obj, msg, sidechain)
    if cursor is not None and pending is None:
        cursor.mark(tuple(counted))
    if pending is not None:
        yield pending.build(counted)


READER = Reader(describe, entries, resumable=True, claim_record=sniff)
