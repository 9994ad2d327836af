"""What the last `memcli skills sync` wrote and what each agent lists, in the state folder
(`skills.json`): the key of everything the sync depended on, the stat of every file it wrote (so
an unchanged workspace is recognised without reading them), its report, and per agent the
knowledge it lists whole (for `memcli context`: resident.py). Any problem reading it only means
the next sync does the work again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FILE = "skills.json"
VERSION = 1


def path_of(state_dir: Path) -> Path:
    return state_dir / FILE


def load(state_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads(path_of(state_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("version") == VERSION else {}


def save(state_dir: Path, data: dict[str, Any]) -> None:
    from memcli.atomicio import atomic_write_text  # here: an unchanged skills sync writes nothing

    try:
        atomic_write_text(path_of(state_dir), json.dumps({"version": VERSION, **data}, ensure_ascii=False))
    except OSError:
        pass  # a read-only state folder: the next sync checks every file again


def stat_of(path: Path | str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def unchanged(root: Path, kept: dict[str, Any]) -> bool:
    """Every file the last sync wrote or checked is still as it left it."""
    stats = kept.get("stats")
    if not isinstance(stats, dict):
        return False
    base = str(root)  # plain strings: a pathlib object per file costs more than its stat
    return all(stat_of(os.path.join(base, rel)) == st for rel, st in stats.items())
