"""`memcli metrics` end to end: table, JSON, candidates, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memcli.cli import main

DAY = "2026-05-12T09:{:02d}:00.000Z"


def _memcli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def test_json_and_table(agents, example_ws: Path, capsys) -> None:
    a = agents.claude()
    a.user("let's follow /release today", DAY.format(0))
    a.tool("Read", {"file_path": "memory/decisions/sync-job-runner.md"}, DAY.format(1))
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws), "--json")
    assert code == 0
    data = json.loads(out)
    rows = {r["path"]: r for r in data["records"]}
    assert rows["memory/workflow/release.md"]["invokes"] == 1
    assert rows["memory/workflow/release.md"]["protected"] is True
    assert rows["memory/workflow/release.md"]["last_use"] == "2026-05-12T09:00:00+00:00"
    moved = rows["memory/decisions/background-jobs-in-thread.md"]
    assert moved["invokes"] == 1 and moved["merged_from"] == ["memory/decisions/sync-job-runner.md"]
    assert "memory/decisions/sync-job-runner.md" not in rows
    assert data["scan"]["scanned"] == 1
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws))
    assert code == 0
    assert "memory/workflow/release.md" in out and "yes" in out
    assert "knowledge/wal-mode.md" not in out  # no invokes: hidden without --all
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws), "--all")
    assert "knowledge/wal-mode.md" in out
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws), "--json")
    assert json.loads(out)["scan"]["scanned"] == 0  # counted by the first run: nothing read again


def test_candidates_json(example_ws: Path, capsys) -> None:
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws), "--candidates", "--json")
    assert code == 0
    assert json.loads(out) == {"candidates": [], "sources": [], "staging_files": 0, "staging_skipped": 0}
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws), "--candidates")
    assert code == 0 and "No knowledge candidates" in out


def test_explicit_session_path_and_missing_one(example_ws: Path, tmp_path: Path, capsys) -> None:
    corpus = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "transcripts"
    if not corpus.is_dir():
        corpus = Path("/work/shared/corpus/transcripts")
    if not corpus.is_dir():
        pytest.skip("no real transcripts here")
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws), "--session", str(corpus), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["sessions"] >= 5 and data["tokens"] > 0
    assert all(r["invokes"] == 0 for r in data["records"])  # these sessions never touch this workspace
    missing = str(tmp_path / "nope.jsonl")
    code, _, err = _memcli(capsys, "metrics", "-w", str(example_ws), "--session", missing)
    assert code == 2 and err.startswith("Error:") and "nope.jsonl" in err
    assert len(err.strip().splitlines()) == 1


def test_unwritable_state_is_a_one_line_error(agents, example_ws: Path, tmp_path: Path, capsys,
                                              monkeypatch) -> None:
    agents.claude().user("#wal-mode", DAY.format(0))
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("MEMCLI_STATE_DIR", str(blocker))
    code, _, err = _memcli(capsys, "metrics", "-w", str(example_ws))
    assert code == 1 and err.startswith("Error: cannot write the metrics state")
    assert len(err.strip().splitlines()) == 1


def test_first_run_message_agrees_with_the_table(agents, example_ws: Path, capsys) -> None:
    """References to records that do not exist are read but are not invokes of any record: the first
    run must not announce them as invokes above an empty table."""
    a = agents.claude()
    for i in range(3):
        a.tool("Read", {"file_path": f"memory/decisions/long-gone-{i}.md"}, DAY.format(i))
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws))
    assert code == 0
    assert "Explicit invokes per million" not in out  # no empty table
    assert "No record has been invoked yet" in out
    assert "0 invokes of current records" in out
    assert "3 references to memory files (those naming no current record" in out
    a.tool("Read", {"file_path": "memory/decisions/use-sqlite-wal.md"}, DAY.format(9))
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws))
    assert "memory/decisions/use-sqlite-wal.md" in out and "1 invoke of current records" in out


def test_with_no_sessions_the_hint_names_an_option_and_a_setting_that_exist(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no agent's sessions anywhere
    root = tmp_path / "ws"
    root.mkdir()
    assert _memcli(capsys, "init", "-w", str(root))[0] == 0
    code, out, _ = _memcli(capsys, "metrics", "-w", str(root))
    [hint] = [line for line in out.splitlines() if line.startswith("No agent sessions found")]
    assert "--path" in hint and "[sessions] paths" in hint and "--session" not in hint, hint
    code, usage, _ = _memcli(capsys, "metrics", "--help")
    assert re.search(r"^  --path\b", usage, re.M), usage
    config = (root / "memcli.toml").read_text(encoding="utf-8")
    section = config.split("\n[sessions]", 1)[1].split("\n[", 1)[0]
    assert "# paths = " in section  # the setting the hint names, in the file init wrote


def test_one_session_is_said_in_the_singular(agents, example_ws: Path, capsys) -> None:
    a = agents.claude()
    a.user("let's follow /release today", DAY.format(0))
    code, out, _ = _memcli(capsys, "metrics", "-w", str(example_ws))
    assert code == 0 and "1 session, " in out and "read 1 session file:" in out, out
    assert "1 invoke of current records" in out, out
