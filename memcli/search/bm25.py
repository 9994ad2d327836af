"""BM25 of the first-pass candidates, computed here rather than by FTS5's bm25().

FTS5's bm25() fixes k1 = 1.2, b = 0.75 and gives a word found in more than half of the records an
idf of ~0. Memory records are short (a sentence to a few paragraphs), so length differences say
little about relevance and one mention is already the whole story: a low k1 (tf saturates at once)
and a low b (little length normalisation) suit them, and a word common to most records (a project
or person's name) should still count a little (Lucene's idf, log(1 + (N - n + .5) / (n + .5))).

The formula is FTS5's otherwise (BM25F-like): per query group, tf = Σ column weight × occurrences
in the column, normalised by the whole record's length against the collection's average. FTS5 still
picks the candidates; only their order comes from here. Document frequencies are one FTS5 count per
query group, the average length one aggregate over `docs` — both independent of the candidates.

A group's alternatives (other forms of a word, text.Group) stand for the same word at a lower
weight: a record's score for the group is its BM25 for the word as written or, when it holds none,
ALT_WEIGHT × its BM25 for the other forms, both with the idf of records holding any form. BM25's
tf saturates at (k1 + 1), so a record holding the word as written ranks above one holding only
other forms, however often and in whichever column (unless it is several times longer).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

from memcli.analysis.text import Group, fts_query, is_prefix
from memcli.search.expand import Fields

K1 = 0.5
B = 0.3
ALT_WEIGHT = 0.5


def occurrences(words: list[str], terms: Sequence[str]) -> int:
    """How often `terms` (one term, a CJK bigram phrase, or a single CJK character) occur in `words`."""
    if is_prefix(terms):
        return sum(w.startswith(terms[0]) for w in words)
    if len(terms) == 1:
        return words.count(terms[0])
    n, phrase = len(terms), list(terms)
    return sum(words[i : i + n] == phrase for i in range(len(words) - n + 1))


def doc_freqs(conn: sqlite3.Connection, groups: Sequence[Group]) -> list[int]:
    """How many records of the whole index (not only the filtered candidates) hold each group (any
    of its forms)."""
    sql = "SELECT count(*) FROM fts WHERE fts MATCH ?"
    out = []
    for group in groups:
        try:
            (n,) = conn.execute(sql, (fts_query([group]),)).fetchone()
        except sqlite3.OperationalError:  # as in rank._run: an expression SQLite refuses matches nothing
            n = 0
        out.append(n)
    return out


def idf(dfs: list[int], total: int) -> list[float]:
    """Lucene's idf of each group from its document frequency."""
    return [math.log(1 + (total - n + 0.5) / (n + 0.5)) for n in dfs]


def _frequency(columns: Fields, weights: tuple[float, float, float], terms: Sequence[str]) -> float:
    return sum(w * occurrences(col, terms) for w, col in zip(weights, columns, strict=True) if col)


def score(groups: Sequence[Group], dfs: list[int], fields: dict[int, Fields],
          weights: tuple[float, float, float], total: int, avg_length: float,
          factors: Sequence[float] | None = None) -> dict[int, float]:
    """BM25 of each candidate for `groups` (each group's idf times its factor, 1 by default; a group
    found only in other forms at ALT_WEIGHT); candidates that match no group are left out."""
    idfs = [w * f for w, f in zip(idf(dfs, total), factors or [1.0] * len(groups), strict=True)]
    avg = avg_length or 1.0
    out: dict[int, float] = {}
    for doc_id, columns in fields.items():
        norm = K1 * (1 - B + B * sum(map(len, columns)) / avg)
        s = 0.0
        for group, weight in zip(groups, idfs, strict=True):
            tf = _frequency(columns, weights, group.terms)
            if not tf and group.alternatives:
                tf = sum(_frequency(columns, weights, (t,)) for t in group.alternatives)
                weight *= ALT_WEIGHT
            if tf:
                s += weight * tf * (K1 + 1) / (tf + norm)
        if s > 0:
            out[doc_id] = s
    return out
