"""What each agent's hooks send, and running the hooks as the agent does: shared by tests/hooks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
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


def memcli_run(args: list[str], stdin: bytes | None, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "memcli", *args], input=stdin, cwd=cwd,
                          capture_output=True, timeout=60)


def copy_transcript(agent: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(TRANSCRIPTS[agent], dest / TRANSCRIPTS[agent].name))


def wait_for(condition, limit: float = 90.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False
