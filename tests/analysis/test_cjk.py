"""How a Japanese or Chinese query is cut into terms (memcli.analysis.cjk)."""

from __future__ import annotations

import pytest

from memcli.analysis.cjk import pieces
from memcli.analysis.text import Group, index_terms, query_groups, query_phrases


@pytest.mark.parametrize(("run", "expected"), [
    ("連休中に本番デプロイしてもいい", ["連休中", "本番", "デプロイ"]),
    ("データベースのバックアップ", ["データベース", "バックアップ"]),
    ("ありがとう", ["ありがとう"]),  # nothing but hiragana: kept
    ("人々の本", ["人々", "本"]),
])
def test_pieces_cut_where_the_script_changes_and_drop_kana(run, expected):
    assert pieces(run) == expected


@pytest.mark.parametrize(("query", "expected"), [
    ("連休中に本番デプロイしてもいい？", ["連休", "休中", "本番", "デプ", "プロ", "ロイ"]),
    ("差分を見せる前に", ["差分", "見せ", "前に"]),  # one kanji + its kana ending
    ("SQLiteのデータベース", ["sqlite", "デー", "ータ", "タベ", "ベー", "ース"]),
    ("我们应该", ["我们", "们应", "应该"]),  # Chinese: every bigram
])
def test_query_groups_of_sentences(query, expected):
    assert [g.terms for g in query_groups(query)] == [(t,) for t in expected]


def test_records_keep_every_bigram_and_the_whole_run_is_a_phrase():
    assert index_terms("本番デプロイ") == "本番 番デ デプ プロ ロイ"
    assert query_phrases("本番デプロイ？ ok 日本") == [["本番", "番デ", "デプ", "プロ", "ロイ"]]


def test_a_lone_kanji_is_a_prefix_group():
    assert query_groups("本") == [Group(("本",))]
