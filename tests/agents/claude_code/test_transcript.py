"""Claude Code's real transcripts (tests/fixtures/transcripts/claude-code), read as a person reading
them would expect: the human prompts, responses merged across lines, tool calls paired with their
results, injected context flagged, sidechains and subagent files."""

from __future__ import annotations

import json
from pathlib import Path

from support.transcripts import FIX, assert_indices_are_lines, assert_paired, prompts, read

CC = FIX / "claude-code"
VIEWER = CC / "d-kimuson__claude-code-viewer" / "sample-project"
CODEMIE = CC / "codemie-ai__codemie-code"
E2E = CC / "memcli-e2e" / "0b8f9fe4-0dd1-41e4-a2b5-a05a4579fd35.jsonl"


def test_claude_init_session_1af7fc5e() -> None:
    path = VIEWER / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    info, entries, stats = read(path)
    assert (info.agent, info.session_id, info.cwd) == ("claude-code", path.stem, "/path/to/Demo")
    assert len(entries) == 21 and stats.skipped == 0 and stats.lines == 29
    assert prompts(entries) == [(0, "/init")]  # the slash command as typed, not its XML wrapper
    meta = entries[1]
    assert (meta.index, meta.role, meta.injected) == (1, "user", True)  # isMeta: the expanded /init prompt
    first = entries[2]
    assert first.span == (2, 3) and first.role == "assistant"  # one API response over two lines
    assert [c.name for c in first.tool_calls] == ["TodoWrite"] and first.text.startswith("I'll")
    glob_burst = next(e for e in entries if e.index == 5)
    assert glob_burst.span == (5, 9) and [c.name for c in glob_burst.tool_calls] == ["Bash"] + ["Glob"] * 4
    denied = next(e for e in entries if e.index == 25)
    assert denied.role == "tool" and denied.injected and denied.tool_results[0].is_error
    assert "permissions to write" in denied.tool_results[0].content
    assert [e.index for e in entries if e.final] == [28]
    assert_paired(entries)
    assert_indices_are_lines(path, entries)


def test_claude_japanese_orchestrator_5c0375b4_with_inline_sidechains() -> None:
    path = VIEWER / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    _info, entries, stats = read(path)
    assert len(entries) == 45 and stats.skipped == 0
    assert prompts(entries) == [(0, "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください")]
    side_lines = {line for e in entries if e.sidechain for line in range(e.span[0], e.span[1] + 1)}
    assert side_lines == set(range(15, 22)) | set(range(25, 40))  # the 22 inline isSidechain lines
    assert [e.index for e in entries if e.role == "user" and e.sidechain] == [15, 25]  # Task prompts
    assert all(e.injected for e in entries if e.role == "user" and e.sidechain)
    errors = {e.index: r.content for e in entries for r in e.tool_results if r.is_error}
    assert "InputValidationError" in errors[14] and "File has not been read yet" in errors[45]
    assert [c.name for c in next(e for e in entries if e.index == 48).tool_calls] == ["MultiEdit"]
    last = entries[-1]
    assert last.index == 52 and last.final and not last.sidechain and "CLAUDE.md" in last.text
    assert any("\u3040" <= ch <= "\u30ff" for ch in last.text)  # the final answer is in Japanese
    assert_paired(entries)
    assert_indices_are_lines(path, entries)


def test_claude_excerpt_fe5e1c67_summary_and_parallel_tasks() -> None:
    path = VIEWER / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    info, entries, stats = read(path)
    assert info.extra["title"] == "Empty Repo Setup: CLAUDE.md Foundation Created"
    assert stats.ignored == 1 and stats.skipped == 0  # the summary line: known, no conversation
    assert prompts(entries) == [(1, "/orchestrator create TODO app by Next.js")]
    tasks = next(e for e in entries if e.index == 11)
    assert tasks.span == (11, 14) and [c.name for c in tasks.tool_calls] == ["Task"] * 3
    assert [e.index for e in entries if e.role == "user" and e.sidechain] == [15, 37]
    assert entries[-1].index == 106 and entries[-1].sidechain
    assert_paired(entries, unanswered=3)  # the excerpt stops before the last results (see NOTICE)


def test_claude_2_0_session_4c2ddfdc_and_its_agent_files() -> None:
    path = CODEMIE / "-tmp-private" / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
    info, entries, stats = read(path)
    assert prompts(entries) == [(1, "create hello.py, md and js"), (14, "update py with one liner comment"),
                                (21, "delete js")]
    assert stats.ignored == 6  # file-history-snapshot lines
    assert entries[1].span == (2, 5) and [c.name for c in entries[1].tool_calls] == ["Write"] * 3
    assert [e.index for e in entries if e.final] == [12, 19, 24]
    assert_paired(entries)
    for agent_id in ("36541525", "50243ee8"):
        side, side_entries, _ = read(path.parent / f"agent-{agent_id}.jsonl")
        assert side.session_id == f"{info.session_id}/agent-{agent_id}"
        assert side.extra["parent"] == info.session_id
        assert [(e.role, e.sidechain, e.injected) for e in side_entries] == [
            ("user", True, True), ("assistant", True, False)]
        assert side_entries[0].text == "Warmup"


def test_claude_2_1_turn_2_thinking_system_lines_and_subagents_folder() -> None:
    path = CODEMIE / "incremental-subagents" / "turn-2.jsonl"
    info, entries, stats = read(path)
    assert info.session_id == "turn-2" and info.extra["recorded_session_id"].startswith("e9fb405b")
    assert prompts(entries)[0][0] == 2 and prompts(entries)[0][1].startswith('@"solution-architect (agent)"')
    assert len(prompts(entries)) == 1
    first = entries[1]
    assert first.span == (3, 5) and first.thinking and [c.name for c in first.tool_calls] == ["Task"]
    assert stats.ignored == 5  # summary, 2 snapshots, system stop_hook_summary + turn_duration
    assert entries[-1].span == (46, 47) and entries[-1].final
    assert_paired(entries)

    sub = CODEMIE / "incremental-subagents" / "turn-2" / "subagents" / "agent-a485154.jsonl"
    side, side_entries, side_stats = read(sub)
    assert side.session_id == "turn-2/agent-a485154" and side.extra["parent"] == "turn-2"
    assert len(side_entries) == 27 and all(e.sidechain for e in side_entries)
    merged = next(e for e in side_entries if e.index == 20)
    assert merged.span == (20, 24) and len(merged.tool_calls) == 4  # the progress line 22 sits inside
    assert side_stats.ignored == 1
    assert_paired(side_entries)


def test_claude_usage_counted_once_per_response() -> None:
    _info, entries, stats = read(CODEMIE / "-tmp-private" / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
    assistant = [e for e in entries if e.role == "assistant"]
    assert all(e.tokens and e.tokens > 0 for e in assistant)
    assert stats.tokens == sum(e.tokens for e in assistant)


def test_claude_2_1_332_session_from_the_e2e_suite_every_line_kind_known(tmp_path: Path) -> None:
    """Written by the pinned Claude Code in tests/e2e/test_claude_code.py: most lines are attachments
    and request records (ignored, not skipped), the conversation is the prompt and two MCP calls."""
    info, entries, stats = read(E2E)
    assert (info.session_id, info.cwd) == (E2E.stem, "/tmp/cc/e2e1/test_memory_reaches_claude_cod0/proj")
    assert stats.skipped == 0 and stats.ignored == 28 and stats.lines == 34
    assert prompts(entries) == [(3, "How do I restore last night's backup?")]
    assert [c.name for e in entries for c in e.tool_calls] == ["mcp__memcli__memcli_search",
                                                               "mcp__memcli__memcli_remember"]
    assert "restore-nightly-backup" in entries[2].tool_results[0].content
    assert [e.index for e in entries if e.final] == [32]
    assert_paired(entries)
    assert_indices_are_lines(E2E, entries)
    # a prompt typed while the agent worked arrives as an attachment; a line of a kind this memcli
    # does not know (a newer Claude Code) is counted as skipped, with its reason
    lines = E2E.read_text(encoding="utf-8").splitlines()
    def queued(prompt: str, origin: str) -> str:
        return json.dumps({"type": "attachment", "uuid": origin, "sessionId": E2E.stem,
                           "timestamp": "2026-12-01T16:19:03.000Z",
                           "attachment": {"type": "queued_command", "prompt": prompt,
                                          "origin": {"kind": origin}}})

    lines[22:22] = [queued("also check the NAS quota", "human"),
                    queued("<task-notification>done</task-notification>", "task-notification"),
                    json.dumps({"type": "hologram", "sessionId": E2E.stem, "uuid": "h1"})]
    copy = tmp_path / E2E.name
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _info, entries, stats = read(copy)
    assert prompts(entries)[1] == (22, "also check the NAS quota")
    assert next(e for e in entries if e.index == 23).injected
    assert stats.skipped == 1 and stats.reasons == {"unknown-type": 1}


def test_claude_titles_from_ai_title_and_custom_title(tmp_path: Path) -> None:
    lines = E2E.read_text(encoding="utf-8").splitlines()
    titles = ['{"type":"ai-title","aiTitle":"Restoring the backup","sessionId":"s"}',
              '{"type":"custom-title","customTitle":"NAS restore","sessionId":"s"}']
    copy = tmp_path / E2E.name
    copy.write_text("\n".join([*lines[:5], titles[0], *lines[5:]]) + "\n", encoding="utf-8")
    assert read(copy)[0].extra["title"] == "Restoring the backup"
    copy.write_text("\n".join([*lines[:5], *titles, *lines[5:]]) + "\n", encoding="utf-8")
    assert read(copy)[0].extra["title"] == "NAS restore"  # the user's own name wins
