"""memory_search / knowledge_search through the tool session (the real search library)."""

from __future__ import annotations

import json

from tools.helpers import RUN_SRC, record, unfence

from memcli.tools import ToolSession


def test_knowledge_search_gives_what_the_model_needs_to_pick_a_record(session: ToolSession) -> None:
    out = json.loads(session.dispatch("knowledge_search", {"query": "backup"}))
    assert out["ok"] is True
    label, lines = unfence(out["hits"])  # descriptions and snippets are record text: fenced data
    hits = [json.loads(line) for line in lines.splitlines()]
    top = hits[0]
    assert top["slug"] == "sqlite-backup" and top["path"] == "knowledge/sqlite-backup.md"
    assert top["kind"] == "howto" and top["model_invocation"] is True
    assert top["description"].startswith("How to take a consistent backup")
    assert "«backup»" in top["snippet"]
    assert all(h["path"].startswith("knowledge/") for h in hits)


def test_knowledge_search_filters_by_kind(session: ToolSession) -> None:
    out = session.search_knowledge("sqlite wal backup", kind="term")
    assert [h["slug"] for h in out.data["hits"]] == ["wal-mode"]


def test_memory_search_leaves_knowledge_out_and_ranks_replaced_decisions_below(session: ToolSession) -> None:
    out = session.search_memory("reminder e-mails job runner")
    hits = out.data["hits"]
    paths = [h["path"] for h in hits]
    assert paths[:2] == ["memory/decisions/background-jobs-in-thread.md",
                         "memory/decisions/sync-job-runner.md"]
    assert (hits[1]["status"], hits[1]["replaced_by"]) == ("replaced", "background-jobs-in-thread")
    assert "replaced_by" not in hits[0]
    assert not any(p.startswith("knowledge/") for p in paths)
    off_subject = session.search_memory("SMTP queue thread background")
    assert "memory/decisions/sync-job-runner.md" not in [h["path"] for h in off_subject.data["hits"]]
    with_replaced = session.search_memory("SMTP queue thread background", include_replaced=True)
    assert "memory/decisions/sync-job-runner.md" in [h["path"] for h in with_replaced.data["hits"]]


def test_memory_search_types_filter(session: ToolSession) -> None:
    out = session.search_memory("pytest e2e", types=["request"])
    assert out.data["hits"][0]["slug"] == "keep-e2e-opt-in"
    assert {h["type"] for h in out.data["hits"]} == {"request"}
    assert "status" not in out.data["hits"][0]


def test_search_sees_what_the_session_just_wrote_in_japanese(session: ToolSession) -> None:
    assert session.write(
        "memory/requests/yakan-batch.md",
        record("request", "夜間バッチは土曜日に止めること。\n", [RUN_SRC]),
        "create",
        "r",
    ).ok
    out = session.search_memory("夜間バッチ 土曜日", types=["request"])
    assert out.data["hits"][0]["path"] == "memory/requests/yakan-batch.md"
    session.delete("memory/requests/yakan-batch.md", "r")
    again = session.search_memory("夜間バッチ 土曜日", types=["request"])
    assert "memory/requests/yakan-batch.md" not in [h["path"] for h in again.data["hits"]]


def test_blank_query_is_an_argument_error(session: ToolSession) -> None:
    out = json.loads(session.dispatch("knowledge_search", {"query": "   "}))
    assert out["error"] == "arguments"


def test_no_hits_says_so(session: ToolSession) -> None:
    out = session.search_knowledge("kubernetes helm chart")
    assert out.ok and out.data["hits"] == []
    assert "no existing knowledge record" in out.message
