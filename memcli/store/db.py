"""The record store's SQLite file: its schema, opening it, throwing it away.

The database is a cache: when it is corrupt, deleted, from another schema version or built for
another root, it is thrown away and rebuilt without a word. Without a writable state folder it
lives in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from memcli.atomicio import make_dirs, new_file_mode
from memcli.values import frozen
from memcli.workspace import Workspace

SCHEMA_VERSION = 10  # the search tokenizer's version is kept apart: see postings.py
RACY_NS = 2_000_000_000  # coarse file systems store times in 1-2 s steps

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- docs stays small (no text): every refresh scans it, every search filters on it. terms is NULL
-- until the record's postings are made (postings.py); the rest comes from one parse (row.py);
-- valid is NULL for the kinds whose validity no reader asks of the store.
CREATE TABLE docs(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL, ino INTEGER NOT NULL, checked_ns INTEGER NOT NULL, hash TEXT NOT NULL,
  type TEXT NOT NULL, slug TEXT NOT NULL, kind TEXT, status TEXT, replaced_by TEXT, model_invocation INTEGER,
  parse_error TEXT, valid INTEGER, updated_ts REAL, entry TEXT, anchors TEXT,
  needles INTEGER NOT NULL, facts BLOB, terms INTEGER);
-- words: the record's words as written, for the spelling signal (search/spelling.py)
CREATE TABLE texts(id INTEGER PRIMARY KEY, description TEXT NOT NULL, summary TEXT NOT NULL,
  body TEXT NOT NULL, words TEXT);
-- what the full YAML parser gave for the record (codec.py), to rebuild it without composing YAML
CREATE TABLE parsed(id INTEGER PRIMARY KEY, loaded BLOB NOT NULL);
-- record vectors for the optional semantic signal (search/semantic.py), by content hash and model
CREATE TABLE vectors(hash TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (hash, model));
-- the last listing the rows fully reflect, per record folder (see diff.py)
CREATE TABLE listing(folder TEXT PRIMARY KEY, names TEXT NOT NULL, stamps BLOB NOT NULL,
  inodes BLOB NOT NULL);
-- results derived from records' contents by other readers (lint findings, gc facts), see cache.py
CREATE TABLE cache(scope TEXT NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL,
  PRIMARY KEY (scope, key)) WITHOUT ROWID;
-- whole-index values a query reads (every slug in path order, the mean length...), marshalled, so a
-- fresh process loads one row instead of scanning docs; any write to the rows they come from drops
-- them all (the triggers), so one kept is always that of the rows now (store.py: derived)
CREATE TABLE derived(key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TRIGGER docs_added AFTER INSERT ON docs BEGIN DELETE FROM derived; END;
CREATE TRIGGER docs_dropped AFTER DELETE ON docs BEGIN DELETE FROM derived; END;
CREATE TRIGGER docs_changed AFTER UPDATE OF id, path, type, slug, kind, status, parse_error, valid, terms
  ON docs BEGIN DELETE FROM derived; END;
CREATE VIRTUAL TABLE fts USING fts5(slug, description, body,
  tokenize = "unicode61 remove_diacritics 0 tokenchars '_'");
"""

@frozen
class RefreshStats:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    read: int = 0  # files read (and hashed) by this refresh: changed, new, or not trusted by stamp


def store_path(state_dir: Path, root: Path) -> Path:
    """Where the store of the workspace at `root` lives: one file per root, so a scratch copy of a
    workspace never shares (and thrashes) the real workspace's store when MEMCLI_STATE_DIR is set."""
    digest = hashlib.sha1(str(Path(root).resolve()).encode()).hexdigest()[:12]
    return Path(state_dir) / "search" / f"index-{digest}.sqlite"


def _made(path: Path) -> None:
    """The store's file, made empty (SQLite's empty database) as private as its folder before
    SQLite opens it: SQLite itself would make it 0644 whatever the folder (memcli.atomicio)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, new_file_mode(path.parent)))


def _connect(target: str, threads: bool = False) -> sqlite3.Connection:
    return sqlite3.connect(target, timeout=10, isolation_level=None, check_same_thread=not threads)


def _tune(conn: sqlite3.Connection) -> sqlite3.Connection:
    conn.execute("PRAGMA synchronous=OFF")  # a cache: a torn write is detected and rebuilt
    return conn


class Database:
    """The SQLite file of the store of `root` (`db_path=None`: in memory), valid for this schema.
    `threads`: the connection may be used from any thread, one at a time: the owner holds a lock
    around every use (a refresh is several statements in one transaction, and the watch and memos
    are plain attributes), as the MCP server's tools do (mcpserver/tools.py)."""

    def __init__(self, root: Path, db_path: Path | None = None, *, threads: bool = False) -> None:
        self.root = Path(root).resolve()
        self.db_path = db_path
        self.threads = threads
        self.conn = self._open()

    @property
    def state_dir(self) -> Path | None:
        """The state folder the file is kept in, None in memory or in a file not where store_path
        puts it (a path the caller chose says nothing of a state folder)."""
        path = self.db_path
        if path is None or path != store_path(path.parent.parent, self.root):
            return None
        return path.parent.parent

    @classmethod
    def for_workspace(cls, ws: Workspace):  # -> Self
        return cls(ws.root, store_path(ws.state_dir, ws.root))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self):  # -> Self
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self) -> sqlite3.Connection:
        if self.db_path is None:
            return self._create(_connect(":memory:", self.threads))
        try:
            make_dirs(self.db_path.parent)
            _made(self.db_path)
            conn = _connect(str(self.db_path), self.threads)
        except (OSError, sqlite3.Error):
            self.db_path = None  # state folder not writable: still work, from memory
            return self._create(_connect(":memory:", self.threads))
        try:
            if self._valid(_tune(conn)):
                return conn
        except sqlite3.DatabaseError:
            pass  # "file is not a database", a truncated page...
        conn.close()
        try:
            return self._rebuild_file()
        except (OSError, sqlite3.Error):
            self.db_path = None  # cannot replace it: still work, from memory
            return self._create(_connect(":memory:", self.threads))

    def _valid(self, conn: sqlite3.Connection) -> bool:
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return False
        row = conn.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
        if row is None or row[0] != str(self.root):
            return False
        conn.execute("SELECT count(*) FROM docs").fetchone()
        conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'x'").fetchone()
        return True

    def _rebuild_file(self) -> sqlite3.Connection:
        assert self.db_path is not None
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self.db_path}{suffix}").unlink(missing_ok=True)
        _made(self.db_path)
        return self._create(_connect(str(self.db_path), self.threads))

    def _create(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        _tune(conn)
        conn.executescript(_SCHEMA)
        conn.execute("INSERT INTO meta VALUES ('root', ?)", (str(self.root),))
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return conn

    def recover(self) -> None:
        """Throw the database away and start again (after a DatabaseError mid-read); in memory when
        the file cannot be replaced (a read-only state folder holding an old store)."""
        self.conn.close()
        if self.db_path is not None:
            try:
                self.conn = self._rebuild_file()
                return
            except (OSError, sqlite3.Error):
                self.db_path = None
        self.conn = self._create(_connect(":memory:", self.threads))

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """One write transaction, under the write lock from its first read: two processes
        refreshing at once must not both decide to add the same file."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str | None) -> None:
        if value is None:
            self.conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @staticmethod
    def now_ns() -> int:
        return time.time_ns()
