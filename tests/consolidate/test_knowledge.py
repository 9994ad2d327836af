"""New knowledge only from knowledge-candidate Sources (the prompt rules: test_prompts.py)."""

from __future__ import annotations

import json

from consolidate.helpers import dispose_call, finish_call, head, write_staging
from consolidate.test_run import done, settle
from support.fake_llm import Reply, tool_call
from support.git import git

from memcli.consolidate.run import Options, run
from memcli.workspace import Workspace


def knowledge(src: tuple[str, int, int]) -> str:
    return ("---\ncreated_at: 2026-05-20T10:00:00+00:00\nupdated_at: 2026-05-20T10:00:00+00:00\nkind: howto\n"
            "description: How to keep the SQLite WAL file small; use when the -wal file grows.\n"
            "model_invocation: false\nuser_invocable: true\n"
            f"last_sources:\n  - session_id: {src[0]}\n    range: [{src[1]}, {src[2]}]\n---\n"
            "Run `PRAGMA wal_checkpoint(TRUNCATE)` nightly.\n")


def create(src) -> Reply:
    return Reply(tool_calls=[tool_call("memory_write", {
        "path": "knowledge/sqlite-wal-checkpoints.md", "mode": "create", "content": knowledge(src),
        "reason": "recurring know-how; no existing knowledge record covers checkpoints"}, "k1")])


def test_empty_candidate_report_means_no_new_knowledge(repo_ws, fake_llm):
    before = head(repo_ws)
    fake_llm.push(create(("sess-1", 4, 9)), settle(None), done())
    assert run(Workspace.open(repo_ws), Options()) == 0
    tool_result = json.loads(fake_llm.requests[1]["messages"][-1]["content"])
    assert not tool_result["ok"] and "knowledge-not-candidate" in json.dumps(tool_result)
    assert not (repo_ws / "knowledge/sqlite-wal-checkpoints.md").exists() and head(repo_ws) == before


def test_recurring_topic_allows_new_knowledge_from_its_sources(repo_ws, fake_llm):
    (repo_ws / "memory/_staging/s1.json").unlink()
    item = {"attempts": [{"title": "SQLite checkpoint tuning", "outcome": "PRAGMA wal_checkpoint(TRUNCATE) "
                          "nightly keeps the WAL file small", "lesson": "checkpoint nightly"}]}
    for i, session in enumerate(["sa", "sb", "sc"]):
        write_staging(repo_ws, f"x{i}", session, (i, i + 5), item)
    fake_llm.push(create(("sa", 0, 5)), Reply(tool_calls=[
        dispose_call(["i1", "i2", "i3"], "integrated", ["knowledge/sqlite-wal-checkpoints.md"], "know-how"),
        finish_call()]), done())
    assert run(Workspace.open(repo_ws), Options()) == 0
    user = fake_llm.requests[0]["messages"][1]["content"]
    assert "New knowledge may derive only from the sources listed here." in user
    assert '"session_id": "sb"' in user.split("DATA — knowledge-candidate report", 1)[1]
    assert (repo_ws / "knowledge/sqlite-wal-checkpoints.md").is_file()
    assert "added knowledge/sqlite-wal-checkpoints.md" in git(repo_ws, "log", "-1", "--format=%B")
