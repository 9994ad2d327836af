"""The spelling signal: character 4-grams of the words re-score the candidates."""

from __future__ import annotations

import pytest

from memcli.search import SearchIndex, search, spelling
from memcli.search.parsed import Query
from memcli.search.semantic import fuse


def slugs(hits) -> list[str]:
    return [h.slug for h in hits]


@pytest.mark.parametrize(("text", "words"), [
    ("Use the maxRetries setting of os.path", "use max retries setting os path"),
    ("--include-replaced v1.2", "include replaced v1 2"),
    ("ＡＰＩ keys", "api keys"),  # full-width Latin is NFKC-folded
    ("連休中のデプロイ is blocked", "blocked"),  # CJK runs are the bigrams' business
])
def test_words_are_the_records_own_case_folded_without_stopwords(text, words):
    assert spelling.words(text) == words


def test_grams_are_padded_4_grams():
    assert spelling.grams("auth") == [" aut", "auth", "uth "]
    assert spelling.grams("go") == [" go "]
    assert spelling.grams("a") == [" a "]


def test_a_longer_spelling_of_a_query_word_ranks_its_record_first(records, monkeypatch):
    records.request("coworker-gift", "Birthday gift for a coworker.")
    records.request("scarf-gift",
                    "Bought a birthday gift for her grandmother: the scarf she had wanted for years.")
    assert slugs(search(records.root, "grandma birthday gift"))[0] == "scarf-gift"
    monkeypatch.setattr(spelling, "WEIGHT", 0.0)  # the words alone prefer the shorter record
    assert slugs(search(records.root, "grandma birthday gift"))[0] == "coworker-gift"


def test_spelling_never_brings_in_a_record_that_shares_no_word(records):
    records.decision("family-visits", "She visits her grandmother every weekend.")
    records.decision("redis-cache", "Redis caches sessions.")
    assert slugs(search(records.root, "redis grandma")) == ["redis-cache"]


def test_an_exact_code_word_stays_above_a_longer_word_that_contains_it(records):
    records.knowledge("log-levels", "Log levels", "info is the default level; debug is for local runs.")
    records.knowledge("contacts", "Contact information", "The level of information kept about each contact.")
    assert slugs(search(records.root, "info level"))[0] == "log-levels"


def test_scores_count_only_the_candidates(records):
    records.request("a", "Deploy the photography site.")
    records.request("b", "Deploy the docs.")
    with SearchIndex(records.root) as index:
        index.refresh()
        ids = dict(index.conn.execute("SELECT slug, id FROM docs"))
        scores = spelling.scores(index.conn, [ids["a"], ids["b"]], ("photo", "deploy"))
        assert scores[ids["a"]] > scores[ids["b"]] > 0
        assert spelling.scores(index.conn, [ids["b"]], ("photo",)) == {}
        # no Latin word: no signal
        assert spelling.scores(index.conn, [ids["a"]], Query.parse("連休").words) == {}


def test_fusion_weighs_each_ranking():
    fused = fuse([(1.0, [1, 2]), (1.0, [2, 3]), (0.5, [3])], k=2)
    assert fused == pytest.approx({1: 1 / 3, 2: 1 / 4 + 1 / 3, 3: 1 / 4 + 0.5 / 3})


@pytest.mark.parametrize(("query", "found"), [("auth", "login-tokens"), ("repo", "monorepo")])
def test_a_clipped_word_no_record_holds_finds_the_longer_word(records, query, found):
    records.decision("login-tokens", "Authentication tokens expire after one hour.")
    records.decision("monorepo", "The repository keeps one folder per service.")
    records.decision("layout-grid", "The page layout uses a twelve-column grid.")
    records.decision("token-bucket", "Rate limits use a token bucket per client.")
    assert slugs(search(records.root, query))[0] == found
