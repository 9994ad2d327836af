"""Aider's history (tests/fixtures/transcripts/aider): one file split into its sessions, entries as
runs of lines, the human's inputs exactly."""

from __future__ import annotations

from support.transcripts import FIX, prompts

from memcli.sessions import read_session, scan, sessions_in

AIDER = FIX / "aider" / "Aider-AI__aider" / "chat-history.md"


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
