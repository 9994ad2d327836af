"""Extract records the git branch of each staging file: what the agent recorded (per entry, per
session), else git in the session's folder; none for another repository, outside git, detached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extract.helpers import make_ws, staged, write_jsonl
from support.fake_llm import Reply
from support.git import git

from memcli.extract.run import run

ITEM = {"decisions": [{"title": "Keep SQLite", "decision": "Keep the index in SQLite"}],
        "discussions": [], "attempts": [], "requests": []}


@pytest.fixture
def repo_ws(tmp_path):
    ws = make_ws(tmp_path / "proj")
    (ws.root / ".gitignore").write_text("/memory/_staging/\n/.memcli/\n")
    git(ws.root, "init", "-q", "-b", "main")
    git(ws.root, "add", "-A")
    git(ws.root, "commit", "-q", "-m", "initial")
    return ws


def _claude(path: Path, cwd: Path, branches: list[str]) -> Path:
    """A Claude Code session whose prompt/answer pairs ran on `branches`, in order."""
    rows = []
    for i, branch in enumerate(branches):
        for j, (kind, message) in enumerate([
            ("user", {"role": "user", "content": f"question {i}: how should we store the index?"}),
            ("assistant", {"id": f"m{i}", "role": "assistant", "stop_reason": "end_turn",
                           "content": [{"type": "text", "text": f"answer {i}: keep it in SQLite"}]}),
        ]):
            rows.append({"type": kind, "message": message, "uuid": f"u{i}-{j}", "sessionId": "sess-1",
                         "cwd": str(cwd), "gitBranch": branch, "timestamp": "2026-05-10T09:00:00.000Z"})
    return write_jsonl(path, rows)


def test_a_session_that_moves_to_a_new_branch_stages_each_part_on_its_branch(repo_ws, tmp_path, fake_llm):
    git(repo_ws.root, "switch", "-q", "-c", "feature")  # the agent made a branch mid-session
    git(repo_ws.root, "commit", "-q", "--allow-empty", "-m", "feature work")
    feature_tip = git(repo_ws.root, "rev-parse", "HEAD").strip()
    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEM))
    session = _claude(tmp_path / "s" / "sess-1.jsonl", repo_ws.root, ["main", "feature"])
    assert run(repo_ws, paths=[session], as_json=True) == 0
    found = {f.branch.name: f for f in staged(repo_ws)}
    assert set(found) == {"main", "feature"}  # two chunks: cut where the branch changed
    assert found["main"].source.range == (0, 1) and found["feature"].source.range == (2, 3)
    assert found["feature"].branch.commit == feature_tip
    assert found["feature"].branch.forked_at == git(repo_ws.root, "rev-parse", "main").strip()
    assert found["main"].branch.worktree == str(repo_ws.root)


def test_codex_records_the_branch_of_its_session(repo_ws, tmp_path, fake_llm):
    git(repo_ws.root, "branch", "codex-work")
    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEM))
    meta = {"id": "0199a000-0000-7000-8000-000000000001", "timestamp": "2026-05-10T09:00:00Z",
            "cwd": str(repo_ws.root), "git": {"branch": "codex-work", "commit_hash": "c0ffee"}}
    rows = [{"timestamp": "2026-05-10T09:00:00Z", "type": "session_meta", "payload": meta},
            {"timestamp": "2026-05-10T09:00:01Z", "type": "event_msg",
             "payload": {"type": "user_message", "message": "how should we store the index?"}},
            {"timestamp": "2026-05-10T09:00:02Z", "type": "response_item",
             "payload": {"type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": "keep it in SQLite"}]}}]
    name = "rollout-2026-05-10T09-00-00-0199a000-0000-7000-8000-000000000001.jsonl"
    path = write_jsonl(tmp_path / name, rows)
    assert run(repo_ws, paths=[path], as_json=True) == 0
    (item,) = staged(repo_ws)
    assert item.branch.name == "codex-work"  # recorded, though main is checked out
    assert item.branch.commit == git(repo_ws.root, "rev-parse", "codex-work").strip()


def test_an_agent_that_records_none_gets_the_branch_checked_out(repo_ws, tmp_path, fake_llm):
    git(repo_ws.root, "switch", "-q", "-c", "plain")
    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEM))
    rows = [{"role": "user", "content": "how should we store the index?", "cwd": str(repo_ws.root)},
            {"role": "assistant", "content": "keep it in SQLite"}]
    path = write_jsonl(tmp_path / "memcli.jsonl", rows)
    assert run(repo_ws, paths=[path], as_json=True) == 0
    (item,) = staged(repo_ws)
    assert item.branch.name == "plain"


@pytest.mark.parametrize("where", ["other-repo", "gone-folder-unknown-branch", "no-git"])
def test_no_branch_where_it_would_not_be_this_clones(where, tmp_path, fake_llm):
    fake_llm.responder = lambda body: Reply(content=json.dumps(ITEM))
    ws = make_ws(tmp_path / "proj")
    if where != "no-git":
        git(ws.root, "init", "-q", "-b", "main")
        git(ws.root, "commit", "-q", "--allow-empty", "-m", "initial")
    cwd = tmp_path / "elsewhere"
    if where == "other-repo":
        cwd.mkdir()
        git(cwd, "init", "-q", "-b", "theirs")
    session = _claude(tmp_path / "s" / "sess-1.jsonl", cwd, ["theirs"])
    assert run(ws, paths=[session], as_json=True) == 0
    (item,) = staged(ws)
    assert item.branch is None  # any branch, like a staging file written before branches were recorded


def test_a_staging_file_without_a_branch_still_reads():
    from memcli.staging import StagingFile

    old = {"version": 1, "id": "x", "agent": "claude-code", "source": {"session_id": "s", "range": [1, 2]},
           "model": "m", "prompt_version": "p", "created_at": "2026-01-01T00:00:00Z", "items": {}}
    assert StagingFile.model_validate_json(json.dumps(old)).branch is None
