"""Pi's JSONL sessions: real files Pi 0.73.1 wrote in tests/e2e/test_pi.py (a session with memcli's
tools; one with every line kind Pi writes: messages of each role, a `!` command, a session name, an
extension's message, entry and label, model and thinking changes, a /tree branch with its summary, a
compaction; and its /fork), and what those files do not happen to hold (a format change), added to a
copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.cli import run
from support.transcripts import FIX, assert_indices_are_lines, assert_paired, prompts, read

from memcli.sessions import sessions_in

HERE = FIX / "pi" / "memcli-e2e"
TOUR = HERE / "2026-12-01T18-56-49-866Z_01a232f7-7cc8-76f9-8a47-a4695a2c62ec.jsonl"
TOUR_ID = "01a232f7-7cc8-76f9-8a47-a4695a2c62ec"
FORK = HERE / "2026-12-01T18-56-51-942Z_01a232f7-84e6-71c5-96a5-25d44c73ab78.jsonl"
RULE = "Lint Python with ruff, not flake8."
WITH_MEMCLI = HERE / "2026-12-01T18-56-43-677Z_01a232f7-649c-7716-b38f-cfdd6431d886.jsonl"


def copy(tmp_path: Path, *extra: dict) -> Path:
    path = tmp_path / TOUR.name
    shutil.copy(TOUR, path)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(obj) + "\n" for obj in extra)
    return path


def test_a_real_session_reads_as_the_conversation_it_was() -> None:
    info, entries, stats = read(TOUR)
    assert (info.agent, info.session_id) == ("pi", TOUR_ID)
    assert info.cwd == "/tmp/pi-e2e/test_every_line_pi_writes_is_r0/proj"
    assert info.first_time is not None and info.first_time.isoformat() == "2026-12-01T18:56:49.866000+00:00"
    assert info.extra["title"] == "tour of entry kinds"
    assert [(e.index, e.role, e.injected) for e in entries] == [
        (3, "user", False), (4, "assistant", False), (5, "tool", True), (6, "assistant", False),
        (7, "user", True),  # `!cat notes.txt`: the user's command and what it printed, not a prompt
        (14, "user", False), (15, "system", True),  # an extension's message in the context
        (16, "assistant", False),
        (17, "system", True),  # the summary of the branch left in /tree
        (18, "user", False), (19, "assistant", False),
        (20, "system", True),  # the compaction's summary
        (21, "user", False), (22, "assistant", False)]
    assert prompts(entries) == [(3, "Write our convention into notes.txt"), (14, "Anything else to note?"),
                                (18, "Second attempt: keep notes in NOTES.md instead"),
                                (21, "After compaction, anything left?")]
    (call,) = entries[1].tool_calls
    assert (call.name, call.arguments, call.call_id) == (
        "bash", {"command": "echo 'keep notes in notes.txt' > notes.txt"}, "toolu_00000006")
    assert entries[1].text == "I'll write it." and not entries[1].final and entries[1].tokens == 15
    assert entries[2].tool_results[0].content == "(no output)" and not entries[2].tool_results[0].is_error
    assert entries[3].final and entries[3].text == "Written notes.txt."
    assert entries[4].text == "!cat notes.txt\n\nkeep notes in notes.txt\n"
    assert entries[6].text == "A note an extension adds to the context."
    assert entries[8].text.startswith("The user explored a different conversation branch")
    assert entries[11].text == "memcli e2e"  # what the scripted server answered Pi's summary request
    assert all(e.timestamp is not None for e in entries)
    assert_paired(entries)
    assert_indices_are_lines(TOUR, entries)
    # the header, model and thinking-level changes, the name, the extension's entry and the label
    assert (stats.lines, stats.skipped, stats.ignored, stats.tokens) == (23, 0, 9, 15 * 5)


def test_memcli_sessions_lists_it_with_nothing_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    (info,) = sessions_in(TOUR)
    assert info.agent == "pi"
    code, out, _ = run(capsys, "sessions", "--path", str(TOUR), "--json")
    assert code == 0
    rows = json.loads(out)
    assert [(r["agent"], r["session_id"], r["entries"], r["skipped"]) for r in rows] == [
        ("pi", TOUR_ID, 14, 0)]
    code, out, _ = run(capsys, "source", f"{TOUR_ID[:8]}:14-15", "--path", str(TOUR))
    assert code == 0 and "Anything else to note?" in out and "A note an extension adds" in out


def test_indices_stay_as_the_session_grows(tmp_path: Path) -> None:
    before = [e.span for e in read(TOUR)[1]]
    grown = copy(tmp_path, {"type": "message", "id": "a1b2c3d4", "parentId": "c9841beb",
                            "timestamp": "2026-12-01T18:52:00.000Z",
                            "message": {"role": "user", "content": "one more thing"}})
    entries = read(grown)[1]
    assert [e.span for e in entries[:-1]] == before  # appending never moves a Source
    assert (entries[-1].index, entries[-1].text) == (23, "one more thing")


def test_a_format_change_shows_as_skipped_lines_never_as_silence(tmp_path: Path) -> None:
    path = copy(tmp_path,
                {"type": "message", "id": "b1", "parentId": "c9841beb", "timestamp": "2026-12-01T18:52:00Z",
                 "message": {"role": "reviewer", "content": "a role Pi 0.73 does not write"}},
                {"type": "checkpoint", "id": "b2", "parentId": "b1", "timestamp": "2026-12-01T18:52:01Z"})
    _info, entries, stats = read(path)
    assert len(entries) == 14
    assert (stats.skipped, dict(stats.reasons)) == (2, {"unknown-role": 1, "unknown-type": 1})


def test_memclis_tools_are_read_as_calls_and_results_under_their_own_names() -> None:
    info, entries, stats = read(WITH_MEMCLI)
    assert [(e.index, e.role) for e in entries] == [
        (3, "user"), (4, "assistant"), (5, "tool"), (6, "assistant"), (7, "tool"), (8, "assistant")]
    assert [c.name for e in entries for c in e.tool_calls] == ["memcli_search", "memcli_remember"]
    assert entries[3].tool_calls[0].arguments == {"kind": "rule", "text": RULE}
    assert "use-sqlite-wal" in entries[2].tool_results[0].content
    assert entries[-1].final and (stats.skipped, stats.ignored) == (0, 3)
    assert_paired(entries)


def test_a_fork_names_the_session_it_came_from_and_reads_as_its_own_turns() -> None:
    """/fork writes the path it forks from (lines 1-6, copies of the parent's lines 1-2 and 17-20,
    their ids and times kept) before the fork's own turns: those are the parent's, read there."""
    info, entries, stats = read(FORK)
    assert info.extra["forked_from"].endswith(TOUR.name)
    assert [(e.index, e.role, e.text) for e in entries] == [(7, "user", "And in the fork?"),
                                                            (8, "assistant", "Forked.")]
    assert (stats.lines, stats.skipped, stats.ignored) == (9, 0, 7)


def test_memclis_tool_calls_a_fork_copied_are_not_read_twice(tmp_path: Path) -> None:
    """A fork of the session with memcli's tools (as `createBranchedSession` writes it: a new header
    naming the parent, its entries copied, then the fork's own): its `memcli_remember` call is the
    parent's, staged from there."""
    lines = WITH_MEMCLI.read_text(encoding="utf-8").splitlines(keepends=True)
    header = dict(json.loads(lines[0]), id="f0f0f0f0-0000-7000-8000-000000000001",
                  parentSession=str(WITH_MEMCLI), timestamp="2026-12-01T19:30:00.000Z")
    own = {"type": "message", "id": "0a0b0c0d", "parentId": json.loads(lines[-1])["id"],
           "timestamp": "2026-12-01T19:30:05.000Z", "message": {"role": "user", "content": "and then?"}}
    fork = tmp_path / "2026-12-01T19-30-00-000Z_f0f0f0f0-0000-7000-8000-000000000001.jsonl"
    fork.write_text(json.dumps(header) + "\n" + "".join(lines[1:]) + json.dumps(own) + "\n", encoding="utf-8")
    _info, entries, stats = read(fork)
    assert [(e.index, e.role, e.text) for e in entries] == [(len(lines), "user", "and then?")]
    assert (stats.skipped, stats.ignored) == (0, len(lines))
