"""Builders of real-format transcripts (Claude Code, Codex) where the agents keep them, under the
test's isolated HOME, so `memcli metrics` discovers them exactly as it would on a user's machine."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest


class Transcript:
    def __init__(self, path: Path, session_id: str, cwd: str) -> None:
        self.path, self.session_id, self.cwd = path, session_id, cwd
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lines = 0

    def _write(self, obj: dict[str, Any]) -> int:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.lines += 1
        return self.lines - 1  # the entry index of what was written


class ClaudeTranscript(Transcript):
    """~/.claude/projects/<encoded cwd>/<session>.jsonl"""

    def _base(self, kind: str, ts: str) -> dict[str, Any]:
        return {"type": kind, "uuid": str(uuid.uuid4()), "parentUuid": None, "sessionId": self.session_id,
                "timestamp": ts, "isSidechain": False, "userType": "external", "cwd": self.cwd,
                "version": "2.0.64"}

    def user(self, text: str, ts: str, meta: bool = False) -> int:
        obj = self._base("user", ts) | {"message": {"role": "user", "content": text}}
        if meta:
            obj["isMeta"] = True
        return self._write(obj)

    def tool(self, name: str, arguments: dict[str, Any], ts: str, tokens: int = 1000) -> int:
        call_id = "toolu_" + uuid.uuid4().hex[:12]
        usage = {"input_tokens": tokens - 10, "output_tokens": 10}
        msg = {"id": "msg_" + uuid.uuid4().hex[:12], "role": "assistant", "model": "claude-sonnet-4",
               "content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}],
               "usage": usage, "stop_reason": "tool_use"}
        index = self._write(self._base("assistant", ts) | {"message": msg})
        result = [{"type": "tool_result", "tool_use_id": call_id, "content": "ok"}]
        self._write(self._base("user", ts) | {"message": {"role": "user", "content": result}})
        return index

    def say(self, text: str, ts: str, tokens: int = 1000) -> int:
        msg = {"id": "msg_" + uuid.uuid4().hex[:12], "role": "assistant", "model": "claude-sonnet-4",
               "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
               "usage": {"input_tokens": tokens - 10, "output_tokens": 10}}
        return self._write(self._base("assistant", ts) | {"message": msg})


class CodexTranscript(Transcript):
    """~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl"""

    def meta(self, ts: str) -> None:
        self._write({"timestamp": ts, "type": "session_meta",
                     "payload": {"id": self.session_id, "timestamp": ts, "cwd": self.cwd,
                                 "originator": "codex-tui", "cli_version": "0.125.0", "source": "cli",
                                 "model_provider": "openai"}})

    def user(self, text: str, ts: str) -> int:
        return self._write({"timestamp": ts, "type": "event_msg",
                            "payload": {"type": "user_message", "message": text, "images": []}})

    def exec(self, cmd: str, ts: str) -> int:
        args = json.dumps({"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 1000})
        index = self._write({"timestamp": ts, "type": "response_item",
                             "payload": {"type": "function_call", "name": "exec_command", "arguments": args,
                                         "call_id": "call_" + uuid.uuid4().hex[:12]}})
        return index

    def tokens(self, total: int, ts: str) -> None:
        usage = {"input_tokens": total, "cached_input_tokens": 0, "output_tokens": 0, "total_tokens": total}
        self._write({"timestamp": ts, "type": "event_msg",
                     "payload": {"type": "token_count", "info": {"total_token_usage": usage,
                                                                  "last_token_usage": usage}}})


class Agents:
    def __init__(self, home: Path, cwd: Path) -> None:
        self.home, self.cwd = home, str(cwd)

    def claude(self, session_id: str | None = None) -> ClaudeTranscript:
        sid = session_id or str(uuid.uuid4())
        folder = self.home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", self.cwd)
        return ClaudeTranscript(folder / f"{sid}.jsonl", sid, self.cwd)

    def codex(self, session_id: str | None = None, day: str = "2026-05-12") -> CodexTranscript:
        sid = session_id or str(uuid.uuid4())
        y, m, d = day.split("-")
        path = self.home / ".codex" / "sessions" / y / m / d / f"rollout-{day}T10-00-00-{sid}.jsonl"
        t = CodexTranscript(path, sid, self.cwd)
        t.meta(f"{day}T10:00:00.000Z")
        return t


@pytest.fixture
def agents(example_ws: Path) -> Agents:
    import os

    return Agents(Path(os.environ["HOME"]), example_ws.resolve())
