"""A scan cache under the state folder: a transcript unchanged since the last full read (same size
and mtime) is not read again. An agent home can hold gigabytes of old sessions, and `memcli
sessions` / `memcli extract` list them all on every run.

The cache is only an optimisation: a missing, corrupt or foreign-version file means "read
everything again", never an error; it is rewritten atomically, so a crash cannot leave half a file.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from memcli.atomicio import atomic_write_text
from memcli.transcript.base import wal_stat
from memcli.transcript.model import SessionInfo

VERSION = 2  # bump whenever an agent's reader reads a format differently: cached counts would be stale
FILE_NAME = "sessions-scan.json"


def _stamp(path: Path) -> list[int] | None:
    """Size and mtime; an SQLite database's (OpenCode's) with its write-ahead log's, where its
    changes sit until a checkpoint copies them into the file."""
    try:
        stat = path.stat()
    except OSError:
        return None
    wal = wal_stat(path)
    return [stat.st_size, stat.st_mtime_ns, *((wal.st_size, wal.st_mtime_ns) if wal else ())]


def _dump(info: SessionInfo) -> dict[str, Any]:
    row = dataclasses.asdict(info)
    row["path"] = str(info.path)
    for key in ("first_time", "last_time"):
        row[key] = row[key].isoformat() if row[key] else None
    return row


def _load(row: dict[str, Any]) -> SessionInfo:
    row = dict(row, path=Path(row["path"]))
    for key in ("first_time", "last_time"):
        row[key] = dt.datetime.fromisoformat(row[key]) if row[key] else None
    return SessionInfo(**row)


class ScanCache:
    def __init__(self, state_dir: Path | None) -> None:
        self.path = state_dir / FILE_NAME if state_dir is not None else None
        self.files: dict[str, dict[str, Any]] = {}
        self.dirty = False
        if self.path is None:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("version") == VERSION and isinstance(data.get("files"), dict):
            self.files = data["files"]

    def get(self, info: SessionInfo) -> SessionInfo | None:
        entry = self.files.get(str(info.path))
        if not entry or entry.get("stamp") != _stamp(info.path):
            return None
        row = entry.get("sessions", {}).get(info.session_id)
        try:
            return _load(row) if row else None
        except (TypeError, ValueError, KeyError):
            return None

    def put(self, info: SessionInfo) -> None:
        stamp = _stamp(info.path)
        if stamp is None:
            return
        key = str(info.path)
        entry = self.files.get(key)
        if not entry or entry.get("stamp") != stamp:
            entry = self.files[key] = {"stamp": stamp, "sessions": {}}
        try:
            entry["sessions"][info.session_id] = json.loads(json.dumps(_dump(info), default=str))
        except (TypeError, ValueError):
            return
        self.dirty = True

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        live = {k: v for k, v in self.files.items() if os.path.exists(k)}  # forget deleted transcripts
        try:
            atomic_write_text(self.path, json.dumps({"version": VERSION, "files": live}, ensure_ascii=False))
        except OSError:
            return  # a read-only state folder costs speed, not correctness
        self.dirty = False
