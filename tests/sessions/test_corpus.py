"""Every real transcript in tests/fixtures/transcripts, read as a person reading it would expect:
the human prompts, tool calls paired with their results, injected context flagged, sidechains."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memcli.sessions import Entry, read_session, scan, sessions_in

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
CC = FIX / "claude-code"
VIEWER = CC / "d-kimuson__claude-code-viewer" / "sample-project"
CODEMIE = CC / "codemie-ai__codemie-code"
E2E = CC / "memcli-e2e" / "0b8f9fe4-0dd1-41e4-a2b5-a05a4579fd35.jsonl"
CODEX = FIX / "codex" / "codemie-ai__codemie-code" / (
    "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
CODEX_171 = FIX / "codex" / "memcli-e2e" / (
    "rollout-2026-12-01T16-28-59-01a23270-2195-7373-8aab-88da5a3bd4a7.jsonl")
GEMINI = FIX / "gemini-cli" / "codemie-ai__codemie-code" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
AIDER = FIX / "aider" / "Aider-AI__aider" / "chat-history.md"


def read(path: Path):
    info, stream = read_session(path)
    entries = list(stream)
    return info, entries, stream.stats


def prompts(entries: list[Entry]) -> list[tuple[int, str]]:
    return [(e.index, e.text) for e in entries if e.role == "user" and not e.injected]


def assert_paired(entries: list[Entry], unanswered: int = 0) -> None:
    """Each tool call has exactly one result with its id, after it; no result without a call."""
    calls = {c.call_id: e.index for e in entries for c in e.tool_calls}
    results = [(r.call_id, e.index) for e in entries for r in e.tool_results]
    assert len(calls) == sum(len(e.tool_calls) for e in entries), "call ids are unique"
    assert all(call_id in calls and calls[call_id] <= at for call_id, at in results)
    assert len({call_id for call_id, _ in results}) == len(results)
    assert len(calls) - len(results) == unanswered


def assert_indices_are_lines(path: Path, entries: list[Entry]) -> None:
    lines = path.read_bytes().count(b"\n")
    spans = [e.span for e in entries]
    assert all(0 <= a <= b < lines for a, b in spans)
    assert all(prev[1] < nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False)), "in order, no overlap"


# --- Claude Code -------------------------------------------------------------------------------


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


# --- Codex -------------------------------------------------------------------------------------


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
    import json

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


# --- Gemini CLI, Aider -------------------------------------------------------------------------


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


def test_aider_history_split_into_sessions() -> None:
    infos = sessions_in(AIDER)
    assert len(infos) == 38  # 37 headers + the part before the first (the file begins mid-session)
    assert infos[0].session_id == "chat-history@0" and infos[0].first_time is None
    assert infos[1].session_id == "chat-history@93"
    assert infos[1].first_time.strftime("%Y-%m-%d %H:%M:%S") == "2024-08-05 19:33:02"
    assert [i.extra["start"] for i in infos[1:4]] == [93, 102, 217]
    second = scan(infos[2])
    assert second.entries == 6 and second.skipped == 0
    _info, entries, _stats = read_session(infos[2])[0], list(read_session(infos[2])[1]), None
    assert prompts(entries) == [(112, "Use the Spinner instead of the inlined custom spinner"),
                                (213, "/diff"), (215, "/ex")]
    reply = next(e for e in entries if e.index > 112 and e.role == "assistant")
    assert "<<<<<<< SEARCH" in reply.text and ">>>>>>> REPLACE" in reply.text
    assert all(e.injected for e in entries if e.role == "tool")
    lead = list(read_session(infos[0])[1])
    lint = next(e for e in lead if e.role == "user")
    assert lint.span == (47, 88) and lint.injected  # aider's own "# Fix any errors below" message


def test_aider_human_inputs_over_whole_file() -> None:
    typed = [e for info in sessions_in(AIDER) for e in read_session(info)[1]
             if e.role == "user" and not e.injected]
    # runs of consecutive `####` lines (awk), less aider's one "# Fix any errors below" message
    assert len(typed) == 73
    assert sum(1 for e in typed if e.text == "/undo") == 19  # grep -c '^#### /undo'
    assert sum(1 for e in typed if e.text == "hi") == 3
    lines = AIDER.read_text(encoding="utf-8").splitlines()
    assert all(lines[e.index].startswith("#### ") for e in typed)


@pytest.mark.parametrize("path", sorted(p for p in FIX.rglob("*") if p.suffix in (".jsonl", ".json", ".md")
                                         and p.name != "README.md"), ids=lambda p: p.name[:24])
def test_every_fixture_reads_without_skipping(path: Path) -> None:
    for info in sessions_in(path):
        full = scan(info)
        if path.name == "logs.json":
            continue
        assert full.skipped == 0 and not full.extra["truncated"]
        assert full.entries > 0 or (info.agent == "aider" and full.extra["lines"] <= 4)  # a bare header
