"""The apply step: all files or none, one commit, staging removed only after it; crash recovery."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from consolidate.helpers import head, init_repo, make_unwritable, snapshot, write_staging
from support.git import git

from memcli.consolidate import gitops, journal
from memcli.consolidate.scratch import FileChange
from memcli.errors import MemcliError
from memcli.workspace import Workspace

DEC = "memory/decisions/use-sqlite-wal.md"
NEW = "memory/requests/new-request.md"


@pytest.fixture
def repo_ws(example_ws):
    init_repo(example_ws)
    write_staging(example_ws, "s1", "sess", (0, 3), {})
    return Workspace.open(example_ws)


def _changes(ws):
    old = ws.abspath(DEC).read_bytes()
    return [
        FileChange(DEC, old, old.replace(b"Use SQLite", b"Use SQLite (edited)")),
        FileChange(NEW, None, b"new request body\n"),
        FileChange("knowledge/wal-mode.md", ws.abspath("knowledge/wal-mode.md").read_bytes(), None),
    ]


def test_apply_commits_once_and_removes_consumed_staging(repo_ws):
    ws = repo_ws
    before_head = head(ws.root)
    files = _changes(ws)
    repo = gitops.open_repo(ws)
    out = journal.apply(ws, files, run_id="r1", consumed=["s1"], repo=repo, message="m\n\nMemcli-Run: r1\n")
    assert out.sha == head(ws.root) != before_head
    assert git(ws.root, "rev-list", "--count", f"{before_head}..HEAD").strip() == "1"
    assert ws.abspath(NEW).read_bytes() == b"new request body\n"
    assert not ws.abspath("knowledge/wal-mode.md").exists()
    assert not (ws.staging_dir / "s1.json").exists()
    assert not journal.journal_path(ws).exists()
    assert git(ws.root, "status", "--porcelain").strip() == ""


def test_rejecting_pre_commit_hook_rolls_everything_back(repo_ws):
    ws = repo_ws
    hook = ws.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'policy: no memory commits today' >&2\nexit 1\n")
    hook.chmod(0o755)
    before, before_head = snapshot(ws.root), head(ws.root)
    with pytest.raises(journal.ApplyFailed, match="no memory commits today") as err:
        journal.apply(ws, _changes(ws), run_id="r1", consumed=["s1"], repo=gitops.open_repo(ws), message="m")
    assert "put back" in str(err.value)
    assert snapshot(ws.root) == before and head(ws.root) == before_head
    assert git(ws.root, "status", "--porcelain").strip() == ""


def test_write_failure_mid_apply_restores_files(repo_ws):
    ws = repo_ws
    undo = make_unwritable(ws.abspath("memory/requests"))
    if undo is None:
        pytest.skip("cannot make a folder unwritable here")
    try:
        before, before_head = snapshot(ws.root), head(ws.root)
        with pytest.raises(journal.ApplyFailed, match="cannot write memory/requests/new-request.md"):
            repo = gitops.open_repo(ws)
            journal.apply(ws, _changes(ws), run_id="r1", consumed=["s1"], repo=repo, message="m")
    finally:
        undo()
    assert snapshot(ws.root) == before and head(ws.root) == before_head


def _fake_crash_journal(ws, phase="applying", commit=True):
    """What a process killed in the middle of apply leaves: the journal, and the first file written."""
    files = _changes(ws)
    data = {
        "run_id": "dead", "pid": 999_999_999, "host": socket.gethostname(), "phase": phase,
        "commit": commit,
        "consumed": ["s1"],
        "files": [
            {"path": c.path, "old": c.old and base64.b64encode(c.old).decode(),
             "new": c.new and base64.b64encode(c.new).decode()}
            for c in files
        ],
    }
    journal.journal_path(ws).write_text(json.dumps(data))
    return files


def _killed_write(ws, path):
    """The temp file a write of `path` killed before its rename leaves (as memcli.atomicio makes it)."""
    target = ws.abspath(path)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.write(fd, b"half of it")
    os.close(fd)
    return Path(name)


def test_recover_rolls_back_half_applied_run(repo_ws):
    ws = repo_ws
    mine = ws.abspath("memory/decisions/.notes.tmp")  # a hidden file of the user's: not memcli's
    mine.write_text("mine\n")
    before, before_head = snapshot(ws.root), head(ws.root)
    files = _fake_crash_journal(ws)
    ws.abspath(DEC).write_bytes(files[0].new)  # killed after the first write,
    left = _killed_write(ws, NEW)  # and in the middle of the second
    message = journal.recover(ws)
    assert "rolled back" in message
    assert snapshot(ws.root) == before and head(ws.root) == before_head
    assert not left.exists() and mine.read_text() == "mine\n"
    assert sorted(p.name for p in left.parent.iterdir() if p.name.startswith(".")) == []
    assert journal.recover(ws) is None


def test_recover_completes_run_whose_commit_exists(repo_ws):
    ws = repo_ws
    files = _fake_crash_journal(ws)
    for c in files:
        p = ws.abspath(c.path)
        p.unlink() if c.new is None else p.write_bytes(c.new)
    git(ws.root, "add", "-A", "memory", "knowledge")
    git(ws.root, "commit", "-q", "-m", "consolidate\n\nMemcli-Run: dead")
    left = _killed_write(ws, DEC)  # a write killed after its file was in place (the next one's)
    message = journal.recover(ws)
    assert "completed" in message and not left.exists()
    assert not (ws.staging_dir / "s1.json").exists()
    assert ws.abspath(NEW).read_bytes() == b"new request body\n"


def test_recover_completes_no_commit_run_marked_applied(repo_ws):
    ws = repo_ws
    files = _fake_crash_journal(ws, phase="applied", commit=False)
    for c in files:
        p = ws.abspath(c.path)
        p.unlink() if c.new is None else p.write_bytes(c.new)
    assert "completed" in journal.recover(ws)
    assert not (ws.staging_dir / "s1.json").exists()


def test_journal_of_another_host_is_left_alone(repo_ws):
    ws = repo_ws
    _fake_crash_journal(ws)
    data = json.loads(journal.journal_path(ws).read_text())
    data["host"] = "other.invalid"
    journal.journal_path(ws).write_text(json.dumps(data))
    before = snapshot(ws.root)
    assert "host other.invalid" in journal.recover(ws)
    assert snapshot(ws.root) == before


HUMAN = b"---\nhuman: edit\n---\nwritten by a human after the run wrote this file\n"


def test_recover_keeps_a_file_a_human_edited_after_the_kill(repo_ws):
    ws = repo_ws
    before, before_head = snapshot(ws.root), head(ws.root)
    files = _fake_crash_journal(ws)
    ws.abspath(NEW).write_bytes(files[1].new)  # the run wrote two files, then was killed
    ws.abspath(DEC).write_bytes(HUMAN)  # and a human edited one of them afterwards
    message = journal.recover(ws)
    assert "rolled back" in message and f"kept the edit made meanwhile to {DEC}" in message
    assert ws.abspath(DEC).read_bytes() == HUMAN and not ws.abspath(NEW).exists()
    assert {k: v for k, v in snapshot(ws.root).items() if k != DEC} == {
        k: v for k, v in before.items() if k != DEC}
    assert head(ws.root) == before_head and not journal.journal_path(ws).exists()


def test_apply_never_overwrites_a_file_edited_after_the_change_set(repo_ws):
    ws = repo_ws
    before_head = head(ws.root)
    files = _changes(ws)
    ws.abspath("knowledge/wal-mode.md").write_bytes(HUMAN)  # the run would delete it
    with pytest.raises(journal.ApplyFailed, match="knowledge/wal-mode.md was edited while") as err:
        journal.apply(ws, files, run_id="r1", consumed=["s1"], repo=gitops.open_repo(ws), message="m")
    assert err.value.kept == ["knowledge/wal-mode.md"]  # named as kept, never written by the run
    assert ws.abspath("knowledge/wal-mode.md").read_bytes() == HUMAN
    assert ws.abspath(DEC).read_bytes() == files[0].old and not ws.abspath(NEW).exists()
    assert head(ws.root) == before_head and (ws.staging_dir / "s1.json").exists()


def _committed_journal(ws):
    """A run killed while bringing the real index up to date: its commit exists, the index is old."""
    parent = head(ws.root)
    files = _fake_crash_journal(ws)
    data = json.loads(journal.journal_path(ws).read_text())
    for c in files:
        p = ws.abspath(c.path)
        p.unlink() if c.new is None else p.write_bytes(c.new)
    tree_index = ws.root / ".git" / "run-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(tree_index)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=ws.root, env=env, check=True)
    subprocess.run(["git", "add", "-A", "memory", "knowledge"], cwd=ws.root, env=env, check=True)
    tree = subprocess.run(["git", "write-tree"], cwd=ws.root, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()
    sha = git(ws.root, "commit-tree", tree, "-p", parent, "-m", "consolidate\n\nMemcli-Run: dead").strip()
    git(ws.root, "update-ref", "HEAD", sha)
    data.update(version=journal.VERSION, phase="committed", sha=sha, parent=parent)
    journal.journal_path(ws).write_text(json.dumps(data))
    assert git(ws.root, "diff", "--cached", "--name-only").strip()  # the index still holds the old files
    return sha


def test_recover_removes_an_index_lock_that_is_provably_the_runs(repo_ws):
    ws = repo_ws
    _committed_journal(ws)
    repo = gitops.open_repo(ws)
    _, nxt = gitops.temp_indexes(repo, "dead")
    nxt.write_bytes((ws.root / ".git/index").read_bytes())
    os.link(nxt, ws.root / ".git/index.lock")  # killed right after taking git's lock
    assert "completed" in journal.recover(ws)
    assert not (ws.root / ".git/index.lock").exists() and not nxt.exists()
    assert git(ws.root, "status", "--porcelain").strip() == ""
    assert not (ws.staging_dir / "s1.json").exists() and not journal.journal_path(ws).exists()


def test_recover_never_removes_someone_elses_index_lock(repo_ws):
    ws = repo_ws
    _committed_journal(ws)
    (ws.root / ".git/index.lock").write_bytes(b"another git is writing the index")
    with pytest.raises(MemcliError, match="index.lock is held by another git process"):
        journal.recover(ws)
    assert (ws.root / ".git/index.lock").read_bytes() == b"another git is writing the index"
    assert journal.journal_path(ws).exists()  # nothing claimed: the next command tries again
    (ws.root / ".git/index.lock").unlink()
    assert "completed" in journal.recover(ws)
    assert git(ws.root, "status", "--porcelain").strip() == ""
