"""Per-word typos (memcli.search.typos): a query word no record holds finds the word it misspells —
a letter swapped, added or dropped — while short words, real other words and CJK stay as typed."""

from __future__ import annotations

import pytest

from memcli.search import MARK_CLOSE, MARK_OPEN, SearchIndex, search, typos
from memcli.search.bm25 import doc_freqs
from memcli.search.parsed import Query


def slugs(hits) -> list[str]:
    return [h.slug for h in hits]


@pytest.fixture
def compaction(records):
    records.decision("nightly-jobs", "Compaction of the WAL runs nightly, after the backup.")
    records.decision("log-compression", "Log compression uses zstd at level 3.")
    records.decision("owners", "The list of owners lives in CODEOWNERS.")
    records.decision("cast", "The cast of the demo video: two developers and a cat.")
    return records


@pytest.mark.parametrize("query", [
    "compactoin",   # two letters swapped (the stemmer keeps it whole: not comparable to the stem "compact")
    "compactionn",  # a letter added
    "compacton",    # a letter dropped
    "compactoin nightly",
    "WAL compactoin",
    "lsit",  # two letters swapped in a 4-letter word (list)
])
def test_a_misspelt_word_finds_the_record(compaction, query):
    assert slugs(search(compaction.root, query))[0] == {"l": "owners"}.get(query[0], "nightly-jobs")


@pytest.mark.parametrize("query", [
    "compression",  # a real word, many edits from "compaction": only its own record
    "cost",         # one letter replaced in a 4-letter word is another word (cast), not a typo
    "lost",         # (list)
    "cta",          # 3 letters: never corrected (cat)
    "compactfoobar",  # more edits than a 13-letter word is allowed
])
def test_another_word_does_not_match_by_edit_distance(compaction, query):
    found = slugs(search(compaction.root, query))
    assert found == (["log-compression"] if query == "compression" else [])


def test_a_cjk_query_is_left_to_its_bigrams(records):
    records.decision("deploy-window", "本番デプロイは平日の午前に行う。WAL compaction は夜間。")
    records.decision("holidays", "連休中の作業は禁止。")
    with SearchIndex(records.root) as index:
        index.refresh()
        q = Query.parse("本番デブロイ compactoin")  # ブ for プ: one replaced kana, no record holds デブ
        fixed, _ = typos.correct(index.conn, q, doc_freqs(index.conn, q.groups))
        cjk = [(g, f) for g, f in zip(fixed.groups, fixed.factors, strict=True) if not g.terms[0].isascii()]
        assert [g.terms for g, _ in cjk] == [g.terms for g in q.groups if not g.terms[0].isascii()]
        assert all(f == 1.0 for _, f in cjk)  # the CJK groups as typed, at full weight
        assert ("compact",) in [g.terms for g in fixed.groups]  # the Latin word beside them is corrected
    assert slugs(search(records.root, "本番デブロイ compactoin")) == ["deploy-window"]
    assert slugs(search(records.root, "連休")) == ["holidays"]


def test_the_snippet_marks_the_word_a_typo_stands_for(compaction):
    (hit, *_) = search(compaction.root, "compactoin")
    assert f"{MARK_OPEN}Compaction{MARK_CLOSE} of the WAL" in hit.snippet


def test_a_correction_ranks_below_the_word_as_typed(records):
    records.decision("typed", "The compactoin flag is spelt that way in the legacy config.")
    records.decision("meant", "Compaction of the WAL runs nightly.")
    assert slugs(search(records.root, "compactoin")) == ["typed"]  # present: not corrected at all
    assert slugs(search(records.root, "compactionn wal")) == ["meant"]


@pytest.mark.parametrize(("word", "term", "edits"), [
    ("compactoin", "compact", 1),
    ("compactionn", "compact", 1),
    ("compacton", "compact", 1),
    ("pagniation", "pagin", 1),  # "pagination" is stored as its stem
    ("timzone", "timezon", 1),
    ("happyness", "happi", 1),
    ("ordr", "order", 1),  # a letter dropped from a 4-letter word
    ("form", "from", 1),   # two letters swapped in a 4-letter word
    ("cost", "cast", None),  # one replaced
    ("compression", "compact", None),
    ("cat", "cast", None),  # 3 letters
])
def test_distance_to_the_words_a_stem_stands_for(word, term, edits):
    assert typos.distance(word, term, word) == edits
