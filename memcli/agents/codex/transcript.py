"""OpenAI Codex CLI's transcripts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.

Every line is `{"timestamp", "type", "payload"}`. Mapping (one entry per line):
- `event_msg/user_message` is the human's prompt (role user). The same text also arrives as a
  `response_item` user message next to it; that duplicate is dropped (ignored) so a prompt counts
  once. A `response_item` user message with no matching `user_message` (older rollouts) is kept.
- `response_item` user messages that carry AGENTS.md, `<environment_context>` and similar wrappers,
  and `developer` messages, are injected (role user / system).
- assistant `message` → assistant (`phase: final_answer` → final); `function_call` / `custom_tool_call`
  / `web_search_call` / `local_shell_call` → assistant with one tool call (JSON-string arguments parsed;
  an MCP tool's `namespace`, Codex 0.171's `mcp__<server>`, joins its name: `mcp__memcli__memcli_search`);
  `*_output` → role tool with one result, injected.
- Codex 0.171 writes no `user_message` event: the prompt is the `response_item` user message alone.
- `session_meta` describes the session (its `git`: the branch and commit at the start);
  `session_meta`, `turn_context`, `world_state`, `token_usage_record`, `reasoning`, the other known
  `event_msg`s (agent_message duplicates the assistant message; token_count feeds the token total) are
  ignored; a `response_item` or `event_msg` type memcli does not know is counted as skipped
  (`unknown-response_item` / `unknown-event_msg`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.parts import Reader
from memcli.transcript.base import json_objects, parse_time, text_of, tool_arguments
from memcli.transcript.model import Entry, ReadStats, SessionInfo, ToolCall, ToolResult
from memcli.transcript.resume import Cursor

NAME = "codex"  # as the declaration (__init__) names it
# world_state and token_usage_record: since Codex 0.171 (the tool world for the turn; per-request usage,
# which token_count events repeat)
KINDS = {"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state",
         "token_usage_record"}
_INJECTED = re.compile(
    r"^\s*(# AGENTS\.md instructions|<(environment_context|user_instructions|permissions instructions|"
    r"user_shell_command|turn_aborted|INSTRUCTIONS)\b)"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_CALLS = {"function_call", "custom_tool_call", "web_search_call", "local_shell_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output"}
# Types read and deliberately ignored (nothing a memory needs, or a duplicate of another line). A type
# in neither list is counted as skipped, like an unknown top-level type: a newer Codex that starts
# writing something new shows up in `memcli sessions` instead of vanishing silently.
_IGNORED_ITEMS = {"reasoning", "ghost_snapshot", "compaction", "compaction_summary", "other"}
_IGNORED_EVENTS = {
    "agent_message", "agent_message_delta", "agent_reasoning", "agent_reasoning_delta",
    "agent_reasoning_raw_content", "agent_reasoning_raw_content_delta", "agent_reasoning_section_break",
    "token_count", "task_started", "task_complete", "turn_aborted", "turn_diff", "plan_update",
    "session_configured", "shutdown_complete", "background_event", "stream_error", "error", "warning",
    "exec_command_begin", "exec_command_output_delta", "exec_command_end", "exec_approval_request",
    "apply_patch_approval_request", "patch_apply_begin", "patch_apply_end", "mcp_tool_call_begin",
    "mcp_tool_call_end", "web_search_begin", "web_search_end", "view_image_tool_call",
    "entered_review_mode", "exited_review_mode", "context_compacted", "item_started", "item_completed",
    "raw_response_item", "undo_started", "undo_completed", "deprecation_notice", "user_shell_command",
    "get_history_entry_response", "mcp_list_tools_response", "list_custom_prompts_response",
    "conversation_path", "mcp_startup_update", "mcp_startup_complete", "thread_settings_applied",
}


def sniff(obj: dict[str, Any]) -> bool:
    return obj.get("type") in KINDS and isinstance(obj.get("payload"), dict)


def describe(path: Path, head: list[dict[str, Any]]) -> list[SessionInfo]:
    meta: dict[str, Any] = next((o["payload"] for o in head if o.get("type") == "session_meta"), {})
    match = _UUID.search(path.stem)
    fallback = match.group(0) if match else path.stem
    session_id = meta["id"] if isinstance(meta.get("id"), str) else fallback
    first = parse_time(meta.get("timestamp")) or next(
        (t for o in head if (t := parse_time(o.get("timestamp")))), None)
    extra = {k: meta[k] for k in ("originator", "cli_version", "source", "model_provider") if k in meta}
    if isinstance(meta.get("git"), dict):
        extra["git"] = meta["git"]
    cwd = got if isinstance(got := meta.get("cwd"), str) else None
    git = got if isinstance(got := meta.get("git"), dict) else {}
    branch, commit = (v if isinstance(v, str) and v and v != "HEAD" else None
                      for v in (git.get("branch"), git.get("commit_hash")))
    return [SessionInfo(NAME, session_id, path, cwd=cwd, first_time=first, extra=extra, branch=branch,
                        commit=commit)]


def _call(payload: dict[str, Any]) -> ToolCall:
    kind = payload.get("type")
    call_id = payload.get("call_id") or payload.get("id")
    if kind == "function_call":
        name = str(payload.get("name", "?"))
        space = payload.get("namespace")  # an MCP server's tools: namespace mcp__memcli, name memcli_search
        if isinstance(space, str) and space and not name.startswith(space):
            name = f"{space}__{name}"
        return ToolCall(name, tool_arguments(payload.get("arguments")), call_id)
    if kind == "custom_tool_call":
        return ToolCall(str(payload.get("name", "?")), text_of(payload.get("input")), call_id)
    if kind == "web_search_call":
        action = payload.get("action")
        return ToolCall("web_search", action if isinstance(action, dict) else {}, call_id)
    action = payload.get("action")
    return ToolCall("local_shell", action if isinstance(action, dict) else text_of(action), call_id)


def _message(index: int, payload: dict[str, Any], stamp: Any) -> Entry | None:
    role = payload.get("role")
    text = text_of(payload.get("content"))
    if role == "assistant":
        return Entry(index, "assistant", text, stamp, final=payload.get("phase") == "final_answer")
    if role in ("developer", "system"):
        return Entry(index, "system", text, stamp, injected=True)
    if role == "user":
        return Entry(index, "user", text, stamp, injected=bool(_INJECTED.match(text)))
    return None


def _digest(text: str) -> str:
    return hashlib.sha1(text.strip().encode("utf-8", "replace")).hexdigest()[:16]


def entries(info: SessionInfo, stats: ReadStats, cursor: Cursor | None = None) -> Iterator[Entry]:
    """Resume points: after every line processed with no typed prompt pending; the digest of the
    last emitted prompt (its twin may follow) is carried across them."""
    pending: Entry | None = None  # a typed prompt as response_item, waiting for its user_message twin
    last_prompt: str | None = None  # digest of a user_message already emitted, whose twin may follow
    if cursor is not None and cursor.start is not None and cursor.start.carry:
        last_prompt = cursor.start.carry[0]
    for index, obj in json_objects(info.path, stats, cursor):
        if cursor is not None and pending is None:
            # the line before this one left nothing open (marked late, so skipped lines count in)
            cursor.mark_before((last_prompt,) if last_prompt is not None else ())
        kind, payload = obj.get("type"), obj.get("payload")
        if kind not in KINDS or not isinstance(payload, dict):
            stats.skip("unknown-type")
            continue
        stamp = parse_time(obj.get("timestamp"))
        sub = payload.get("type")
        entry: Entry | None = None
        if kind == "event_msg" and sub == "user_message":
            text = text_of(payload.get("message"))
            if pending is not None and pending.text.strip() == text.strip():
                stats.ignored += 1  # the response_item twin of this prompt
                pending = None
            entry, last_prompt = Entry(index, "user", text, stamp), _digest(text)
        elif kind == "response_item" and sub == "message":
            entry = _message(index, payload, stamp)
            if entry is not None and entry.role == "user" and not entry.injected:
                if last_prompt is not None and _digest(entry.text) == last_prompt:
                    stats.ignored += 1
                    last_prompt = None
                    continue
                if pending is not None:
                    yield pending
                pending = entry
                continue
            if entry is None:
                stats.skip("unknown-role")
                continue
        elif kind == "response_item" and sub in _CALLS:
            entry = Entry(index, "assistant", "", stamp, tool_calls=(_call(payload),))
        elif kind == "response_item" and sub in _OUTPUTS:
            result = ToolResult(text_of(payload.get("output")), payload.get("call_id"))
            entry = Entry(index, "tool", "", stamp, tool_results=(result,), injected=True)
        else:
            if kind == "event_msg" and sub == "token_count":
                _count_tokens(payload, stats)
            if (kind == "event_msg" and sub not in _IGNORED_EVENTS) or (
                    kind == "response_item" and sub not in _IGNORED_ITEMS):
                stats.skip(f"unknown-{kind}")
            else:
                stats.ignored += 1
            continue
        if pending is not None:
            yield pending
            pending = None
        if entry.role != "user":
            last_prompt = None
        yield entry
    if cursor is not None and pending is None:
        cursor.mark((last_prompt,) if last_prompt is not None else ())
    if pending is not None:
        yield pending


def _count_tokens(payload: dict[str, Any], stats: ReadStats) -> None:
    info = payload.get("info")
    total = info.get("total_token_usage") if isinstance(info, dict) else None
    value = total.get("total_tokens") if isinstance(total, dict) else None
    if isinstance(value, int):
        stats.tokens = max(stats.tokens, value)  # cumulative over the session


READER = Reader(describe, entries, resumable=True, claim_record=sniff)
