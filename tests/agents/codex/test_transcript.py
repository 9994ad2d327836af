"""Codex CLI's real rollouts (tests/fixtures/transcripts/codex), read as a person reading them would
expect: exactly the typed prompts, tool calls paired with their outputs, injected context flagged."""

from __future__ import annotations

import json
from pathlib import Path

from support.transcripts import FIX, assert_indices_are_lines, assert_paired, prompts, read

CODEX = FIX / "codex" / "codemie-ai__codemie-code" / (
    "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
CODEX_171 = FIX / "codex" / "memcli-e2e" / (
    "rollout-2026-12-01T16-28-59-01a23270-2195-7373-8aab-88da5a3bd4a7.jsonl")


def test_codex_rollout_prompts_are_exactly_the_typed_ones() -> None:
    info, entries, stats = read(CODEX)
    assert (info.agent, info.session_id) == ("codex", "019e1625-789d-76c0-80ab-3724b5ddb799")
    assert info.cwd == "/Users/Sample_User/repos/codemie-ai/codemie-code"
    assert prompts(entries) == [(6, "show tools"),
                                (22, "let's update the defailt context compart to 90 in env var")]
    by_index = {e.index: e for e in entries}
    assert 5 not in by_index and 21 not in by_index  # the response_item twins of the prompts
    assert by_index[2].role == "system" and by_index[2].injected  # developer permissions
    assert by_index[3].role == "user" and by_index[3].injected
    assert by_index[3].text.startswith("# AGENTS.md instructions")
    assert [e.index for e in entries if e.final] == [16, 383]
    call = by_index[8].tool_calls[0]
    assert call.name == "exec_command" and isinstance(call.arguments, dict) and "cmd" in call.arguments
    patches = [c for e in entries for c in e.tool_calls if c.name == "apply_patch"]
    assert len(patches) == 3 and all(p.arguments.startswith("*** Begin Patch") for p in patches)
    assert sum(1 for e in entries for c in e.tool_calls if c.name == "web_search") == 3
    assert stats.skipped == 0 and stats.tokens > 0
    assert_paired([e for e in entries if not any(c.name == "web_search" for c in e.tool_calls)])
    assert_indices_are_lines(CODEX, entries)


def test_codex_0171_rollout_from_the_e2e_suite() -> None:
    """Codex 0.171 (tests/e2e/test_codex.py): no user_message event, new top-level kinds
    (world_state, token_usage_record), MCP calls named by namespace + function; none is skipped."""
    info, entries, stats = read(CODEX_171)
    assert (info.session_id, info.extra["cli_version"]) == ("01a23270-2195-7373-8aab-88da5a3bd4a7", "0.171.0")
    assert prompts(entries) == [(8, "how do I restore last night's backup?")]
    by_index = {e.index: e for e in entries}
    assert by_index[7].role == "system" and by_index[7].injected  # memcli's SessionStart context
    assert by_index[7].text.startswith("# Project memory")
    calls = [(c.name, c.arguments) for e in entries for c in e.tool_calls]
    remembered = {"kind": "decision", "text": "Keep thirty days of nightly SQLite backups on the NAS.",
                  "why": "the NAS holds a month"}
    assert calls == [("mcp__memcli__memcli_search", {"query": "restore the nightly backup"}),
                     ("mcp__memcli__memcli_remember", remembered)]
    assert "restore-nightly-backup" in by_index[13].tool_results[0].content
    assert [e.text for e in entries if e.role == "assistant" and e.text] == ["Done."]
    assert stats.skipped == 0 and stats.tokens == 330
    assert_paired(entries)
    assert_indices_are_lines(CODEX_171, entries)


def test_codex_environment_context_and_reverse_order_twins(tmp_path: Path) -> None:
    """Synthetic lines for what the sample lacks: <environment_context>, and the user_message event
    arriving before its response_item twin (both orders appear across Codex versions)."""

    def line(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload})

    def user(text: str) -> dict:
        return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}

    rows = [
        line("session_meta", {"id": "s-1", "cwd": "/w"}),
        line("response_item", user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>")),
        line("event_msg", {"type": "user_message", "message": "fix the bug"}),
        line("response_item", user("fix the bug")),
        line("response_item", user("an older rollout without events")),
        line("response_item", {"type": "function_call", "name": "sh", "arguments": "{x", "call_id": "c"}),
    ]
    path = tmp_path / "rollout-x.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    _info, entries, stats = read(path)
    assert [(e.index, e.role, e.injected) for e in entries] == [
        (1, "user", True), (2, "user", False), (4, "user", False), (5, "assistant", False)]
    assert prompts(entries) == [(2, "fix the bug"), (4, "an older rollout without events")]
    assert entries[-1].tool_calls[0].arguments == "{x"  # kept as the string it was
    assert stats.ignored == 2  # session_meta and the twin
