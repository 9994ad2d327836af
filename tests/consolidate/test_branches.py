"""Memory moves with the branch: in real git repositories, consolidation on a branch takes only the
items of that branch and of branches merged into it (the scripted model files each as a record)."""

from __future__ import annotations

import json

import pytest
from consolidate.branchkit import (
    Filer,
    age_gone,
    commit_file,
    recorded_branch,
    records,
    repo,
    stage,
    staged,
)
from support.cli import run as cli
from support.git import git

from memcli.consolidate import branches
from memcli.consolidate.inputs import load_staging
from memcli.workspace import Workspace


@pytest.fixture
def root(tmp_path):
    return repo(tmp_path / "proj")


def _two_branches(root):
    """b1 and b2, each made from main with a commit and a session of its own, and an old staging
    file that names no branch."""
    git(root, "switch", "-q", "-c", "b1")
    commit_file(root, "one.txt")
    stage(root, "sess-b1", recorded_branch(root))
    git(root, "switch", "-q", "-c", "b2", "main")
    commit_file(root, "two.txt")
    stage(root, "sess-b2", recorded_branch(root))
    stage(root, "sess-old", None)  # written before memcli recorded branches: any branch


def test_each_branch_takes_only_its_own_items(root, fake_llm, capsys):
    _two_branches(root)
    fake_llm.responder = model = Filer()
    git(root, "switch", "-q", "b1")
    code, out, _ = cli(capsys, "consolidate", "-w", str(root))
    assert code == 0, out
    assert sorted(model.seen[-1]) == ["sess-b1", "sess-old"]
    assert records(root) == {"sess-b1", "sess-old"} and staged(root) == {"sess-b2"}
    assert git(root, "log", "-1", "--format=%D").startswith("HEAD -> b1")

    code, out, _ = cli(capsys, "status", "-w", str(root))
    assert "on b1: 0 staging files to consolidate here" in out
    assert "b2: 1 staging file wait (not merged into b1)" in out

    git(root, "switch", "-q", "b2")
    assert cli(capsys, "consolidate", "-w", str(root))[0] == 0
    assert model.seen[-1] == ["sess-b2"]
    assert records(root) == {"sess-b2"} and staged(root) == set()  # b1's records stay on b1


def test_nothing_for_this_branch_says_what_waits(root, fake_llm, capsys):
    _two_branches(root)
    git(root, "switch", "-q", "main")
    stage(root, "sess-old", recorded_branch(root, "b1"))  # now b1's too
    code, out, _ = cli(capsys, "consolidate", "--json", "-w", str(root))
    assert code == 0 and not fake_llm.requests
    found = json.loads(out)
    assert found["result"] == "nothing-to-do" and found["staging_files"] == 0
    assert {(g["branch"], g["state"], g["files"]) for g in found["waiting"]} == {("b1", "waiting", 2),
                                                                                 ("b2", "waiting", 1)}


def test_merge_brings_both(root, fake_llm, capsys):
    _two_branches(root)
    fake_llm.responder = model = Filer()
    git(root, "switch", "-q", "b1")
    assert cli(capsys, "consolidate", "-w", str(root))[0] == 0  # b1's item becomes a record on b1
    git(root, "switch", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "merge b1", "b1")
    git(root, "merge", "-q", "--no-ff", "-m", "merge b2", "b2")  # b2 merged before it consolidated
    code, out, err = cli(capsys, "consolidate", "-w", str(root))
    assert code == 0, out + err
    assert model.seen[-1] == ["sess-b2"]
    assert records(root) == {"sess-b1", "sess-old", "sess-b2"} and staged(root) == set()


def test_fast_forward_merge_and_deleted_branch_count_as_merged(root, fake_llm, capsys):
    git(root, "switch", "-q", "-c", "topic")
    commit_file(root, "topic.txt")
    stage(root, "sess-topic", recorded_branch(root))
    git(root, "switch", "-q", "main")
    git(root, "merge", "-q", "--ff-only", "topic")
    git(root, "branch", "-q", "-d", "topic")  # merged and deleted: judged by the recorded commit
    fake_llm.responder = Filer()
    assert cli(capsys, "consolidate", "-w", str(root))[0] == 0
    assert records(root) == {"sess-topic"}


def test_squash_and_rebase_merges_of_deleted_branches_are_found(root, fake_llm, capsys):
    git(root, "switch", "-q", "-c", "squashed")
    commit_file(root, "a.txt")
    commit_file(root, "b.txt")
    stage(root, "sess-squashed", recorded_branch(root))
    git(root, "switch", "-q", "-c", "rebased", "main")
    commit_file(root, "c.txt")
    stage(root, "sess-rebased", recorded_branch(root))
    git(root, "switch", "-q", "-c", "open", "main")
    commit_file(root, "d.txt")
    stage(root, "sess-open", recorded_branch(root))
    git(root, "switch", "-q", "main")
    commit_file(root, "main.txt")  # main moved on: nothing below is a fast-forward
    git(root, "merge", "-q", "--squash", "squashed")
    git(root, "commit", "-q", "-m", "squashed (#1)")
    git(root, "cherry-pick", "rebased")  # as "rebase and merge" does: new commits, same patches
    git(root, "branch", "-q", "-D", "squashed", "rebased")
    fake_llm.responder = model = Filer()
    assert cli(capsys, "consolidate", "-w", str(root))[0] == 0
    assert sorted(model.seen[-1]) == ["sess-rebased", "sess-squashed"]
    assert staged(root) == {"sess-open"}


def test_a_branch_without_work_of_its_own_keeps_its_items(root, fake_llm, capsys):
    """A fresh branch (nothing committed yet) holds nothing its base lacks, yet its session's items
    are its own; and a branch made from main does not take main's items."""
    stage(root, "sess-main", recorded_branch(root))
    git(root, "switch", "-q", "-c", "fresh")
    stage(root, "sess-fresh", recorded_branch(root))
    git(root, "switch", "-q", "-c", "feature")
    commit_file(root, "f.txt")
    fake_llm.responder = model = Filer()
    code, out, _ = cli(capsys, "consolidate", "-w", str(root))
    assert code == 0 and not fake_llm.requests, out  # on feature: neither main's nor fresh's
    git(root, "switch", "-q", "main")
    assert cli(capsys, "consolidate", "-w", str(root))[0] == 0
    assert model.seen[-1] == ["sess-main"] and staged(root) == {"sess-fresh"}


def test_an_abandoned_branch_ages_out_with_a_message(root, fake_llm, capsys):
    git(root, "switch", "-q", "-c", "experiment")
    commit_file(root, "x.txt")
    stage(root, "sess-exp", recorded_branch(root))
    git(root, "switch", "-q", "main")
    git(root, "branch", "-q", "-D", "experiment")  # abandoned, never merged

    code, out, _ = cli(capsys, "status", "-w", str(root))
    assert "experiment: 1 staging file of a branch deleted, not merged into main" in out
    assert "(memory.branch_staging_days = 30) unless it comes back" in out
    code, out, _ = cli(capsys, "gc-report", "-w", str(root))
    assert code == 0 and "staging: experiment: 1 staging file of a branch deleted" in out
    report = json.loads(cli(capsys, "gc-report", "--json", "-w", str(root))[1])
    assert [(g["branch"], g["state"]) for g in report["staging_leaving"]] == [("experiment", "gone")]
    assert cli(capsys, "consolidate", "-w", str(root))[0] == 0 and staged(root) == {"sess-exp"}

    age_gone(root, "experiment", 31)
    code, out, _ = cli(capsys, "status", "-w", str(root))
    assert "they go at the next consolidation" in out
    code, out, err = cli(capsys, "consolidate", "-w", str(root))
    assert code == 0 and not fake_llm.requests
    assert "dropped 1 staging files of branch experiment: deleted, not merged into main" in err
    ws = Workspace.open(root)
    assert staged(root) == set() and (ws.clone_state_dir / "expired-staging" / "sess-exp.json").is_file()
    assert "branches:" not in cli(capsys, "status", "-w", str(root))[1]


def test_routing_outside_git_and_without_a_commit_takes_everything(tmp_path):
    root = tmp_path / "plain"
    (root / "memory").mkdir(parents=True)
    ws = Workspace.open(root)
    from memcli.staging import Branch

    stage(root, "sess-x", Branch(name="elsewhere", commit="0" * 40))
    routing = branches.route(ws, load_staging(ws).entries)
    assert routing.here == {"sess-x"} and routing.groups == ()


def test_a_remote_tracking_branch_is_a_live_branch(tmp_path, fake_llm, capsys):
    """A teammate's item (shared staging) names a branch this clone knows only as origin/<name>."""
    upstream = repo(tmp_path / "upstream")
    git(upstream, "switch", "-q", "-c", "theirs")
    commit_file(upstream, "t.txt")
    theirs = recorded_branch(upstream)
    git(upstream, "switch", "-q", "main")
    git(tmp_path, "clone", "-q", str(upstream), "mine")
    mine = tmp_path / "mine"
    stage(mine, "sess-theirs", theirs)
    routing = branches.route(Workspace.open(mine), load_staging(Workspace.open(mine)).entries)
    assert [(g.branch, g.state) for g in routing.groups] == [("theirs", "waiting")]
    git(upstream, "merge", "-q", "--no-ff", "-m", "merge theirs", "theirs")
    git(mine, "pull", "-q", "--no-rebase", "origin", "main")
    routing = branches.route(Workspace.open(mine), load_staging(Workspace.open(mine)).entries)
    assert routing.here == {"sess-theirs"}
