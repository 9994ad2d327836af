"""Where GitHub Copilot CLI keeps a workspace's sessions: `<copilot home>/session-state/<session
id>/events.jsonl` (1.0; its `workspace.yaml` beside it), or `session-state/<session id>.jsonl`
(0.0.3xx, the same events), for every project in one folder. A session is the workspace's when the
folder its `session.start` event names (`data.context.cwd`, where it started) is the workspace or
a folder inside it. The home: `[sessions] copilot_home`, else `$COPILOT_HOME`, else `~/.copilot`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.agents.parts import Discovery, configured, inside
from memcli.agents.parts import home as agent_home

if TYPE_CHECKING:
    from memcli.config import SessionsConfig

EVENTS = "events.jsonl"
_FIRST_LINE = 1024 * 1024  # session.start is well under this; a longer first line is not one


def home() -> Path:
    return agent_home("COPILOT_HOME", ".copilot")


def session_files(copilot_home: Path) -> list[Path]:
    state = copilot_home / "session-state"
    try:
        return sorted([*state.glob(f"*/{EVENTS}"), *state.glob("*.jsonl")])
    except OSError:
        return []


def start_event(path: Path) -> dict[str, Any] | None:
    """The `data` of the file's first event when it is `session.start`."""
    try:
        with path.open("rb") as fh:
            first = json.loads(fh.readline(_FIRST_LINE))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(first, dict) or first.get("type") != "session.start":
        return None
    return first["data"] if isinstance(first.get("data"), dict) else None


def started_in(data: dict[str, Any]) -> str | None:
    context = data.get("context")
    cwd = context.get("cwd") if isinstance(context, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None


def files(root: Path, config: SessionsConfig, since: dt.datetime | None = None) -> Iterable[Path]:
    roots = {root, root.resolve()}
    oldest = since.timestamp() if since is not None else None
    for path in session_files(configured(config.copilot_home, root) or home()):
        try:
            if oldest is not None and os.stat(path).st_mtime < oldest:
                continue
        except OSError:
            continue
        data = start_event(path)
        cwd = started_in(data) if data is not None else None
        if cwd is not None and inside(cwd, roots):
            yield path


def is_transcript(path: Path) -> bool:
    return path.name.endswith(".jsonl")


DISCOVERY = Discovery(is_transcript=is_transcript, files=files)
