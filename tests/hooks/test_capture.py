"""The detached capture worker (`memcli hooks capture`): extract the session at once after its end,
once idle after a turn end, one worker per session, its failures and waits recorded for `memcli status`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from extract.helpers import make_ws, staged, write_jsonl
from support.fake_llm import Reply
from support.hook_payloads import (
    FIXTURES,
    ITEMS,
    SESSION_IDS,
    copy_transcript,
    memcli_run,
    payload,
)

from memcli import history
from memcli.cli import main
from memcli.hooks import capture
from memcli.hooks import payload as hook_payload
from memcli.workspace import Workspace


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "gemini-jsonl"])
def test_each_agents_payload_reaches_the_worker_and_its_session_is_extracted(
        agent: str, tmp_path: Path, fake_llm) -> None:
    ws = make_ws(tmp_path / "ws")
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    transcript = copy_transcript(agent, tmp_path / "agent-home")
    read, write = os.pipe()
    os.write(write, json.dumps(payload(agent, ws.root, transcript)).encode())
    os.close(write)
    with os.fdopen(read, "rb") as stream:
        sent = hook_payload.read_payload(stream)
    assert capture.capture(ws, sent["session_id"], sent["transcript_path"]) == 0
    files = staged(ws)
    assert files and {f.source.session_id for f in files} == {SESSION_IDS[agent]}
    assert {f.agent for f in files} == {"gemini-cli" if agent.startswith("gemini") else agent}
    assert history.last(ws, "extract")["result"] == "done"  # type: ignore[index]


def test_gemini_session_found_by_discovery_when_the_payload_names_no_file(
        tmp_path: Path, fake_llm, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini CLI 0.61 keeps the session under tmp/<project name>/, the name in projects.json."""
    ws = make_ws(tmp_path / "ws")
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    gemini_dir = tmp_path / "ghome" / ".gemini"
    copy_transcript("gemini-jsonl", gemini_dir / "tmp" / "ws" / "chats")
    registry = {"projects": {str(ws.root): "ws"}}
    (gemini_dir / "projects.json").write_text(json.dumps(registry), encoding="utf-8")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini_dir.parent))
    assert capture.capture(ws, SESSION_IDS["gemini-jsonl"], None) == 0
    assert {f.source.session_id for f in staged(ws)} == {SESSION_IDS["gemini-jsonl"]}


def test_copilot_session_found_by_its_id_the_payload_naming_no_file(
        tmp_path: Path, fake_llm, monkeypatch: pytest.MonkeyPatch) -> None:
    """Copilot CLI 1.0.102's SessionEnd payload, as it sent it (no transcript_path): the worker finds
    session-state/<id>/events.jsonl under its home by the folder its session.start names."""
    ws = make_ws(tmp_path / "ws")
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    session = "3bf39108-d836-47d4-b26f-1fb4f7bc2c3a"
    fixture = FIXTURES / "copilot-cli" / "memcli-e2e" / session / "events.jsonl"
    first, rest = fixture.read_text(encoding="utf-8").split("\n", 1)
    start = json.loads(first)
    start["data"]["context"]["cwd"] = str(ws.root)  # it ran in this workspace
    events = tmp_path / "copilot-home" / "session-state" / session / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_text(json.dumps(start) + "\n" + rest, encoding="utf-8")
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot-home"))
    read, write = os.pipe()
    os.write(write, json.dumps({"hook_event_name": "SessionEnd", "session_id": session,
                                "timestamp": "2026-12-01T19:26:09.368Z", "cwd": str(ws.root),
                                "reason": "complete"}).encode())
    os.close(write)
    with os.fdopen(read, "rb") as stream:
        sent = hook_payload.read_payload(stream)
    assert capture.capture(ws, sent["session_id"], sent.get("transcript_path")) == 0
    files = staged(ws)
    assert {(f.agent, f.source.session_id) for f in files} == {("copilot-cli", session)}
    assert history.last(ws, "extract")["result"] == "done"  # type: ignore[index]


def test_worker_waits_for_the_idle_window_then_extracts(tmp_path: Path, fake_llm) -> None:
    ws = make_ws(tmp_path / "ws", extract={"idle_minutes": 0.03})  # 1.8 s
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    rows = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}", "timestamp": now}
            for i in range(4)]
    transcript = write_jsonl(tmp_path / "s.jsonl", rows)
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        time.sleep(seconds)

    assert capture.capture(ws, None, str(transcript), sleep=sleep) == 0
    assert pauses and 0 < pauses[0] <= 3.0  # it waited for the session to go quiet, no longer
    assert len(staged(ws)) == 1 and len(fake_llm.requests) == 1


def test_worker_without_a_model_records_a_state_not_a_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("MEMCLI_EXTRACT_MODEL", raising=False)
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text("[extract]\nidle_minutes = 0\n", encoding="utf-8")  # no model set
    ws = Workspace.open(root)
    transcript = copy_transcript("claude-code", tmp_path / "home")
    assert capture.capture(ws, SESSION_IDS["claude-code"], str(transcript)) == 0
    last = history.last(ws, "extract")
    assert last is not None and last["result"] == "waiting" and last["trigger"] == "hook"
    assert last["note"] == ("waiting for a model: set memory.extract_model (or install and wire a "
                            "coding agent memcli can run)")
    with pytest.raises(SystemExit) as done:
        main(["status", "-w", str(root)])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert ("extraction:         1 session(s) waiting for a model: set memory.extract_model (or "
            "install and wire a coding agent memcli can run)") in out
    assert "why:" not in out


def test_worker_failure_is_recorded_for_memcli_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_ws(tmp_path / "ws")  # a model is set, but its key is not in the environment
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    transcript = copy_transcript("claude-code", tmp_path / "home")
    assert capture.capture(ws, SESSION_IDS["claude-code"], str(transcript)) == 2
    last = history.last(ws, "extract")
    assert last is not None and last["result"] == "failed" and "OPENAI_API_KEY" in last["error"]
    with pytest.raises(SystemExit) as done:
        main(["status", "-w", str(ws.root)])
    assert done.value.code == 1
    assert "why: " in capsys.readouterr().out


def test_worker_reports_a_session_it_cannot_find(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture, "FIND_WAIT_S", 0.0)
    ws = make_ws(tmp_path / "ws")
    assert capture.capture(ws, "no-such-session", str(tmp_path / "gone.jsonl"), sleep=lambda s: None) == 1
    assert "not found" in history.last(ws, "extract")["error"]  # type: ignore[index]


def test_one_worker_per_session(tmp_path: Path, fake_llm) -> None:
    ws = make_ws(tmp_path / "ws")
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    transcript = copy_transcript("codex", tmp_path / "home")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = capture._lock_path(ws, SESSION_IDS["codex"], str(transcript))
        lock.parent.mkdir(parents=True)
        lock.write_text(str(other.pid))  # a worker already waits for this session
        assert capture.capture(ws, SESSION_IDS["codex"], str(transcript)) == 0
        assert fake_llm.requests == [] and lock.read_text() == str(other.pid)
    finally:
        other.kill()
        other.wait()
    # its worker died: the next hook takes over
    assert capture.capture(ws, SESSION_IDS["codex"], str(transcript)) == 0
    assert staged(ws) and not lock.exists()


def test_worker_without_the_llm_extra_says_what_to_install(tmp_path: Path) -> None:
    """`pip install memcli` without `[llm]`: the session waits for a model, and the state says what
    to install (litellm hidden the way tests/test_llm_extra.py hides it)."""
    ws = make_ws(tmp_path / "ws")
    transcript = copy_transcript("claude-code", tmp_path / "home")
    probe = ("import sys\nsys.modules['litellm'] = None\nfrom memcli.cli import main\nmain(sys.argv[1:])\n")
    done = subprocess.run([sys.executable, "-c", probe, "hooks", "capture", "--cwd", str(ws.root),
                           "--session", SESSION_IDS["claude-code"], "--transcript", str(transcript)],
                          capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stdout == b""
    last = history.last(ws, "extract")
    assert last is not None and last["result"] == "waiting"
    assert last["note"] == 'waiting for a model: pip install "memcli[llm]"'


def test_a_session_end_extracts_at_once_and_a_turn_end_waits_for_the_idle_window(
        tmp_path: Path, fake_llm) -> None:
    ws = make_ws(tmp_path / "ws", extract={"idle_minutes": 30})
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    rows = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}", "timestamp": now}
            for i in range(4)]
    transcript = write_jsonl(tmp_path / "s.jsonl", rows)
    pauses: list[float] = []

    def sleep(seconds: float) -> None:  # a turn end: the worker would wait; stop it at its first pause
        pauses.append(seconds)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        capture.capture(ws, None, str(transcript), event="Stop", sleep=sleep)
    assert pauses and pauses[0] >= 60 and staged(ws) == []  # re-read every 5 minutes at most
    assert capture.capture(ws, None, str(transcript), event="SessionEnd", sleep=sleep) == 0
    assert len(pauses) == 1 and len(staged(ws)) == 1 and len(fake_llm.requests) == 1


def test_a_session_end_stops_the_wait_of_a_worker_already_waiting(tmp_path: Path, fake_llm) -> None:
    """A PreCompact (or Codex Stop) worker waits out the idle window; when the session then ends, its
    SessionEnd hook finds that worker, and tells it to extract at once instead of starting another."""
    ws = make_ws(tmp_path / "ws", extract={"idle_minutes": 30})
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    rows = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}", "timestamp": now}
            for i in range(4)]
    transcript = write_jsonl(tmp_path / "s.jsonl", rows)
    lock = capture._lock_path(ws, None, str(transcript))
    waiting = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:  # the SessionEnd hook while another worker holds the session: it leaves the marker, no more
        lock.parent.mkdir(parents=True)
        lock.write_text(str(waiting.pid))
        assert capture.capture(ws, None, str(transcript), event="SessionEnd") == 0
        assert staged(ws) == [] and fake_llm.requests == []
        assert capture._ended_marker(lock).exists()
    finally:
        waiting.kill()
        waiting.wait()
    lock.unlink()
    capture._ended_marker(lock).unlink()  # now the same from the waiting worker's side, which
    pauses: list[float] = []  # started before the end

    def sleep(seconds: float) -> None:  # the waiting worker, seen from inside: the end arrives
        pauses.append(seconds)
        capture._ended_marker(lock).touch()

    assert capture.capture(ws, None, str(transcript), event="PreCompact", sleep=sleep) == 0
    assert len(pauses) == 1 and pauses[0] >= 60  # it was waiting for the idle window...
    assert len(staged(ws)) == 1 and len(fake_llm.requests) == 1  # ...and extracted at the end's word
    assert not capture._ended_marker(lock).exists() and not lock.exists()


def test_the_waiting_workers_sleep_ends_when_the_marker_appears(tmp_path: Path) -> None:
    import threading

    marker = tmp_path / "capture.ended"
    threading.Timer(0.3, marker.touch).start()
    started = time.monotonic()
    capture._napper(marker)(60.0)
    assert time.monotonic() - started < 10  # not the minute it was asked to sleep


def test_a_session_end_without_a_transcript_is_ignored(tmp_path: Path) -> None:
    """`claude mcp list` fires SessionEnd with a transcript path it never writes: the worker records
    nothing, at once, and `memcli status` stays green."""
    ws = make_ws(tmp_path / "ws")
    started = time.monotonic()
    done = memcli_run(["hooks", "capture", "--cwd", str(ws.root), "--event", "SessionEnd",
                    "--session", "b1c9d0e2-0000-4000-8000-000000000000",
                    "--transcript", str(tmp_path / "never-written.jsonl")], None, ws.root)
    assert (done.returncode, done.stdout) == (0, b"") and time.monotonic() - started < 30
    assert history.runs(ws, "extract") == [] and not (ws.state_dir / "hooks").exists()
    assert memcli_run(["status", "-w", str(ws.root)], None, ws.root).returncode == 0
