"""`memcli extract --hook`: the hook's payload read without blocking, handed to a detached worker at
once (through the real detach path), and dropped when there is nothing to do."""

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
    ITEMS,
    SESSION_IDS,
    TRANSCRIPTS,
    copy_transcript,
    memcli_run,
    payload,
    wait_for,
)

from memcli import history
from memcli.agents import registry
from memcli.hooks import payload as hook_payload


def test_extract_hook_returns_before_the_extraction_and_the_session_is_extracted_later(
        tmp_path: Path, fake_llm) -> None:
    agent = "claude-code"
    ws = make_ws(tmp_path / "ws")
    transcript = copy_transcript(agent, tmp_path / "agent-home")
    fake_llm.responder = lambda body: Reply(content=ITEMS, delay=2.0)  # a slow model
    body = json.dumps(payload(agent, ws.root / "src", transcript)).encode()
    (ws.root / "src").mkdir()
    # through the `memcli` executable's entry point, as the agent runs it
    entry = [sys.executable, "-c", "from memcli.entry import main; main()"]
    done = subprocess.run([*entry, "extract", "--hook"], input=body, cwd=tmp_path, capture_output=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert staged(ws) == []  # the hook returned while the model was still answering
    assert wait_for(lambda: (history.last(ws, "extract") or {}).get("result") == "done")
    files = staged(ws)
    assert files and {f.source.session_id for f in files} == {SESSION_IDS[agent]}
    assert wait_for(lambda: not list((ws.state_dir / "hooks").glob("*.pid")))  # the worker let go of it


@pytest.mark.parametrize("body", [b"", b"{", b"null", b'"text"', b'{"session_id": 7, "transcript_path": []}',
                                  b'{"hook_event_name": "SessionEnd"}', b"\x00\x01\x02" * 1000,
                                  b'{"session_id": "", "transcript_path": " "}'])
def test_extract_hook_with_a_malformed_payload_exits_0_silently(body: bytes, tmp_path: Path) -> None:
    ws = make_ws(tmp_path / "ws")
    done = memcli_run(["extract", "--hook"], body, ws.root)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    time.sleep(0.5)
    assert history.runs(ws, "extract") == [] and not (ws.state_dir / "hooks").exists()


def _files(*folders: Path) -> dict[str, int]:
    """Every file (its size) and folder (-1) under `folders`."""
    return {str(p): p.stat().st_size if p.is_file() else -1 for folder in folders for p in folder.rglob("*")}


def test_extract_hook_outside_any_workspace_does_nothing(tmp_path: Path) -> None:
    """The hook hands the session to its worker, which finds no workspace above the session's folder
    and leaves no trace: no staging, run history, lock, state or crash log, anywhere it could write.
    The worker the hook starts is recorded instead of detached, and run here to its end."""
    transcript = TRANSCRIPTS["claude-code"]
    watched = (tmp_path, Path(os.environ["MEMCLI_STATE_DIR"]), Path(os.environ["HOME"]), transcript.parent)
    before = _files(*watched)
    body = json.dumps(payload("claude-code", tmp_path, transcript)).encode()
    probe = ("import json, subprocess, sys\n"
             "subprocess.Popen = lambda args, **kw: print(json.dumps(args), file=sys.stderr)\n"
             "from memcli.entry import main\nmain()\n")
    done = subprocess.run([sys.executable, "-c", probe, "extract", "--hook"], input=body, cwd=tmp_path,
                          capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, b"")
    worker = json.loads(done.stderr)
    assert worker[1:6] == ["-m", "memcli", "hooks", "capture", "--cwd"] and worker[6] == str(tmp_path)
    ran = subprocess.run(worker, cwd=tmp_path, capture_output=True, timeout=120)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b"")
    assert _files(*watched) == before


def test_read_payload_does_not_wait_on_an_open_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_payload, "STDIN_WAIT_S", 0.2)
    read, write = os.pipe()  # the writer stays open: an agent that never closes stdin
    os.write(write, b'{"session_id": "a"')
    try:
        with os.fdopen(read, "rb") as stream:
            assert hook_payload.read_payload(stream) == {}
    finally:
        os.close(write)


def test_the_capture_hook_loads_neither_typer_nor_pydantic(tmp_path: Path) -> None:
    """What the agent waits for is Python's start-up, reading stdin and one fork: not the CLI, not
    the config machinery (the worker finds the workspace)."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print(sorted(m for m in ('typer', 'pydantic', 'litellm', 'memcli.cli',"
            " 'memcli.config', 'memcli.workspace') if m in sys.modules), file=sys.stderr))\n"
            "from memcli.entry import main\nmain()\n")
    body = json.dumps({"session_id": "s", "transcript_path": str(tmp_path / "x.jsonl"), "cwd": str(tmp_path)})
    done = subprocess.run([sys.executable, "-c", code, "extract", "--hook"], input=body.encode(),
                          cwd=tmp_path, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"[]\n")


@pytest.mark.parametrize("written", [True, False])
def test_the_capture_hook_reads_the_agents_declarations_only_for_a_missing_transcript(
        written: bool, tmp_path: Path) -> None:
    """Whether an event ends a session is the agents' to say, and matters only when the transcript
    was never written; then their declarations are read (registry.py), never their parts."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith(('memcli.agents.',"
            " 'memcli.transcript', 'memcli.sessions'))), file=sys.stderr))\n"
            "import subprocess\nsubprocess.Popen = lambda *a, **kw: None\n"
            "from memcli.entry import main\nmain()\n")
    transcript = tmp_path / "x.jsonl"
    if written:
        transcript.write_text("{}\n", encoding="utf-8")
    body = json.dumps({"session_id": "s", "transcript_path": str(transcript), "cwd": str(tmp_path),
                       "hook_event_name": "SessionEnd"})
    done = subprocess.run([sys.executable, "-c", code, "extract", "--hook"], input=body.encode(),
                          cwd=tmp_path, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, b"")
    loaded = json.loads(done.stderr.decode().replace("'", '"'))
    if written:
        assert loaded == []
    else:
        declarations = {f"memcli.agents.{a.__name__.rsplit('.', 1)[1]}" for a in (*registry.AGENTS,
                                                                                  registry.DOCUMENTS)}
        assert set(loaded) == {"memcli.agents.registry", "memcli.agents.base", *declarations}


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
    done = memcli_run(["extract", "--hook"], body, ws.root)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert wait_for(lambda: (history.last(ws, "extract") or {}).get("result") == "done")
    assert len(staged(ws)) == 1
    assert wait_for(lambda: not list((ws.state_dir / "hooks").glob("*.pid")))


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
