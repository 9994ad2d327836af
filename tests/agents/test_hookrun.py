"""What the installed hooks run: the resident context at session start, `memcli extract --hook`
(detach at once, extract once idle) and the detached worker."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from extract.helpers import FIXTURES, make_ws, staged, write_jsonl
from support.fake_llm import Reply

from memcli import history
from memcli.agents import hookio, hookrun
from memcli.cli import main
from memcli.workspace import Workspace

TRANSCRIPTS = {
    "claude-code": FIXTURES / "claude-code" / "codemie-ai__codemie-code" / "-tmp-private"
    / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
    "codex": FIXTURES / "codex" / "codemie-ai__codemie-code"
    / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
    "gemini": FIXTURES / "gemini-cli" / "codemie-ai__codemie-code"
    / "session-2026-01-16T11-01-file-ops-37b7abef.json",
    "gemini-jsonl": FIXTURES / "gemini-cli" / "memcli-e2e"  # Gemini CLI 0.61
    / "session-2026-12-01T16-19-3b726bda.jsonl",
}
# An extraction with something in it: an empty answer writes no staging file.
ITEMS = json.dumps({"decisions": [{"title": "Index in SQLite", "decision": "Keep the search index in SQLite",
                                   "rationale": "one file, no server"}],
                    "discussions": [], "attempts": [], "requests": []})
SESSION_IDS = {"claude-code": "4c2ddfdc-b619-4525-8d03-1950fb1b0257",
               "codex": "019e1625-789d-76c0-80ab-3724b5ddb799",
               "gemini": "37b7abef-713d-4522-85f0-8ff15a4e6d17",
               "gemini-jsonl": "3b726bda-21bf-415f-8abd-498c40c008e8"}


def payload(agent: str, cwd: Path, transcript: Path) -> dict:
    """The stdin JSON each agent sends to its session-end (or turn-end) hook."""
    base = {"session_id": SESSION_IDS[agent], "transcript_path": str(transcript), "cwd": str(cwd)}
    if agent == "claude-code":
        return {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit",
                "permission_mode": "default"}
    if agent == "codex":
        return {**base, "hook_event_name": "Stop", "turn_id": "t-1", "model": "gpt-5-codex",
                "permission_mode": "default", "stop_hook_active": False, "last_assistant_message": "ok"}
    return {**base, "hook_event_name": "SessionEnd", "reason": "exit", "timestamp": "2026-12-01T00:00:00Z"}


def _memcli(args: list[str], stdin: bytes | None, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "memcli", *args], input=stdin, cwd=cwd,
                          capture_output=True, timeout=60)


def _copy(agent: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(TRANSCRIPTS[agent], dest / TRANSCRIPTS[agent].name))


def _wait(condition, limit: float = 90.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False


# ---- session start ------------------------------------------------------------------------------

@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_session_start_prints_the_context_in_the_agents_form(agent: str, example_ws: Path,
                                                             tmp_path: Path) -> None:
    context = _memcli(["context"], None, example_ws).stdout.decode()
    assert context.startswith("# tasklist — project memory")
    body = json.dumps({"session_id": "s", "cwd": str(example_ws), "hook_event_name": "SessionStart",
                       "source": "startup"}).encode()
    done = _memcli(["hooks", "session-start", "--agent", agent], body, tmp_path)
    assert done.returncode == 0 and done.stderr == b""
    out = done.stdout.decode()
    if agent == "claude-code":
        assert out == context  # plain stdout is what Claude Code adds to the context
    else:
        data = json.loads(out)  # Gemini CLI reads JSON only; Codex accepts it
        assert data == {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}


@pytest.mark.parametrize("body", [b"", b"not json", b"[1, 2]", b'{"cwd": 5}', b'{"cwd": "/nonexistent/x"}',
                                  b"\xff\xfe garbage", b'{"cwd": "a\\u0000b"}'])
def test_session_start_never_fails_and_says_nothing_outside_a_workspace(body: bytes, tmp_path: Path) -> None:
    done = _memcli(["hooks", "session-start", "--agent", "gemini"], body, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_session_start_is_silent_on_an_empty_memory(tmp_path: Path) -> None:
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    body = json.dumps({"cwd": str(tmp_path / "ws")}).encode()
    done = _memcli(["hooks", "session-start", "--agent", "codex"], body, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


# ---- extract --hook: the real detach path -------------------------------------------------------

def test_extract_hook_returns_before_the_extraction_and_the_session_is_extracted_later(
        tmp_path: Path, fake_llm) -> None:
    agent = "claude-code"
    ws = make_ws(tmp_path / "ws")
    transcript = _copy(agent, tmp_path / "agent-home")
    fake_llm.responder = lambda body: Reply(content=ITEMS, delay=2.0)  # a slow model
    body = json.dumps(payload(agent, ws.root / "src", transcript)).encode()
    (ws.root / "src").mkdir()
    # through the `memcli` executable's entry point, as the agent runs it
    entry = [sys.executable, "-c", "from memcli.entry import main; main()"]
    done = subprocess.run([*entry, "extract", "--hook"], input=body, cwd=tmp_path, capture_output=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert staged(ws) == []  # the hook returned while the model was still answering
    assert _wait(lambda: (history.last(ws, "extract") or {}).get("result") == "done")
    files = staged(ws)
    assert files and {f.source.session_id for f in files} == {SESSION_IDS[agent]}
    assert _wait(lambda: not list((ws.state_dir / "hooks").glob("*.pid")))  # the worker let go of it


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "gemini-jsonl"])
def test_each_agents_payload_reaches_the_worker_and_its_session_is_extracted(
        agent: str, tmp_path: Path, fake_llm) -> None:
    ws = make_ws(tmp_path / "ws")
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    transcript = _copy(agent, tmp_path / "agent-home")
    read, write = os.pipe()
    os.write(write, json.dumps(payload(agent, ws.root, transcript)).encode())
    os.close(write)
    with os.fdopen(read, "rb") as stream:
        sent = hookio.read_payload(stream)
    assert hookrun.capture(ws, sent["session_id"], sent["transcript_path"]) == 0
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
    _copy("gemini-jsonl", gemini_dir / "tmp" / "ws" / "chats")
    registry = {"projects": {str(ws.root): "ws"}}
    (gemini_dir / "projects.json").write_text(json.dumps(registry), encoding="utf-8")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini_dir.parent))
    assert hookrun.capture(ws, SESSION_IDS["gemini-jsonl"], None) == 0
    assert {f.source.session_id for f in staged(ws)} == {SESSION_IDS["gemini-jsonl"]}


@pytest.mark.parametrize("body", [b"", b"{", b"null", b'"text"', b'{"session_id": 7, "transcript_path": []}',
                                  b'{"hook_event_name": "SessionEnd"}', b"\x00\x01\x02" * 1000,
                                  b'{"session_id": "", "transcript_path": " "}'])
def test_extract_hook_with_a_malformed_payload_exits_0_silently(body: bytes, tmp_path: Path) -> None:
    ws = make_ws(tmp_path / "ws")
    done = _memcli(["extract", "--hook"], body, ws.root)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    time.sleep(0.5)
    assert history.runs(ws, "extract") == [] and not (ws.state_dir / "hooks").exists()


def test_extract_hook_outside_any_workspace_does_nothing(tmp_path: Path) -> None:
    body = json.dumps(payload("claude-code", tmp_path, TRANSCRIPTS["claude-code"])).encode()
    done = _memcli(["extract", "--hook"], body, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_read_payload_does_not_wait_on_an_open_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hookio, "STDIN_WAIT_S", 0.2)
    read, write = os.pipe()  # the writer stays open: an agent that never closes stdin
    os.write(write, b'{"session_id": "a"')
    try:
        with os.fdopen(read, "rb") as stream:
            assert hookio.read_payload(stream) == {}
    finally:
        os.close(write)


# ---- the worker (in process) --------------------------------------------------------------------

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

    assert hookrun.capture(ws, None, str(transcript), sleep=sleep) == 0
    assert pauses and 0 < pauses[0] <= 3.0  # it waited for the session to go quiet, no longer
    assert len(staged(ws)) == 1 and len(fake_llm.requests) == 1


def test_worker_without_a_model_records_a_state_not_a_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("MEMCLI_EXTRACT_MODEL", raising=False)
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text("[extract]\nidle_minutes = 0\n", encoding="utf-8")  # no model set
    ws = Workspace.open(root)
    transcript = _copy("claude-code", tmp_path / "home")
    assert hookrun.capture(ws, SESSION_IDS["claude-code"], str(transcript)) == 0
    last = history.last(ws, "extract")
    assert last is not None and last["result"] == "waiting" and last["trigger"] == "hook"
    assert last["note"] == "waiting for a model: set memory.extract_model"
    with pytest.raises(SystemExit) as done:
        main(["status", "-w", str(root)])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "extraction:         1 session(s) waiting for a model: set memory.extract_model" in out
    assert "why:" not in out


def test_worker_failure_is_recorded_for_memcli_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_ws(tmp_path / "ws")  # a model is set, but its key is not in the environment
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    transcript = _copy("claude-code", tmp_path / "home")
    assert hookrun.capture(ws, SESSION_IDS["claude-code"], str(transcript)) == 2
    last = history.last(ws, "extract")
    assert last is not None and last["result"] == "failed" and "OPENAI_API_KEY" in last["error"]
    with pytest.raises(SystemExit) as done:
        main(["status", "-w", str(ws.root)])
    assert done.value.code == 1
    assert "why: " in capsys.readouterr().out


def test_worker_reports_a_session_it_cannot_find(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hookrun, "FIND_WAIT_S", 0.0)
    ws = make_ws(tmp_path / "ws")
    assert hookrun.capture(ws, "no-such-session", str(tmp_path / "gone.jsonl"), sleep=lambda s: None) == 1
    assert "not found" in history.last(ws, "extract")["error"]  # type: ignore[index]


def test_one_worker_per_session(tmp_path: Path, fake_llm) -> None:
    ws = make_ws(tmp_path / "ws")
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    transcript = _copy("codex", tmp_path / "home")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = hookrun._lock_path(ws, SESSION_IDS["codex"], str(transcript))
        lock.parent.mkdir(parents=True)
        lock.write_text(str(other.pid))  # a worker already waits for this session
        assert hookrun.capture(ws, SESSION_IDS["codex"], str(transcript)) == 0
        assert fake_llm.requests == [] and lock.read_text() == str(other.pid)
    finally:
        other.kill()
        other.wait()
    # its worker died: the next hook takes over
    assert hookrun.capture(ws, SESSION_IDS["codex"], str(transcript)) == 0
    assert staged(ws) and not lock.exists()


def test_the_capture_hook_loads_neither_typer_nor_pydantic(tmp_path: Path) -> None:
    """What the agent waits for is Python's start-up, reading stdin and one fork."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print(sorted(m for m in ('typer', 'pydantic', 'litellm', 'memcli.cli')"
            " if m in sys.modules), file=sys.stderr))\n"
            "from memcli.entry import main\nmain()\n")
    body = json.dumps({"session_id": "s", "transcript_path": str(tmp_path / "x.jsonl"), "cwd": str(tmp_path)})
    done = subprocess.run([sys.executable, "-c", code, "extract", "--hook"], input=body.encode(),
                          cwd=tmp_path, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"[]\n")


def test_worker_without_the_llm_extra_says_what_to_install(tmp_path: Path) -> None:
    """`pip install memcli` without `[llm]`: the session waits for a model, and the state says what
    to install (litellm hidden the way tests/test_llm_extra.py hides it)."""
    ws = make_ws(tmp_path / "ws")
    transcript = _copy("claude-code", tmp_path / "home")
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
        hookrun.capture(ws, None, str(transcript), event="Stop", sleep=sleep)
    assert pauses and pauses[0] >= 60 and staged(ws) == []  # re-read every 5 minutes at most
    assert hookrun.capture(ws, None, str(transcript), event="SessionEnd", sleep=sleep) == 0
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
    lock = hookrun._lock_path(ws, None, str(transcript))
    waiting = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:  # the SessionEnd hook while another worker holds the session: it leaves the marker, no more
        lock.parent.mkdir(parents=True)
        lock.write_text(str(waiting.pid))
        assert hookrun.capture(ws, None, str(transcript), event="SessionEnd") == 0
        assert staged(ws) == [] and fake_llm.requests == []
        assert hookrun._ended_marker(lock).exists()
    finally:
        waiting.kill()
        waiting.wait()
    lock.unlink()
    hookrun._ended_marker(lock).unlink()  # now the same from the waiting worker's side, which
    pauses: list[float] = []  # started before the end

    def sleep(seconds: float) -> None:  # the waiting worker, seen from inside: the end arrives
        pauses.append(seconds)
        hookrun._ended_marker(lock).touch()

    assert hookrun.capture(ws, None, str(transcript), event="PreCompact", sleep=sleep) == 0
    assert len(pauses) == 1 and pauses[0] >= 60  # it was waiting for the idle window...
    assert len(staged(ws)) == 1 and len(fake_llm.requests) == 1  # ...and extracted at the end's word
    assert not hookrun._ended_marker(lock).exists() and not lock.exists()


def test_the_waiting_workers_sleep_ends_when_the_marker_appears(tmp_path: Path) -> None:
    import threading

    marker = tmp_path / "capture.ended"
    threading.Timer(0.3, marker.touch).start()
    started = time.monotonic()
    hookrun._napper(marker)(60.0)
    assert time.monotonic() - started < 10  # not the minute it was asked to sleep


def test_a_session_end_without_a_transcript_is_ignored(tmp_path: Path) -> None:
    """`claude mcp list` fires SessionEnd with a transcript path it never writes: the worker records
    nothing, at once, and `memcli status` stays green."""
    ws = make_ws(tmp_path / "ws")
    started = time.monotonic()
    done = _memcli(["hooks", "capture", "--cwd", str(ws.root), "--event", "SessionEnd",
                    "--session", "b1c9d0e2-0000-4000-8000-000000000000",
                    "--transcript", str(tmp_path / "never-written.jsonl")], None, ws.root)
    assert (done.returncode, done.stdout) == (0, b"") and time.monotonic() - started < 30
    assert history.runs(ws, "extract") == [] and not (ws.state_dir / "hooks").exists()
    assert _memcli(["status", "-w", str(ws.root)], None, ws.root).returncode == 0


def test_the_hook_hands_the_event_to_the_worker(tmp_path: Path, fake_llm) -> None:
    """Through the real detach path: a SessionEnd is extracted at once even inside a long idle
    window (the transcript was written a moment ago)."""
    ws = make_ws(tmp_path / "ws", extract={"idle_minutes": 30})
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    rows = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}", "timestamp": now}
            for i in range(4)]
    transcript = write_jsonl(tmp_path / "s.jsonl", rows)
    body = json.dumps({"session_id": "s", "transcript_path": str(transcript), "cwd": str(ws.root),
                       "hook_event_name": "SessionEnd"}).encode()
    done = _memcli(["extract", "--hook"], body, ws.root)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert _wait(lambda: (history.last(ws, "extract") or {}).get("result") == "done")
    assert len(staged(ws)) == 1
    assert _wait(lambda: not list((ws.state_dir / "hooks").glob("*.pid")))


@pytest.mark.parametrize(("event", "spawned"), [("SessionEnd", False), ("Stop", True), (None, True)])
def test_a_session_end_without_a_transcript_starts_no_worker(event: str | None, spawned: bool,
                                                              tmp_path: Path) -> None:
    """The hook itself drops it: no process is started (seen through Python's audit events)."""
    code = ("import sys\n"
            "sys.addaudithook(lambda e, a: e == 'subprocess.Popen' and print('spawned', file=sys.stderr))\n"
            "from memcli.entry import main\nmain()\n")
    body = {"session_id": "s", "transcript_path": str(tmp_path / "never-written.jsonl"), "cwd": str(tmp_path)}
    if event:
        body["hook_event_name"] = event
    done = subprocess.run([sys.executable, "-c", code, "extract", "--hook"], input=json.dumps(body).encode(),
                          cwd=tmp_path, capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout == b""
    assert done.stderr == (b"spawned\n" if spawned else b"")
