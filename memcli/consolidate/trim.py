"""Old turns trimmed so each consolidation call fits the context window: prompt + answer ≤ window.

Before every model call, when the messages and tool schemas would take more than the budget's
`conversation` share (the window less the answer's room), everything older than the latest turn
gives way, oldest first, to a one-line stub: tool results (the stub says which call they answered
and that it can be made again), the model's own text (narration, or a tool call printed as text)
and memcli's nudges answering it. Then the long text arguments of old tool calls (a record the model
wrote) are shortened the same way, and runs of text-only turns already stubbed fold into one pair,
so a model that replies with text or nothing sixty times costs a few tokens, not sixty nudges.
The system prompt, the instructions (the first user message with the current batch, the GC phase's
and the repair turns' messages) and the latest turn with its results or nudge stay whole.

What still does not fit is the gateway's to settle: it shrinks `max_tokens` to what is left down
to a floor (memcli.llm), and refuses the call below that; `diagnose` then says what filled the
window, for the run's error.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from memcli.llm import estimate_prompt

STUB = "[trimmed to fit the context window: the result of {call}; make the call again if you need it]"
TEXT_STUB = "[trimmed to fit the context window: {n} characters of your text]"
NUDGE_STUB = "[trimmed: memcli's reminder that text changes nothing; make tool calls]"
FOLDED = "[trimmed to fit the context window: earlier replies of yours without a tool call]"
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


def _trimmed(msg: dict[str, Any]) -> bool:
    return str(msg.get("content") or "").startswith("[trimmed")


def _stub(msg: dict[str, Any], calls: dict[str, str], nudges: set[int]) -> dict[str, Any] | None:
    """The stub that stands for an old message, or None when it is not one that gives way."""
    if _trimmed(msg):
        return None
    role, text = msg.get("role"), str(msg.get("content") or "")
    if role == "tool":
        return {**msg, "content": STUB.format(call=calls.get(msg.get("tool_call_id", ""), "an earlier call"))}
    if role == "assistant" and text:
        return {**msg, "content": TEXT_STUB.format(n=len(text))}
    if role == "user" and id(msg) in nudges:
        return {"role": "user", "content": NUDGE_STUB}
    return None


def _text_only(msg: dict[str, Any]) -> bool:
    return msg.get("role") == "assistant" and not msg.get("tool_calls") and (
        not msg.get("content") or _trimmed(msg))


def _fold(messages: list[dict[str, Any]], last: int) -> int:
    """Runs of stubbed (text-only reply, nudge) pairs before `last` become one pair; returns how
    many messages went. Pairs keep the roles alternating, as strict chat templates require."""
    def pair_at(i: int) -> bool:
        return i + 1 < last and _text_only(messages[i]) and messages[i + 1].get("role") == "user" \
            and _trimmed(messages[i + 1])

    out: list[dict[str, Any]] = []
    i = 0
    while i < last:
        run = 0
        while pair_at(i + 2 * run):
            run += 1
        if run >= 2:
            out += [{"role": "assistant", "content": FOLDED}, {"role": "user", "content": NUDGE_STUB}]
            i += 2 * run
        else:
            out.append(messages[i])
            i += 1
    removed = last - len(out)
    messages[:last] = out
    return removed


def _latest(messages: list[dict[str, Any]]) -> int:
    return max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=0)


def fit(messages: list[dict[str, Any]], tools: list[dict[str, Any]], limit: int,
        nudges: Collection[dict[str, Any]] = ()) -> int:
    """Trim `messages` in place until they and `tools` take at most `limit` tokens (the gateway's
    estimate), or nothing older than the latest turn is left to trim; returns how many messages
    were trimmed. `nudges`: the user messages that are memcli's nudges (they may give way; every
    other user message is an instruction and stays)."""

    total = estimate_prompt(messages, {"tools": tools})
    if total <= limit:
        return 0
    last = _latest(messages)
    calls = _calls(messages)
    ids = {id(m) for m in nudges}
    trimmed = 0
    for i in range(last):  # oldest first; the latest assistant turn and its results stay
        stub = _stub(messages[i], calls, ids)
        if stub is None:
            continue
        saved = estimate_prompt([messages[i]], {}) - estimate_prompt([stub], {})
        if saved <= 0:
            continue  # a short message stays: its stub would not be shorter
        messages[i] = stub
        total -= saved
        trimmed += 1
        if total <= limit:
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
            if total <= limit:
                return trimmed
    return trimmed + _fold(messages, last)


def diagnose(messages: list[dict[str, Any]], tools: list[dict[str, Any]], window: int, floor: int,
             nudges: Collection[dict[str, Any]] = ()) -> str:
    """Why a trimmed conversation still leaves less than `floor` tokens of `window` for the answer:
    the model's narration, tool traffic, one item too large, or the instructions and input."""

    def size(msgs: list[dict[str, Any]], with_tools: bool = False) -> int:
        return estimate_prompt(msgs, {"tools": tools} if with_tools else {})

    last = _latest(messages)
    ids = {id(m) for m in nudges}
    groups: dict[str, list[dict[str, Any]]] = {"fixed": [], "traffic": [], "said": []}
    for msg in messages[:last]:
        if msg.get("role") == "tool" or msg.get("tool_calls"):
            groups["traffic"].append(msg)
        elif msg.get("role") == "assistant" or id(msg) in ids or msg.get("content") == NUDGE_STUB:
            groups["said"].append(msg)
        else:
            groups["fixed"].append(msg)  # the system prompt and the instructions
    parts = {"instructions and input": size(groups["fixed"], True), "earlier tool traffic":
             size(groups["traffic"]), "the model's earlier narration": size(groups["said"]),
             "the latest turn": size(messages[last:])}
    total = size(messages, True)
    cause = _cause(messages[last:], parts, window - floor)
    shares = ", ".join(f"{name} ~{n}" for name, n in parts.items() if n)
    return (f"{cause} filled the context window ({window} tokens) even after trimming: the next call's "
            f"prompt is about {total} tokens ({shares}), leaving {max(window - total, 0)} for the answer, "
            f"less than the {floor} it needs; staging is kept")


def _cause(turn: list[dict[str, Any]], parts: dict[str, int], room: int) -> str:
    if parts["instructions and input"] >= room:
        return ("the instructions and input (memory.context_tokens sets the window; a model with a larger "
                "one fits more)")
    worst = max(("the latest turn", "earlier tool traffic", "the model's earlier narration"),
                key=parts.__getitem__)
    if worst == "the model's earlier narration":
        return "the model's narration (its replies without a tool call and memcli's answers to them)"
    if worst == "earlier tool traffic":
        return "tool traffic (the earlier tool calls and their results, even trimmed to stubs)"
    head = turn[0] if turn else {}
    if not head.get("tool_calls"):
        return f"the model's narration (its last reply alone is about {estimate_prompt([head], {})} tokens)"
    calls = _calls(turn)
    sized = [(estimate_prompt([m], {}), f"the result of {calls.get(m.get('tool_call_id', ''), 'a call')}")
             for m in turn if m.get("role") == "tool"]
    sized.append((estimate_prompt([head], {}), "the model's last reply and its call arguments"))
    biggest, what = max(sized)
    if biggest * 2 >= parts["the latest turn"]:
        return f"one item too large ({what} is about {biggest} tokens)"
    return (f"tool traffic (the latest turn's {len(sized) - 1} tool results take about "
            f"{parts['the latest turn']} tokens)")
