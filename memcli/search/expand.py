"""Re-scoring of the first-pass candidates: the coord factor and pseudo-relevance feedback.

Both work on the candidates' stored terms (read once), never on the whole collection, so they cost
the same in a 100- and a 10 000-record workspace.

* Coord: BM25 lets one rare word outweigh several common ones; for memory questions a record that
  matches more of the query's words is more often the answer (Lucene's old "coord" factor).
* Proximity: a record where two consecutive query words also stand next to each other ("homeless
  shelter", "video games", "write-ahead log") is more likely about that thing than one that uses
  the two words apart (the ordered-window part of the sequential dependence model).
* Feedback (RM3-style): a record rarely repeats the question's words (the question says "research",
  the record "looked into adoption agencies"). The first hits are usually on topic, so their most
  distinctive terms (tf × idf, each hit's terms counted in proportion to its score, as RM3 weights
  its feedback documents by their query likelihood) score the candidates a second time at a lower
  weight. It only reorders: a record that shares no word with the query is never brought in.
Measured on LoCoMo by bench/search_locomo.py (see docs/notes/search-studies.md).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.analysis.text import Group

COORD = 0.5
PROXIMITY = 0.3
FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 12
FEEDBACK_WEIGHT = 0.2
# Below this many records the first hits are most of the collection: their terms say nothing.
MIN_RECORDS = 50
_K1, _B = 1.2, 0.75


Fields = tuple[list[str], list[str], list[str]]  # slug, description, body terms


def candidate_fields(conn: sqlite3.Connection, ids: list[int]) -> dict[int, Fields]:
    """The indexed terms of each candidate, per column (slug, description, body)."""
    out: dict[int, Fields] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        sql = f"SELECT rowid, slug, description, body FROM fts WHERE rowid IN ({','.join('?' * len(chunk))})"
        rows = conn.execute(sql, chunk)
        out.update((doc_id, (s.split(), d.split(), b.split())) for doc_id, s, d, b in rows)
    return out


def candidate_paths(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """The path of each candidate: what orders equal scores (memcli.search.rank)."""
    out: dict[int, str] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        out.update(conn.execute(f"SELECT id, path FROM docs WHERE id IN ({marks})", chunk))
    return out


def candidate_terms(conn: sqlite3.Connection, ids: list[int]) -> dict[int, list[str]]:
    """The indexed terms (all columns, in order) of each candidate."""
    return {doc_id: s + d + b for doc_id, (s, d, b) in candidate_fields(conn, ids).items()}


def coord(scores: dict[int, float], terms: dict[int, list[str]], groups: Sequence[Group]) -> None:
    """Scale each score by (share of query groups the record contains, in any of their forms) ** COORD,
    in place."""
    if len(groups) < 2 or COORD == 0:
        return
    for doc_id, words in terms.items():
        present = set(words)
        matched = sum(g.held(present) for g in groups)
        scores[doc_id] *= (max(matched, 1) / len(groups)) ** COORD


def proximity(scores: dict[int, float], terms: dict[int, list[str]], groups: Sequence[Group]) -> None:
    """Scale each score by 1 + PROXIMITY × (share of consecutive query word pairs found adjacent), in place.

    Stopwords are not indexed, so "trip with her family" has "trip family" adjacent: a pair is the
    query's consecutive single-term groups (CJK runs already match as phrases), each in any of its
    forms ("went home" for "go home").
    """
    words = [g.forms for g in groups if len(g.terms) == 1]
    pairs = [(a, b) for a, b in pairwise(range(len(words))) if words[a][0] != words[b][0]]
    if not pairs or PROXIMITY == 0:
        return
    where: dict[str, set[int]] = {}
    for i, forms in enumerate(words):
        for t in forms:
            where.setdefault(t, set()).add(i)
    for doc_id, seq in terms.items():
        found = set()
        for x, y in pairwise(seq):
            for i in where.get(x, ()):
                for j in where.get(y, ()):
                    found.add((min(i, j), max(i, j)))
        matched = sum(pair in found for pair in pairs)
        if matched:
            scores[doc_id] *= 1 + PROXIMITY * matched / len(pairs)


def feedback_terms(first_docs: list[list[str]], candidates: dict[int, list[str]], exclude: set[str],
                   shares: list[float] | None = None) -> dict[str, float]:
    """The FEEDBACK_TERMS most distinctive terms of the first hits (tf × idf) → their idf; `shares`
    weighs each hit's term counts (its score against the first hit's; all 1 by default).

    The idf is taken over the candidates, not the collection: feedback only reorders candidates,
    so a term is worth as much as it tells them apart, and the counts cost no extra reads (the
    collection-wide document frequency of common words is what made FTS5's vocabulary table slow).
    """
    tf: dict[str, float] = {}  # weighed counts: a Counter holds ints
    for words, share in zip(first_docs, shares or [1.0] * len(first_docs), strict=True):
        for t in words:
            if t not in exclude and len(t) > 1:
                tf[t] = tf.get(t, 0.0) + share
    if not tf:
        return {}
    df: Counter[str] = Counter(t for words in candidates.values() for t in set(words) if t in tf)
    n = len(candidates)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in tf if df[t] < n}
    best = sorted(idf, key=lambda t: (-tf[t] * idf[t], t))[:FEEDBACK_TERMS]
    return {t: idf[t] for t in best}


def feedback(scores: dict[int, float], terms: dict[int, list[str]], exclude: set[str], total: int,
             paths: Mapping[int, str]) -> None:
    """Add FEEDBACK_WEIGHT × BM25 of the first hits' best terms to every candidate, in place (the
    first hits: equal scores in the order of their `paths`)."""
    if FEEDBACK_WEIGHT == 0 or total < MIN_RECORDS or len(scores) <= FEEDBACK_DOCS:
        return
    firsts = sorted(scores, key=lambda d: (-scores[d], paths[d]))[:FEEDBACK_DOCS]
    shares = [scores[d] / scores[firsts[0]] for d in firsts]
    chosen = feedback_terms([terms.get(d, []) for d in firsts], terms, exclude, shares)
    if not chosen:
        return
    avg = sum(len(w) for w in terms.values()) / max(len(terms), 1) or 1.0
    for doc_id, words in terms.items():
        counts = Counter(words)
        norm = _K1 * (1 - _B + _B * len(words) / avg)
        gain = sum(idf * counts[t] * (_K1 + 1) / (counts[t] + norm) for t, idf in chosen.items() if counts[t])
        scores[doc_id] += FEEDBACK_WEIGHT * gain
