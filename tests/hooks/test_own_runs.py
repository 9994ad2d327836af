"""memcli's own headless agent runs (a coding agent as its model: memcli.llm.agentmodel sets
MEMCLI_AGENT_RUN) are never primed nor captured by memcli's hooks, whatever scope wired them."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memcli import history
from memcli.hooks.capture import capture
from memcli.ownrun import ENV
from memcli.workspace import Workspace


def _hook(args: list[str], body: dict, cwd: Path, own: bool) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if own:
        env[ENV] = "1"
    return subprocess.run([sys.executable, "-m", "memcli", *args], input=json.dumps(body).encode(), cwd=cwd,
                          env=env, capture_output=True, timeout=60)


@pytest.mark.parametrize("own", [False, True])
def test_session_start_adds_no_context_to_memcli_s_own_runs(example_ws: Path, own: bool) -> None:
    body = {"session_id": "s", "cwd": str(example_ws), "hook_event_name": "SessionStart"}
    done = _hook(["hooks", "session-start", "--agent", "claude-code"], body, example_ws, own)
    assert done.returncode == 0
    assert (done.stdout == b"") == own, done.stdout[:200]


def test_capture_of_memcli_s_own_run_does_nothing(example_ws: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user"}\n', encoding="utf-8")
    ws = Workspace.open(example_ws)
    monkeypatch.setenv(ENV, "1")
    assert capture(ws, "s", str(transcript), event="SessionEnd") == 0
    assert history.last(ws, "extract") is None
    assert not list((ws.state_dir / "hooks").glob("capture-*")) if (ws.state_dir / "hooks").exists() else True


@pytest.mark.parametrize("own", [False, True])
def test_extract_hook_starts_no_worker_in_memcli_s_own_run(example_ws: Path, tmp_path: Path,
                                                            own: bool) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user"}\n', encoding="utf-8")
    tag = f"own-run-{own}-{os.getpid()}"
    body = {"session_id": tag, "transcript_path": str(transcript), "cwd": str(example_ws),
            "hook_event_name": "SessionEnd"}
    done = _hook(["extract", "--hook"], body, example_ws, own=own)
    assert done.returncode == 0 and done.stdout == b""
    workers = [int(p.name) for p in Path("/proc").glob("[0-9]*") if tag in _cmd(p)]
    for pid in workers:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    assert bool(workers) == (not own)  # just after the hook returned, a worker is still starting


def _cmd(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
