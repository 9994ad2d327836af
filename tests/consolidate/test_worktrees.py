"""Worktrees: one workspace per worktree, one staging pool per clone, items routed by branch — from a
real Claude Code session in a linked worktree, through extract, to a commit on that worktree's branch."""

from __future__ import annotations

import json

import pytest
from consolidate.branchkit import Filer, commit_file, records, repo, stage, staged
from support.claude_transcript import project_dir
from support.cli import run as cli
from support.fake_llm import Reply
from support.git import git

from memcli.consolidate import journal, lock
from memcli.workspace import Workspace

ITEM = {"decisions": [{"title": "Cache layer", "decision": "Put a cache in front of the API",
                       "rationale": "the API is slow"}], "discussions": [], "attempts": [], "requests": []}


@pytest.fixture
def clone(tmp_path):
    main = repo(tmp_path / "main")
    config = main / "memcli.toml"
    text = config.read_text().replace("[memory]\n", '[memory]\nextract_model = "openai/fake-model"\n')
    config.write_text(text + "\n[extract]\nidle_minutes = 0\n", encoding="utf-8")
    git(main, "commit", "-q", "-am", "extract config")
    git(main, "worktree", "add", "-q", "-b", "w1", str(tmp_path / "wt1"))
    return main, tmp_path / "wt1"


def _session(home, root, branch: str, session: str) -> None:
    """A Claude Code session that ran in `root` on `branch` (its lines say so, as Claude Code's do)."""
    folder = project_dir(home / ".claude", root)
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Should we cache the API?"}},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant", "stop_reason": "end_turn",
                                          "content": [{"type": "text", "text": "Yes: a cache in front."}]}},
    ]
    with (folder / f"{session}.jsonl").open("w", encoding="utf-8") as fh:
        for i, line in enumerate(lines):
            fh.write(json.dumps({**line, "uuid": f"u{i}", "sessionId": session, "cwd": str(root),
                                 "gitBranch": branch, "timestamp": f"2026-05-10T09:0{i}:00.000Z"}) + "\n")


def test_a_worktree_session_is_staged_for_the_clone_and_consolidated_on_its_branch(
        clone, tmp_path, fake_llm, capsys, monkeypatch):
    main, wt = clone
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    _session(home, wt, "w1", "11111111-2222-3333-4444-555555555555")
    ws_main, ws_wt = Workspace.open(main), Workspace.open(wt)
    assert ws_wt.root == wt and ws_wt.staging_dir == ws_main.staging_dir == main / "memory/_staging"

    filer = Filer()
    fake_llm.responder = lambda body: filer(body) if "tools" in body else Reply(content=json.dumps(ITEM))
    code, out, err = cli(capsys, "extract", "-w", str(wt))
    assert code == 0, out + err
    (path,) = (main / "memory/_staging").glob("*.json")
    branch = json.loads(path.read_text())["branch"]
    assert branch["name"] == "w1" and branch["worktree"] == str(wt.resolve())
    assert branch["commit"] == git(wt, "rev-parse", "HEAD").strip()
    assert not (wt / "memory/_staging").exists()  # nothing staged inside the worktree

    code, out, _ = cli(capsys, "consolidate", "-w", str(main))  # main's worktree: w1's item waits
    assert code == 0 and "1 staging files of other branches wait" in out
    assert "w1: 1 staging file wait (not merged into main)" in cli(capsys, "status", "-w", str(main))[1]

    commit_file(wt, "cache.py")  # w1 gets work of its own
    code, out, err = cli(capsys, "consolidate", "-w", str(wt))
    assert code == 0, out + err
    session = path.stem.rsplit("-", 3)[0]
    assert records(wt) == {session} and records(main) == set() and staged(main) == set()
    assert git(wt, "log", "-1", "--format=%D").startswith("HEAD -> w1")
    assert git(main, "status", "--porcelain").strip() == "" and git(wt, "status", "--porcelain").strip() == ""

    git(main, "merge", "-q", "--no-ff", "-m", "merge w1", "w1")
    assert records(main) == {session}


def test_worktrees_share_the_lock_but_not_the_apply_journal(clone):
    main, wt = clone
    ws_main, ws_wt = Workspace.open(main), Workspace.open(wt)
    held = lock.acquire(ws_main, "run-main", [])
    try:
        with pytest.raises(lock.LockHeld):
            lock.acquire(ws_wt, "run-wt", [])
    finally:
        lock.release(ws_main, held)
    assert journal.journal_path(ws_wt) == wt / "memory/_staging" / journal.JOURNAL_NAME
    assert journal.journal_path(ws_main) != journal.journal_path(ws_wt)


def test_items_staged_in_a_worktree_reach_the_main_worktree_after_the_merge(clone, fake_llm, capsys):
    main, wt = clone
    commit_file(wt, "feature.py")
    from consolidate.branchkit import recorded_branch

    stage(wt, "sess-wt", recorded_branch(wt))
    assert staged(main) == {"sess-wt"}
    fake_llm.responder = Filer()
    git(main, "merge", "-q", "--no-ff", "-m", "merge w1", "w1")
    assert cli(capsys, "consolidate", "-w", str(main))[0] == 0
    assert records(main) == {"sess-wt"} and staged(wt) == set()


def test_a_bare_clones_worktrees_share_staging_in_the_git_dir(tmp_path):
    origin = repo(tmp_path / "origin")
    git(tmp_path, "clone", "-q", "--bare", str(origin), "bare.git")
    bare = tmp_path / "bare.git"
    git(bare, "worktree", "add", "-q", str(tmp_path / "a"), "main")
    git(bare, "worktree", "add", "-q", "-b", "b", str(tmp_path / "b"))
    a, b = Workspace.open(tmp_path / "a"), Workspace.open(tmp_path / "b")
    assert a.staging_dir == b.staging_dir == bare.resolve() / "memcli" / "memory/_staging"


def test_a_session_in_a_nested_worktree_is_staged_once_for_the_clone(tmp_path, fake_llm, capsys, monkeypatch):
    """Claude Code's own worktrees sit inside the project (`.claude/worktrees/<name>`): the main
    workspace finds their sessions too, and the clone's one ledger stages each once."""
    main = repo(tmp_path / "main")
    config = main / "memcli.toml"
    text = config.read_text().replace("[memory]\n", '[memory]\nextract_model = "openai/fake-model"\n')
    config.write_text(text + "\n[extract]\nidle_minutes = 0\n", encoding="utf-8")
    (main / ".gitignore").write_text("/memory/_staging/\n/.memcli/\n/.claude/\n", encoding="utf-8")
    git(main, "commit", "-q", "-am", "config")
    nested = main / ".claude" / "worktrees" / "w2"
    git(main, "worktree", "add", "-q", "-b", "w2", str(nested))
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMCLI_STATE_DIR")  # each worktree's own state folder, as outside the tests
    _session(home, nested, "w2", "22222222-2222-3333-4444-555555555555")
    filer = Filer()
    fake_llm.responder = lambda body: filer(body) if "tools" in body else Reply(content=json.dumps(ITEM))
    assert cli(capsys, "extract", "-w", str(main))[0] == 0  # the main workspace finds the session
    assert len(list((main / "memory/_staging").glob("*.json"))) == 1
    commit_file(nested, "w2.py")
    assert cli(capsys, "consolidate", "-w", str(nested))[0] == 0  # consumed on w2
    assert staged(main) == set() and len(records(nested)) == 1
    code, out, err = cli(capsys, "extract", "-w", str(nested))  # the worktree's own workspace
    assert code == 0, out + err
    assert staged(main) == set()  # not staged a second time: the clone's one ledger knows it
    assert len([r for r in fake_llm.requests if "tools" not in r]) == 1
