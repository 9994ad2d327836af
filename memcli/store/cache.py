"""Results other readers derive from records' contents, kept in the store (table `cache`).

A reader's results (the Linter's findings, gc-report's facts) are a pure function of a record's
path and bytes, the reader's code and config: they are kept under a content key (the store's
content hash, so an unchanged record needs no read to find them) in a *scope* named after the
reader and a fingerprint of its code and config. A new fingerprint starts an empty scope and the
old one is dropped at the next save. It is a cache: a failing read or write only costs speed.

Earlier versions kept these results in marshal files of their own in the state folder
(`lint-cache.marshal`, `gc-facts.marshal`), which nothing reads any more: a reader names its old
file (`legacy`) and the first save into the store removes that one file, nothing else.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
from collections.abc import Iterable
from typing import Any

from memcli.store.store import RecordStore


def content_key(path: str, digest: str) -> bytes:
    """The key of a record's results: its path and its content hash."""
    return hashlib.blake2b(f"{path}\0{digest}".encode(), digest_size=16).digest()


class ScopeCache:
    """The entries of one scope (`<reader>:<fingerprint>`), read lazily or all at once (`preload`),
    written at `save()`. In a forked helper process nothing is read from or written to SQLite."""

    def __init__(self, store: RecordStore, reader: str, fingerprint: str, *,
                 legacy: str | None = None) -> None:
        self.store = store
        self.legacy = legacy  # the file name earlier versions kept this reader's results in
        self.reader = reader
        self.scope = f"{reader}:{fingerprint}"
        self._pid = os.getpid()
        self._all: dict[bytes, bytes] | None = None
        self._used: set[bytes] = set()
        self._new: dict[bytes, bytes] = {}

    def _here(self) -> bool:
        return os.getpid() == self._pid

    def preload(self) -> None:
        """Read every entry at once (before forking helpers, or when most will be asked for)."""
        if self._all is None and self._here():
            try:
                rows = self.store.conn.execute("SELECT key, value FROM cache WHERE scope = ?", (self.scope,))
                self._all = dict(rows)
            except sqlite3.Error:
                self._all = {}

    def get(self, key: bytes) -> bytes | None:
        self._used.add(key)
        found = self._new.get(key)
        if found is not None:
            return found
        if self._all is not None:
            return self._all.get(key)
        if not self._here():
            return None
        try:
            row = self.store.conn.execute("SELECT value FROM cache WHERE scope = ? AND key = ?",
                                          (self.scope, key)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else row[0]

    def put(self, key: bytes, value: bytes) -> None:
        self._used.add(key)
        self._new[key] = value

    def load(self, key: bytes) -> object | None:
        """The value `dump` kept under `key`, or None (none kept, or garbage: a miss)."""
        found = self.get(key)
        try:
            return None if found is None else marshal.loads(found)
        except (ValueError, EOFError, TypeError):
            return None

    def dump(self, key: bytes, value: Any) -> None:  # what marshal takes
        self.put(key, marshal.dumps(value))

    def count(self) -> int:
        if self._all is not None:
            return len(self._all)
        try:
            return self.store.conn.execute("SELECT count(*) FROM cache WHERE scope = ?",
                                           (self.scope,)).fetchone()[0]
        except sqlite3.Error:
            return 0

    @property
    def dirty(self) -> bool:
        return bool(self._new)

    def save(self, *, whole: bool, keep: Iterable[bytes] = ()) -> None:
        """Write this run's new entries; after a run over the whole workspace keep only the entries
        it used (and `keep`); drop the reader's scopes of other fingerprints."""
        if not self._here():
            return
        conn = self.store.conn
        try:
            with self.store.writing():
                conn.executemany("INSERT OR REPLACE INTO cache VALUES (?, ?, ?)",
                                 [(self.scope, key, value) for key, value in self._new.items()])
                conn.execute("DELETE FROM cache WHERE scope > ? AND scope < ? AND scope != ?",
                             (f"{self.reader}:", f"{self.reader};", self.scope))
                if whole:
                    used = self._used | set(keep)
                    rows = conn.execute("SELECT key FROM cache WHERE scope = ?", (self.scope,))
                    stale = [k for (k,) in rows if k not in used]
                    conn.executemany("DELETE FROM cache WHERE scope = ? AND key = ?",
                                     [(self.scope, k) for k in stale])
        except sqlite3.Error:
            return  # a cache: the next run computes again
        if self._all is not None:
            self._all.update(self._new)
        self._new.clear()
        self._drop_legacy()

    def _drop_legacy(self) -> None:
        state = self.store.state_dir
        if self.legacy is None or state is None:
            return
        try:
            (state / self.legacy).unlink(missing_ok=True)
        except OSError:  # a folder of that name, no permission: not ours to force
            pass
