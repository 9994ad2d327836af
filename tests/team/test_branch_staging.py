"""Shared staging carries each item's branch: a teammate's item waits in another clone until its
branch is merged there (real clones, a bare remote, real `memcli staging push / pull`)."""

from __future__ import annotations

import json

from consolidate.branchkit import commit_file, recorded_branch, stage
from team.kit import make_team


def _branches(clone) -> dict:
    done = clone.memcli("status", "--json")
    return json.loads(done.stdout)["branches"]


def test_a_pulled_item_keeps_its_branch_and_waits_for_its_merge(tmp_path):
    remote, team = make_team(tmp_path, "alice", "bob")
    alice, bob = team["alice"], team["bob"]
    alice.git("switch", "-q", "-c", "feature-a")
    commit_file(alice.root, "feature.py")
    alice.git("push", "-q", "origin", "feature-a")
    branch = recorded_branch(alice.root)
    stage(alice.root, "sess-alice", branch, staging_dir=alice.root / "memory/_staging")
    assert alice.memcli("staging", "push").returncode == 0

    assert bob.memcli("staging", "pull").returncode == 0
    pulled = json.loads((bob.root / "memory/_staging/sess-alice.json").read_text())
    assert pulled["branch"] == branch.model_dump()
    bob.git("fetch", "-q", "origin")
    found = _branches(bob)
    assert found["on"] == "main" and found["here"] == 0
    assert [(g["branch"], g["state"]) for g in found["groups"]] == [("feature-a", "waiting")]

    alice.git("switch", "-q", "main")
    alice.git("merge", "-q", "--no-ff", "-m", "merge feature-a", "feature-a")
    alice.git("push", "-q", "origin", "main")
    bob.git("pull", "-q", "--no-rebase", "origin", "main")
    found = _branches(bob)
    assert found["here"] == 1 and [g["state"] for g in found["groups"]] == ["merged"]
