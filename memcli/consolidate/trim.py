"""Old tool traffic trimmed so each consolidation call fits the context window.

Before every model call: when the messages and tool schemas would take more than the budget's
`conversation` share, the oldest tool results are replaced by a one-line stub that says which call
they answered and that it can be made again; then, if that is not enough, the long text arguments
of old tool calls (a record the model wrote) are shortened the same way. Only turns before the latest
assistant turn are touched: the system prompt, every user message (instructions, the current batch)
and the latest turn's calls and results stay whole. When even that does not fit, the call goes out
as is and the gateway refuses it cleanly (the run fails and staging is kept).
"""

from __future__ import annotations

import json
from typing import Any

STUB = "[trimmed to fit the context window: the result of {call}; make the call again if you need it]"
_LONG = 200  # characters: a tool-call argument longer than this is worth shortening


def _calls(messages: list[dict[str, Any]]) -> dict[str, str]:
    """tool_call_id → `name(short arguments)`, for the stubs."""
    out = {}
    for msg in messages:
        for call in msg.get("tool_calls") or []:
            fn = call.get("function", {})
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                args = {}
            shown = {k: v for k, v in args.items() if isinstance(v, str | int) and len(str(v)) <= 80} \
                if isinstance(args, dict) else {}
            out[call.get("id", "")] = f"{fn.get('name', '?')} {json.dumps(shown, ensure_ascii=False)}"
    return out


def _shorten(arguments: str) -> str:
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return arguments
    if not isinstance(args, dict):
        return arguments
    for key, value in args.items():
        if isinstance(value, str) and len(value) > _LONG:
            args[key] = f"[{len(value)} characters, trimmed to fit the context window; memory_read shows it]"
    return json.dumps(args, ensure_ascii=False)


def fit(messages: list[dict[str, Any]], tools: list[dict[str, Any]], limit: int) -> int:
    """Trim `messages` in place until they and `tools` take fewer than `limit` tokens (the gateway's
    estimate); returns how many messages were trimmed."""
    from memcli.llm import estimate_prompt

    total = estimate_prompt(messages, {"tools": tools})
    if total < limit:
        return 0
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=0)
    calls = _calls(messages)
    trimmed = 0
    for i in range(last):  # oldest first; the latest assistant turn and its results stay
        msg = messages[i]
        if msg.get("role") != "tool" or str(msg.get("content", "")).startswith("[trimmed"):
            continue
        stub = {**msg, "content": STUB.format(call=calls.get(msg.get("tool_call_id", ""), "an earlier call"))}
        saved = estimate_prompt([msg], {}) - estimate_prompt([stub], {})
        if saved <= 0:
            continue  # a short result stays: its stub would not be shorter
        messages[i] = stub
        total -= saved
        trimmed += 1
        if total < limit:
            return trimmed
    for i in range(last):
        msg = messages[i]
        if msg.get("role") != "assistant" or not msg.get("tool_calls"):
            continue
        before = estimate_prompt([msg], {})
        for call in msg["tool_calls"]:
            call["function"]["arguments"] = _shorten(call["function"].get("arguments", ""))
        after = estimate_prompt([msg], {})
        if after < before:
            total += after - before
            trimmed += 1
            if total < limit:
                break
    return trimmed
