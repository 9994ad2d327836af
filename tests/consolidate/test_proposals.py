"""`consolidate --propose` round trips in a real git repository: the run's commit on its own branch,
accepted by a merge (plain, or squashed), rejected with a reason, never proposed twice."""

from __future__ import annotations

import json

import pytest
from consolidate.branchkit import Filer, records, repo, stage, staged
from support.cli import run as cli
from support.git import git

from memcli.consolidate import gitops, proposals
from memcli.history import runs
from memcli.workspace import Workspace


@pytest.fixture
def root(tmp_path):
    root = repo(tmp_path / "proj")
    stage(root, "sess-a", None)
    stage(root, "sess-b", None)
    return root


def _propose(root, capsys) -> dict:
    code, out, err = cli(capsys, "consolidate", "--propose", "--json", "-w", str(root))
    assert code == 0, out + err
    (run,) = json.loads(out)["runs"]
    assert run["result"] == "proposed"
    return run


def test_propose_commits_on_its_own_branch_and_leaves_the_checkout_alone(root, fake_llm, capsys):
    fake_llm.responder = Filer()
    before = git(root, "rev-parse", "HEAD").strip()
    code, out, err = cli(capsys, "consolidate", "--propose", "-w", str(root))
    assert code == 0, out + err
    branch = git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/memcli/proposal/").strip()
    assert branch.startswith("memcli/proposal/")
    assert f"proposed {git(root, 'rev-parse', branch).strip()[:10]} on branch {branch}" in out
    assert f"git diff HEAD...{branch}" in out and f"git merge {branch}" in out
    assert git(root, "rev-parse", "HEAD").strip() == before and git(root, "symbolic-ref", "HEAD").strip() == \
        "refs/heads/main"
    assert records(root) == set() and git(root, "status", "--porcelain").strip() == ""
    assert git(root, "rev-parse", f"{branch}^").strip() == before
    changed = git(root, "diff", "--name-only", f"HEAD...{branch}").split()
    assert changed == ["memory/decisions/sess-a.md", "memory/decisions/sess-b.md"]
    assert f"{gitops.RUN_TRAILER}: " in git(root, "log", "-1", "--format=%B", branch)
    # the items wait for the review: no run (here or anywhere in the clone) takes them meanwhile
    assert staged(root) == set()
    calls = len(fake_llm.requests)
    code, out, _ = cli(capsys, "consolidate", "-w", str(root))
    assert code == 0 and "nothing to do" in out and len(fake_llm.requests) == calls
    code, out, _ = cli(capsys, "proposals", "-w", str(root))
    assert f"{branch}: open, on main" in out and "2 staging files" in out
    status = cli(capsys, "status", "-w", str(root))[1]
    assert f"proposal:           {branch} (open; 2 staging files held)" in status


def test_accepting_is_a_merge_and_consumes_the_staging_once(root, fake_llm, capsys):
    fake_llm.responder = Filer()
    run = _propose(root, capsys)
    branch = run["branch"]
    git(root, "merge", "-q", "--no-ff", "-m", "accept the memory", branch)
    assert records(root) == {"sess-a", "sess-b"}
    code, out, _ = cli(capsys, "proposals", "-w", str(root))
    assert f"{branch}: accepted (merged into HEAD)" in out
    assert git(root, "branch", "--list", branch).strip() == ""  # merged: deleted
    assert not (Workspace.open(root).staging_dir / "proposals" / run["run_id"]).exists()
    assert staged(root) == set() and "none open" in cli(capsys, "proposals", "-w", str(root))[1]
    assert [r["result"] for r in runs(Workspace.open(root), "proposals")] == ["accepted"]


def test_a_squash_merge_is_recognised_by_the_run_trailer(root, fake_llm, capsys):
    fake_llm.responder = Filer()
    run = _propose(root, capsys)
    git(root, "merge", "-q", "--squash", run["branch"])
    git(root, "commit", "-q", "--no-edit")  # the squash message keeps the proposal's, trailer included
    code, out, _ = cli(capsys, "proposals", "--json", "-w", str(root))
    (found,) = json.loads(out)["proposals"]
    assert found["state"] == "accepted" and found["merged_in"] == "HEAD"


def test_rejecting_deletes_the_branch_records_why_and_proposes_nothing_again(root, fake_llm, capsys):
    fake_llm.responder = Filer()
    run = _propose(root, capsys)
    reason = "経験の浅い判断"
    code, out, _ = cli(capsys, "proposals", "reject", run["run_id"], "--reason", reason, "-w", str(root))
    assert code == 0 and "never proposed again" in out
    assert git(root, "branch", "--list", run["branch"]).strip() == ""
    ws = Workspace.open(root)
    kept = ws.clone_state_dir / proposals.REJECTED_DIR / run["run_id"]
    assert {p.name for p in kept.iterdir()} == {"proposal.json", "sess-a.json", "sess-b.json"}
    assert json.loads((kept / "proposal.json").read_text())["reason"] == "経験の浅い判断"
    calls = len(fake_llm.requests)
    code, out, _ = cli(capsys, "consolidate", "--propose", "-w", str(root))
    assert code == 0 and "nothing to do" in out and len(fake_llm.requests) == calls
    listed = cli(capsys, "proposals", "--all", "-w", str(root))[1]
    assert f"{run['branch']}: rejected: 経験の浅い判断" in listed

    # a new session's item is proposed alone
    stage(root, "sess-c", None)
    again = _propose(root, capsys)
    assert again["consumed"] == ["sess-c"]


def test_reject_needs_a_reason_and_an_open_proposal(root, fake_llm, capsys):
    fake_llm.responder = Filer()
    run = _propose(root, capsys)
    code, _, err = cli(capsys, "proposals", "reject", run["run_id"], "--reason", " ", "-w", str(root))
    assert code == 2 and "--reason" in err
    code, _, err = cli(capsys, "proposals", "reject", "nope", "--reason", "x", "-w", str(root))
    assert code == 2 and "no open proposal 'nope'" in err
    git(root, "merge", "-q", run["branch"])
    code, _, err = cli(capsys, "proposals", "reject", run["branch"], "--reason", "x", "-w", str(root))
    assert code == 2 and "is merged into HEAD already; revert that merge instead" in err


def test_propose_refuses_options_it_cannot_honour(root, capsys):
    for flag in ("--no-commit", "--allow-dirty"):
        code, _, err = cli(capsys, "consolidate", "--propose", flag, "-w", str(root))
        assert code == 2 and "--propose" in err
    assert staged(root) == {"sess-a", "sess-b"}


def test_a_run_killed_before_its_branch_existed_gives_the_staging_back(root):
    """The hold is written first: a hold without its commit and without a branch is undone."""
    ws = Workspace.open(root)
    folder = proposals.hold_root(ws) / "20260101T000000Z-1"
    folder.mkdir(parents=True)
    parent = git(root, "rev-parse", "HEAD").strip()
    held = proposals.Proposal("20260101T000000Z-1", "memcli/proposal/20260101T000000Z-1", "main", parent,
                              ("sess-a",), "2026-01-01T00:00:00+00:00")
    (folder / proposals.META).write_text(json.dumps(held.to_json()))
    (ws.staging_dir / "sess-a.json").rename(folder / "sess-a.json")
    assert staged(root) == {"sess-b"}
    assert proposals.settle(ws, gitops.open_repo(ws)) == []
    assert staged(root) == {"sess-a", "sess-b"} and not folder.exists()


def test_a_deleted_unmerged_proposal_is_listed_until_rejected(root, fake_llm, capsys):
    fake_llm.responder = Filer()
    run = _propose(root, capsys)
    git(root, "branch", "-q", "-D", run["branch"])
    out = cli(capsys, "proposals", "-w", str(root))[1]
    assert "its branch was deleted without a merge" in out and f"reject {run['run_id']}" in out
    assert cli(capsys, "proposals", "reject", run["run_id"], "--reason", "closed", "-w", str(root))[0] == 0
    assert "none open" in cli(capsys, "proposals", "-w", str(root))[1]
