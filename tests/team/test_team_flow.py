"""Developers A and B and a CI clone share one memory through a bare remote: staging travels in
refs, CI consolidates it once, and every clone's consolidations meet through the merge driver."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from consolidate.helpers import write_staging
from team.kit import RECORD, make_team, published, worker

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
FIRST = TRANSCRIPTS / "codemie-ai__codemie-code/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
SECOND = (TRANSCRIPTS / "d-kimuson__claude-code-viewer/sample-project"
          / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
ITEMS = {"decisions": [{"title": "Review", "decision": "Review agent output", "rationale": "safety"}]}


def _extract(clone, transcript: Path) -> set[str]:
    sessions = clone.root.parent / f"sessions-{clone.root.name}"
    sessions.mkdir(exist_ok=True)
    shutil.copy(transcript, sessions / transcript.name)
    done = clone.memcli("extract", str(sessions))
    assert done.returncode == 0, done.stdout + done.stderr
    return clone.staged()


def _entry_ids(transcript: Path) -> list[str]:
    """Strings only the transcript holds (entry uuids): they must never reach the remote."""
    ids = []
    for line in transcript.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if isinstance(entry, dict) and isinstance(entry.get("uuid"), str):
            ids.append(entry["uuid"])
    return ids


def test_two_developers_and_ci(tmp_path: Path, fake_llm) -> None:
    fake_llm.responder = worker
    remote, team = make_team(tmp_path, "a", "b", "ci")
    a, b, ci = team["a"], team["b"], team["ci"]
    head_before = a.git("rev-parse", "HEAD").stdout

    a_items, b_items = _extract(a, FIRST), _extract(b, SECOND)
    assert a_items and b_items and not a_items & b_items
    for clone in (a, b):
        done = clone.memcli("staging", "push", "--name", clone.root.name)
        assert done.returncode == 0, done.stdout + done.stderr
        assert clone.staged() == set()  # the team's now: local consolidation will not use them too
    assert published(remote) == {"a": a_items, "b": b_items}
    # plumbing only: the branch, the index and the working tree are as they were
    assert a.git("rev-parse", "HEAD").stdout == head_before and a.git("status", "--porcelain").stdout == ""
    everything = subprocess.run(["git", "-C", str(remote), "cat-file", "--batch-all-objects", "--batch"],
                                capture_output=True, check=True).stdout.decode("utf-8", "replace")
    uuids = _entry_ids(FIRST) + _entry_ids(SECOND)
    assert uuids and not any(u in everything for u in uuids)  # transcripts never leave the machine

    # meanwhile A and B each consolidate a session of their own, locally
    write_staging(a.root, "a-local", "a-local-session", (0, 4), ITEMS)
    write_staging(b.root, "b-local", "b-local-session", (2, 6), ITEMS)
    for clone in (a, b):
        done = clone.memcli("consolidate")
        assert done.returncode == 0, done.stdout + done.stderr

    # CI gathers everything published and consolidates it once
    done = ci.memcli("staging", "pull")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ci.staged() == a_items | b_items
    done = ci.memcli("consolidate", "--if-needed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert published(remote) == {}  # exactly what it used left the refs
    ci.git("push", "-q", "origin", "HEAD:main")
    assert ci.memcli("staging", "pull").returncode == 0 and ci.staged() == set()  # nothing comes back

    # A and B pull CI's commit (the driver merges their own), push, and pull each other's
    a.git("pull", "-q", "--no-rebase", "origin", "main")
    a.git("push", "-q", "origin", "HEAD:main")
    b.git("pull", "-q", "--no-rebase", "origin", "main")
    b.git("push", "-q", "origin", "HEAD:main")
    a.git("pull", "-q", "--no-rebase", "origin", "main")
    for clone in (a, b):
        text = (clone.root / RECORD).read_text(encoding="utf-8")
        assert "<<<<<<<" not in text and ">>>>>>>" not in text
        found = clone.record_sources()
        assert len(found) == len(set(found))  # no Source twice
        sessions = {s for s, _, _ in found}
        assert {"seed-session", "a-local-session", "b-local-session"} <= sessions
        assert {FIRST.stem, SECOND.stem} <= sessions
        decisions = sorted(p.name for p in (clone.root / "memory/decisions").glob("*.md"))
        assert decisions == [Path(RECORD).name]  # no duplicate record
        lint = clone.memcli("lint")
        assert lint.returncode == 0, lint.stdout + lint.stderr
    assert (a.root / RECORD).read_bytes() == (b.root / RECORD).read_bytes()

    # a true conflict: both rewrite the body differently
    for clone, words in ((a, "Review every diff line by line."), (b, "Review only the summary.")):
        text = (clone.root / RECORD).read_text(encoding="utf-8")
        (clone.root / RECORD).write_text(text.replace("Review what the agent changed before committing.",
                                                      words), encoding="utf-8")
        clone.git("commit", "-q", "-am", f"{clone.root.name} rewrites the decision")
    a.git("push", "-q", "origin", "HEAD:main")
    stopped = b.git("pull", "--no-rebase", "origin", "main", check=False)
    assert stopped.returncode != 0 and "CONFLICT" in stopped.stdout
    text = (b.root / RECORD).read_text(encoding="utf-8")
    assert ("<<<<<<< ours\nReview only the summary.\n=======\nReview every diff line by line.\n"
            ">>>>>>> theirs") in text
    assert b.git("status", "--porcelain").stdout.startswith("UU ")
