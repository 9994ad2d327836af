"""OpenCode's sessions as memcli reads them (memcli/agents/opencode/transcript.py), from the database
OpenCode 1.18.33 wrote (tests/fixtures/transcripts/opencode/): one entry per part, at the part's
position in its session, which appending never moves; every kind of part read or counted."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from support.cli import run
from support.opencode_db import FIXTURE, MAIN, OTHER, SUBAGENT, WROTE_IN, add_part, copy_db
from support.transcripts import assert_paired, prompts

from memcli.commands.sessions import skipped_note
from memcli.metrics.scan import update_state
from memcli.metrics.state import State
from memcli.sessions import detect, read_entries, scan, sessions_in
from memcli.transcript.model import Entry


def sessions(path: Path) -> dict[str, object]:
    return {info.session_id: info for info in sessions_in(path)}


def entries(path: Path, session_id: str) -> tuple[list[Entry], object]:
    info = next(i for i in sessions_in(path) if i.session_id == session_id)
    stream = read_entries(info)
    found = list(stream)
    return found, stream.stats


def test_the_database_is_claimed_and_holds_every_folders_sessions() -> None:
    agent, _ = detect(FIXTURE)
    assert agent.NAME == "opencode"
    found = sessions(FIXTURE)
    assert set(found) == {MAIN, SUBAGENT, OTHER}
    main, sub, other = found[MAIN], found[SUBAGENT], found[OTHER]
    assert (main.cwd, other.cwd) == (f"{WROTE_IN}/app", f"{WROTE_IN}/other")
    assert main.extra["version"] == "1.18.33" and main.extra["format"] == "sqlite"
    assert sub.extra["parent"] == MAIN and "parent" not in main.extra
    assert main.first_time is not None and main.last_time > main.first_time
    assert 0 < main.size < FIXTURE.stat().st_size  # its own rows, not the whole database


def test_a_session_read_into_entries() -> None:
    found, stats = entries(FIXTURE, MAIN)
    assert stats.skipped == 0 and stats.lines == 25 and stats.tokens > 0
    assert prompts(found) == [(1, "昨夜のバックアップを復元するには？"), (21, "ありがとう")]
    context = [e for e in found if e.injected and e.role == "system"]
    assert [e.index for e in context] == [0, 20]  # memcli's plugin: before each process's first prompt
    assert all(e.text.startswith("# Project memory") for e in context)
    calls = [(e.index, c.name) for e in found for c in e.tool_calls]
    assert calls == [(3, "memcli_memcli_search"), (6, "bash"), (9, "read"), (12, "task"),
                     (15, "memcli_memcli_remember")]
    assert_paired(found)
    by_index = {e.index: e for e in found}
    assert "restore-nightly-backup" in by_index[3].tool_results[0].content
    assert by_index[9].tool_results[0].is_error and "File not found" in by_index[9].tool_results[0].content
    remember = by_index[15].tool_calls[0].arguments
    assert remember == {"kind": "decision", "text": "バックアップは NAS に30日分保存する。",
                        "why": "NAS の容量が1か月分"}
    finals = [(e.index, e.text) for e in found if e.final]
    answer = "アプリを止めて、最新の backup-*.db を data/app.db に上書きし、アプリを起動します。"
    assert finals == [(18, answer), (23, "どういたしまして。")]
    assert all(e.timestamp is not None for e in found) and not any(e.sidechain for e in found)


def test_a_subagents_session_is_a_sidechain() -> None:
    """Its prompt is the parent's model's, not the human's: injected, as a Claude Code subagent's."""
    found, _ = entries(FIXTURE, SUBAGENT)
    assert found and all(e.sidechain for e in found)
    assert prompts(found) == []
    users = [(e.index, e.text, e.injected) for e in found if e.role == "user"]
    assert users == [(1, "Which knowledge file explains the restore?", True)]
    assert [(e.index, e.injected) for e in found if e.role == "assistant"] == [(3, False)]  # its answer


def test_appending_never_moves_an_entry(tmp_path: Path) -> None:
    """The session as it was after its first prompt (the second prompt's rows taken out) reads as the
    same entries at the same indices: a Source taken then still names them."""
    full, _ = entries(FIXTURE, MAIN)
    db = copy_db(tmp_path / "opencode.db")
    conn = sqlite3.connect(db)
    query = ("SELECT time_created FROM message WHERE session_id = ? "
             "AND json_extract(data, '$.role') = 'user' "
             "ORDER BY time_created")
    users = [t for (t,) in conn.execute(query, (MAIN,))]
    assert len(users) == 2
    for table in ("part", "message"):
        conn.execute(f"DELETE FROM {table} WHERE session_id = ? AND time_created >= ?", (MAIN, users[1]))
    conn.commit()
    conn.close()
    earlier, stats = entries(db, MAIN)
    assert stats.lines == 20 and stats.skipped == 0
    assert earlier == [e for e in full if e.index < 20]


def test_a_part_of_an_unknown_kind_is_counted_never_dropped(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    db = copy_db(tmp_path / "opencode.db")
    add_part(db, MAIN, {"type": "hologram", "text": "from a newer OpenCode"}).close()
    add_part(db, MAIN, "{not json").close()
    info = scan(next(i for i in sessions_in(db) if i.session_id == MAIN))
    assert info.skipped == 2 and info.extra["skip_reasons"] == {"unknown-type": 1, "not-json": 1}
    assert info.entries == 11  # the rest as before
    assert "1 line of an unknown kind and 1 unreadable line skipped" in skipped_note(info)
    code, out, _ = run(capsys, "sessions", "--path", str(db))
    assert code == 0 and "1 line of an unknown kind" in out


def test_a_message_of_an_unknown_role_is_counted(tmp_path: Path) -> None:
    db = copy_db(tmp_path / "opencode.db")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE message SET data = json_set(data, '$.role', 'narrator') WHERE session_id = ?",
                 (SUBAGENT,))
    conn.commit()
    conn.close()
    found, stats = entries(db, SUBAGENT)
    assert found == [] and stats.skipped == stats.lines == 5 and stats.reasons == {"unknown-role": 5}


def test_what_a_write_ahead_log_holds_is_read(tmp_path: Path) -> None:
    """OpenCode keeps its database in WAL mode: a part not yet checkpointed into the file is read."""
    db = copy_db(tmp_path / "opencode.db", wal=True)
    writer = add_part(db, MAIN, {"type": "text", "text": "one more answer"})
    try:
        assert Path(f"{db}-wal").stat().st_size > 0
        found, _ = entries(db, MAIN)
        assert found[-1].text == "one more answer" and found[-1].index == 25
    finally:
        writer.close()


def test_another_sqlite_file_is_not_claimed(tmp_path: Path) -> None:
    other = tmp_path / "notes.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE session (id TEXT)")
    conn.commit()
    conn.close()
    assert detect(other)[0].NAME != "opencode"


def test_source_shows_a_range_of_parts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "source", f"{MAIN}:14-16", "--path", str(FIXTURE), "--json")
    assert code == 0
    shown = json.loads(out)
    assert [e["index"] for e in shown["entries"]] == [15]
    assert shown["entries"][0]["tool_calls"][0]["name"] == "memcli_memcli_remember"


def test_metrics_count_what_the_write_ahead_log_holds(tmp_path: Path) -> None:
    """A new part in the write-ahead log leaves opencode.db as it was: metrics counts it all the same,
    and only it."""
    db = copy_db(tmp_path / "opencode.db", wal=True)
    state = State()
    info = next(i for i in sessions_in(db) if i.session_id == MAIN)
    update_state(state, [info], read_entries)
    (key,) = state.sessions
    before = state.sessions[key].entries
    size, mtime = db.stat().st_size, db.stat().st_mtime_ns
    writer = add_part(db, MAIN, {"type": "text", "text": "one more answer"})
    try:
        assert (db.stat().st_size, db.stat().st_mtime_ns) == (size, mtime)
        summary = update_state(state, [info], read_entries)
        assert summary.scanned == 1 and summary.entries == 1
        assert state.sessions[key].entries == before + 1
    finally:
        writer.close()
