"""The consolidation lock: one file under `memory/_staging/`, created exclusively.

It holds who runs (pid, host, start time) and which staging files that run consumed. A lock whose
owner is gone (same host, pid no longer alive) is reclaimed; a live one stops a second run with
`LockHeld` (exit code 4, so cron scripts can tell "someone else is on it" from a failure).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import socket
from dataclasses import field
from pathlib import Path

from memcli.atomicio import atomic_write_text
from memcli.errors import EXIT_LOCKED, MemcliError
from memcli.git.group import pid_alive, process_tag
from memcli.values import frozen
from memcli.workspace import Workspace

LOCK_NAME = "consolidate.lock"
# A lock file still being written (created, content not yet flushed) looks empty for a moment;
# only an empty file older than this is treated as abandoned.
_EMPTY_GRACE_S = 30.0


class LockHeld(MemcliError):
    """Another consolidation run holds the workspace."""

    exit_code = EXIT_LOCKED


@frozen
class LockInfo:
    pid: int
    host: str
    started_at: str
    run_id: str
    consumed: tuple[str, ...] = field(default_factory=tuple)
    proc: str | None = None  # boot id + process start time: tells a reused pid from the owner

    def to_json(self) -> dict[str, object]:
        return {
            "pid": self.pid,
            "host": self.host,
            "started_at": self.started_at,
            "run_id": self.run_id,
            "consumed": list(self.consumed),
            "proc": self.proc,
        }

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}, since {self.started_at} ({len(self.consumed)} staging files)"


def lock_path(ws: Workspace) -> Path:
    return ws.staging_dir / LOCK_NAME


def read_lock(ws: Workspace) -> LockInfo | None:
    """The current holder, or None when there is no lock (or it is unreadable and being written)."""
    try:
        raw = lock_path(ws).read_text(encoding="utf-8")
        data = json.loads(raw)
        return LockInfo(
            pid=int(data["pid"]),
            host=str(data["host"]),
            started_at=str(data["started_at"]),
            run_id=str(data.get("run_id", "")),
            consumed=tuple(str(x) for x in data.get("consumed", [])),
            proc=data.get("proc") if isinstance(data.get("proc"), str) else None,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def holder_alive(info: LockInfo) -> bool:
    """False only when we can tell the owner is gone: same host, and no such process or a
    different process under the same pid."""
    if info.host != socket.gethostname():
        return True
    if not pid_alive(info.pid):
        return False
    now = process_tag(info.pid)
    return info.proc is None or now is None or now == info.proc


def _stale(ws: Workspace) -> bool:
    path = lock_path(ws)
    info = read_lock(ws)
    if info is not None:
        return not holder_alive(info)
    try:
        age = dt.datetime.now().timestamp() - path.stat().st_mtime
    except FileNotFoundError:
        return False
    return age > _EMPTY_GRACE_S


@contextlib.contextmanager
def guard(ws: Workspace):
    """Serialise check-and-reclaim (and recovery), so two runs cannot both decide to remove the same
    stale lock or settle the same journal.

    The guard file is removed again while still locked, so none stays behind. A run that was
    waiting on the removed file sees it is no longer the one at that path, and opens the new one."""
    ws.staging_dir.mkdir(parents=True, exist_ok=True)
    path = ws.staging_dir / (LOCK_NAME + ".guard")
    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)


def _write_new(path: Path, info: LockInfo) -> bool:
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(info.to_json(), indent=2))
        fh.flush()
        os.fsync(fh.fileno())
    return True


def acquire(ws: Workspace, run_id: str, consumed: list[str]) -> LockInfo:
    """Take the lock or raise `LockHeld`. Returns what was written (plus whether a lock was reclaimed)."""
    info = LockInfo(
        pid=os.getpid(),
        host=socket.gethostname(),
        started_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        run_id=run_id,
        consumed=tuple(consumed),
        proc=process_tag(os.getpid()),
    )
    path = lock_path(ws)
    with guard(ws):
        if _write_new(path, info):
            return info
        if _stale(ws):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            if _write_new(path, info):
                return info
    holder = read_lock(ws)
    who = holder.describe() if holder else "a run that is starting"
    raise LockHeld(
        f"another consolidation is running ({who}); lock file {path}. "
        "Wait for it, or delete the file if that process is gone on another host"
    )


def update(ws: Workspace, info: LockInfo, consumed: list[str]) -> LockInfo:
    """Record a new consumed set (a coalesced follow-up run) while still holding the lock."""

    new = LockInfo(info.pid, info.host, info.started_at, info.run_id, tuple(consumed), info.proc)
    atomic_write_text(lock_path(ws), json.dumps(new.to_json(), indent=2))
    return new


def release(ws: Workspace, info: LockInfo) -> None:
    """Remove the lock if it is still ours (never someone else's that reclaimed it)."""
    current = read_lock(ws)
    if current is not None and (current.pid, current.run_id) == (info.pid, info.run_id):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock_path(ws))
