"""The search index: an SQLite FTS5 database kept in step with the record files.

Every query first calls `refresh()`: files are listed and stat-ed, and only those whose mtime or
size changed (or whose mtime is too close to when they were read to be trusted — the "racy clean"
case git also guards against) are read again; a file whose bytes hash the same is not re-parsed.
Files gone from the listing are dropped, so a rename is a drop plus an add. The database is a cache:
when it is corrupt, deleted, from another schema version or built for another root, it is thrown
away and rebuilt without a word. Without a writable state folder the index lives in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
import time
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.search.hit import SearchHit
from memcli.search.records import IndexedRecord, read_record
from memcli.search.text import TOKENIZER_VERSION
from memcli.workspace import KIND_DIRS, SUMMARY_PATH, Workspace

if TYPE_CHECKING:
    from memcli.search.semantic import Embedder, VectorCache, VectorStats

SCHEMA_VERSION = 6
_USER_VERSION = SCHEMA_VERSION * 1000 + TOKENIZER_VERSION
RECORD_DIRS = tuple(KIND_DIRS.values())
_RACY_NS = 2_000_000_000  # coarse file systems store mtimes in 1-2 s steps

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- docs stays small (no text): every query scans it for freshness, filters and slugs.
CREATE TABLE docs(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
  checked_ns INTEGER NOT NULL, hash TEXT NOT NULL, type TEXT NOT NULL, slug TEXT NOT NULL, kind TEXT,
  status TEXT, replaced_by TEXT, model_invocation INTEGER, parse_error TEXT, terms INTEGER NOT NULL);
-- words: the record's words as written, for the spelling signal (spelling.py)
CREATE TABLE texts(id INTEGER PRIMARY KEY, summary TEXT NOT NULL, body TEXT NOT NULL, words TEXT NOT NULL);
-- record vectors for the optional semantic signal (semantic.py), by content hash and model
CREATE TABLE vectors(hash TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (hash, model));
CREATE VIRTUAL TABLE fts USING fts5(slug, description, body,
  tokenize = "unicode61 remove_diacritics 0 tokenchars '_'");
"""


@dataclass(frozen=True)
class RefreshStats:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0


def index_path(state_dir: Path, root: Path) -> Path:
    """Where the index of the workspace at `root` lives: one file per root, so a scratch copy of a
    workspace never shares (and thrashes) the real workspace's index when MEMCLI_STATE_DIR is set."""
    digest = hashlib.sha1(str(Path(root).resolve()).encode()).hexdigest()[:12]
    return Path(state_dir) / "search" / f"index-{digest}.sqlite"


@contextlib.contextmanager
def _scandir(folder: Path) -> Iterator[Iterator[os.DirEntry]]:
    """os.scandir over an open descriptor of `folder` where the platform allows it (each entry's
    stat is then an fstatat relative to the folder), else over its path."""
    if os.scandir not in os.supports_fd:
        with os.scandir(folder) as entries:
            yield entries
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        with os.scandir(fd) as entries:
            yield entries
    finally:
        os.close(fd)


def _connect(target: str) -> sqlite3.Connection:
    conn = sqlite3.connect(target, timeout=10, isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")  # a cache: a torn write is detected and rebuilt
    return conn


class SearchIndex:
    """The index of the records under `root`; `db_path=None` keeps it in memory."""

    def __init__(self, root: Path, db_path: Path | None = None) -> None:
        self.root = Path(root).resolve()
        self.db_path = db_path
        self.conn = self._open()
        self.vectors: VectorStats | None = None  # set by a search with an embedder
        self.vector_cache: VectorCache | None = None  # the record vectors, kept between searches

    @classmethod
    def for_workspace(cls, ws: Workspace) -> SearchIndex:
        return cls(ws.root, index_path(ws.state_dir, ws.root))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- opening, validating, rebuilding -------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        if self.db_path is None:
            return self._create(_connect(":memory:"))
        try:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            conn = _connect(str(self.db_path))
        except (OSError, sqlite3.Error):
            self.db_path = None  # state folder not writable: still search, from memory
            return self._create(_connect(":memory:"))
        try:
            if self._valid(conn):
                return conn
        except sqlite3.DatabaseError:
            pass  # "file is not a database", a truncated page...
        conn.close()
        return self._rebuild_file()

    def _valid(self, conn: sqlite3.Connection) -> bool:
        if conn.execute("PRAGMA user_version").fetchone()[0] != _USER_VERSION:
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
        return self._create(_connect(str(self.db_path)))

    def _create(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        conn.executescript(_SCHEMA)
        conn.execute("INSERT INTO meta VALUES ('root', ?)", (str(self.root),))
        conn.execute(f"PRAGMA user_version = {_USER_VERSION}")
        return conn

    def recover(self) -> None:
        """Throw the index away and start again (after a DatabaseError mid-query)."""
        self.conn.close()
        self.vector_cache = None  # keyed by this connection's counters
        self.conn = self._rebuild_file() if self.db_path is not None else self._create(_connect(":memory:"))

    # -- incremental refresh -----------------------------------------------------------------
    def _listing(self) -> list[tuple[str, list[str], array]]:
        """Record files (the same set `locate()` gives a kind), per folder: (path prefix, file
        names, their lstat mtime_ns and size side by side), without following links.

        Only the record folders are scanned, one level deep, with scandir over an open folder
        (each stat is then relative to it, not a walk of the whole path): at 10 000 records this
        runs on every query, so it keeps no stat objects and builds no path strings.
        """
        out = []
        for folder in RECORD_DIRS:
            names: list[str] = []
            stats = array("q")
            try:
                with _scandir(self.root / folder) as entries:
                    for entry in entries:
                        name = entry.name
                        if name.endswith(".md") and name[0] != "." and entry.is_file(follow_symlinks=False):
                            try:
                                st = entry.stat(follow_symlinks=False)
                            except OSError:  # gone since the directory was read
                                continue
                            names.append(name)
                            stats.append(st.st_mtime_ns)
                            stats.append(st.st_size)
            except OSError:
                continue
            out.append((folder + "/", names, stats))
        try:
            st = os.lstat(self.root / SUMMARY_PATH)
        except OSError:
            return out
        if stat.S_ISREG(st.st_mode):
            out.append(("", [SUMMARY_PATH], array("q", (st.st_mtime_ns, st.st_size))))
        return out

    def refresh(self) -> RefreshStats:
        try:
            return self._refresh()
        except sqlite3.DatabaseError:
            self.recover()
            return self._refresh()

    def _refresh(self) -> RefreshStats:
        found = self._listing()
        # One digest of every (path, mtime, size): equal to the stored one means nothing changed,
        # without reading 10 000 rows. It is stored only while every file is trusted by mtime+size.
        digest = hashlib.blake2b(digest_size=16)
        for prefix, names, stats in found:
            digest.update(f"{prefix}\0{len(names)}\0".encode())
            digest.update("\n".join(names).encode())
            digest.update(stats.tobytes())
        listing = digest.hexdigest()
        stored = self.conn.execute("SELECT value FROM meta WHERE key = 'listing'").fetchone()
        if stored is not None and stored[0] == listing:
            return RefreshStats(unchanged=sum(len(names) for _, names, _ in found))
        files = {prefix + name: (stats[2 * i], stats[2 * i + 1])
                 for prefix, names, stats in found for i, name in enumerate(names)}
        return self._sync(files, listing)

    def _sync(self, files: dict[str, tuple[int, int]], listing: str) -> RefreshStats:
        # Under the write lock from the first read: two processes refreshing at once must not both
        # decide to add the same file.
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            stats = self._apply(files)
            racy = self.conn.execute(
                "SELECT 1 FROM docs WHERE checked_ns - mtime_ns <= ? LIMIT 1", (_RACY_NS,)).fetchone()
            if racy is None and self.size() == len(files):
                self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('listing', ?)", (listing,))
            else:
                self.conn.execute("DELETE FROM meta WHERE key = 'listing'")
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return stats

    def _apply(self, files: dict[str, tuple[int, int]]) -> RefreshStats:
        # (mtime, size) of the files whose mtime is old enough, when they were read, to be trusted.
        rows = self.conn.execute(
            "SELECT path, mtime_ns, size, checked_ns - mtime_ns > ? FROM docs", (_RACY_NS,)).fetchall()
        trusted = {path: (mtime, size) for path, mtime, size, ok in rows if ok}
        todo = [(rel, st) for rel, st in files.items() if trusted.get(rel) != st]
        unchanged = len(files) - len(todo)
        if not todo and len(rows) == len(files):  # same paths, none changed
            return RefreshStats(unchanged=unchanged)
        known = {row[0]: row[1:] for row in self.conn.execute("SELECT path, id, hash FROM docs")}
        gone = [known[p][0] for p in known.keys() - files.keys()]
        added = updated = 0
        now = time.time_ns()
        for doc_id in gone:
            self._drop(doc_id)
        for rel, st in todo:
            try:
                data = (self.root / rel).read_bytes()
            except OSError:
                continue  # vanished or unreadable between listing and reading: next refresh
            digest = hashlib.blake2b(data, digest_size=16).hexdigest()
            old = known.get(rel)
            if old and old[1] == digest:
                self.conn.execute(
                    "UPDATE docs SET mtime_ns = ?, size = ?, checked_ns = ? WHERE id = ?",
                    (*st, now, old[0]),
                )
                unchanged += 1
                continue
            self._store(read_record(rel, data), old[0] if old else None, st, now, digest)
            updated += bool(old)
            added += not old
        return RefreshStats(added, updated, len(gone), unchanged)

    def _store(self, rec: IndexedRecord, doc_id: int | None, st: tuple[int, int], now: int,
               digest: str) -> None:
        if doc_id is not None:
            self._drop(doc_id)
        cur = self.conn.execute(
            "INSERT INTO docs(path, mtime_ns, size, checked_ns, hash, type, slug, kind, status, replaced_by,"
            " model_invocation, parse_error, terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (rec.path, *st, now, digest, rec.type, rec.slug, rec.kind, rec.status,
             rec.replaced_by, rec.model_invocation, rec.parse_error,
             sum(len(t.split()) for t in (rec.slug_terms, rec.description_terms, rec.body_terms))),
        )
        self.conn.execute("INSERT INTO texts VALUES (?,?,?,?)",
                          (cur.lastrowid, rec.summary, rec.body, rec.words))
        self.conn.execute(
            "INSERT INTO fts(rowid, slug, description, body) VALUES (?,?,?,?)",
            (cur.lastrowid, rec.slug_terms, rec.description_terms, rec.body_terms),
        )

    def _drop(self, doc_id: int) -> None:
        for table, key in (("docs", "id"), ("texts", "id"), ("fts", "rowid")):
            self.conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (doc_id,))

    def search(self, query: str, *, types: Iterable[str] | None = None, kind: str | None = None,
               status: str | None = None, include_replaced: bool = False, limit: int = 10,
               embedder: Embedder | None = None) -> list[SearchHit]:
        """Refresh, then rank (see memcli.search.rank); a database that breaks mid-query is rebuilt.

        With an embedder, missing record vectors are embedded first (within its time budget) and
        the ranking is hybrid; `self.vectors` then says what happened (an error leaves it lexical).
        """
        from memcli.search.rank import rank

        self.refresh()
        if embedder is not None:
            from memcli.search import semantic

            if self.vector_cache is None:
                self.vector_cache = semantic.VectorCache()
            self.vectors = semantic.update(self.conn, embedder, self.vector_cache)
            if self.vectors.error:
                embedder = None
        kwargs = dict(types=types, kind=kind, status=status, include_replaced=include_replaced, limit=limit,
                      embedder=embedder)
        try:
            return rank(self, query, **kwargs)
        except sqlite3.DatabaseError:
            self.recover()
            self.refresh()
            return rank(self, query, **kwargs)

    def size(self) -> int:
        return self.conn.execute("SELECT count(*) FROM docs").fetchone()[0]

    def avg_length(self) -> float:
        """The mean number of indexed terms per record (BM25's length normalisation)."""
        return self.conn.execute("SELECT avg(terms) FROM docs").fetchone()[0] or 0.0

    def counts(self) -> tuple[int, int]:
        """(records indexed, of which not valid records)."""
        row = self.conn.execute("SELECT count(*), count(parse_error) FROM docs").fetchone()
        return row[0], row[1]
