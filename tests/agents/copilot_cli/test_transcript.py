"""GitHub Copilot CLI 1.0.102's events.jsonl: the real files it wrote (the e2e run; an interactive
session with a /rewind), and the events those files do not happen to hold (subagents, skills,
failed tools, compaction, a format change), added to a copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from memcli.agents.copilot_cli.transcript import READER
from memcli.commands.sessions import run as run_sessions
from memcli.sessions import read_entries, read_session, scan, sessions_in

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "copilot-cli" / "memcli-e2e"
SESSION_ID = "3bf39108-d836-47d4-b26f-1fb4f7bc2c3a"
SESSION = FIX / SESSION_ID / "events.jsonl"
REWOUND = FIX / "562fe18d-90ce-40a4-86e3-4cb69ece063b" / "events.jsonl"
PROMPT = "How do we back up the database? And from now on we lint with ruff, please keep that."


def read(path: Path):
    info, stream = read_session(path)
    return info, list(stream), stream.stats


def copy(tmp_path: Path, *extra: dict, source: Path = SESSION) -> Path:
    folder = tmp_path / source.parent.name
    shutil.copytree(source.parent, folder)
    with (folder / "events.jsonl").open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(obj) + "\n" for obj in extra)
    return folder / "events.jsonl"


def event(kind: str, data: dict, **envelope: str) -> dict:
    return {"type": kind, "data": data, "id": f"e-{kind}", "timestamp": "2026-12-01T19:05:00.000Z",
            "parentId": None, **envelope}


def test_real_session_reads_as_the_conversation_it_was() -> None:
    info, entries, stats = read(SESSION)
    assert (info.agent, info.session_id, info.extra["version"]) == ("copilot-cli", SESSION_ID, "1.0.102")
    assert info.cwd == "/tmp/cop/e2e-base/test_copilot_cli_session_with_0/proj"
    assert info.extra["title"] == PROMPT  # workspace.yaml's name
    assert [(e.index, e.role, e.injected) for e in entries] == [
        (2, "user", False), (4, "system", True), (7, "assistant", False), (9, "tool", True),
        (13, "assistant", False), (15, "tool", True), (19, "assistant", False)]
    prompt, context, search, found, remember, noted, answer = entries
    assert prompt.text == PROMPT  # as typed: the model got it with a <current_datetime> added
    assert context.text.startswith("# Project memory")  # memcli's SessionStart hook, as Copilot kept it
    assert search.text == "Let me look that up." and search.tool_calls[0].name == "memcli-memcli_search"
    assert search.tool_calls[0].arguments == {"query": "sqlite backup"}
    assert found.tool_results[0].call_id == search.tool_calls[0].call_id
    assert "use-sqlite-wal" in found.tool_results[0].content and not found.tool_results[0].is_error
    assert remember.tool_calls[0].arguments == {"kind": "rule", "text": "Lint Python with ruff, not flake8."}
    assert '"noted": "rule"' in noted.tool_results[0].content
    assert answer.final and not search.final and answer.text.startswith("Nightly")
    assert [e.tokens for e in entries if e.role == "assistant"] == [110, 110, 110]  # its usage records
    assert (stats.lines, stats.skipped, stats.ignored, stats.tokens) == (24, 0, 17, 330)


def test_an_mcp_tools_result_is_read_once_not_with_its_structured_copy() -> None:
    """1.0.102 writes an MCP tool's result as its text, a blank line and its structuredContent as
    compact JSON; memcli's tools give that object as their text already, so it was read twice."""
    lines = [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines()]
    results = {e.index: e.tool_results[0].content for e in read(SESSION)[1] if e.role == "tool"}
    assert sorted(results) == [9, 15]
    for index, content in results.items():
        written = lines[index]["data"]["result"]
        assert written["content"].startswith(content + "\n\n")  # the text, as Copilot wrote it
        assert json.loads(content) == written["structuredContent"]  # ... once
        assert content.count('"noted"') + content.count('"hits"') == 1


def test_a_result_keeps_what_is_not_a_copy_of_its_structured_content(tmp_path: Path) -> None:
    shape = {"n": 1, "名前": "値"}
    compact = json.dumps(shape, ensure_ascii=False, separators=(",", ":"))
    def done(call: str, content: str) -> dict:
        return event("tool.execution_complete", {"toolCallId": call, "success": True,
                                                 "result": {"content": content, "structuredContent": shape}})
    path = copy(tmp_path, done("a", f"n is 1\n\n{compact}"), done("b", compact),
                done("c", 'n is 1\n\n{"n":2}'), done("d", "n is 1\n\nso says the tool"))
    contents = [e.tool_results[0].content for e in read(path)[1][7:]]
    assert contents == ["n is 1", compact, 'n is 1\n\n{"n":2}', "n is 1\n\nso says the tool"]


def test_indices_stay_as_the_session_grows_and_a_read_resumes(tmp_path: Path) -> None:
    info, stream = read_session(SESSION)
    before = list(stream)
    position = stream.position
    grown = copy(tmp_path, event("user.message", {"content": "one more thing"}),
                 event("session.usage_record", {"usage": {"apiCallId": "c-9", "inputTokens": 7,
                                                          "outputTokens": 3}}))
    full = list(read_session(grown)[1])
    assert [e.span for e in full[:-1]] == [e.span for e in before]  # appending never moves a Source
    assert (full[-1].index, full[-1].text) == (24, "one more thing")
    # the usage waits for its message, across a resumed read
    resumed = read_entries(sessions_in(grown)[0], resume=position)
    assert [e.index for e in resumed] == [24] and resumed.resumed
    with grown.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(event("assistant.message", {"content": "Sure.", "apiCallId": "c-9"})) + "\n")
    last = read_entries(sessions_in(grown)[0], resume=resumed.position)
    (reply,) = list(last)
    assert (reply.index, reply.tokens, reply.final) == (26, 10, True)
    assert last.stats.tokens == 340


def test_a_rewind_rewrites_the_file_without_what_it_took_back() -> None:
    """An interactive session (typed: "first question", "second question", then /rewind to before the
    second, then "third question" typed onto the restored "second question"): 1.0.102 wrote the file
    again without the rewound events and noted the rewind; the lines before it kept their numbers."""
    _info, entries, stats = read(REWOUND)
    assert [(e.index, e.role, e.text) for e in entries] == [
        (2, "user", "first question"), (6, "assistant", "Answer number 1."),
        (8, "system", "Rewound the conversation. Your files were left unchanged."),
        (9, "user", "second questionthird question"), (13, "assistant", "Answer number 3.")]
    assert stats.skipped == 0


def test_injected_and_subagent_events(tmp_path: Path) -> None:
    failed = {"toolCallId": "t-2", "success": False, "error": {"message": "exit status 1"}}
    compacted = {"success": True, "summaryContent": "We talked backups."}
    path = copy(tmp_path,
                event("user.message", {"content": "use the pdf skill", "source": "skill-pdf"}),
                event("skill.invoked", {"name": "pdf", "path": "/s/SKILL.md", "content": "Read PDFs with…"}),
                event("user.message", {"content": "look at the tests", "parentToolCallId": "t-1"},
                      agentId="explore-1"),
                event("assistant.message", {"content": "", "toolRequests": [
                    {"toolCallId": "t-2", "name": "bash", "arguments": {"command": "false"}}]},
                      agentId="explore-1"),
                event("tool.execution_complete", failed, agentId="explore-1"),
                event("session.compaction_complete", compacted),
                event("hook.end", {"hookInvocationId": "h", "hookType": "sessionEnd", "success": True}))
    entries = read(path)[1][7:]
    assert [(e.role, e.injected, e.sidechain) for e in entries] == [
        ("user", True, False), ("system", True, False), ("user", True, True), ("assistant", False, True),
        ("tool", True, True), ("system", True, False)]
    assert entries[4].tool_results[0].is_error and entries[4].tool_results[0].content == "exit status 1"
    assert entries[5].text == "We talked backups."


def test_an_event_of_an_unknown_kind_is_counted_and_shown(tmp_path: Path, capsys) -> None:
    path = copy(tmp_path, event("assistant.hologram", {"content": "?"}), {"kind": "no envelope"})
    info = scan(sessions_in(path)[0])
    assert info.entries == 7 and info.skipped == 2
    assert info.extra["skip_reasons"] == {"unknown-type": 1, "unknown-record": 1}
    assert run_sessions([path]) == 0
    assert f"{SESSION_ID}: 2 lines of an unknown kind skipped" in capsys.readouterr().out


def test_a_file_of_nothing_known_is_listed_not_hidden(tmp_path: Path, capsys) -> None:
    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps(event("session.begin", {"sessionId": "x"})) + "\n", encoding="utf-8")
    assert run_sessions([path]) == 0
    assert "1 line of an unknown kind" in capsys.readouterr().out


def test_the_session_id_without_a_start_event_is_the_folders() -> None:
    (info,) = READER.describe(Path("/h/.copilot/session-state/abc-1/events.jsonl"), [])
    (legacy,) = READER.describe(Path("/h/.copilot/session-state/abc-2.jsonl"), [])
    assert (info.session_id, legacy.session_id) == ("abc-1", "abc-2")


def test_sessions_and_source_read_copilots_folder(tmp_path: Path, capsys) -> None:
    """`memcli sessions` and `memcli source` over session-state as Copilot left it (workspace.yaml
    beside each events.jsonl is no session of its own)."""
    from support.cli import run

    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    code, out, _ = run(capsys, "sessions", "--path", str(FIX), "-w", str(ws), "--json")
    assert code == 0
    listed = {s["session_id"]: s for s in json.loads(out)}
    assert set(listed) == {SESSION_ID, REWOUND.parent.name}
    mine = listed[SESSION_ID]
    assert (mine["agent"], mine["entries"], mine["skipped"]) == ("copilot-cli", 7, 0)
    assert mine["path"] == str(SESSION)
    assert mine["extra"]["title"] == PROMPT and mine["extra"]["version"] == "1.0.102"
    span = f"{SESSION_ID[:8]}:13-15"
    code, out, _ = run(capsys, "source", span, "--path", str(FIX), "-w", str(ws), "--json")
    assert code == 0
    call, result = json.loads(out)["entries"]
    assert call["tool_calls"][0]["name"] == "memcli-memcli_remember" and call["index"] == 13
    assert result["tool_results"][0]["call_id"] == call["tool_calls"][0]["call_id"] and result["injected"]
