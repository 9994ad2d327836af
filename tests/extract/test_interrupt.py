"""An extract run killed at any point loses nothing and duplicates nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from extract.helpers import conversation, make_ws, staged, write_jsonl
from support.fake_llm import FakeLLM, Reply

from memcli.extract.ledger import LEDGER
from memcli.extract.run import run

ITEMS = {"decisions": [], "discussions": [], "attempts": [{"title": "t", "outcome": "o"}], "requests": []}


def test_sigkill_after_some_chunks_then_rerun_completes_without_duplicates(
        fake_llm: FakeLLM, tmp_path: Path) -> None:
    ws = make_ws(tmp_path / "ws", extract={"concurrency": 1})
    sessions = tmp_path / "sessions"
    for i in range(8):
        write_jsonl(sessions / f"s{i}.jsonl", conversation(3))
    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEMS), delay=0.25)
    proc = subprocess.Popen([sys.executable, "-m", "memcli", "extract", "-w", str(ws.root), str(sessions)],
                            env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if ws.staging_dir.is_dir() and len(list(ws.staging_dir.glob("*.json"))) >= 3:
            break
        time.sleep(0.02)
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(staged(ws))
    assert 3 <= done_before < 8
    assert not [p for p in ws.staging_dir.iterdir() if p.name.startswith(".")]  # no temp file left

    assert run(ws, paths=[sessions]) == 0
    files = staged(ws)
    assert sorted(f.source.session_id for f in files) == [f"s{i}" for i in range(8)]
    assert all(f.source.range == (0, 2) for f in files)
    # the re-run called the model only for what was missing (plus at most the one killed in flight)
    assert fake_llm.calls <= 8 + 1
    calls = fake_llm.calls
    assert run(ws, paths=[sessions]) == 0 and fake_llm.calls == calls


def test_killed_between_staging_write_and_ledger_is_recovered_without_a_call(
        fake_llm: FakeLLM, tmp_path: Path, capsys) -> None:
    ws = make_ws(tmp_path / "ws")
    path = write_jsonl(tmp_path / "s.jsonl", conversation(4))
    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEMS))
    assert run(ws, paths=[path]) == 0
    ledger = ws.state_dir / LEDGER
    lines = ledger.read_text().splitlines()
    ledger.write_text("\n".join(lines[:-1]) + ("\n" if lines[:-1] else "") + lines[-1][:25])  # torn line
    capsys.readouterr()
    assert run(ws, paths=[path]) == 0
    assert "1 recovered" in capsys.readouterr().out
    assert fake_llm.calls == 1 and len(staged(ws)) == 1
    assert run(ws, paths=[path]) == 0 and fake_llm.calls == 1


def _start_and_wait(fake_llm: FakeLLM, tmp_path: Path) -> tuple[subprocess.Popen, object, Path]:
    """8 sessions, 2 at a time: the first two answers arrive, every later request hangs for a minute
    (far beyond the one second Ctrl-C is allowed to take)."""
    ws = make_ws(tmp_path / "ws", extract={"concurrency": 2, "timeout_s": 60})
    sessions = tmp_path / "sessions"
    for i in range(8):
        write_jsonl(sessions / f"s{i}.jsonl", conversation(3))
    answered = iter(range(2))
    fake_llm.responder = lambda body: (Reply(content=json.dumps(ITEMS)) if next(answered, None) is not None
                                       else Reply(content=json.dumps(ITEMS), delay=60))
    proc = subprocess.Popen([sys.executable, "-m", "memcli", "extract", "-w", str(ws.root), str(sessions)],
                            env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(staged(ws)) >= 2 and fake_llm.calls >= 4:  # two kept, two hanging in flight
            break
        time.sleep(0.02)
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    return proc, ws, sessions


def test_ctrl_c_stops_at_once_keeps_what_was_answered_and_is_recorded_as_interrupted(
        fake_llm: FakeLLM, tmp_path: Path) -> None:
    proc, ws, sessions = _start_and_wait(fake_llm, tmp_path)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.1)
    proc.send_signal(signal.SIGINT)  # an impatient second Ctrl-C
    try:
        out, err = proc.communicate(timeout=15)  # the hanging requests would hold it for 60 s
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("extract did not stop on Ctrl-C") from None
    assert proc.returncode == 130, (out.decode(), err.decode())
    assert "Traceback" not in err.decode() and "Interrupted: kept the 2 chunk(s)" in err.decode()
    assert "2 extracted" in out.decode() and "6 not started" in out.decode()
    assert len(staged(ws)) == 2
    assert not [p for p in ws.staging_dir.iterdir() if p.name.startswith(".")]

    status = subprocess.run([sys.executable, "-m", "memcli", "status", "--json", "-w", str(ws.root)],
                            env=dict(os.environ), capture_output=True, text=True)
    last = json.loads(status.stdout)["last_extract"]
    assert status.returncode == 1 and last["result"] == "interrupted" and last["counts"]["chunks"] == 2

    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEMS))
    calls = fake_llm.calls
    assert run(ws, paths=[sessions]) == 0
    assert fake_llm.calls == calls + 6  # only the six not kept are asked again
    assert len({f.source.session_id for f in staged(ws)}) == 8


def test_sigterm_stops_as_ctrl_c_does_and_exits_143(fake_llm: FakeLLM, tmp_path: Path) -> None:
    """`timeout 30m memcli extract` in a cron job: SIGTERM keeps what was answered, records the run
    as interrupted and leaves no temp file, as Ctrl-C does; the exit code says it was SIGTERM."""
    proc, ws, sessions = _start_and_wait(fake_llm, tmp_path)
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)  # a second one while it stops is ignored
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("extract did not stop on SIGTERM") from None
    assert proc.returncode == 143, (out.decode(), err.decode())
    assert "Traceback" not in err.decode() and "Interrupted: kept the 2 chunk(s)" in err.decode()
    assert len(staged(ws)) == 2
    assert not [p for p in ws.staging_dir.iterdir() if p.name.startswith(".")]
    status = subprocess.run([sys.executable, "-m", "memcli", "status", "--json", "-w", str(ws.root)],
                            env=dict(os.environ), capture_output=True, text=True)
    assert json.loads(status.stdout)["last_extract"]["result"] == "interrupted"


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_ends_the_agent_running_as_the_model(tmp_path: Path, sig: int, code: int) -> None:
    """The agent memcli runs as its model has a session of its own, so neither Ctrl-C at the
    terminal nor a SIGTERM sent to memcli (as `timeout` sends it) reaches it, and the thread that
    waits on it is abandoned: memcli ends it on the way out, instead of leaving it running, and
    spending, after memcli is gone."""
    ws = make_ws(tmp_path / "ws")
    write_jsonl(tmp_path / "sessions" / "s.jsonl", conversation(3))
    bin_dir, pid_file = tmp_path / "bin", tmp_path / "agent.pid"
    bin_dir.mkdir()
    agent = bin_dir / "claude"
    agent.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 60\n", encoding="utf-8")
    agent.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.Popen([sys.executable, "-m", "memcli", "extract", "-m", "agent/claude-code", "-w",
                             str(ws.root), str(tmp_path / "sessions")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not pid_file.is_file():
        time.sleep(0.02)
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    time.sleep(0.1)  # the pid is written: the agent is running
    agent_pid = int(pid_file.read_text())
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, (out.decode(), err.decode())
    assert not Path(f"/proc/{agent_pid}").exists(), "the agent outlived memcli"
