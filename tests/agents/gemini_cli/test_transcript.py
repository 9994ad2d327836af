"""Gemini CLI's JSON sessions (before 0.61; tests/fixtures/transcripts/gemini-cli): an entry is a
message's position, tool calls carry their results (its JSONL sessions: test_transcript_jsonl.py)."""

from __future__ import annotations

from support.transcripts import FIX, assert_paired, prompts, read

from memcli.sessions import scan, sessions_in

GEMINI = FIX / "gemini-cli" / "codemie-ai__codemie-code" / "session-2026-01-16T11-01-file-ops-37b7abef.json"


def test_gemini_session_index_is_message_position() -> None:
    info, entries, stats = read(GEMINI)
    assert (info.agent, info.session_id) == ("gemini-cli", "37b7abef-713d-4522-85f0-8ff15a4e6d17")
    assert [e.index for e in entries] == list(range(14))
    assert [t for _, t in prompts(entries)] == [
        "show tools", "expore repository and figure out issues. focus on adaptability and security",
        "create hello.md file", "add 5 lines of random text", "remove 2 and 3 line"]
    explore = entries[3]
    assert explore.role == "assistant" and explore.text == "" and len(explore.tool_calls) == 9
    assert [r.call_id for r in explore.tool_results] == [c.call_id for c in explore.tool_calls]
    assert "delegate_to_agent" in [c.name for c in explore.tool_calls]
    assert entries[1].tokens == 5281
    assert [e.index for e in entries if e.final] == [1, 4, 7, 10, 13]
    assert stats.tokens == sum(e.tokens or 0 for e in entries)
    assert_paired(entries)


def test_gemini_logs_json_is_not_a_session() -> None:
    info = scan(sessions_in(GEMINI.parent / "logs.json")[0])
    assert info.entries == 0 and info.skipped > 0  # a JSON list of prompts: read, nothing taken
