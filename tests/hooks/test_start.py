"""`memcli hooks session-start`: the resident context in each agent's form, and silence where there is
nothing to say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.hook_payloads import (
    memcli_run,
)


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_session_start_prints_the_context_in_the_agents_form(agent: str, example_ws: Path,
                                                             tmp_path: Path) -> None:
    context = memcli_run(["context"], None, example_ws).stdout.decode()
    assert context.startswith("# tasklist — project memory")
    body = json.dumps({"session_id": "s", "cwd": str(example_ws), "hook_event_name": "SessionStart",
                       "source": "startup"}).encode()
    done = memcli_run(["hooks", "session-start", "--agent", agent], body, tmp_path)
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
    done = memcli_run(["hooks", "session-start", "--agent", "gemini"], body, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_session_start_is_silent_on_an_empty_memory(tmp_path: Path) -> None:
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    body = json.dumps({"cwd": str(tmp_path / "ws")}).encode()
    done = memcli_run(["hooks", "session-start", "--agent", "codex"], body, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
