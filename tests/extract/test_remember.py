"""`memcli_remember` calls in transcripts → staging items without a model, Source = the call's entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from extract.helpers import make_ws, staged, write_jsonl
from support.claude_transcript import SESSION, assistant_text, tool_result, tool_use, user, write_session
from support.fake_llm import FakeLLM

from memcli.errors import ConfigError
from memcli.extract.ledger import LEDGER
from memcli.extract.remember import MODEL, is_remember
from memcli.extract.run import run
from memcli.workspace import Workspace

DECISION = {"kind": "decision", "text": "Keep the search index in SQLite. One file to back up.",
            "why": "no server to run"}
ACK = '{"noted": "decision", "next": "Kept in this session\'s transcript"}'
TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


def remember_call(args: dict[str, Any], call_id: str = "toolu_r1", msg_id: str = "msg_2") -> dict[str, Any]:
    return tool_use("mcp__memcli__memcli_remember", args, call_id, msg_id)


def claude_session(ws: Workspace, tmp_path: Path, args: dict[str, Any] = DECISION) -> Path:
    """[0] the human, [1-2] one response: text then the remember call, [3] its result, [4] the answer."""
    text_part = {"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "Noting it."}]}
    return write_session(tmp_path / "claude", ws.root, [
        ("user", user("Let's keep the search index in SQLite; remember that.")),
        ("assistant", text_part),
        ("assistant", remember_call(args)),
        ("user", tool_result("toolu_r1", ACK)),
        ("assistant", assistant_text("Done: it will be kept.", "msg_3")),
    ])


@pytest.mark.parametrize("name, ok", [
    ("memcli_remember", True), ("mcp__memcli__memcli_remember", True), ("mcp__mem__memcli_remember", True),
    ("memcli__memcli_remember", True), ("memcli.memcli_remember", True), ("memcli_remembers", False),
    ("xmemcli_remember", False), ("memcli_search", False), ("remember", False),
])
def test_tool_names_of_every_agent(name: str, ok: bool) -> None:
    assert is_remember(name) is ok


def test_call_becomes_a_staging_item_with_the_exact_entry_as_source(
        fake_llm: FakeLLM, ws: Workspace, tmp_path: Path) -> None:
    path = claude_session(ws, tmp_path)
    assert run(ws, paths=[path]) == 0
    files = staged(ws)
    mine = [f for f in files if f.model == MODEL]
    assert len(mine) == 1 and len(files) == 1  # the model's answer was empty: the ledger alone keeps it
    item = mine[0]
    assert item.source.session_id == SESSION and item.source.range == (1, 2)  # the whole response
    assert item.agent == "claude-code" and item.usage.prompt_tokens == 0
    assert item.provenance.roles == [(1, 2, "agent")]  # the agent's own call, never tool output
    assert [d.model_dump() for d in item.items.decisions] == [{
        "title": "Keep the search index in SQLite.", "decision": DECISION["text"],
        "rationale": "no server to run", "status": "resolved"}]
    sent = fake_llm.requests[0]["messages"][-1]["content"]
    assert fake_llm.calls == 1 and "remember that" in sent and "Done: it will be kept." in sent
    assert "memcli_remember" not in sent and "noted" not in sent  # neither the call nor its ack


def test_rerun_and_interrupted_runs_never_duplicate(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path) -> None:
    path = claude_session(ws, tmp_path)
    run(ws, paths=[path])
    names = sorted(p.name for p in ws.staging_dir.iterdir())
    run(ws, paths=[path])
    assert sorted(p.name for p in ws.staging_dir.iterdir()) == names and fake_llm.calls == 1
    (ws.state_dir / LEDGER).unlink()  # as if killed after writing the files, before the ledger line
    run(ws, paths=[path])
    assert sorted(p.name for p in ws.staging_dir.iterdir()) == names


def test_a_chunk_of_remember_calls_alone_calls_no_model(
        fake_llm: FakeLLM, ws: Workspace, tmp_path: Path) -> None:
    home = tmp_path / "claude"
    first = [("user", user("From now on, always run ruff before committing."))]
    path = write_session(home, ws.root, first)
    run(ws, paths=[path])
    assert fake_llm.calls == 1
    rule = {"kind": "rule", "text": "Run ruff before every commit.", "why": "CI rejects lint errors"}
    write_session(home, ws.root, [*first, ("assistant", remember_call(rule, "toolu_r2", "msg_9")),
                                  ("user", tool_result("toolu_r2", ACK))])
    run(ws, paths=[path])
    assert fake_llm.calls == 1  # the appended chunk held only the call and its acknowledgement
    (item,) = [f for f in staged(ws) if f.model == MODEL]
    assert item.source.range == (1, 1)
    assert [r.model_dump() for r in item.items.requests] == [{
        "title": "Rule: Run ruff before every commit.",
        "request": "Run ruff before every commit.\n\nWhy: CI rejects lint errors"}]


def test_a_redo_after_a_model_change_does_not_stage_remember_calls_again(
        fake_llm: FakeLLM, ws: Workspace, tmp_path: Path, capsys) -> None:
    home = tmp_path / "claude"
    first = [("user", user("From now on, always run ruff before committing."))]
    path = write_session(home, ws.root, first)
    rule = {"kind": "rule", "text": "Run ruff before every commit.", "why": "CI rejects lint errors"}
    run(ws, paths=[path])
    write_session(home, ws.root, [*first, ("assistant", remember_call(rule, "toolu_r2", "msg_9")),
                                  ("user", tool_result("toolu_r2", ACK))])
    run(ws, paths=[path])
    (remembered,) = [f for f in staged(ws) if f.model == MODEL]
    staging_path = ws.staging_dir / f"{remembered.id}.json"
    staging_path.unlink()  # consolidated since
    capsys.readouterr()
    assert run(ws, stale=True, as_json=True, model="openai/other-model") == 0
    stale = json.loads(capsys.readouterr().out)["stale"]
    assert [r["range"] for r in stale] == [[0, 0]]  # the model's span only, not the call's
    calls = fake_llm.calls
    assert run(ws, paths=[path], stale=True, redo=True, model="openai/other-model") == 0
    assert fake_llm.calls == calls + 1 and not staging_path.exists()


def test_no_model_configured_is_fine_when_none_is_needed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("MEMCLI_EXTRACT_MODEL", raising=False)
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text("[extract]\nidle_minutes = 0\n", encoding="utf-8")
    ws = Workspace.open(root)
    request = {"kind": "request", "text": f"Answer in Japanese. Token {TOKEN} is for CI."}
    path = write_session(tmp_path / "claude", root, [("assistant", remember_call(request, "t1", "m1"))])
    assert run(ws, paths=[path]) == 0
    (item,) = staged(ws)
    assert item.items.requests[0].request == "Answer in Japanese. Token [REDACTED:github-token] is for CI."
    assert TOKEN not in (ws.staging_dir / f"{item.id}.json").read_text(encoding="utf-8")


def test_calls_are_staged_when_the_rest_waits_for_a_model(
        fake_llm: FakeLLM, tmp_path: Path, monkeypatch) -> None:
    """No model configured (as on a light install): the run stops at the model, but the calls of
    every chunk are staged first; once a model is set, the chunk around them is extracted and the
    calls, consolidated meanwhile, are not staged a second time."""
    monkeypatch.delenv("MEMCLI_EXTRACT_MODEL", raising=False)
    ws = make_ws(tmp_path / "ws", memory={"extract_model": ""})
    path = claude_session(ws, tmp_path)
    with pytest.raises(ConfigError, match="no model for extract"):
        run(ws, paths=[path])
    (item,) = staged(ws)
    assert item.model == MODEL and item.items.decisions[0].decision == DECISION["text"]
    assert fake_llm.calls == 0
    (ws.staging_dir / f"{item.id}.json").unlink()  # consolidated since
    ws = make_ws(tmp_path / "ws")
    assert run(ws, paths=[path]) == 0
    assert fake_llm.calls == 1 and staged(ws) == []  # the model's answer was empty; no second copy


@pytest.mark.parametrize("args", [{"kind": "wish", "text": "x"}, {"kind": "decision", "text": "  "},
                                  {"text": "no kind"}, "not an object"])
def test_calls_the_server_refuses_stage_nothing(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                args: Any) -> None:
    path = write_session(tmp_path / "claude", ws.root, [
        ("user", user("hello")), ("assistant", remember_call(args, "t1", "m1"))])
    assert run(ws, paths=[path]) == 0
    assert [f for f in staged(ws) if f.model == MODEL] == []


def _codex(tmp_path: Path, root: Path) -> Path:
    stamp = "2026-05-10T09:00:00.000Z"

    def item(payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": stamp, "type": "response_item", "payload": payload}

    return write_jsonl(tmp_path / "rollout-2026-05-10T09-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", [
        {"timestamp": stamp, "type": "session_meta", "payload": {
            "id": "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "timestamp": stamp, "cwd": str(root),
            "originator": "codex_cli_rs", "cli_version": "0.46.0"}},
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Use SQLite."}]}),
        item({"type": "function_call", "name": "memcli__memcli_remember", "call_id": "call_7",
              "arguments": json.dumps(DECISION)}),
        item({"type": "function_call_output", "call_id": "call_7", "output": ACK}),
    ])


def _gemini(tmp_path: Path, root: Path) -> Path:
    path = tmp_path / "session-2026-05-10T09-00-abc.json"
    call = {"id": "memcli_remember-1", "name": "memcli_remember", "args": DECISION, "status": "success",
            "result": [{"functionResponse": {"id": "memcli_remember-1", "name": "memcli_remember",
                                             "response": {"output": ACK}}}]}
    path.write_text(json.dumps({
        "sessionId": "7d3c1f0e-gem", "projectHash": "0" * 64, "startTime": "2026-05-10T09:00:00.000Z",
        "lastUpdated": "2026-05-10T09:01:00.000Z", "messages": [
            {"id": "a", "timestamp": "2026-05-10T09:00:00.000Z", "type": "user", "content": "Use SQLite."},
            {"id": "b", "timestamp": "2026-05-10T09:00:30.000Z", "type": "gemini", "content": "",
             "toolCalls": [call]}]}), encoding="utf-8")
    return path


@pytest.mark.parametrize("write, agent, source", [(_codex, "codex", (2, 2)), (_gemini, "gemini-cli", (1, 1))])
def test_codex_and_gemini_calls(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path, write, agent: str,
                                source: tuple[int, int]) -> None:
    assert run(ws, paths=[write(tmp_path, ws.root)]) == 0
    (item,) = [f for f in staged(ws) if f.model == MODEL]
    assert item.agent == agent and item.source.range == source
    assert item.provenance.roles == [(*source, "agent")]  # Gemini logs the tool's answer in the same entry
    assert item.items.decisions[0].decision == DECISION["text"]
    sent = fake_llm.requests[0]["messages"][-1]["content"]
    assert "Use SQLite." in sent and "memcli_remember" not in sent and "noted" not in sent



def test_dry_run_shows_what_is_staged_without_a_model(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                      capsys) -> None:
    path = write_session(tmp_path / "claude", ws.root, [("assistant", remember_call(DECISION, "t1", "m1"))])
    capsys.readouterr()
    assert run(ws, paths=[path], dry_run=True, as_json=True) == 0
    (chunk,) = json.loads(capsys.readouterr().out)["chunks"]
    assert chunk["model_call"] is False and chunk["messages"] == []
    assert chunk["remembered"] == [{"range": [0, 0], **DECISION}]
    assert run(ws, paths=[path], dry_run=True) == 0
    out = capsys.readouterr().out
    assert "no model call" in out and "memcli_remember decision at entries 0-0" in out
    assert fake_llm.calls == 0 and not ws.staging_dir.exists()
