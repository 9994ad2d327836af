"""The one query service's input checks (memcli.search.query): every caller refuses the same
queries with the same reasons, options named as the caller spells them."""

from __future__ import annotations

import pytest

from memcli.errors import UsageError
from memcli.search import query
from memcli.search.parsed import Query
from memcli.workspace import Workspace


@pytest.mark.parametrize(("text", "kwargs", "reason"), [
    ("", {}, "empty query"),
    ("   ", {}, "empty query"),
    ("!!! ???", {}, "no letters or digits"),
    ("wal", {"types": ["knowledge", "nope"]}, "--type 'nope' is not one of"),
    ("wal", {"kind": "recipe"}, "--kind 'recipe' is not one of"),
    ("wal", {"status": "done"}, "--status 'done' is not one of"),
    ("wal", {"limit": 0}, "--limit must be at least 1 (got 0)"),
    ("wal", {"limit": 51, "max_limit": 50, "flag": ""}, "limit must be between 1 and 50 (got 51)"),
    ("wal", {"types": ["nope"], "flag": ""}, "type 'nope' is not one of"),
])
def test_a_query_nobody_can_answer_is_refused_with_why(text: str, kwargs: dict, reason: str) -> None:
    with pytest.raises(UsageError) as refused:
        query.check(text, **kwargs)
    assert reason in str(refused.value)
    if kwargs.get("flag") == "":
        assert "--" not in str(refused.value)


@pytest.mark.parametrize(("text", "kwargs"), [
    ("wal", {}), ("デプロイ 手順", {}), ("wal", {"types": ["decision"], "kind": "howto", "status": "open"}),
    ("wal", {"limit": 50, "max_limit": 50}),
])
def test_answerable_queries_pass(text: str, kwargs: dict) -> None:
    query.check(text, **kwargs)


@pytest.mark.parametrize(("text", "terms", "phrases", "words", "slug"), [
    ("Use-SQLite WAL", [("use_sqlite",), ("use",), ("sqlite",), ("wal",)], (), ("use", "sqlite", "wal"),
     "use-sqlite-wal"),
    ("本番デプロイ ok", [("本番",), ("デプ",), ("プロ",), ("ロイ",), ("ok",)],
     (("本番", "番デ", "デプ", "プロ", "ロイ"),), ("ok",), "本番デプロイ-ok"),
])
def test_the_query_is_analysed_once_into_what_each_step_reads(text, terms, phrases, words, slug):
    parsed = Query.parse(text)
    assert [g.terms for g in parsed.groups] == terms
    assert parsed.factors == (1.0,) * len(terms)
    assert (parsed.phrases, parsed.words, parsed.slug, parsed.text) == (phrases, words, slug, text)


def test_check_returns_the_query_that_answer_searches(records):
    records.decision("wal-mode", "Use SQLite in WAL mode for the local index.")
    records.decision("backups", "Back up the database nightly.")
    ws = Workspace.open(records.root, search=False)
    parsed = query.check("sqlite wal")
    assert isinstance(parsed, Query)
    by_value = [h.slug for h in query.answer(ws, parsed, lexical=True).hits]
    assert by_value == [h.slug for h in query.answer(ws, "sqlite wal", lexical=True).hits] == ["wal-mode"]
