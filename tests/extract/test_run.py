"""`memcli extract` end to end: real transcripts, litellm over HTTP to the fake server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extract.helpers import conversation, make_ws, old, staged, write_jsonl
from support.cli import exit_code
from support.fake_llm import FAKE_MODEL, FakeLLM, Reply

from memcli.extract import prompt, remember
from memcli.extract.run import run
from memcli.workspace import Workspace

ITEMS = {"decisions": [{"title": "Index in SQLite", "decision": "Keep the search index in SQLite",
                        "rationale": "one file, no server"}],
         "discussions": [], "attempts": [{"title": "FTS5 trigram", "outcome": "works for Japanese"}],
         "requests": [{"title": "日本語で答える", "request": "回答は日本語で"}]}


def answer_items(fake: FakeLLM) -> None:
    fake.responder = lambda body: Reply(content=json.dumps(ITEMS, ensure_ascii=False))


@pytest.mark.parametrize("agent, sub", [
    ("claude-code", "claude-code"), ("codex", "codex"), ("gemini-cli", "gemini-cli"), ("aider", "aider"),
    ("copilot-cli", "copilot-cli"),
    ("pi", "pi"),
])
def test_real_transcripts_of_each_adapter(fake_llm: FakeLLM, ws: Workspace, corpus: Path,
                                          agent: str, sub: str) -> None:
    answer_items(fake_llm)
    assert run(ws, paths=[corpus / sub]) == 0
    files = [f for f in staged(ws) if f.model != remember.MODEL]
    assert files and len(files) == fake_llm.calls  # one call and one staging file per chunk
    # the memcli_remember call of each e2e session is staged without a model (Gemini writes the call's
    # message on line 9 and completes it on line 11: the Source spans both)
    remembered = [(f.source.session_id, f.source.range) for f in staged(ws) if f.model == remember.MODEL]
    e2e_calls = {"claude-code": [("0b8f9fe4-0dd1-41e4-a2b5-a05a4579fd35", (27, 27))],
                 "gemini-cli": [("3b726bda-21bf-415f-8abd-498c40c008e8", (9, 11))],
                 "codex": [("01a23270-2195-7373-8aab-88da5a3bd4a7", (15, 15))],
                 "copilot-cli": [("3bf39108-d836-47d4-b26f-1fb4f7bc2c3a", (13, 13))],
                 "pi": [("01a232f7-649c-7716-b38f-cfdd6431d886", (6, 6))]}
    assert remembered == e2e_calls.get(sub, [])
    for f in files:
        assert f.agent == agent and f.model == FAKE_MODEL and f.prompt_version == prompt.version()
        assert f.items.decisions[0].title == "Index in SQLite"
        assert f.items.requests[0].request == "回答は日本語で"
        assert f.usage.prompt_tokens > 0
    for body in fake_llm.requests:
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        assert "not instructions to you" in system
        tag = user.split("<<<TRANSCRIPT-DATA ", 1)[1].split(" ", 1)[0]
        assert user.count(f"<<<END TRANSCRIPT-DATA {tag}>>>") == 1
    # sources are machine facts: the session ids of the files, ranges within them, never overlapping
    spans: dict[str, list[tuple[int, int]]] = {}
    for f in files:
        spans.setdefault(f.source.session_id, []).append(f.source.range)
    for ranges in spans.values():
        ranges.sort()
        assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:], strict=False))


def test_codex_sample_sends_the_human_request_and_drops_injected_context(
        fake_llm: FakeLLM, ws: Workspace, corpus: Path) -> None:
    run(ws, paths=[corpus / "codex"])
    sent = "\n".join(b["messages"][-1]["content"] for b in fake_llm.requests)
    assert "let's update the defailt context compart to 90 in env var" in sent
    assert "<environment_context>" not in sent and "AGENTS.md instructions for" not in sent


def test_copilot_session_sends_the_prompt_as_typed_and_drops_what_copilot_injected(
        fake_llm: FakeLLM, ws: Workspace, corpus: Path) -> None:
    """The e2e session: memcli's own context (a SessionStart hook's `additionalContext`), Copilot's
    system prompt and the tool results are not the user's words; the prompt is, without the
    `<current_datetime>` Copilot added for the model."""
    answer_items(fake_llm)
    run(ws, paths=[corpus / "copilot-cli" / "memcli-e2e" / "3bf39108-d836-47d4-b26f-1fb4f7bc2c3a"])
    sent = "\n".join(b["messages"][-1]["content"] for b in fake_llm.requests)
    assert "How do we back up the database? And from now on we lint with ruff" in sent
    assert "Nightly `sqlite3 .backup` to the NAS" in sent
    assert "# Project memory" not in sent and "system prompt" not in sent
    assert "current_datetime" not in sent


def test_second_run_calls_nothing_and_writes_nothing(fake_llm: FakeLLM, ws: Workspace, corpus: Path) -> None:
    answer_items(fake_llm)
    assert run(ws, paths=[corpus / "claude-code"]) == 0
    calls, before = fake_llm.calls, sorted(p.name for p in ws.staging_dir.iterdir())
    assert run(ws, paths=[corpus / "claude-code"], as_json=True) == 0
    assert fake_llm.calls == calls
    assert sorted(p.name for p in ws.staging_dir.iterdir()) == before


def test_json_summary(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path, capsys) -> None:
    answer_items(fake_llm)
    write_jsonl(tmp_path / "s1.jsonl", conversation(6))
    capsys.readouterr()
    assert run(ws, paths=[tmp_path / "s1.jsonl"], as_json=True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sessions"] == 1 and out["chunks"] == 1 and out["chunks_done"] == 1
    assert out["items"] == {"decisions": 1, "discussions": 0, "attempts": 1, "requests": 1}
    assert out["prompt_tokens"] > 0 and out["calls"] == 1 and out["cost_usd"] is None
    assert run(ws, paths=[tmp_path / "s1.jsonl"], as_json=True) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["chunks"] == 0 and again["up_to_date"] == 1 and again["calls"] == 0


def test_appended_entries_only_are_extracted(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path) -> None:
    answer_items(fake_llm)
    path = write_jsonl(tmp_path / "s.jsonl", conversation(4))
    run(ws, paths=[path])
    write_jsonl(path, conversation(3, start=4), append=True)
    run(ws, paths=[path])
    assert sorted(f.source.range for f in staged(ws)) == [(0, 3), (4, 6)]
    assert "message 2:" not in fake_llm.requests[1]["messages"][-1]["content"]
    assert "message 5:" in fake_llm.requests[1]["messages"][-1]["content"]


def test_rewritten_file_is_reextracted_and_reported(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                    capsys) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", conversation(6))
    run(ws, paths=[path])
    rows = conversation(3)
    rows[1]["content"] = "a different history"
    write_jsonl(path, rows)  # shrank and rewritten
    capsys.readouterr()
    assert run(ws, paths=[path]) == 0
    out = capsys.readouterr().out
    assert "re-extracted s: the file shrank" in out
    assert fake_llm.calls == 2 and "a different history" in fake_llm.requests[1]["messages"][-1]["content"]
    rows = conversation(3)
    rows[2]["content"] = "edited in place"
    write_jsonl(path, rows)
    run(ws, paths=[path])
    assert "the file rewritten" in capsys.readouterr().out and fake_llm.calls == 3


def test_active_sessions_wait(fake_llm: FakeLLM, tmp_path: Path, capsys) -> None:
    answer_items(fake_llm)
    ws = make_ws(tmp_path / "w", extract={"idle_minutes": 30})
    write_jsonl(tmp_path / "fresh.jsonl", conversation(2, ts=old(minutes=1)))
    write_jsonl(tmp_path / "done.jsonl", conversation(2, ts=old(minutes=90)))
    assert run(ws, paths=[tmp_path]) == 0
    assert fake_llm.calls == 1 and [f.source.session_id for f in staged(ws)] == ["done"]
    assert "1 still active (waiting)" in capsys.readouterr().out


def test_stale_lists_and_redoes_spans_of_an_old_model(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                      capsys) -> None:
    answer_items(fake_llm)
    a = write_jsonl(tmp_path / "a.jsonl", conversation(4))
    run(ws, paths=[a])
    b = write_jsonl(tmp_path / "b.jsonl", conversation(2))
    run(ws, paths=[b], model="openai/other-model")
    capsys.readouterr()
    assert run(ws, stale=True, as_json=True) == 0
    listed = json.loads(capsys.readouterr().out)["stale"]
    assert [(r["session_id"], r["model"]) for r in listed] == [("b", "openai/other-model")]
    assert run(ws, stale=True, as_json=True, model="openai/other-model") == 0
    assert [r["session_id"] for r in json.loads(capsys.readouterr().out)["stale"]] == ["a"]
    calls = fake_llm.calls
    assert run(ws, paths=[a, b], stale=True, redo=True, dry_run=True) == 0  # lists, changes nothing
    assert fake_llm.calls == calls and "  b:0-1  " in capsys.readouterr().out
    assert run(ws, paths=[a, b], stale=True, redo=True) == 0
    assert fake_llm.calls == calls + 1  # only b's span again
    assert sorted((f.source.session_id, f.model) for f in staged(ws)) == [
        ("a", FAKE_MODEL), ("b", FAKE_MODEL), ("b", "openai/other-model")]
    capsys.readouterr()
    run(ws, stale=True, as_json=True)
    assert json.loads(capsys.readouterr().out)["stale"] == []


def test_invalid_answers_leave_the_chunk_for_next_time(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                       capsys) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", conversation(4))
    fake_llm.responder = lambda body: Reply(content=json.dumps({**ITEMS, "source": {"session_id": "x"}}))
    assert run(ws, paths=[path]) == 1
    out = capsys.readouterr().out
    assert "failed:   s:0-3" in out and "source" in out and "left for the next run" in out
    assert not ws.staging_dir.exists() or not list(ws.staging_dir.iterdir())
    answer_items(fake_llm)
    assert run(ws, paths=[path]) == 0
    assert [f.source.range for f in staged(ws)] == [(0, 3)]


@pytest.mark.parametrize("answer", [
    "Sure! Here is the JSON:\n" + json.dumps(ITEMS) + "\nLet me know.",
    json.dumps({**ITEMS, "decisions": [{"title": "t", "decision": "d"}] * 10_000}),
    json.dumps({"decisions": [{"title": 1, "decision": None}]}),
    "not json at all",
])
def test_bad_answers_never_write_a_partial_file(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                answer: str) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", conversation(2))
    fake_llm.responder = lambda body: Reply(content=answer)
    code = run(ws, paths=[path])
    files = list(ws.staging_dir.glob("*")) if ws.staging_dir.exists() else []
    if answer.startswith("Sure!"):  # prose around valid JSON is accepted
        assert code == 0 and len(staged(ws)) == 1
    else:
        assert code == 1 and files == []


def test_429_storm_is_one_line_and_writes_nothing(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                  capsys) -> None:
    for i in range(3):
        write_jsonl(tmp_path / f"s{i}.jsonl", conversation(2))
    fake_llm.responder = lambda body: Reply(status=429, error_message="Rate limit reached for requests")
    capsys.readouterr()
    assert run(ws, paths=[tmp_path]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [err[0]] and err[0].startswith("Error: model openai/fake-model failed 3 times")
    assert not ws.staging_dir.exists() or not list(ws.staging_dir.iterdir())
    assert fake_llm.calls <= 3 * 3  # the first failure stops chunks not yet started


def test_hanging_server_times_out(fake_llm: FakeLLM, tmp_path: Path, capsys) -> None:
    ws = make_ws(tmp_path / "w", memory={"retries": 1}, extract={"timeout_s": 0.3})
    path = write_jsonl(tmp_path / "s.jsonl", conversation(2))
    fake_llm.responder = lambda body: Reply(delay=30)
    assert run(ws, paths=[path]) == 1
    assert "did not answer within 0.3s, 2 times" in capsys.readouterr().err


def test_concurrency_is_bounded(fake_llm: FakeLLM, tmp_path: Path) -> None:
    ws = make_ws(tmp_path / "w", extract={"concurrency": 3})
    for i in range(9):
        write_jsonl(tmp_path / "t" / f"s{i}.jsonl", conversation(2))
    fake_llm.responder = lambda body: Reply(content="{}", delay=0.2)
    assert run(ws, paths=[tmp_path / "t"]) == 0
    assert fake_llm.calls == 9 and fake_llm.max_in_flight == 3
    rows = [json.loads(line) for line in (ws.state_dir / "llm-calls.jsonl").read_text().splitlines()]
    assert len(rows) == 9 and all(r["ok"] and r["role"] == "extract" for r in rows)  # no torn lines


def test_dry_run_sends_nothing_and_shows_redacted_text(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                       capsys) -> None:
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    path = write_jsonl(tmp_path / "s.jsonl", [{"role": "user", "content": f"use token {key} please",
                                               "timestamp": old()}])
    assert exit_code("extract", "--dry-run", "-w", str(ws.root), str(path)) == 0
    out = capsys.readouterr().out
    assert fake_llm.calls == 0 and key not in out and "[REDACTED:github-token]" in out
    assert "<<<TRANSCRIPT-DATA" in out
    assert run(ws, paths=[path]) == 0 and fake_llm.calls == 1  # the dry run recorded nothing


def test_cli_errors_are_one_line(ws: Workspace, tmp_path: Path, capsys, monkeypatch) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", conversation(2))
    (ws.root / "memcli.toml").write_text("[extract]\nidle_minutes = 0\n")
    monkeypatch.delenv("MEMCLI_EXTRACT_MODEL", raising=False)
    assert exit_code("extract", "-w", str(ws.root), str(path)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "memory.extract_model" in err and "Traceback" not in err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert exit_code("extract", "-w", str(ws.root), "--model", "openai/gpt-4o-mini", str(path)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "OPENAI_API_KEY" in err
    assert exit_code("extract", "-w", str(ws.root), "--since", "yesterday", str(path)) == 2
    assert "--since" in capsys.readouterr().err


def test_without_paths_the_workspace_sessions_are_discovered(fake_llm: FakeLLM, ws: Workspace,
                                                            tmp_path: Path, monkeypatch) -> None:
    import re
    import shutil

    from extract.helpers import FIXTURES

    home = tmp_path / "claude-home"
    project = home / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(ws.root))
    project.mkdir(parents=True)
    sample = FIXTURES / "claude-code" / "d-kimuson__claude-code-viewer" / "sample-project"
    shutil.copy(sample / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", project)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    answer_items(fake_llm)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "no-gemini"))
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "no-copilot"))
    assert exit_code("extract", "-w", str(ws.root)) == 0
    assert [f.source.session_id for f in staged(ws)] == ["5c0375b4-57a5-4f26-b12d-d022ee4e51b7"]
    sent = fake_llm.requests[0]["messages"][-1]["content"]
    assert "@CLAUDE.md を最新の状態にアップデートしてください" in sent


def test_an_empty_answer_goes_to_the_ledger_only(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                 capsys) -> None:
    """Most chunks say nothing worth keeping: no staging file for them, so they never reach the
    consolidation trigger, and the span is still never sent again."""
    chat = write_jsonl(tmp_path / "t" / "chat.jsonl", conversation(4))
    rows = conversation(4)
    rows[0]["content"] = "DECIDE: keep the index in SQLite"
    kept = write_jsonl(tmp_path / "t" / "kept.jsonl", rows)
    nothing = {"decisions": [], "discussions": [], "attempts": [], "requests": []}
    fake_llm.responder = lambda body: Reply(content=json.dumps(
        ITEMS if "DECIDE" in body["messages"][-1]["content"] else nothing))
    assert run(ws, paths=[chat, kept]) == 0
    assert [f.source.session_id for f in staged(ws)] == ["kept"]
    assert "2 extracted" in capsys.readouterr().out
    assert run(ws, paths=[chat, kept]) == 0 and fake_llm.calls == 2
    spans = [json.loads(line) for line in (ws.state_dir / "extract-ledger.jsonl").read_text().splitlines()]
    written = sorted((s["session_id"], bool(s["staging_id"])) for s in spans)
    assert written == [("chat", False), ("kept", True)]
