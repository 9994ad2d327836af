"""Per-word typo tolerance: a query word that no record holds is replaced by the closest index term.

`timzone handling` → `timezone handling`: each query term of a Latin word that occurs in no record
is compared (Levenshtein distance, rapidfuzz) with the index's terms that start with the same
letter and are about as long; the closest within MAX_DISTANCE (1 edit for 4–7 letters, 2 from 8,
none below 4 — a short word is one edit away from too many others), most frequent on a tie, takes
its place at TYPO_WEIGHT of a word's weight; with none that close, the most frequent term the word
begins does (a clipped word: `auth` finds "authentication", `repo` "repository"). A record matched
through a correction ranks below one that matches the words as typed. Only words absent from the
index are corrected (in every form: "went" is not corrected to "west" when records hold "go", see
text.Group), so a query never changes when its words exist; the vocabulary is read through an FTS5
`fts5vocab` table, one letter's range at a time, and only for such words.
"""

from __future__ import annotations

import sqlite3

from memcli.analysis.text import Group
from memcli.search.parsed import Query

TYPO_WEIGHT = 0.5
MAX_TERM = 64  # longest vocabulary term looked at for a word it begins


def max_distance(term: str) -> int:
    return 0 if len(term) < 4 else 1 if len(term) < 8 else 2


def _correctable(group: Group) -> bool:
    (term, *rest) = group.terms
    return not rest and term.isascii() and term.isalpha() and max_distance(term) > 0


def _vocabulary(conn: sqlite3.Connection, first: str, low: int, high: int) -> list[tuple[str, int]]:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'fts', 'row')")
    rows = conn.execute("SELECT term, doc FROM temp.vocab WHERE term >= ? AND term < ?",
                        (first, chr(ord(first) + 1))).fetchall()
    return [(term, doc) for term, doc in rows if low <= len(term) <= high]


def closest(conn: sqlite3.Connection, term: str) -> str | None:
    """The index term closest to `term` within max_distance (most frequent on a tie), else the most
    frequent index term that `term` begins (a clipped word: auth → authentication, repo →
    repository), else None."""
    from rapidfuzz.distance import Levenshtein  # here: only a query word no record has

    limit = max_distance(term)
    best: tuple[int, int, str] | None = None
    longer: tuple[int, str] | None = None
    for other, docs in _vocabulary(conn, term[0], len(term) - limit, MAX_TERM):
        if other.startswith(term) and other != term and (longer is None or (-docs, other) < longer):
            longer = (-docs, other)
        if len(other) > len(term) + limit:
            continue
        d = Levenshtein.distance(term, other, score_cutoff=limit)
        if d <= limit and other != term and (best is None or (d, -docs, other) < best):
            best = (d, -docs, other)
    if best is not None:
        return best[2]
    return None if longer is None else longer[1]


def correct(conn: sqlite3.Connection, query: Query, dfs: list[int]) -> tuple[Query, list[int]]:
    """The query with each absent word (no record holds it in any of its forms) replaced by its
    closest index term at TYPO_WEIGHT, and the groups' document frequencies; other groups keep
    their factor."""
    out_groups, factors, out_dfs = [], [], []
    for group, factor, df in zip(query.groups, query.factors, dfs, strict=True):
        fixed = closest(conn, group.terms[0]) if df == 0 and _correctable(group) else None
        if fixed is None:
            out_groups.append(group)
            factors.append(factor)
            out_dfs.append(df)
        else:
            out_groups.append(Group((fixed,)))
            factors.append(TYPO_WEIGHT)
            (n,) = conn.execute("SELECT doc FROM temp.vocab WHERE term = ?", (fixed,)).fetchone()
            out_dfs.append(n)
    if out_groups == list(query.groups):
        return query, dfs
    return query.corrected(out_groups, factors), out_dfs
