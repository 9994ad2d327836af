"""Ranking: FTS5 picks candidates, memcli scores them (BM25, coord, adjacency, feedback, spelling),
plus typos.

A query word found in no record is replaced by its closest index term (memcli.search.typos) at a
lower weight; a lowercase word of a code-word family also matches its other forms at a lower
weight (text.Group, bm25.ALT_WEIGHT).

FTS5's bm25() only orders the candidate pool; their scores come from memcli.search.bm25 (k1/b for
short records) and memcli.search.expand. A slug that is close to the whole query by edit distance
(rapidfuzz, ≥ SLUG_CUTOFF) adds up to the best score of the query, so `memcli search use-sqlte-wal`
still puts `use-sqlite-wal` first.

The first hits are then re-scored by spelling (memcli.search.spelling: character 4-grams of the
words). With an embedder, three rankings are fused by reciprocal rank: words, meaning
(memcli.search.semantic) and spelling.

The query is analysed once (memcli.search.parsed.Query) and that value is passed to every step.

Equal scores are ordered by the record's path, at every cut (the candidate pool, the feedback
hits, each ranking, the hits returned): never by the row id, which follows the order the store
happened to read files in, so two identical records would swap places with its history.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from memcli.analysis.text import fts_query
from memcli.llm.errors import LLMError
from memcli.search import bm25, expand, replaced, semantic, spelling, typos
from memcli.search.hit import SearchHit
from memcli.search.parsed import Query
from memcli.search.semantic import Embedder, VectorCache, VectorStats
from memcli.search.snippet import make_snippet


class Index(Protocol):
    """What ranking reads of an index (memcli.search.index.SearchIndex, fresh)."""

    conn: sqlite3.Connection
    vectors: VectorStats | None
    vector_cache: VectorCache | None

    def memo(self, key: str, compute: Callable[[], Any]) -> Any: ...
    def size(self) -> int: ...
    def avg_length(self) -> float: ...
    def slugs(self) -> list[tuple[int, str]]: ...

WEIGHTS = (4.0, 2.5, 1.0)  # slug, description, body
SLUG_CUTOFF = 80.0
_CANDIDATES = 100  # first-pass hits that coord and feedback re-score


def _filters(types: Iterable[str] | None, kind: str | None, status: str | None) -> tuple[str, list[object]]:
    sql: list[str] = []
    args: list[object] = []
    if types:
        wanted = sorted(set(types))
        sql.append(f"d.type IN ({','.join('?' * len(wanted))})")
        args += wanted
    if kind:
        sql.append("d.kind = ?")
        args.append(kind)
    if status:
        sql.append("d.status = ?")
        args.append(status)
    return "".join(f" AND {s}" for s in sql), args


def _fuzzy_slugs(index: Index, wanted: str, where: str, args: list[object]) -> dict[int, float]:
    """Records whose slug is close to `wanted` (the query as a slug) → closeness in 0..1."""
    from rapidfuzz import fuzz, process  # here: `status` loads ranking, not the slug match

    if len(wanted) < 4 or len(wanted) > 80:
        return {}
    # ratio ≥ 80 needs the shorter string to be at least 2/3 of the longer: skip the rest in SQL.
    low, high = -(-2 * len(wanted) // 3), 3 * len(wanted) // 2
    # in path order: rapidfuzz keeps the choices' order among equal ratios at its limit
    if where:
        sql = f"SELECT d.id, d.slug FROM docs d WHERE length(d.slug) BETWEEN ? AND ?{where} ORDER BY d.path"
        rows = index.conn.execute(sql, [low, high, *args]).fetchall()
    else:  # every slug, kept while the index does not change (an MCP server asks many times)
        rows = [row for row in index.slugs() if low <= len(row[1]) <= high]
    choices = {doc_id: slug for doc_id, slug in rows}
    found = process.extract(wanted, choices, scorer=fuzz.ratio, score_cutoff=SLUG_CUTOFF, limit=20)
    return {doc_id: score / 100.0 for _, score, doc_id in found}


def rank(index: Index, query: str | Query, *, types: Iterable[str] | None = None, kind: str | None = None,
         status: str | None = None, include_replaced: bool = False, limit: int = 10,
         weights: tuple[float, float, float] = WEIGHTS, embedder: Embedder | None = None) -> list[SearchHit]:
    """The best `limit` hits for `query` (the index must be fresh; `search()` refreshes it); with an
    embedder, the lexical ranking fused with the semantic and spelling ones."""
    q = query if isinstance(query, Query) else Query.parse(query)
    if not q.groups or limit <= 0:
        return []
    if embedder is not None:
        query_vector = semantic.start_query(embedder, q.text)  # overlaps with the lexical ranking
    q, dfs = typos.correct(index.conn, q, bm25.doc_freqs(index.conn, q.groups))
    groups = q.groups
    where, args = _filters(types, kind, status)
    sql = ("SELECT d.id, d.path FROM fts JOIN docs d ON d.id = fts.rowid"
           f" WHERE fts MATCH ?{where} ORDER BY bm25(fts, ?, ?, ?), d.path LIMIT ?")
    paths = dict(_run(index, sql, [fts_query(groups), *args, *weights, max(8 * limit, _CANDIDATES)]))
    ids = list(paths)
    scores: dict[int, float] = {}
    terms: dict[int, list[str]] = {}
    if ids:
        fields = expand.candidate_fields(index.conn, ids)
        scores = bm25.score(groups, dfs, fields, weights, index.size(), index.avg_length(), q.factors)
        terms = {doc_id: s + d + b for doc_id, (s, d, b) in fields.items() if doc_id in scores}
        expand.coord(scores, terms, groups)
        expand.proximity(scores, terms, groups)
        expand.feedback(scores, terms, {t for g in groups for t in g.forms}, index.size(), paths)
        _phrases_on_top(scores, terms, q.phrases)
    top = max(scores.values(), default=1.0)
    fuzzy = _fuzzy_slugs(index, q.slug, where, args)
    for doc_id, closeness in fuzzy.items():
        scores[doc_id] = scores.get(doc_id, 0.0) + top * closeness
    keep_all = include_replaced or status == "replaced"
    meaning: list[int] = []
    if embedder is not None:
        depth = max(8 * limit, _CANDIDATES)
        try:
            meaning = semantic.ranking(index.conn, embedder.space, query_vector.result(), where, args, depth,
                                       index.vector_cache)
        except LLMError as exc:  # the query could not be embedded: lexical this time, and say so
            if index.vectors is not None:
                index.vectors.error = str(exc)
    paths.update(expand.candidate_paths(index.conn, [d for d in [*fuzzy, *meaning] if d not in paths]))
    if meaning:  # replaced decisions the query is not about go before the rankings are fused
        replaced.demote(index.conn, scores, terms, groups, paths, keep_all=keep_all)
    words = _ranked(scores, paths)
    firsts = dict.fromkeys(words[: spelling.CANDIDATES] + meaning[: spelling.CANDIDATES])
    spelled = spelling.scores(index.conn, list(firsts), q.words)
    if meaning and embedder is not None:  # three rankings fused: words, meaning, spelling
        rankings = [(1.0, words[:depth]), (1.0, meaning),
                    (spelling.FUSION_WEIGHT, _ranked(spelled, paths)[:depth])]
        scores = semantic.fuse(rankings, embedder.fusion_k)
        replaced.demote(index.conn, scores, terms, groups, paths, keep_all=True)  # still below replacements
    else:
        scores = spelling.blend(scores, spelled)
        replaced.demote(index.conn, scores, terms, groups, paths, keep_all=keep_all)
    best = _ranked(scores, paths)[:limit]
    return [_hit(index, doc_id, scores[doc_id], q) for doc_id in best]


def _ranked(scores: dict[int, float], paths: Mapping[int, str]) -> list[int]:
    """The ids of `scores`, best first; equal scores in path order."""
    return sorted(scores, key=lambda d: (-scores[d], paths[d]))


def _phrases_on_top(scores: dict[int, float], terms: dict[int, list[str]],
                    phrases: Sequence[Sequence[str]]) -> None:
    """Add the best score to each record holding a whole CJK run of the query, once per run, so
    exact phrases rank above records holding only some of its pieces (in place)."""
    if not phrases or not scores:
        return
    top = max(scores.values())
    for doc_id, words in terms.items():
        found = sum(bm25.occurrences(words, phrase) > 0 for phrase in phrases)
        if found:
            scores[doc_id] += top * found


def _run(index: Index, sql: str, args: list[object]) -> list[tuple[int, str]]:
    try:
        return index.conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # e.g. an FTS expression SQLite refuses: no text matches then
        return []


def _hit(index: Index, doc_id: int, score: float, query: Query) -> SearchHit:
    row = index.conn.execute(
        "SELECT slug, path, type, summary, body, kind, status, replaced_by, model_invocation, parse_error,"
        " anchors FROM docs JOIN texts USING (id) WHERE id = ?", (doc_id,)
    ).fetchone()
    slug, path, type_, summary, body, kind, status, replaced_by, invocation, error, anchors = row
    return SearchHit(
        slug=slug, path=path, type=type_, score=score, description=summary,
        snippet=make_snippet(body, query), kind=kind, status=status,
        replaced_by=replaced_by if status == "replaced" else None,
        model_invocation=None if invocation is None else bool(invocation), parse_error=error,
        anchors=tuple((a, s) for a, s in json.loads(anchors)) if anchors else (),
    )
