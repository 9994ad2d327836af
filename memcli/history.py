"""A small run history in the state folder, so `memcli status` can say what the last runs did.

`<state_dir>/runs.json` maps a command name ("consolidate", "extract") to its latest runs, newest
last. A run is recorded as "running" when it starts and overwritten when it ends, so a run that was
killed shows up as interrupted instead of silently looking like success. A consolidation run's
entry lists the tool calls it refused (`refusals`), for `memcli status --json` and `memcli why`.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from memcli.atomicio import atomic_write_text
from memcli.workspace import Workspace

HISTORY_FILE = "runs.json"
KEEP = 20


def history_path(ws: Workspace) -> Path:
    return ws.state_dir / HISTORY_FILE


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _load(ws: Workspace) -> dict[str, list[dict[str, Any]]]:
    try:
        data = json.loads(history_path(ws).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(ws: Workspace, command: str, entry: dict[str, Any]) -> None:
    """Add or replace (same `run_id`) one run of `command`."""
    data = _load(ws)
    keep = [r for r in data.get(command, []) if isinstance(r, dict)]
    runs = [r for r in keep if r.get("run_id") != entry.get("run_id")]
    runs.append(entry)
    data[command] = runs[-KEEP:]
    atomic_write_text(history_path(ws), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def runs(ws: Workspace, command: str) -> list[dict[str, Any]]:
    return [r for r in _load(ws).get(command, []) if isinstance(r, dict)]


def last(ws: Workspace, command: str) -> dict[str, Any] | None:
    found = runs(ws, command)
    return found[-1] if found else None


def find(ws: Workspace, command: str, run_id: str) -> dict[str, Any] | None:
    """The recorded run `run_id` of `command`, while it is among the last KEEP."""
    return next((r for r in runs(ws, command) if r.get("run_id") == run_id), None)
