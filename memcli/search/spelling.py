"""Spelling: the character 4-grams of words, a second lexical signal beside the stemmed terms.

A stemmer joins only the forms it knows. A record that spells a query word another way (a longer
or shorter form: grandma / grandmother, photo / photography, postgres / PostgreSQL, auth /
authentication; a compound; a derivation Snowball leaves apart: adopt / adoption's "adopt" is
found, volunteer / volunteering's is not) still shares most of the word's character 4-grams. Each
word is padded (" auth ") and cut into 4-grams; BM25 over those grams re-scores the first-pass
candidates, like the feedback in expand.py: the counts are taken over the candidates, never the
collection, so the cost does not grow with the workspace, and a record that shares no word with
the query is never brought in.

Words are a record's own, as written: case-folded, split at `_ . / -` and camelCase humps,
stopwords dropped, not stemmed (the unstemmed words did better than the stems on LoCoMo's tuning
half). They are stored in the index (`texts.words`). CJK runs are left to the bigrams.

How the signal is used (rank.py), measured by bench/search_locomo.py (docs/notes/search-studies.md):
* lexical search adds WEIGHT × (a record's spelling score / the best one) to its word score /
  the best one;
* hybrid search fuses three rankings by reciprocal rank: words, meaning and spelling, the last
  at FUSION_WEIGHT.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Iterable

from memcli.analysis.text import STOPWORDS, nfkc, word_parts

N = 4
WEIGHT = 0.35
FUSION_WEIGHT = 0.5
CANDIDATES = 100  # the first hits of each ranking that are re-scored
_K1, _B = 1.2, 0.75


def words(text: str) -> str:
    """The space-separated words of `text` kept for spelling (stored in the index)."""
    return " ".join(folded for part in word_parts(nfkc(text)) if (folded := part.casefold()) not in STOPWORDS)


def grams(word: str) -> list[str]:
    """The character 4-grams of one word padded with spaces (a one-letter word gives one 3-gram),
    so that a record's gram count is a substring count in its space-joined words."""
    padded = f" {word} "
    return [padded[i : i + N] for i in range(max(1, len(padded) - N + 1))]


def scores(conn: sqlite3.Connection, ids: list[int], query_words: Iterable[str]) -> dict[int, float]:
    """BM25 of the 4-grams of the query's words (`words(query)`, as Query.words holds them) in each
    candidate record (those sharing none are left out); idf and average length are taken over the
    candidates.

    A gram's count in a record is a substring count in " <its words> " (C speed; a gram made of a
    whole word of one or two letters, " go ", misses the second of two such words side by side)."""
    wanted = {g for word in query_words for g in grams(word)}
    if not wanted or not ids:
        return {}
    counts: dict[int, dict[str, int]] = {}
    lengths: dict[int, int] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows = conn.execute(f"SELECT id, words FROM texts WHERE id IN ({','.join('?' * len(chunk))})", chunk)
        for doc_id, text in rows:
            padded = f" {text} "
            counts[doc_id] = {g: n for g in wanted if (n := padded.count(g))}
            lengths[doc_id] = max(1, len(text) - 2 * text.count(" "))  # Σ (letters − 1): its grams
    total = len(counts)
    avg = sum(lengths.values()) / max(total, 1)
    df = Counter(g for tf in counts.values() for g in tf)
    idf = {g: math.log(1 + (total - n + 0.5) / (n + 0.5)) for g, n in df.items()}
    out: dict[int, float] = {}
    for doc_id, tf in counts.items():
        if not tf:
            continue
        norm = _K1 * (1 - _B + _B * lengths[doc_id] / avg)
        out[doc_id] = sum(idf[g] * n * (_K1 + 1) / (n + norm) for g, n in tf.items())
    return out


def blend(lexical: dict[int, float], spelling: dict[int, float]) -> dict[int, float]:
    """Lexical search: each record's word score / the best, plus WEIGHT × its spelling score / the
    best (max-normalised: BM25 scores of terms and of grams are on different scales), so the best
    word score is 1 whether or not the query has a word to spell."""
    top_words = max(lexical.values(), default=0.0) or 1.0
    top_spelling = max(spelling.values(), default=0.0) or 1.0
    return {doc_id: score / top_words + WEIGHT * spelling.get(doc_id, 0.0) / top_spelling
            for doc_id, score in lexical.items()}
