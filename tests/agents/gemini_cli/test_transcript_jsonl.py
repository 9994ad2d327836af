"""Gemini CLI 0.61's JSONL sessions: the real file its e2e run wrote, and the line kinds that file does
not happen to hold (rewinds, `$set` message lists, subagents, a format change), added to a copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memcli.commands import sessions
from memcli.sessions import read_session, scan, sessions_in

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "gemini-cli"
SESSION = FIX / "memcli-e2e" / "session-2026-12-01T16-19-3b726bda.jsonl"
SESSION_ID = "3b726bda-21bf-415f-8abd-498c40c008e8"
PROMPT = "How do we back up the database? And from now on we lint with ruff, please keep that."


def read(path: Path):
    info, stream = read_session(path)
    return info, list(stream), stream.stats


def copy(tmp_path: Path, *extra: dict, name: str = SESSION.name) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(SESSION, path)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(obj) + "\n" for obj in extra)
    return path


def message(mid: str, kind: str, text: str, stamp: str = "2026-12-01T16:20:00.000Z") -> dict:
    return {"id": mid, "timestamp": stamp, "type": kind, "content": [{"text": text}]}


def test_real_session_reads_as_the_conversation_it_was() -> None:
    info, entries, stats = read(SESSION)
    assert (info.agent, info.session_id, info.extra["format"]) == ("gemini-cli", SESSION_ID, "jsonl")
    assert [(e.index, e.span, e.role, e.injected) for e in entries] == [
        (1, (1, 1), "system", True),  # Gemini's <session_context>, from the first `$set` list
        (2, (2, 2), "user", False),
        (4, (4, 6), "assistant", False),  # written at 4 with its text, again at 6 with its call
        (9, (9, 11), "assistant", False),
        (14, (14, 14), "assistant", False)]
    assert entries[0].text.startswith("<session_context>")
    assert entries[1].text == PROMPT  # memcli's own <hook_context> is not the user's words
    search, remember, answer = entries[2:]
    assert search.text == "Let me look that up." and search.tool_calls[0].name == "mcp_memcli_memcli_search"
    assert "use-sqlite-wal" in search.tool_results[0].content and not search.tool_results[0].is_error
    assert remember.tool_calls[0].arguments == {"kind": "rule", "text": "Lint Python with ruff, not flake8."}
    assert answer.final and answer.text.startswith("Nightly")
    assert [r.call_id for e in entries for r in e.tool_results] == [
        c.call_id for e in entries for c in e.tool_calls]  # results once: the user records repeat them
    assert (stats.lines, stats.skipped) == (16, 0)
    assert stats.ignored == 9  # header, 6 `$set` lastUpdated, 2 functionResponse records already on the calls


def test_indices_stay_as_the_session_grows(tmp_path: Path) -> None:
    before = [e.span for e in read(SESSION)[1]]
    grown = copy(tmp_path, message("m-next", "user", "one more thing"), {"$set": {"lastUpdated": "x"}})
    entries = read(grown)[1]
    assert [e.span for e in entries[:-1]] == before  # appending never moves a Source
    assert (entries[-1].index, entries[-1].text) == (16, "one more thing")


def test_rewind_takes_back_that_message_and_the_later_ones(tmp_path: Path) -> None:
    remember_id = json.loads(SESSION.read_text(encoding="utf-8").splitlines()[9])["id"]
    path = copy(tmp_path, {"$rewindTo": remember_id}, message("m-new", "user", "actually, keep flake8"),
                {"$rewindTo": "never-seen"})
    info, entries, stats = read(path)
    assert [e.index for e in entries] == [1, 2, 4, 17]  # 9 and 14 taken back; an unknown id takes nothing
    assert entries[-1].text == "actually, keep flake8" and stats.skipped == 0


def test_a_set_list_adds_unseen_messages_and_removes_none(tmp_path: Path) -> None:
    """Gemini rewrites its list after compression: the summary is new, what was compressed stays."""
    summary = message("m-summary", "user", "<state_snapshot>the user asked about backups</state_snapshot>")
    path = copy(tmp_path, {"$set": {"messages": [summary, message("m-ack", "gemini", "Got it.")]}})
    entries = read(path)[1]
    assert [e.index for e in entries] == [1, 2, 4, 9, 14, 16, 16]
    assert [e.text for e in entries[-2:]] == [summary["content"][0]["text"], "Got it."]


def test_hook_context_alone_is_injected_not_the_users_words(tmp_path: Path) -> None:
    hook = "<hook_context># Project memory</hook_context>"
    last = read(copy(tmp_path, message("m-hook", "user", hook)))[1][-1]
    assert (last.role, last.injected, last.text) == ("system", True, hook)


def test_tool_results_only_in_a_user_record_are_a_tool_entry(tmp_path: Path) -> None:
    response = {"functionResponse": {"id": "call-9", "name": "read_file", "response": {"output": "hello"}}}
    path = copy(tmp_path, {"id": "m-tool", "type": "user", "content": [response]})
    last = read(path)[1][-1]
    assert (last.role, last.injected, last.tool_results[0].content, last.tool_results[0].call_id) == (
        "tool", True, "hello", "call-9")


def test_a_line_of_an_unknown_kind_is_counted_and_shown(tmp_path: Path, capsys) -> None:
    path = copy(tmp_path, {"$future": {"x": 1}}, message("m-odd", "verdict", "?"))
    info = scan(sessions_in(path)[0])
    assert info.entries == 5 and info.skipped == 2
    assert info.extra["skip_reasons"] == {"unknown-record": 1, "unknown-type": 1}
    assert sessions.run([path]) == 0
    assert f"{SESSION_ID}: 2 lines of an unknown kind skipped" in capsys.readouterr().out


def test_a_file_of_nothing_known_is_listed_not_hidden(tmp_path: Path, capsys) -> None:
    """What 0.61's sessions looked like to memcli before it read them: never an empty, hidden session."""
    path = tmp_path / "session-x.jsonl"
    path.write_text('{"$set": {"lastUpdated": "x"}}\n{"what": 1}\n', encoding="utf-8")
    assert sessions.run([path]) == 0
    out = capsys.readouterr().out
    assert "hidden" not in out and "2 lines of an unknown kind" in out


def test_subagent_session_names_its_parent(tmp_path: Path) -> None:
    lines = SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    header = dict(json.loads(lines[0]), sessionId="sub-1", kind="subagent")
    path = tmp_path / "chats" / SESSION_ID / "sub-1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    info, entries, _stats = read(path)
    assert (info.session_id, info.extra["parent"]) == ("sub-1", SESSION_ID)
    assert entries and all(e.sidechain for e in entries)


@pytest.mark.parametrize("cut", [200, 3000])
def test_a_last_line_cut_mid_write(tmp_path: Path, cut: int) -> None:
    path = tmp_path / SESSION.name
    path.write_bytes(SESSION.read_bytes()[:cut])
    _info, _entries, stats = read(path)
    assert stats.truncated and stats.skipped == 0
