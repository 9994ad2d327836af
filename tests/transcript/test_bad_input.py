"""Bad input is read as far as it makes sense; skipped lines are counted; nothing is fatal but a
path that is not a file."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from memcli.sessions import SessionReadError, read_session, scan, sessions_in
from memcli.transcript import base as sessions_base

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
CLAUDE = FIX / "claude-code" / "codemie-ai__codemie-code" / "-tmp-private" / (
    "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
CODEX = next((FIX / "codex").rglob("rollout-*.jsonl"))
GEMINI = next((FIX / "gemini-cli").rglob("session-*.json"))


def read_all(path: Path):
    info, stream = read_session(path)
    return info, list(stream), stream.stats


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    info, entries, stats = read_all(path)
    assert entries == [] and stats.skipped == 0 and not stats.truncated and info.session_id == "empty"


@pytest.mark.parametrize("source", [CLAUDE, CODEX], ids=["claude", "codex"])
def test_truncated_last_line_is_an_agent_mid_write(tmp_path: Path, source: Path) -> None:
    full = read_all(source)[1]
    last = full[-1].index
    lines = source.read_bytes().splitlines(keepends=True)
    cut = b"".join(lines[:last]) + lines[last][: len(lines[last]) // 2]  # half a record, no newline
    path = tmp_path / source.name
    path.write_bytes(cut)
    _info, entries, stats = read_all(path)
    assert stats.truncated and stats.skipped == 0
    assert entries == full[:-1]  # the last record is the one still being written


def test_corrupt_and_unknown_lines_are_counted_and_skipped(tmp_path: Path) -> None:
    lines = CLAUDE.read_bytes().splitlines()
    bad = [b"{not json", b"[1, 2, 3]", b"\xff\xfe invalid utf-8 \xc3",
           b'{"type": "brand-new-kind", "uuid": "u"}',
           b'{"type": "queue-operation", "operation": "enqueue", "sessionId": "s"}', b"   ", b"[" * 100_000]
    mixed = [lines[0], *bad, *lines[1:]]
    path = tmp_path / CLAUDE.name
    path.write_bytes(b"\n".join(mixed) + b"\n")
    _info, entries, stats = read_all(path)
    _, clean, _ = read_all(CLAUDE)
    assert len(entries) == len(clean)
    assert [e.index for e in entries] == [e.index + len(bad) for e in clean]  # indices stay line numbers
    assert stats.skipped == 5
    assert stats.reasons == {"not-json": 2, "not-an-object": 1, "invalid-utf8": 1, "unknown-type": 1}
    assert stats.ignored == 6 + 1  # the snapshots and the queue-operation line


def test_crlf_line_endings(tmp_path: Path) -> None:
    path = tmp_path / CLAUDE.name
    path.write_bytes(CLAUDE.read_bytes().replace(b"\n", b"\r\n"))
    assert len(read_all(path)[1]) == len(read_all(CLAUDE)[1])


@pytest.mark.parametrize(("name", "content"), [
    ("other-tool.jsonl", b'{"level": "info", "msg": "started"}\n{"level": "warn", "msg": "x"}\n'),
    ("arrays.jsonl", b"[1, 2]\n[3]\n"),
    ("notes.txt", b"hello\nworld\n"),
    ("latin1.jsonl", "caf\u00e9 cr\u00e8me\nna\u00efve\n".encode("latin-1")),
    ("README.md", b"# A project\nSome text about `# aider chat started at` headers.\n"),
])
def test_files_no_adapter_knows_read_as_all_skipped(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    info = scan(sessions_in(path)[0])
    assert info.agent == "memcli-jsonl" and info.entries == 0 and info.skipped == 2


def test_a_directory_or_missing_path_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SessionReadError, match="is a directory"):
        read_session(tmp_path)
    with pytest.raises(SessionReadError, match="no such file"):
        read_session(tmp_path / "missing.jsonl")


def test_gemini_file_cut_mid_rewrite(tmp_path: Path) -> None:
    path = tmp_path / GEMINI.name
    path.write_bytes(GEMINI.read_bytes()[:5000])
    info, entries, stats = read_all(path)
    assert info.agent == "gemini-cli" and entries == [] and stats.truncated


def test_an_over_long_line_is_skipped_without_loading_it(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions_base, "MAX_LINE", 4096)  # the real limit is 64 MB; same code path
    lines = CLAUDE.read_bytes().splitlines()
    short = [line for line in lines if len(line) < 4000]
    huge = json.dumps({"type": "user", "uuid": "x", "message": {"role": "user", "content": "y" * 20_000}})
    path = tmp_path / CLAUDE.name
    path.write_bytes(b"\n".join([short[0], huge.encode(), *short[1:]]) + b"\n")
    _info, entries, stats = read_all(path)
    assert stats.reasons["line-too-long"] == 1
    assert 1 not in [e.index for e in entries] and entries[-1].index == len(short)  # later indices intact


def test_a_large_transcript_streams_in_bounded_memory(tmp_path: Path) -> None:
    """~24 MB of Claude Code records: peak traced memory stays a small fraction of the file."""
    lines = CLAUDE.read_bytes().splitlines()
    path = tmp_path / "big.jsonl"
    with path.open("wb") as fh:
        for copy in range(1_400):
            for line in lines:  # fresh message ids per copy, so responses are not merged across copies
                fh.write(line.replace(b'"id":"msg_', b'"id":"msg_%d_' % copy) + b"\n")
    size = path.stat().st_size
    assert size > 20_000_000
    tracemalloc.start()
    try:
        _info, stream = read_session(path)
        count = sum(1 for _ in stream)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 16 * 1_400 and stream.stats.skipped == 0
    assert peak < 4_000_000 and peak < size / 5


def test_plain_jsonl_tool_call_arguments_are_parsed_like_codex(tmp_path):
    """OpenAI-style logs keep tool-call arguments as a JSON string; every adapter hands them on
    parsed, so consumers (metrics, extract) read one shape."""
    path = tmp_path / "s.jsonl"
    rows = [
        {"role": "assistant", "content": "",
         "tool_calls": [{"name": "Read", "arguments": '{"file_path": "knowledge/a.md"}', "id": "c1"},
                        {"name": "Bash", "arguments": "not json", "id": "c2"},
                        {"name": "Bash", "arguments": {"command": "ls"}, "id": "c3"}]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _, stream = read_session(path)
    (entry,) = list(stream)
    assert [c.arguments for c in entry.tool_calls] == [
        {"file_path": "knowledge/a.md"}, "not json", {"command": "ls"}]


def test_codex_unknown_item_and_event_types_are_counted_as_skipped(tmp_path: Path) -> None:
    """A newer Codex writing something new shows up as skipped lines, as unknown top-level types do."""
    lines = CODEX.read_bytes().splitlines()
    new = [b'{"timestamp": "2026-05-11T08:30:00Z", "type": "response_item", "payload": {"type": "hologram"}}',
           b'{"timestamp": "2026-05-11T08:30:00Z", "type": "event_msg", "payload": {"type": "telepathy"}}',
           b'{"timestamp": "2026-05-11T08:30:00Z", "type": "event_msg", "payload": {"type": "task_started"}}']
    path = tmp_path / CODEX.name
    path.write_bytes(b"\n".join([lines[0], *new, *lines[1:]]) + b"\n")
    _, entries, stats = read_all(path)
    _, clean, clean_stats = read_all(CODEX)
    assert len(entries) == len(clean) and clean_stats.skipped == 0
    assert stats.skipped == 2
    assert stats.reasons == {"unknown-response_item": 1, "unknown-event_msg": 1}
    assert stats.ignored == clean_stats.ignored + 1  # task_started: known, nothing to keep
