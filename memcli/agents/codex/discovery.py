"""Where Codex CLI keeps a workspace's sessions: `<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl`,
all workspaces together; a rollout's first line (`session_meta`) names the folder it ran in. The
home: `[sessions] codex_home`, else CODEX_HOME, else `~/.codex`.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents.parts import Discovery, configured, inside
from memcli.agents.parts import home as agent_home

if TYPE_CHECKING:
    from memcli.config import SessionsConfig

_FIRST_LINE_MAX = 16 * 1024 * 1024  # session_meta carries the whole system prompt


def home() -> Path:
    return agent_home("CODEX_HOME", ".codex")


def _cwd(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            first = json.loads(fh.readline(_FIRST_LINE_MAX))
    except (OSError, ValueError, RecursionError):
        return None
    payload = first.get("payload") if isinstance(first, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else None


def files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> Iterable[Path]:
    roots = {root, root.resolve()}
    sessions = (configured(config.codex_home, root) or home()) / "sessions"
    for path in sorted(sessions.glob("**/rollout-*.jsonl")):
        if since is not None and dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC) < since:
            continue  # older than asked for: its first line (often large) need not be read
        cwd = _cwd(path)
        if cwd is not None and inside(cwd, roots):
            yield path


DISCOVERY = Discovery(is_transcript=lambda path: path.name.endswith(".jsonl"), files=files)
