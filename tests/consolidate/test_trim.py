"""Old tool results give way to stubs, oldest first, and never the instructions or the latest turn."""

from __future__ import annotations

import json

from memcli.consolidate.budget import Budget
from memcli.consolidate.trim import fit
from memcli.llm import estimate_prompt


def _turn(call_id: str, name: str, args: dict, result: str) -> list[dict]:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    return [{"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": result}]


def _conversation() -> list[dict]:
    big = "x" * 3000
    return ([{"role": "system", "content": "rules " * 200}, {"role": "user", "content": "batch " * 300}]
            + _turn("a", "memory_read", {"path": "memory/decisions/a.md"}, big)
            + _turn("b", "memory_search", {"query": "sqlite wal"}, big)
            + _turn("c", "dispose", {"items": ["i1"], "action": "dropped", "reason": "r"}, "ok")
            + _turn("d", "memory_read", {"path": "memory/decisions/d.md"}, big))


def test_nothing_trimmed_when_it_fits():
    messages = _conversation()
    before = json.dumps(messages)
    assert fit(messages, [], estimate_prompt(messages, {}) + 1) == 0
    assert json.dumps(messages) == before


def test_oldest_results_first_until_it_fits():
    messages = _conversation()
    size = estimate_prompt(messages, {})
    assert fit(messages, [], size - 500) == 1  # one big result is enough
    assert messages[3]["content"] == (
        '[trimmed to fit the context window: the result of memory_read {"path": "memory/decisions/a.md"}; '
        "make the call again if you need it]")
    assert messages[5]["content"] == "x" * 3000
    assert estimate_prompt(messages, {}) < size - 500


def test_instructions_and_latest_turn_stay_whole():
    messages = _conversation()
    kept = [dict(m) for m in messages]
    fit(messages, [], 10)  # cannot fit: everything that may go, goes
    assert messages[:2] == kept[:2]  # system prompt and user instructions
    assert messages[-2:] == kept[-2:]  # the latest turn: its call and its result
    assert messages[3]["content"].startswith("[trimmed") and messages[5]["content"].startswith("[trimmed")
    assert messages[7]["content"] == "ok"  # a short result stays: its stub would be longer


def test_old_long_call_arguments_shortened_last():
    messages = _conversation()
    write = _turn("w", "memory_write", {"path": "memory/decisions/w.md", "content": "y" * 2000}, "ok")
    messages[2:2] = write
    fit(messages, [], 10)
    args = json.loads(messages[2]["tool_calls"][0]["function"]["arguments"])
    assert args["path"] == "memory/decisions/w.md" and args["content"].startswith("[2000 characters, trimmed")
    latest = json.loads(messages[-2]["tool_calls"][0]["function"]["arguments"])
    assert latest == {"path": "memory/decisions/d.md"}


def test_budget_arithmetic():
    small, large = Budget(8192, 3000), Budget(128000, 3000)
    assert (small.answer, small.traffic, small.input) == (1024, 1024, 8192 - 3000 - 2048)
    assert (large.answer, large.traffic, large.input) == (16000, 8192, 128000 - 3000 - 16000 - 8192)
    assert small.conversation == 8192 - 1024


def _narrating(turns: int, text: str) -> tuple[list[dict], list[dict]]:
    """Instructions, then `turns` text-only replies each answered by a nudge, then a GC message."""
    messages = [{"role": "system", "content": "rules " * 200}, {"role": "user", "content": "batch " * 300}]
    nudges = []
    for _ in range(turns):
        nudges.append({"role": "user", "content": "You replied with text only; text changes nothing. " * 2})
        messages += [{"role": "assistant", "content": text}, nudges[-1]]
    messages.append({"role": "user", "content": "Phase 2: tidy " * 50})  # an instruction, not a nudge
    return messages + _turn("z", "memory_read", {"path": "memory/summary.md"}, "s" * 900), nudges


def test_narration_and_nudges_give_way_oldest_first_instructions_stay():
    messages, nudges = _narrating(3, "I will now read the decisions. " * 80)
    kept = [dict(m) for m in messages]
    fit(messages, [], estimate_prompt(messages, {}) - 700, nudges)
    assert messages[2]["content"] == "[trimmed to fit the context window: 2480 characters of your text]"
    assert messages[3:] == kept[3:]  # the oldest reply was enough: the rest stays as it was
    fit(messages, [], 10, nudges)  # cannot fit: everything older than the latest turn gives way
    assert all(m["content"].startswith("[trimmed") for m in messages[2:-3])
    assert [m["content"] for m in messages[:2]] == [kept[0]["content"], kept[1]["content"]]
    assert messages[-3] == kept[-3]  # the GC phase's instructions are not a nudge
    assert messages[-2:] == kept[-2:]  # the latest turn and its result


def test_many_empty_replies_fold_into_one_pair():
    messages, nudges = _narrating(40, "")
    before = estimate_prompt(messages, {})
    fit(messages, [], 10, nudges)
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "user", "user", "assistant", "tool"]
    assert messages[2]["content"].startswith("[trimmed to fit the context window: earlier replies")
    assert estimate_prompt(messages, {}) < before - 40 * 20
    # folding again changes nothing: the stubs do not pile up call after call
    again = [dict(m) for m in messages]
    messages.insert(4, {"role": "assistant", "content": ""})
    messages.insert(5, {"role": "user", "content": "You replied with text only. " * 3})
    fit(messages, [], 10, [messages[5]])
    assert messages == again
