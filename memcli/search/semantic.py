"""Meaning, optional: record vectors from an embedding model, fused with the lexical ranking.

Lexical search misses a question that shares no word with its answer ("which database is the
source of truth" → "Postgres holds the canonical order data"). With `[search] embedding_model`
set (any litellm embedding model: a local Ollama, OpenAI, ...), `memcli search` also ranks the
records by cosine similarity to the query and fuses that ranking with the lexical and spelling
ones by reciprocal rank (Σ weight / (fusion_k + rank)), which needs no score calibration.

* Vectors live in the search index, keyed by the record's content hash and the model, so only
  new or edited records are embedded, a rename costs nothing, and switching models re-embeds.
* Input is capped (`embedding_max_chars` of slug, description and body).
* Embedding never blocks a lexical answer for long: each search embeds for at most
  `embedding_budget_s` (records left over are embedded by later searches and rank lexically until
  then), and an unreachable or failing model leaves that search lexical, with the reason kept.
* Without a configured model nothing here runs (and nothing is imported).
"""

from __future__ import annotations

import importlib.util
import sqlite3
import time
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memcli.config import SearchConfig
from memcli.llm.errors import LLMError
from memcli.search.expand import candidate_paths
from memcli.store import RecordStore, store_path
from memcli.values import frozen
from memcli.workspace import Workspace

if TYPE_CHECKING:
    from concurrent.futures import Future

    from memcli.llm.endpoint import Endpoint


@frozen
class Embedder:
    model: str
    api_base: str | None = None
    max_chars: int = 2_000
    batch: int = 32
    budget_s: float = 3.0
    timeout_s: float = 30.0
    fusion_k: int = 2
    query_prefix: str = ""
    document_prefix: str = ""
    query_type: str | None = None
    document_type: str | None = None

    @classmethod
    def from_config(cls, cfg: SearchConfig) -> Embedder | None:
        if not cfg.embedding_model:  # (Endpoint.for_embeddings's own test) most searches: no model
            return None
        from memcli.llm.endpoint import Endpoint  # here: only with an embedding model

        end = Endpoint.for_embeddings(cfg)
        if end is None:
            return None
        return cls(end.model, end.api_base, cfg.embedding_max_chars, cfg.embedding_batch,
                   cfg.embedding_budget_s, end.timeout_s, cfg.fusion_k, cfg.embedding_query_prefix,
                   cfg.embedding_document_prefix, cfg.embedding_query_type, cfg.embedding_document_type)

    @property
    def endpoint(self) -> Endpoint:
        from memcli.llm.endpoint import Endpoint  # here: as in from_config

        return Endpoint(self.model, self.api_base, self.timeout_s)

    @property
    def space(self) -> str:
        """What the stored record vectors are keyed by besides the content hash: the model, and how
        records are presented to it (another document prefix or type gives other vectors)."""
        if not (self.document_prefix or self.document_type):
            return self.model
        return f"{self.model} [{self.document_type or ''}|{self.document_prefix}]"

    def embed(self, texts: list[str], *, query: bool = False) -> list[bytes]:
        """Unit-length float32 vectors of records (or of queries), packed (raises memcli.llm.LLMError)."""
        from memcli.llm.embeddings import embed  # here: litellm loads only when a model is set

        prefix, input_type = ((self.query_prefix, self.query_type) if query
                              else (self.document_prefix, self.document_type))
        out = []
        for vec in embed(self.endpoint, [prefix + t[: self.max_chars] for t in texts], input_type=input_type):
            norm = sum(x * x for x in vec) ** 0.5 or 1.0
            out.append(array("f", (x / norm for x in vec)).tobytes())
        return out


@dataclass
class VectorStats:
    embedded: int = 0
    missing: int = 0
    error: str | None = None


def record_text(slug: str, summary: str, body: str) -> str:
    return f"{slug.replace('-', ' ')}\n{summary}\n{body}"


INSTALL_LINE = 'pip install "memcli[semantic]"'


def unavailable() -> str | None:
    """Why hybrid search cannot run in this install (the `semantic` extra missing), else None."""

    missing = [name for name in ("numpy", "litellm") if importlib.util.find_spec(name) is None]
    return f"{' and '.join(missing)} not installed: {INSTALL_LINE}" if missing else None


class VectorCache:
    """One model's record vectors as a numpy matrix, kept by a SearchIndex from one search to the
    next while the index is unchanged: reading and stacking 10 000 vectors from SQLite costs more
    than a whole lexical query. "Unchanged" is this connection's count of written rows
    (`total_changes`) and other connections' commits (`PRAGMA data_version`), so a record edited or
    embedded by another memcli process is seen too."""

    def __init__(self) -> None:
        self.complete: tuple[object, ...] | None = None  # index state in which no vector was missing
        self.key: tuple[object, ...] | None = None
        self.ids: Any = None  # record ids, numpy int64
        self.replaced: Any = None  # numpy bool: a replaced decision (never ranked by meaning)
        self.rows: Any = None  # numpy int64: each id's row of the matrix
        self.matrix: Any = None  # numpy float32, one unit-length row per distinct vector


def _state(conn: sqlite3.Connection, space: str) -> tuple[object, ...]:
    return space, conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0]


def update(conn: sqlite3.Connection, embedder: Embedder, cache: VectorCache | None = None) -> VectorStats:
    """Embed the records that have no vector for this model yet, within the time budget."""
    why = unavailable()
    if why:
        return VectorStats(error=why)
    if cache is not None and cache.complete == _state(conn, embedder.space):
        return VectorStats()  # nothing written since every record had its vector
    rows = conn.execute(
        "SELECT d.hash, d.slug, t.summary, t.body FROM docs d JOIN texts t USING (id) WHERE NOT EXISTS"
        " (SELECT 1 FROM vectors v WHERE v.hash = d.hash AND v.model = ?)", (embedder.space,)).fetchall()
    todo = list({digest: (digest, record_text(slug, summary, body)) for digest, slug, summary, body in rows}
                .values())
    stats = VectorStats(missing=len(todo))
    deadline = time.monotonic() + embedder.budget_s
    for i in range(0, len(todo), embedder.batch):
        if i and time.monotonic() > deadline:  # one batch always goes, so every search makes progress
            break
        chunk = todo[i : i + embedder.batch]
        try:
            vectors = embedder.embed([text for _, text in chunk])
        except LLMError as exc:
            stats.error = str(exc)
            break
        conn.execute("BEGIN IMMEDIATE")
        pairs = zip(chunk, vectors, strict=True)
        conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                         [(digest, embedder.space, vec) for (digest, _), vec in pairs])
        conn.execute("COMMIT")
        stats.embedded += len(chunk)
        stats.missing -= len(chunk)
    if stats.embedded:  # vectors of records edited or deleted since: their hash is gone
        conn.execute("DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM docs)")
    if cache is not None and not stats.missing and not stats.error:
        cache.complete = _state(conn, embedder.space)
    return stats


def start_query(embedder: Embedder, query: str) -> Future[bytes]:
    """The query's vector, computed on a worker thread while the lexical ranking runs: the call
    mostly waits on the model's server, so the two overlap. `.result()` raises LLMError."""
    from concurrent.futures import ThreadPoolExecutor  # here: only with an embedding model

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(lambda: embedder.embed([query], query=True)[0])
    pool.shutdown(wait=False)
    return future


def ranking(conn: sqlite3.Connection, space: str, qvec: bytes, where: str, args: list[object], depth: int,
            cache: VectorCache | None = None) -> list[int]:
    """Record ids by cosine similarity to the query vector, best first (replaced decisions left
    out: they only appear through the lexical side, where replaced.py can tell whether the query
    is about them; records embedded at another dimension are skipped)."""
    import numpy as np  # here: numpy is the optional `semantic` extra

    ids, replaced, rows, matrix = _matrix(conn, space, len(qvec), cache)
    if not len(ids):
        return []
    keep = ~replaced
    if where:
        allowed = [doc_id for (doc_id,) in conn.execute(f"SELECT d.id FROM docs d WHERE 1 = 1{where}", args)]
        keep &= np.isin(ids, allowed)
    # one product per distinct vector: a matrix product may round two equal rows differently
    # (by their place in it), and identical records must tie
    sims = (matrix @ np.frombuffer(qvec, dtype=np.float32))[rows]
    sims[~keep] = -np.inf
    depth = min(depth, int(keep.sum()))
    if depth <= 0:
        return []
    # the best `depth` rows and any equal to the last of them, then only those sorted: equal
    # similarities in path order (not by row id, which follows the store's history)
    cut = np.partition(-sims, depth - 1)[depth - 1]
    top = np.flatnonzero(-sims <= cut)
    found = ids[top].tolist()
    paths = candidate_paths(conn, found)
    ranked = sorted(zip(-sims[top], found, strict=True), key=lambda pair: (pair[0], paths[pair[1]]))
    return [doc_id for _, doc_id in ranked[:depth]]


def _matrix(conn: sqlite3.Connection, space: str, width: int,
            cache: VectorCache | None) -> tuple[Any, Any, Any, Any]:
    """(ids, replaced, each id's row, the matrix of distinct vectors): see VectorCache."""
    import numpy as np  # here: numpy only when an embedding model is configured; lexical search never

    key = (*_state(conn, space), width)
    if cache is not None and cache.key == key:
        return cache.ids, cache.replaced, cache.rows, cache.matrix
    found = conn.execute(
        "SELECT d.id, d.status IS 'replaced', v.hash, v.vec FROM docs d JOIN vectors v ON v.hash = d.hash"
        " AND v.model = ? WHERE length(v.vec) = ?", (space, width)).fetchall()
    ids = np.fromiter((row[0] for row in found), dtype=np.int64, count=len(found))
    replaced = np.fromiter((bool(row[1]) for row in found), dtype=bool, count=len(found))
    distinct: dict[str, int] = {}  # content hash → its vector's row
    vectors: list[bytes] = []
    for _, _, digest, vec in found:
        if digest not in distinct:
            distinct[digest] = len(vectors)
            vectors.append(vec)
    rows = np.fromiter((distinct[row[2]] for row in found), dtype=np.int64, count=len(found))
    matrix = np.frombuffer(b"".join(vectors), dtype=np.float32).reshape(len(vectors), width // 4)
    if cache is not None:
        cache.key, cache.ids, cache.replaced, cache.rows, cache.matrix = key, ids, replaced, rows, matrix
    return ids, replaced, rows, matrix


def fuse(rankings: list[tuple[float, list[int]]], k: int) -> dict[int, float]:
    """Weighted reciprocal-rank fusion of rankings (weight, ids best first) → fused score per id:
    Σ weight / (k + rank)."""
    out: dict[int, float] = {}
    for weight, ranked in rankings:
        for rank, doc_id in enumerate(ranked, 1):
            out[doc_id] = out.get(doc_id, 0.0) + weight / (k + rank)
    return out


def coverage(conn: sqlite3.Connection, model: str) -> tuple[int, int]:
    """(records with a vector for `model`, records) in the index."""
    total = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    done = conn.execute("SELECT count(*) FROM docs d WHERE EXISTS (SELECT 1 FROM vectors v"
                        " WHERE v.hash = d.hash AND v.model = ?)", (model,)).fetchone()[0]
    return done, total


def describe(ws: Workspace) -> dict[str, object]:
    """What `memcli status` shows: lexical, or hybrid with the model and how many records have a
    vector (read from the store as it is; nothing is refreshed or embedded)."""
    embedder = Embedder.from_config(ws.config.search)
    if embedder is None:
        return {"mode": "lexical"}
    with RecordStore(ws.root, store_path(ws.state_dir, ws.root)) as store:
        done, total = coverage(store.conn, embedder.space)
    return {"mode": "hybrid", "model": embedder.model, "embedded": done, "records": total,
            "unavailable": unavailable()}
