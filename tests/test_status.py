"""`memcli status`: staging vs trigger, lock holder, last runs; failed or killed runs exit 1."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys

import pytest
from support.fake_llm import FAKE_MODEL, Reply

from memcli import history
from memcli.commands.status import run
from memcli.consolidate import lock
from memcli.workspace import Workspace


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "memory" / "_staging").mkdir(parents=True)
    (tmp_path / "memcli.toml").write_text("[consolidate]\ntrigger_files = 1\ntrigger_bytes = 1000\n")
    return Workspace.open(tmp_path)


def _status(ws, capsys, as_json=False):
    code = run(as_json=as_json, workspace=ws.root)
    out = capsys.readouterr().out
    return code, (json.loads(out) if as_json else out)


def test_fresh_workspace(ws, capsys):
    code, out = _status(ws, capsys)
    assert code == 0
    assert "0 files, 0 bytes (trigger: > 1 files or > 1000 bytes; below the trigger)" in out
    assert "consolidation lock: free" in out
    assert "last extract:       never" in out and "last consolidate:   never" in out
    assert "sessions pending:   0" in out


@pytest.mark.parametrize("files, size, due", [(1, 10, False), (2, 10, True), (1, 2000, True)])
def test_staging_against_trigger(ws, capsys, files, size, due):
    for i in range(files):
        (ws.staging_dir / f"s{i}.json").write_bytes(b"x" * size)
    (ws.staging_dir / "consolidate.lock.guard").write_bytes(b"")  # not a staging file
    code, data = _status(ws, capsys, as_json=True)
    assert data["staging"]["files"] == files and data["staging"]["bytes"] == files * size
    assert data["staging"]["due"] is due


def test_live_and_stale_lock(ws, capsys):
    held = lock.acquire(ws, "r1", ["a", "b"])
    code, out = _status(ws, capsys)
    assert f"pid {os.getpid()} on {socket.gethostname()}" in out and "(running)" in out
    lock.release(ws, held)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = {"pid": gone.pid, "host": socket.gethostname(), "started_at": "t", "run_id": "x", "consumed": []}
    lock.lock_path(ws).write_text(json.dumps(dead))
    code, data = _status(ws, capsys, as_json=True)
    assert data["lock"]["alive"] is False


def test_last_consolidation_committed(ws, capsys):
    history.record(ws, "consolidate", {
        "run_id": "r1", "started_at": "2026-05-20T10:00:00+00:00", "finished_at": "2026-05-20T10:01:00+00:00",
        "result": "committed", "commit": "abcdef1234567", "counts": {"added": 2, "updated": 1, "replaced": 0,
                                                                      "dropped": 0},
        "prompt_tokens": 1000, "completion_tokens": 234, "cost_usd": 0.0123})
    code, out = _status(ws, capsys)
    assert code == 0
    assert ("last consolidate:   2026-05-20T10:01:00+00:00: committed abcdef1234 (2 added, 1 updated, "
            "0 replaced, 0 dropped); 1234 tokens, $0.0123") in out


def test_failed_run_exits_1_and_says_why(ws, capsys):
    history.record(ws, "consolidate", {"run_id": "r1", "started_at": "t", "finished_at": "t2",
                                       "result": "failed", "error": "model openai/x failed 3 times"})
    code, out = _status(ws, capsys)
    assert code == 1 and "failed" in out and "why: model openai/x failed 3 times" in out


def test_running_entry_without_live_lock_is_interrupted(ws, capsys):
    history.record(ws, "consolidate", {"run_id": "r9", "started_at": "t", "result": "running"})
    code, data = _status(ws, capsys, as_json=True)
    assert code == 1 and data["ok"] is False
    assert data["last_consolidate"]["result"] == "interrupted"
    held = lock.acquire(ws, "r9", [])
    code, data = _status(ws, capsys, as_json=True)
    assert code == 0 and data["last_consolidate"]["result"] == "running"
    lock.release(ws, held)


def test_extract_run_is_recorded_and_shown(ws, capsys, fake_llm, tmp_path):
    """A real `memcli extract` (over the fake HTTP model) writes its run into the history."""
    from memcli.extract.run import run as extract_run

    items = {"decisions": [{"title": "t", "decision": "d"}], "discussions": [], "attempts": [],
             "requests": []}
    fake_llm.responder = lambda body: Reply(content=json.dumps(items))
    transcript = tmp_path / "s.jsonl"
    transcript.write_text("".join(json.dumps({"role": r, "content": f"{r} says hi {i}",
                                              "timestamp": "2026-01-01T00:00:00Z"}) + "\n"
                                  for i, r in enumerate(["user", "assistant"])))
    assert extract_run(ws, paths=[transcript], model=FAKE_MODEL) == 0
    capsys.readouterr()
    last = history.last(ws, "extract")
    assert last["result"] == "done" and last["counts"]["decisions"] == 1 and last["prompt_tokens"] > 0
    code, out = _status(ws, capsys)
    assert code == 0
    assert re.search(r"last extract: +\S+: done \(1 chunk, 1 decision, 0 discussions, 0 attempts, "
                     r"0 requests\); \d+ tokens", out)


def test_extract_marked_running_is_interrupted_once_its_process_is_gone(ws, capsys):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    history.record(ws, "extract", {"run_id": "extract-x", "started_at": "2026-05-20T09:00:00+00:00",
                                   "result": "running", "pid": int(dead.stdout),
                                   "host": socket.gethostname()})
    code, out = _status(ws, capsys)
    assert code == 1 and "interrupted" in out
    history.record(ws, "extract", {"run_id": "extract-x", "started_at": "2026-05-20T09:00:00+00:00",
                                   "result": "running", "pid": os.getpid(), "host": socket.gethostname()})
    code, out = _status(ws, capsys)
    assert code == 0 and "running" in out

def test_an_interrupted_run_shows_what_its_calls_spent_from_the_call_log(ws, capsys):
    """The run's record never got past "running" (killed); its four calls are in llm-calls.jsonl."""
    started = "2026-05-20T10:00:00+00:00"
    history.record(ws, "consolidate", {"run_id": "killed", "started_at": started, "result": "running",
                                       "prompt_tokens": 0, "completion_tokens": 0})
    rows = [{"time": f"2026-05-20T10:0{i}:30+00:00", "role": role, "model": FAKE_MODEL, "mode": "tools",
             "seconds": 1.0, "ok": True, "error": None, "prompt_tokens": 1000, "completion_tokens": 50,
             "cost_usd": None} for i, role in enumerate(["consolidation"] * 4 + ["extract"])]
    earlier = {**rows[0], "time": "2026-05-20T09:59:00+00:00"}  # before the run: not its call
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    (ws.state_dir / "llm-calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [earlier, *rows]))
    code, out = _status(ws, capsys)
    assert code == 1
    assert (f"last consolidate:   {started}: interrupted; 4200 tokens, cost unknown in 4 model calls "
            "(from llm-calls.jsonl)") in out



def test_status_says_extraction_is_off_as_a_choice(tmp_path, capsys) -> None:
    """`memory.extract_model = "none"`: a session to extract is left alone, said as a choice."""
    from pathlib import Path

    from support.claude_transcript import assistant_text, user, write_session

    (tmp_path / "memory" / "_staging").mkdir(parents=True)
    (tmp_path / "memcli.toml").write_text('[memory]\nextract_model = "none"\n[extract]\nidle_minutes = 0\n')
    write_session(Path(os.environ["HOME"]) / ".claude", tmp_path, [
        ("user", user("Keep the queue in SQLite.")), ("assistant", assistant_text("Agreed.", "m1"))])
    code, out = _status(Workspace.open(tmp_path), capsys)
    assert code == 0
    assert '  extraction:         off (memory.extract_model = "none"); 1 session(s) not extracted' in out
    assert "  models:             extract none; consolidate none" in out
