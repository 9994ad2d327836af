"""A realistic Claude Code transcript written where discovery finds it (for MCP and extract tests).

Claude Code writes one JSON record per line under `<claude home>/projects/<encoded cwd>/<id>.jsonl`;
an MCP tool is named `mcp__<server>__<tool>`, its call is an assistant `tool_use` block and its
result a `user` record with a `tool_result` block.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

SESSION = "5f0c2a8e-7d1b-4c3e-9a26-0b8f1e4d2c71"
STAMP = "2026-05-10T09:{minute:02d}:00.000Z"


def _line(kind: str, uuid: int, message: dict[str, Any], cwd: str, minute: int) -> dict[str, Any]:
    return {"type": kind, "uuid": f"u-{uuid}", "parentUuid": f"u-{uuid - 1}" if uuid else None,
            "sessionId": SESSION, "cwd": cwd, "version": "2.0.14", "timestamp": STAMP.format(minute=minute),
            "message": message}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant_text(text: str, msg_id: str) -> dict[str, Any]:
    return {"id": msg_id, "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}]}


def tool_use(name: str, args: dict[str, Any], call_id: str, msg_id: str) -> dict[str, Any]:
    return {"id": msg_id, "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": call_id, "name": name, "input": args}]}


def tool_result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                         "content": [{"type": "text", "text": text}]}]}


def project_dir(claude_home: Path, root: Path) -> Path:
    return claude_home / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root))


def write_session(claude_home: Path, root: Path, messages: list[tuple[str, dict[str, Any]]],
                  session: str = SESSION) -> Path:
    """Write (kind, message) pairs as one session of the workspace at `root`; returns the file."""
    folder = project_dir(claude_home, root)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i, (kind, message) in enumerate(messages):
            row = _line(kind, i, message, str(root), i)
            row["sessionId"] = session
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
