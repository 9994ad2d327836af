"""OpenCode's session database, read without ever writing to it (checked against OpenCode 1.18.33).

OpenCode keeps every session of every folder in one SQLite database, `<data>/opencode.db` (another
release channel's: `opencode-<channel>.db`; OPENCODE_DB moves it), in WAL mode. What memcli reads:

    session  id, directory (the folder it ran in), parent_id (a subagent's session), title, version,
             time_created / time_updated (milliseconds since the epoch)
    message  id, session_id, time_created, data: JSON with `role` (user | assistant), and for an
             assistant message `finish`, `summary` (a compaction's summary), `tokens`
    part     id, message_id, session_id, time_created, data: JSON with `type` (text, tool, ...)

Its `event` table (a per-session log with sequence numbers) is not what a Source may point into:
OpenCode's own migrations empty it (`20260622170816_reset_v2_session_state` and others).

A session's "file" is therefore its rows in this database, and one of its "lines" is one part:
`parts()` gives them in the order OpenCode created them (`time_created`, then the id, which OpenCode
makes ascending), so a part's position never moves as the session grows; that position is the
entry index a Source names. /undo deletes the parts it takes back when the next prompt is sent;
their positions go to what comes next, as a rewritten file's lines would (the extract ledger sees
the change and extracts those entries again).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from memcli.transcript.base import SessionReadError
from memcli.values import frozen

MAGIC = b"SQLite format 3\x00"
TABLES = {"session", "message", "part"}
BUSY_MS = 5000  # OpenCode writes in short transactions; a reader waits for one to finish


@frozen
class Session:
    id: str
    directory: str
    parent_id: str | None
    title: str
    version: str
    created: int | None  # milliseconds since the epoch
    updated: int | None


@frozen
class Part:
    id: str
    message_id: str
    created: int | None
    data: str  # the part's JSON, as stored


@contextlib.contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection: OpenCode may be writing, and memcli never does."""
    uri = f"file:{quote(str(Path(path).absolute()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000)
    except sqlite3.Error as exc:
        raise SessionReadError(f"{path}: cannot open OpenCode's database ({exc})") from None
    try:
        yield conn
    except sqlite3.DatabaseError as exc:
        raise SessionReadError(f"{path}: cannot read OpenCode's database ({exc})") from None
    finally:
        conn.close()


def is_opencode(path: Path, head: bytes) -> bool:
    """An SQLite database with OpenCode's session, message and part tables."""
    if not head.startswith(MAGIC):
        return False
    try:
        with connect(path) as conn:
            names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not TABLES <= names:
                return False
            columns = {row[1] for row in conn.execute("PRAGMA table_info(part)")}
    except SessionReadError:
        return False
    return {"message_id", "session_id", "data"} <= columns


def sessions(path: Path) -> list[Session]:
    with connect(path) as conn:
        rows = conn.execute("SELECT id, directory, parent_id, title, version, time_created, time_updated "
                            "FROM session ORDER BY time_created, id").fetchall()
    return [Session(str(r[0]), str(r[1] or ""), r[2], str(r[3] or ""), str(r[4] or ""), _int(r[5]),
                    _int(r[6])) for r in rows]


def sizes(path: Path) -> dict[str, int]:
    """Bytes of each session's stored messages and parts (what `memcli sessions` shows as its size)."""
    out: dict[str, int] = {}
    with connect(path) as conn:
        for table in ("message", "part"):
            for session_id, size in conn.execute(f"SELECT session_id, SUM(LENGTH(data)) FROM {table} "
                                                 "GROUP BY session_id"):
                out[session_id] = out.get(session_id, 0) + int(size or 0)
    return out


def messages(path: Path, session_id: str) -> dict[str, dict[str, Any]]:
    """The session's messages by id, their JSON parsed ({} where it is not an object)."""
    with connect(path) as conn:
        rows = conn.execute("SELECT id, data FROM message WHERE session_id = ?", (session_id,)).fetchall()
    return {str(ident): _object(data) for ident, data in rows}


def parts(path: Path, session_id: str) -> list[Part]:
    """The session's parts in the order OpenCode created them: their positions are the entry indices."""
    with connect(path) as conn:
        rows = conn.execute("SELECT id, message_id, time_created, data FROM part WHERE session_id = ? "
                            "ORDER BY time_created, id", (session_id,)).fetchall()
    return [Part(str(r[0]), str(r[1]), _int(r[2]), r[3] if isinstance(r[3], str) else "") for r in rows]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _object(data: Any) -> dict[str, Any]:
    try:
        obj = json.loads(data) if isinstance(data, str) else None
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}
