"""The optional semantic signal through litellm's embedding call, against the fake server."""

from __future__ import annotations

import json

import pytest
from support.cli import run
from support.fake_llm import bag_of_words

from memcli.search import SearchIndex, index_path
from memcli.search.semantic import Embedder
from memcli.workspace import Workspace

MODEL = "openai/fake-embed"

# The fake model "knows" that these phrasings mean the same: texts about the store of record get
# one direction, everything else its bag of words (never that direction).
SAME = ("source of truth", "canonical", "store of record")


def meaning(text: str) -> list[float]:
    vec = [0.0] + bag_of_words(text, 31)
    if any(s in text.lower() for s in SAME):
        vec[0] = 100.0
    return vec


@pytest.fixture
def ws(records, fake_llm):
    fake_llm.embedder = meaning
    records.decision("postgres-canonical", "Postgres holds the canonical order data.")
    records.decision("redis-cache", "Redis caches product pages for ten minutes.")
    records.decision("db-backups", "Back up the database every night.")
    (records.root / "memcli.toml").write_text(f'[search]\nembedding_model = "{MODEL}"\n', encoding="utf-8")
    return Workspace.open(records.root)


def embedder(**kw) -> Embedder:
    return Embedder(MODEL, **kw)


def slugs(hits) -> list[str]:
    return [h.slug for h in hits]


def test_hybrid_finds_a_record_that_shares_no_word_with_the_question(ws, fake_llm):
    query = "which store is the source of truth"
    with SearchIndex(ws.root) as index:
        assert "postgres-canonical" not in slugs(index.search(query))  # lexical: "store"? no record
        hits = index.search(query, embedder=embedder())
    assert slugs(hits)[0] == "postgres-canonical"
    assert index.vectors is not None and index.vectors.error is None


def test_vectors_are_computed_once_and_again_only_for_edited_records(ws, fake_llm, records):
    with SearchIndex(ws.root) as index:
        index.search("database", embedder=embedder())
        first = [len(r["input"]) for r in fake_llm.embedding_requests]
        assert first == [3, 1]  # the three records, then the query
        index.search("database", embedder=embedder())
        assert [len(r["input"]) for r in fake_llm.embedding_requests[2:]] == [1]  # the query only
        records.decision("redis-cache", "Redis caches product pages for an hour now.")
        index.search("database", embedder=embedder())
        assert [len(r["input"]) for r in fake_llm.embedding_requests[3:]] == [1, 1]  # one record, the query
        stored = index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert stored == 3  # the edited record's old vector is gone


def test_input_is_capped(ws, fake_llm, records):
    records.decision("long-one", "word " * 5000)
    with SearchIndex(ws.root) as index:
        index.search("word", embedder=embedder(max_chars=300))
    sent = [t for r in fake_llm.embedding_requests for t in r["input"]]
    assert sent and max(map(len, sent)) <= 300


def test_a_failing_model_leaves_the_search_lexical(ws, fake_llm):
    fake_llm.embedding_error = 500
    with SearchIndex(ws.root) as index:
        hits = index.search("database backup", embedder=embedder())
        assert slugs(hits) == ["db-backups"]
        assert index.vectors.error and "fake-embed" in index.vectors.error
        assert index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0


def test_a_query_the_model_cannot_embed_leaves_the_search_lexical_and_says_why(ws, fake_llm):
    with SearchIndex(ws.root) as index:
        index.search("database", embedder=embedder())  # every record has its vector now
        fake_llm.embedding_error = 503
        hits = index.search("which store is the source of truth", embedder=embedder())
        assert "postgres-canonical" not in slugs(hits)
        assert index.vectors.error and "fake-embed" in index.vectors.error


def sent(fake_llm) -> list[tuple[str | None, list[str]]]:
    return [(r.get("input_type"), r["input"]) for r in fake_llm.embedding_requests]


def test_queries_and_records_are_told_apart_by_input_type_when_configured(ws, fake_llm):
    with SearchIndex(ws.root) as index:
        index.search("database", embedder=embedder(query_type="query", document_type="passage"))
    (records_type, texts), (query_type, query) = sent(fake_llm)
    assert (records_type, len(texts)) == ("passage", 3)
    assert (query_type, query) == ("query", ["database"])


def test_queries_and_records_are_told_apart_by_prefix_when_configured(ws, fake_llm):
    with SearchIndex(ws.root) as index:
        index.search("database", embedder=embedder(query_prefix="query: ", document_prefix="passage: ",
                                                   max_chars=100))
    (records_type, texts), (query_type, query) = sent(fake_llm)
    assert records_type is None and query_type is None  # no input_type unless configured
    assert all(t.startswith("passage: ") for t in texts) and query == ["query: database"]


def test_another_document_prefix_or_type_is_another_set_of_vectors(ws, fake_llm):
    with SearchIndex(ws.root) as index:
        index.search("database", embedder=embedder())
        index.search("database", embedder=embedder(document_type="passage"))
        index.search("database", embedder=embedder(document_prefix="passage: "))
        index.search("database", embedder=embedder(document_type="passage"))  # kept: only the query
        spaces = {m for (m,) in index.conn.execute("SELECT DISTINCT model FROM vectors")}
    assert [len(texts) for _, texts in sent(fake_llm)] == [3, 1, 3, 1, 3, 1, 1]
    assert len(spaces) == 3


def test_config_sets_the_query_and_document_forms(records):
    (records.root / "memcli.toml").write_text(
        '[search]\nembedding_model = "openai/e5"\nembedding_query_type = "query"\n'
        'embedding_document_type = "passage"\nembedding_query_prefix = "q: "\n', encoding="utf-8")
    got = Embedder.from_config(Workspace.open(records.root).config.search)
    assert (got.query_type, got.document_type, got.query_prefix, got.document_prefix) == (
        "query", "passage", "q: ", "")


def test_filters_apply_to_the_meaning_side_too(ws, records):
    records.knowledge("orders-store", "Where orders live", "The canonical store of record for orders.")
    query = "which store is the source of truth"
    with SearchIndex(ws.root) as index:
        assert {"orders-store", "postgres-canonical"} <= set(slugs(index.search(query, embedder=embedder())))
        hits = index.search(query, types=["decision"], embedder=embedder())
        assert slugs(hits)[0] == "postgres-canonical" and "orders-store" not in slugs(hits)
        hits = index.search(query, types=["knowledge"], embedder=embedder())
    assert slugs(hits) == ["orders-store"]


def test_kept_vectors_follow_edits_made_by_another_process(ws, records, tmp_path):
    query = "which store is the source of truth"
    db = index_path(tmp_path / "state", ws.root)
    with SearchIndex(ws.root, db) as first, SearchIndex(ws.root, db) as second:
        assert slugs(first.search(query, embedder=embedder()))[0] == "postgres-canonical"
        records.decision("postgres-canonical", "Postgres holds the order data.")
        records.decision("redis-cache", "Redis is now the canonical store of the carts.")
        second.search("redis", embedder=embedder())  # refreshes and embeds both edits
        hits = first.search(query, embedder=embedder())  # nothing left for it to write itself
        assert first.vectors.embedded == 0
    assert slugs(hits)[0] == "redis-cache"


def test_time_budget_leaves_the_rest_for_later_searches(ws, fake_llm):
    with SearchIndex(ws.root) as index:
        index.search("database", embedder=embedder(batch=1, budget_s=1e-9))
        assert (index.vectors.embedded, index.vectors.missing) == (1, 2)
        index.search("database", embedder=embedder(batch=1, budget_s=60))
        assert (index.vectors.embedded, index.vectors.missing) == (2, 0)


def test_replaced_decisions_stay_below_their_replacement_in_hybrid(records, fake_llm):
    fake_llm.embedder = meaning
    records.decision("mysql-canonical", "MySQL holds the canonical order data.", status="replaced",
                     replaced_by="postgres-canonical")
    records.decision("postgres-canonical", "Postgres holds the canonical order data now.")
    with SearchIndex(records.root) as index:
        hits = index.search("canonical order data", embedder=embedder())
    assert slugs(hits) == ["postgres-canonical", "mysql-canonical"]


def test_cli_search_is_hybrid_when_configured_and_status_says_so(ws, fake_llm, capsys):
    code, out, _ = run(capsys, "status", "-w", str(ws.root))
    assert "search:             hybrid: lexical + openai/fake-embed (0 of 0 records embedded)" in out
    query = "which store is the source of truth"
    code, out, _ = run(capsys, "search", query, "--json", "-w", str(ws.root))
    assert code == 0 and json.loads(out)[0]["slug"] == "postgres-canonical"
    code, out, _ = run(capsys, "status", "-w", str(ws.root))
    assert "(3 of 3 records embedded)" in out
    calls = len(fake_llm.embedding_requests)
    code, out, _ = run(capsys, "search", query, "--json", "--lexical", "-w", str(ws.root))
    assert code == 0 and "postgres-canonical" not in out and len(fake_llm.embedding_requests) == calls


def test_cli_says_when_the_model_failed(ws, fake_llm, capsys):
    fake_llm.embedding_error = 401
    code, out, err = run(capsys, "search", "database backup", "--json", "-w", str(ws.root))
    assert code == 0 and json.loads(out)[0]["slug"] == "db-backups"
    assert err.startswith("note: lexical only this time: embedding model openai/fake-embed")
    assert err.count("\n") == 1


def test_status_without_a_model_is_lexical(records, capsys):
    records.decision("x", "Something.")
    code, out, _ = run(capsys, "status", "-w", str(records.root))
    assert "search:             lexical" in out


@pytest.mark.parametrize("module", ["numpy", "litellm"])
def test_without_the_semantic_extra_search_stays_lexical_and_says_how_to_install(
        ws, fake_llm, capsys, monkeypatch, module):
    import sys

    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    code, out, err = run(capsys, "search", "database backup", "--json", "-w", str(ws.root))
    assert code == 0 and json.loads(out)[0]["slug"] == "db-backups"
    assert f"{module} not installed" in err and 'pip install "memcli[semantic]"' in err
    assert fake_llm.embedding_requests == []
    code, out, _ = run(capsys, "status", "-w", str(ws.root))
    assert "but searches stay lexical" in out
