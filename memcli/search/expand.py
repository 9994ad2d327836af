"""Pseudo-relevance feedback: widen a query with the distinctive terms of its best first hits.

A memory record rarely repeats the question's words (the question says "research", the record
"looked into adoption agencies"). The top few hits of the plain query usually are on topic, so
their rarest frequent terms (tf × idf) are run as a second, down-weighted query whose scores are
added to the first query's hits (RM3-style, but it only reorders: a record that shares no word with
the query is never brought in). On LoCoMo (bench/search_locomo.py) it adds ~0.3 / 0.2 / 1.2 points
of recall@5/10/25.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter

FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 8
FEEDBACK_WEIGHT = 0.3
# Below this many records the first hits are most of the collection: their terms say nothing.
MIN_RECORDS = 50


def _vocab(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_vocab USING fts5vocab(main, fts, row)")


def feedback_terms(conn: sqlite3.Connection, doc_ids: list[int], exclude: set[str],
                   n_terms: int | None = None) -> list[str]:
    """The `n_terms` best expansion terms from the documents `doc_ids` (not in `exclude`)."""
    if not doc_ids:
        return []
    marks = ",".join("?" * len(doc_ids))
    tf: Counter[str] = Counter()
    for row in conn.execute(f"SELECT slug, description, body FROM fts WHERE rowid IN ({marks})", doc_ids):
        for column in row:
            tf.update(t for t in (column or "").split() if t not in exclude and len(t) > 1)
    if not tf:
        return []
    _vocab(conn)
    total = conn.execute("SELECT count(*) FROM docs").fetchone()[0] or 1
    terms = list(tf)
    df: dict[str, int] = {}
    for i in range(0, len(terms), 500):
        chunk = terms[i : i + 500]
        sql = f"SELECT term, doc FROM temp.fts_vocab WHERE term IN ({','.join('?' * len(chunk))})"
        df.update(conn.execute(sql, chunk).fetchall())
    weight = {t: tf[t] * math.log(1 + total / df.get(t, 1)) for t in terms if df.get(t, 0) < total}
    return sorted(weight, key=lambda t: (-weight[t], t))[: n_terms or FEEDBACK_TERMS]
