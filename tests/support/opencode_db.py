"""OpenCode's session database for tests: a copy of the fixture OpenCode 1.18.33 wrote
(tests/fixtures/transcripts/opencode/opencode.db; README.md there says how), moved to the test's
folders, and rows added the way OpenCode adds them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from support.transcripts import FIX

FIXTURE = FIX / "opencode" / "opencode.db"
WROTE_IN = "/tmp/memcli-opencode-fixture"  # the folder the fixture's sessions ran in: app/ and other/
MAIN = "ses_dcd04d9d1ffeQ6g5nJhjTogGcJ"  # in app/: a prompt with five tool calls, then one more prompt
SUBAGENT = "ses_dcd04b428ffeioPVelt314GqqI"  # in app/: the task tool's session, MAIN its parent
OTHER = "ses_dcd0388bdffeB4ZMBWLb7yUHNp"  # in other/: another project's session


def copy_db(dest: Path, base: Path | None = None, *, wal: bool = False) -> Path:
    """The fixture at `dest`, its sessions moved from WROTE_IN to `base` (app/ and other/ under it);
    `wal`: in WAL mode, as OpenCode keeps it."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    target = sqlite3.connect(dest)
    source.backup(target)
    source.close()
    if base is not None:
        target.execute("UPDATE session SET directory = replace(directory, ?, ?)", (WROTE_IN, str(base)))
        target.commit()
    if wal:
        target.execute("PRAGMA journal_mode = WAL")
    target.close()
    return dest


def add_part(db: Path, session_id: str, data: dict[str, Any] | str, *, at_ms: int | None = None,
             ) -> sqlite3.Connection:
    """A part appended to the session's last message, a second after its last part (or at `at_ms`),
    as OpenCode adds one; returns the connection, left open: in WAL mode the change then stays in the
    write-ahead log, as while OpenCode runs."""
    conn = sqlite3.connect(db)
    message, last = conn.execute("SELECT message_id, MAX(time_created) FROM part WHERE session_id = ?",
                                 (session_id,)).fetchone()
    count = conn.execute("SELECT COUNT(*) FROM part").fetchone()[0]
    text = data if isinstance(data, str) else json.dumps(data)
    when = last + 1000 if at_ms is None else at_ms
    conn.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (f"prt_zz{count:010d}", message, session_id, when, when, text))
    conn.commit()
    return conn
