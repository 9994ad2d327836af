"""`memcli hooks session-start`: the resident context in each agent's form, and silence where there is
nothing to say."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.hook_payloads import memcli_run

from memcli.agents import registry
from memcli.fence import MEMORY_LABEL

FENCED = MEMORY_LABEL + "\n~~~~memory\n"  # memory as data (memcli.fence.memory_fence)

# Printed at exit by a probe process: the modules of memcli that read, find or wire agents' sessions.
LOADED = ("import atexit, sys\n"
          "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith(('memcli.transcript',"
          " 'memcli.sessions', 'memcli.agents.parts')) or m.endswith(('.transcript', '.discovery',"
          " '.wiring'))), file=sys.stderr))\n"
          "from memcli.entry import main\nmain()\n")


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "copilot"])
def test_session_start_prints_the_context_in_the_agents_form(agent: str, example_ws: Path,
                                                             tmp_path: Path) -> None:
    context = memcli_run(["context"], None, example_ws).stdout.decode()
    assert context.startswith(FENCED + "# tasklist — project memory")
    body = json.dumps({"session_id": "s", "cwd": str(example_ws), "hook_event_name": "SessionStart",
                       "source": "startup"}).encode()
    done = memcli_run(["hooks", "session-start", "--agent", agent], body, tmp_path)
    assert done.returncode == 0 and done.stderr == b""
    out = done.stdout.decode()
    if agent == "claude-code":
        assert out == context  # plain stdout is what Claude Code adds to the context
    elif agent == "copilot":
        assert json.loads(out) == {"additionalContext": context}  # Copilot CLI reads nothing else
    else:
        data = json.loads(out)  # Gemini CLI reads JSON only; Codex accepts it
        assert data == {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}


@pytest.mark.parametrize("body", [b"", b"not json", b"[1, 2]", b'{"cwd": 5}', b'{"cwd": "/nonexistent/x"}',
                                  b"\xff\xfe garbage", b'{"cwd": "a\\u0000b"}'])
def test_session_start_never_fails_and_says_nothing_outside_a_workspace(body: bytes, tmp_path: Path) -> None:
    done = memcli_run(["hooks", "session-start", "--agent", "gemini"], body, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_session_start_is_silent_on_an_empty_memory(tmp_path: Path) -> None:
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    body = json.dumps({"cwd": str(tmp_path / "ws")}).encode()
    done = memcli_run(["hooks", "session-start", "--agent", "codex"], body, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_session_start_reads_the_agents_declarations_alone(example_ws: Path, tmp_path: Path) -> None:
    """The agent waits for this hook: it needs the form its agent reads, not how sessions are read,
    found or wired (memcli/agents/base.py: a declaration loads its parts only when asked)."""
    body = json.dumps({"cwd": str(example_ws)}).encode()
    for option in registry.options():
        done = subprocess.run([sys.executable, "-c", LOADED, "hooks", "session-start", "--agent", option],
                              input=body, cwd=tmp_path, capture_output=True, timeout=60)
        assert done.returncode == 0 and done.stdout.strip() and done.stderr == b"[]\n"
