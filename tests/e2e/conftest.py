"""The real-agent suite: Claude Code, Codex CLI, Gemini CLI, GitHub Copilot CLI, Pi and OpenCode from
npm, at the versions pinned in tests/e2e/package.json, each run against a scripted model server on
127.0.0.1 that speaks its own API (tests/support/agent_server.py and its subclasses). Nothing here
reaches the network.

The agents are installed by `npm ci --prefix tests/e2e` (.ci/run does it). Where they are missing the
tests are skipped, unless MEMCLI_E2E=require (set by .ci/run), which turns a missing agent into a
failure, so CI can never pass by skipping them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
STAGING_WAIT_S = 60  # how long a test waits for the capture worker's staging items
MEMCLI_BIN = Path(sysconfig.get_paths()["scripts"])  # where `pip install` put the memcli executable

DECISION = """---
created_at: 2026-11-02T10:00:00+00:00
updated_at: 2026-11-02T10:00:00+00:00
status: resolved
sources:
  - session_id: 4c2ddfdc-b619-4525-8d03-1950fb1b0257
    range: [3, 18]
---
Use SQLite in WAL mode as the only datastore; back it up nightly with `sqlite3 .backup` to the NAS.
"""

KNOWLEDGE = """---
created_at: 2026-11-02T10:00:00+00:00
updated_at: 2026-11-02T10:00:00+00:00
kind: howto
description: How to restore the nightly SQLite backup (pelican-restore procedure)
model_invocation: true
user_invocable: true
last_sources: []
---
Stop the app, copy the newest `backup-*.db` from the NAS over `data/app.db`, start the app.
"""


def agent_binary(name: str) -> Path:
    """The pinned agent's executable (claude, codex, gemini), or skip (fail under MEMCLI_E2E=require)."""
    path = BIN / name
    if not path.exists():
        why = f"{name} is not installed: run `npm ci --prefix tests/e2e`"
        if os.environ.get("MEMCLI_E2E") == "require":
            pytest.fail(why)
        pytest.skip(why)
    return path


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 120,
        **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, **kw)


def wait_for_staging(root: Path) -> list[dict[str, Any]]:
    """The staging items in `root` once there are any, or [] after STAGING_WAIT_S (a capture worker
    extracts after the agent exits)."""
    deadline = time.monotonic() + STAGING_WAIT_S
    while True:
        files = (root / "memory" / "_staging").glob("*.json")
        found = [json.loads(p.read_text(encoding="utf-8")) for p in files]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def stop_capture_workers() -> None:
    """The capture workers this test's hooks or extension started: by their pid files in its state
    folder, and by that folder in their environment (a worker the hook has just started may not
    have written its pid file yet; a Codex one would otherwise wait `idle_minutes`)."""
    state = os.environ["MEMCLI_STATE_DIR"]
    pids = set()
    for pid_file in Path(state).glob("hooks/capture-*.pid"):
        with contextlib.suppress(OSError, ValueError):
            pids.add(int(pid_file.read_text().strip()))
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if (b"hooks\0capture" in (proc / "cmdline").read_bytes()
                    and f"MEMCLI_STATE_DIR={state}\0".encode() in (proc / "environ").read_bytes()):
                pids.add(int(proc.name))
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)


@pytest.fixture(autouse=True)
def _no_capture_worker_left() -> Any:
    """Whatever a test's agent sessions started is stopped when it ends."""
    yield
    stop_capture_workers()


@pytest.fixture
def agent_env(tmp_path: Path) -> dict[str, str]:
    """An environment for one agent run: the test's own HOME (set by tests/conftest.py), memcli's
    executable first on PATH (the agents run `memcli` by name), no proxy, no real credentials."""
    agents = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CODEX_", "CLAUDE_", "COPILOT_", "PI_")
    env = {k: v for k, v in os.environ.items()
           if not k.upper().endswith(("_API_KEY", "_PROXY", "_TOKEN")) and not k.startswith(agents)}
    env["PATH"] = os.pathsep.join([str(MEMCLI_BIN), str(BIN), env.get("PATH", "")])
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["CI"] = "1"
    # With no model set, capture would extract with the agent itself (docs/models.md), asking the
    # scripted server for an answer these tests do not script: the tests of that path
    # (test_agent_model.py) set the model, or take this out.
    env["MEMCLI_EXTRACT_MODEL"] = "none"
    return env


@pytest.fixture
def project(tmp_path: Path, agent_env: dict[str, str]) -> Path:
    """A fresh git repository made a memcli workspace with `memcli init`, one decision and one knowledge
    record committed (what a new user has before `memcli hooks install`)."""
    root = tmp_path / "proj"
    root.mkdir()
    run(["git", "init", "-q", "-b", "main"], root, agent_env).check_returncode()
    run(["memcli", "init"], root, agent_env).check_returncode()
    (root / "memory" / "decisions" / "use-sqlite-wal.md").write_text(DECISION, encoding="utf-8")
    (root / "knowledge" / "restore-nightly-backup.md").write_text(KNOWLEDGE, encoding="utf-8")
    run(["git", "add", "-A"], root, agent_env).check_returncode()
    run(["git", "commit", "-q", "-m", "memory"], root, agent_env).check_returncode()
    return root
