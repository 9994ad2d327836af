"""Equal scores are ordered by the record's path, whatever order the store read the files in: the
row id follows the store's history (which file a refresh met first, what was deleted and written
again), so ordering by it made two identical records swap places from one store to another."""

from __future__ import annotations

import json

import pytest
from support.cli import run

from memcli.mcpserver import tools as mcp_tools
from memcli.search import SearchIndex, search
from memcli.search.semantic import Embedder
from memcli.tools.search import knowledge_search
from memcli.workspace import Workspace

BODY = "Rotate the deploy keys every quarter and revoke the old key the same day."
MODEL = "openai/fake-embed"


def twin(records, slug: str) -> None:
    records.knowledge(slug, "Deploy key rotation", BODY, kind="rule")


def every_path(ws: Workspace, capsys, query: str) -> dict[str, list[str]]:
    """The hits' paths for `query` by each way in: the library, the CLI, the MCP tool, and the
    consolidation's memory tool."""
    code, out, _ = run(capsys, "search", query, "--json", "-w", str(ws.root))
    assert code == 0
    return {"library": [h.path for h in search(ws, query)],
            "cli": [h["path"] for h in json.loads(out)],
            "mcp": [h["path"] for h in mcp_tools.search(ws, query).data["hits"]],
            "memory tool": [h["path"] for h in knowledge_search(ws, query, None, 10).data["hits"]]}


def test_identical_records_come_in_path_order_whatever_the_store_read_first(records, capsys) -> None:
    twin(records, "omega-keys")
    ws = Workspace.open(records.root)
    assert search(ws, "deploy keys")  # the store holds omega-keys first: it gets the lower row id
    twin(records, "alpha-keys")
    want = ["knowledge/alpha-keys.md", "knowledge/omega-keys.md"]
    hits = search(ws, "deploy keys")
    assert hits[0].score == hits[1].score  # a true tie
    assert every_path(ws, capsys, "deploy keys") == dict.fromkeys(
        ("library", "cli", "mcp", "memory tool"), want)
    (records.root / "knowledge" / "alpha-keys.md").unlink()
    assert search(ws, "deploy keys")
    twin(records, "alpha-keys")  # written again: a new, higher row id
    assert set(map(tuple, every_path(ws, capsys, "deploy keys").values())) == {tuple(want)}


def test_the_candidate_pool_is_cut_in_path_order(records) -> None:
    """More identical records than ranking re-scores (100): which ones make it is by path too."""
    for n in range(120, 0, -1):  # the store meets them highest path first, one refresh each
        twin(records, f"keys-{n:03d}")
        if n % 40 == 1:
            assert search(records.root, "deploy keys")
    hits = search(records.root, "deploy keys", limit=3)
    assert [h.slug for h in hits] == ["keys-001", "keys-002", "keys-003"]


@pytest.mark.parametrize("first", ["omega-keys", "alpha-keys"])
def test_hybrid_ties_come_in_path_order(records, fake_llm, first: str) -> None:
    # the twins mean the same (one vector: their text is the same), the other record less so
    fake_llm.embedder = lambda text: [0.0, 1.0, 0.0] if "cafeteria" in text else [1.0, 0.5, 0.25]
    (records.root / "memcli.toml").write_text(f'[search]\nembedding_model = "{MODEL}"\n', encoding="utf-8")
    records.knowledge("other", "Something else", "The cafeteria opens at eight.", kind="fact")
    with SearchIndex(records.root) as index:
        twin(records, first)
        index.search("deploy keys", embedder=Embedder(MODEL))
        twin(records, "omega-keys" if first == "alpha-keys" else "alpha-keys")
        hits = index.search("deploy keys", embedder=Embedder(MODEL))
    assert index.vectors is not None and index.vectors.error is None
    assert [h.slug for h in hits] == ["alpha-keys", "omega-keys", "other"]
