"""The search index: the record store (memcli.store) with its search postings, and the ranking.

Every query first calls `refresh()`: the store's one freshness check (only files whose stamp
changed are read again, a file whose bytes hash the same is not parsed again), then the postings
of any record another reader brought in without them (memcli/store/postings.py). The database is a
cache: when it is corrupt, deleted, from another schema version or built for another root, it is
thrown away and rebuilt without a word. Without a writable state folder the index lives in memory.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memcli.search import semantic
from memcli.search.hit import SearchHit
from memcli.search.parsed import Query
from memcli.search.rank import rank
from memcli.search.semantic import Embedder, VectorCache, VectorStats
from memcli.store import RACY_NS, RecordStore, RefreshStats, store_path
from memcli.workspace import Workspace

__all__ = ["RefreshStats", "SearchIndex", "index_path"]

index_path = store_path  # one file per workspace root: the store search reads


class SearchIndex(RecordStore):
    """The index of the records under `root`; `db_path=None` keeps it in memory."""

    def __init__(self, root: Path, db_path: Path | None = None, *, racy_ns: int = RACY_NS,
                 threads: bool = False) -> None:
        super().__init__(root, db_path, racy_ns=racy_ns, threads=threads)
        self.vectors: VectorStats | None = None  # set by a search with an embedder
        self.vector_cache: VectorCache | None = None  # the record vectors, kept between searches
        self._memo: dict[str, object] = {}
        self._memo_state: tuple[int, int] | None = None

    @classmethod
    def for_workspace(cls, ws: Workspace, *, threads: bool = False) -> SearchIndex:
        return cls(ws.root, index_path(ws.state_dir, ws.root), threads=threads)

    def recover(self) -> None:
        self.vector_cache = None  # keyed by this connection's counters
        super().recover()

    def refresh(self, *, postings: bool = True, within: tuple[str, ...] | None = None) -> RefreshStats:
        return super().refresh(postings=postings, within=within)

    def search(self, query: str | Query, *, types: Iterable[str] | None = None, kind: str | None = None,
               status: str | None = None, include_replaced: bool = False, limit: int = 10,
               embedder: Embedder | None = None) -> list[SearchHit]:
        """Refresh, then rank (see memcli.search.rank); a database that breaks mid-query is rebuilt.

        With an embedder, missing record vectors are embedded first (within its time budget) and
        the ranking is hybrid; `self.vectors` then says what happened (an error leaves it lexical).
        """
        self.refresh()
        if embedder is not None:
            if self.vector_cache is None:
                self.vector_cache = semantic.VectorCache()
            self.vectors = semantic.update(self.conn, embedder, self.vector_cache)
            if self.vectors.error:
                embedder = None
        kwargs: dict[str, Any] = dict(types=types, kind=kind, status=status,
                                      include_replaced=include_replaced, limit=limit, embedder=embedder)
        try:
            return rank(self, query, **kwargs)
        except sqlite3.DatabaseError:
            self.recover()
            self.refresh()
            return rank(self, query, **kwargs)

    def memo(self, key: str, compute):  # -> the value compute() gives
        """A value derived from the index, computed once while the index does not change (this
        connection's writes and other processes' commits are both watched, as for vectors)."""
        state = (self.conn.total_changes, self.conn.execute("PRAGMA data_version").fetchone()[0])
        if state != self._memo_state:
            self._memo, self._memo_state = {}, state
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def size(self) -> int:
        return self.memo("size", super().size)

    def avg_length(self) -> float:
        """The mean number of indexed terms per record (BM25's length normalisation)."""
        return self.memo("avg", lambda: self.derived("avg", "SELECT avg(terms) FROM docs")[0][0] or 0.0)

    def slugs(self) -> list[tuple[int, str]]:
        """(id, slug) of every record, in path order (the fuzzy slug match reads them all)."""
        return self.memo("slugs", lambda: self.derived("slugs", "SELECT id, slug FROM docs ORDER BY path"))
