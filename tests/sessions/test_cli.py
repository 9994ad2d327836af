"""`memcli sessions` and `memcli source` through the real CLI entry point."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from memcli.cli import main
from memcli.sessions.query import parse_since, parse_spec

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
VIEWER = FIX / "claude-code" / "d-kimuson__claude-code-viewer"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_sessions_json_lists_every_fixture_session(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no workspace needed when paths are given
    code, out, _ = run(capsys, "sessions", str(FIX), "--json")
    rows = json.loads(out)
    assert code == 0
    by_id = {r["session_id"]: r for r in rows}
    assert by_id["5c0375b4-57a5-4f26-b12d-d022ee4e51b7"]["entries"] == 45
    assert by_id["019e1625-789d-76c0-80ab-3724b5ddb799"]["agent"] == "codex"
    assert by_id["37b7abef-713d-4522-85f0-8ff15a4e6d17"]["first_time"] == "2026-01-16T11:01:22.281000+00:00"
    assert sum(r["agent"] == "aider" for r in rows) == 30 and all(r["entries"] for r in rows)
    code, out, _ = run(capsys, "sessions", str(FIX), "--json", "--all")  # Aider's empty launches too
    assert sum(r["agent"] == "aider" for r in json.loads(out)) == 38
    assert all(r["skipped"] == 0 for r in rows)
    state = Path(os.environ["MEMCLI_STATE_DIR"])
    assert not (tmp_path / ".memcli").exists() and not (state / "sessions-scan.json").exists()  # no workspace


def test_sessions_table_shows_whole_ids(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "sessions", str(VIEWER))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["agent", "session", "entries", "skipped", "first", "last", "size"]
    row = next(line for line in lines if "5c0375b4" in line)
    assert row.split()[:3] == ["claude-code", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "45"]


def test_sessions_hides_empty_histories_unless_asked(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "sessions", "--path", str(FIX / "aider"))
    rows = [line.split("\t") for line in out.splitlines()[1:] if line.startswith("aider\t")]
    assert code == 0 and len(rows) == 30 and all(int(r[2]) > 0 for r in rows)
    assert "(8 empty session(s) hidden; --all lists them)" in out
    code, out, _ = run(capsys, "sessions", str(FIX / "aider"), "--all")
    assert sum(line.startswith("aider\t") for line in out.splitlines()) == 38 and "hidden" not in out


def test_sessions_since_and_bad_since(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "sessions", str(FIX / "gemini-cli"), str(VIEWER), "--since", "2026-01-01",
                       "--json")
    assert code == 0 and [r["agent"] for r in json.loads(out)] == ["gemini-cli", "gemini-cli"]  # JSON, JSONL
    code, _, err = run(capsys, "sessions", str(VIEWER), "--since", "last tuesday")
    assert code == 2 and err.count("\n") == 1 and "--since" in err


def test_sessions_outside_a_workspace_without_paths(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "sessions")
    assert code == 2 and "no memcli workspace" in err


def test_source_prints_entries_readably(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "source", "5c0375b4:0-4", "--path", str(VIEWER))
    assert code == 0
    assert out.splitlines()[0].startswith("── 5c0375b4-57a5-4f26-b12d-d022ee4e51b7:0-4 · claude-code")
    prompt = "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
    assert f"[0] user · 2025-09-07 09:52:03Z\n  {prompt}\n" in out
    assert "[1] user (injected)" in out
    assert "[2-3] assistant · " in out and "  → TodoWrite(todos=[" in out
    assert "[4] tool (injected)" in out and "  ← result:" in out


def test_source_json_and_spans_overlapping_the_range(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "source", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7:3-5", "--path", str(VIEWER),
                       "--json")
    doc = json.loads(out)
    assert code == 0 and doc["range"] == [3, 5]
    assert [(e["index"], e["end"], e["role"]) for e in doc["entries"]] == [
        (2, 3, "assistant"), (4, 4, "tool"), (5, 7, "assistant")]  # responses that touch lines 3..5
    calls = doc["entries"][2]["tool_calls"]
    assert [c["name"] for c in calls] == ["Glob", "Glob", "TodoWrite"]
    assert calls[0]["arguments"]["pattern"] and calls[0]["call_id"].startswith("toolu_")


def test_source_codex_and_aider(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "source", "019e1625:21-22", "--path", str(FIX / "codex"))
    assert code == 0 and "[22] user · 2026-05-11 08:32:57Z\n  let's update the defailt context" in out
    code, out, _ = run(capsys, "source", "chat-history@102:112", "--path", str(FIX / "aider"))
    assert code == 0 and "[112] user\n  Use the Spinner instead of the inlined custom spinner" in out


@pytest.mark.parametrize(("spec", "code", "message"), [
    ("nope:1-2", 1, "no session 'nope'"),
    ("5c0375b4:50-60", 1, "out of range: the session spans lines 0-52"),
    ("5c0375b4:5-2", 2, "ends before it starts"),
    ("5c0375b4:x-y", 2, "write the range as SESSION:START-END"),
    ("5c0375b4:", 2, "write the range as SESSION:START-END"),
    ("5c0375b4:3-", 2, "write the range as SESSION:START-END"),
    (":3-4", 2, "no session id"),
])
def test_source_errors_are_one_line(capsys, monkeypatch, tmp_path: Path, spec: str, code: int,
                                    message: str) -> None:
    monkeypatch.chdir(tmp_path)
    got, out, err = run(capsys, "source", spec, "--path", str(VIEWER))
    assert got == code and out == "" and err.startswith("Error: ") and err.count("\n") == 1
    assert message in err


def test_a_prefix_means_the_main_session_not_its_subagent_side_files(capsys, monkeypatch,
                                                                     tmp_path: Path) -> None:
    """Claude Code writes `agent-*.jsonl` beside the session; their ids start with the session's."""
    monkeypatch.chdir(tmp_path)
    private = FIX / "claude-code" / "codemie-ai__codemie-code" / "-tmp-private"
    code, out, err = run(capsys, "source", "4c2ddfdc:3-5", "--path", str(private), "--json")
    assert code == 0, err
    assert json.loads(out)["session_id"] == "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
    code, out, _ = run(capsys, "source", "4c2ddfdc-b619-4525-8d03-1950fb1b0257/agent-365", "--path",
                       str(private), "--json")
    assert code == 0 and json.loads(out)["session_id"].endswith("/agent-36541525")
    code, _, err = run(capsys, "source", "4c2ddfdc-b619-4525-8d03-1950fb1b0257/agent-", "--path",
                       str(private))
    assert code == 2 and "ambiguous" in err and "agent-50243ee8" in err and "agent-36541525" in err


def test_the_same_id_in_two_files_is_told_apart_by_path(capsys, monkeypatch, tmp_path: Path) -> None:
    import shutil

    monkeypatch.chdir(tmp_path)
    name = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    for copy in ("old-checkout", "new-checkout"):
        (tmp_path / copy).mkdir()
        shutil.copy(VIEWER / "sample-project" / name, tmp_path / copy / name)
    both = ["--path", str(tmp_path / "old-checkout"), "--path", str(tmp_path / "new-checkout")]
    code, out, err = run(capsys, "source", "5c0375b4:3-5", *both)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert str(tmp_path / "old-checkout" / name) in err and str(tmp_path / "new-checkout" / name) in err
    assert "--path" in err
    code, out, _ = run(capsys, "source", "5c0375b4:3-5", "--path", str(tmp_path / "new-checkout" / name))
    assert code == 0 and "new-checkout" in out


def test_parse_spec_and_since() -> None:
    assert parse_spec("abc:3-7") == ("abc", (3, 7))
    assert parse_spec("abc:4") == ("abc", (4, 4))
    assert parse_spec("turn-2/agent-a485154") == ("turn-2/agent-a485154", None)
    now = dt.datetime(2026, 1, 10, tzinfo=dt.UTC)
    assert parse_since("7d", now) == dt.datetime(2026, 1, 3, tzinfo=dt.UTC)
    assert parse_since("90m", now) == now - dt.timedelta(minutes=90)
    assert parse_since("2025-09-01T10:00:00+00:00") == dt.datetime(2025, 9, 1, 10, tzinfo=dt.UTC)
