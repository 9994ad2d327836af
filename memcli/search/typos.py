"""Per-word typo tolerance: a query word that no record holds is replaced by the closest index term.

`timzone handling` → `timezone handling`, `compactoin` / `compactionn` / `compacton` →
"compaction": each query word of Latin letters that occurs in no record (in none of its forms) is
compared, as typed, with the words records hold, by optimal string alignment (Levenshtein plus a
swap of two neighbouring letters as one edit: rapidfuzz.distance.OSA). The closest within
max_distance — none below 4 letters; 4 letters: one letter dropped, added or swapped, not
replaced (a 4-letter word one letter off is most often another word: cost / cast, line / link);
1 edit for 5–7 letters, 2 from 8 — most frequent on a tie, takes its place at TYPO_WEIGHT of a
word's weight; with none that close, the most frequent term the word begins does (a clipped word:
`auth` finds "authentication", `repo` "repository"). A record matched through a correction ranks
below one that matches the words as typed. Only words absent from the index are corrected (in
every form: "went" is not corrected to "west" when records hold "go", see text.Group), so a query
never changes when its words exist. CJK groups are never corrected: their bigrams already match
any record sharing part of the word.

The index holds stems ("compaction" is stored as "compact"), and a stemmer treats a misspelt word
differently from the word ("compactoin" stays as it is), so typed word and stem are not
comparable. The words a stem stands for are rebuilt instead (distances: the stem with an ending
the English stemmer strips) and each one counts only when it stems back to that term. The
vocabulary is read through an FTS5 `fts5vocab` table, one letter's range at a time (terms starting
with the typed word's first letter), and only for such words.
"""

from __future__ import annotations

import sqlite3

from memcli.analysis.text import Group, stem
from memcli.search.parsed import Query

TYPO_WEIGHT = 0.5
MAX_TERM = 64  # longest vocabulary term looked at for a word it begins
# Endings Snowball's English stemmer takes off (whole, as a surface word ends): a stem plus one of
# them is a word the stem may stand for, checked by stemming it back.
ENDINGS = tuple("""e s es ed ing ings er ers est ly y ies ied ion ions ation ations ational ition
    itions ment ments ement al ally ance ence ency ancy ant ent ents ness ful ism ist ists ity ities
    ive ize ized izes izing ization ise ised able ible ous ic ical ate ated ates ating less""".split())
_LONGEST_ENDING = max(map(len, ENDINGS))
_ENDINGS = ("", *ENDINGS)


def max_distance(word: str) -> int:
    """Edits forgiven in a word of this length (a 4-letter word: not a replaced letter, _replaced_letter)."""
    return 0 if len(word) < 4 else 1 if len(word) < 8 else 2


def _replaced_letter(word: str, other: str) -> bool:
    """A 4-letter word and another that differ by one replaced letter (cost / cast): not a typo."""
    return len(word) == 4 == len(other) and sum(a != b for a, b in zip(word, other, strict=True)) == 1


def _correctable(group: Group) -> bool:
    word = group.word or group.terms[0]
    return len(group.terms) == 1 and word.isascii() and word.isalpha() and max_distance(word) > 0


def _vocabulary(conn: sqlite3.Connection, first: str) -> list[tuple[str, int]]:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'fts', 'row')")
    return conn.execute("SELECT term, doc FROM temp.vocab WHERE term >= ? AND term < ?",
                        (first, chr(ord(first) + 1))).fetchall()


def _within(query: str, choices: tuple[str, ...] | list[str], limit: int) -> list[tuple[int, int]]:
    """(index, edits) of each choice within `limit` edits of `query` (rapidfuzz, in C)."""
    # here: only a query word no record has loads rapidfuzz
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    if limit < 0:
        return []
    found = process.extract(query, choices, scorer=OSA.distance, score_cutoff=limit, limit=None)
    return [(i, int(d)) for _, d, i in found]


def _heads(head: str) -> list[tuple[str, str]]:
    """What a stem looks like when `head` (a beginning of the typed word) is the word but its
    ending, and how the word's base is rebuilt from that stem: as it is; with a final consonant
    that the word doubled (runn- → run: "double"); with the final y the stemmer turned into i
    (happy → happi: "y"); with the e it put back (hop- of hoping → hope: "e")."""
    out = [(head, ""), (head + "e", "e")]
    if len(head) >= 2 and head[-1] == head[-2]:
        out.append((head[:-1], "double"))
    if head.endswith("y"):
        out.append((head[:-1] + "i", "y"))
    return out


def _rebuilt(term: str, how: str) -> str:
    if how == "double":
        return term + term[-1]
    if how == "y":
        return term[:-1] + "y"
    return term[:-1] if how == "e" else term


def _splits(word: str, k: int) -> list[tuple[str, str, int]]:
    """(beginning, end, edits spent) of `word` cut at k: as typed, and with the two letters
    either side of the cut swapped back (walikng → walk + ing, one edit)."""
    out = [(word[:k], word[k:], 0)]
    if 0 < k < len(word) and word[k - 1] != word[k]:
        swapped = word[: k - 1] + word[k] + word[k - 1] + word[k + 1 :]
        out.append((swapped[:k], swapped[k:], 1))
    return out


def distances(word: str, typed_term: str, terms: list[str]) -> dict[str, int]:
    """Each of the index `terms` that stands for a word within max_distance(word) of `word` (as
    typed; `typed_term` its own term) → those edits.

    The word is cut in two at every place where its end is close to an ending the stemmer strips
    (ENDINGS, or none); the terms close to its beginning, found in one pass in C, are the stems of
    the words meant, which are rebuilt (stem + ending) and measured whole: a rebuilt word counts
    only when it stems back to its term. The word's own term is also compared with the terms (a
    typo the stemmer treated as the word: timzone → timzon)."""
    from rapidfuzz.distance import OSA  # here: only a query word no record has

    limit = max_distance(word)
    if not limit:
        return {}
    low, high = len(word) - limit - _LONGEST_ENDING - 1, len(word) + limit + 1
    terms = [t for t in dict.fromkeys(terms) if low <= len(t) <= high]
    best: dict[str, int] = {}
    for i, d in _within(typed_term, terms, limit):
        if not _replaced_letter(typed_term, terms[i]):
            best[terms[i]] = d
    for k in range(max(1, len(word) - limit - _LONGEST_ENDING), len(word) + 1):
        for beginning, end, spent in _splits(word, k):
            endings = _within(end, _ENDINGS, limit - spent)
            if not endings:
                continue
            budget = limit - spent - min(d for _, d in endings)
            for head, how in _heads(beginning):
                for i, d_head in _within(head, terms, budget):
                    term = terms[i]
                    for j, d_end in endings:
                        if spent + d_head + d_end > limit:
                            continue
                        s = _rebuilt(term, how) + _ENDINGS[j]
                        d = OSA.distance(word, s, score_cutoff=limit)
                        if (d < best.get(term, limit + 1) and not _replaced_letter(word, s)
                                and (s == term or stem(s) == term)):
                            best[term] = d
    return best


def distance(word: str, term: str, typed_term: str) -> int | None:
    """Edits between `word` (as typed; `typed_term` its own term) and the closest word that index
    term `term` stands for, when within max_distance(word); else None."""
    return distances(word, typed_term, [term]).get(term)


def closest(conn: sqlite3.Connection, word: str, term: str | None = None) -> str | None:
    """The index term standing for the word closest to `word` (as typed, case-folded; `term` its
    own term) within max_distance (most frequent on a tie), else the most frequent index term that
    `term` begins (a clipped word: auth → authentication, repo → repository), else None."""
    term = term or stem(word)
    vocabulary = [(other, docs) for other, docs in _vocabulary(conn, word[0]) if other != term]
    docs = dict(vocabulary)
    near = distances(word, term, list(docs))
    if near:
        return min(near, key=lambda other: (near[other], -docs[other], other))
    longer = [(-n, other) for other, n in vocabulary if other.startswith(term) and len(other) <= MAX_TERM]
    return min(longer)[1] if longer else None


def correct(conn: sqlite3.Connection, query: Query, dfs: list[int]) -> tuple[Query, list[int]]:
    """The query with each absent word (no record holds it in any of its forms) replaced by its
    closest index term at TYPO_WEIGHT, and the groups' document frequencies; other groups keep
    their factor."""
    out_groups, factors, out_dfs = [], [], []
    for group, factor, df in zip(query.groups, query.factors, dfs, strict=True):
        fixed = None
        if df == 0 and _correctable(group):
            fixed = closest(conn, group.word or group.terms[0], group.terms[0])
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
