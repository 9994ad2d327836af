"""`memcli why`: a record's story from a real git history (a consolidation commit made with the commit
message consolidation writes, human edits, a rename), its Sources traced through a transcript on this
machine (redacted) or reported absent, who used it, and what it replaced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run
from support.git import git

from memcli.consolidate.message import FileReport, commit_message

NOW = "2026-05-20T10:00:00+00:00"
SESSION = "sess-why-1"
SECRET = "sk-ant-api03-" + "Q" * 90


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def decision(slug: str, *, sources: str, status: str = "resolved", replaced_by: str | None = None,
             body: str = "Use SQLite in WAL mode.") -> str:
    extra = f"replaced_by: {replaced_by}\n" if replaced_by else ""
    return (f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nstatus: {status}\n{extra}sources:\n{sources}"
            f"---\n{body}\n")


def src(session: str, start: int, end: int) -> str:
    return f"  - session_id: {session}\n    range: [{start}, {end}]\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory" / "decisions").mkdir(parents=True)
    (root / "knowledge").mkdir()
    write(root, "memcli.toml", '[sessions]\npaths = ["transcripts"]\n')
    lines = [
        {"session_id": SESSION, "role": "user", "content": "Which datastore? Keep it simple."},
        {"role": "assistant", "content": f"SQLite in WAL mode; the key {SECRET} stays out of it."},
        {"role": "tool", "content": "", "tool_results": [{"content": "sqlite 3.45 ok", "id": "t1"}]},
        {"role": "user", "content": "Read memory/decisions/use-sqlite.md again please."},
        {"role": "assistant", "content": "ok", "tool_calls": [
            {"name": "Read", "arguments": {"file_path": "memory/decisions/use-sqlite.md"}, "id": "r1"}]},
    ]
    write(root, "transcripts/s.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
    git(root, "init", "-q", "-b", "main")
    return root


def consolidation_commit(root: Path, rel: str, *, staging: list[str], run_id: str = "run-1") -> None:
    report = FileReport(rel, "added", ("new",), (f"memory_write (integration): datastore decision {rel}",),
                        None, len((root / rel).read_text(encoding="utf-8")))
    text = commit_message([report], run_id=run_id, consumed=staging, stats="1 model call.")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", text)


def test_story_of_a_consolidated_then_edited_then_renamed_decision(ws: Path, capsys) -> None:
    rel = "memory/decisions/sqlite.md"
    write(ws, rel, decision("sqlite", sources=src(SESSION, 0, 2) + src("gone-session", 3, 4)))
    consolidation_commit(ws, rel, staging=[f"{SESSION}-0-4-0123456789", "other-session-0-9-abcdefabcd"])
    write(ws, rel, decision("sqlite", sources=src(SESSION, 0, 2) + src("gone-session", 3, 4),
                            body="Use SQLite in WAL mode. Backups nightly."))
    git(ws, "commit", "-qam", "Mention nightly backups")
    git(ws, "mv", rel, "memory/decisions/use-sqlite.md")
    git(ws, "commit", "-qm", "Rename the datastore decision")
    assert run(capsys, "metrics", "-w", str(ws))[0] == 0

    code, out, err = run(capsys, "why", "use-sqlite", "-w", str(ws), "--json")
    assert (code, err) == (0, "")
    story = json.loads(out)
    assert story["path"] == "memory/decisions/use-sqlite.md"
    by = [(c["by"], c["subject"]) for c in story["history"]]
    assert by == [("human", "Rename the datastore decision"), ("human", "Mention nightly backups"),
                  ("consolidate", by[2][1])]
    first = story["history"][2]
    assert (first["run_id"], first["outcome"], first["categories"], first["path"]) == (
        "run-1", "added", ["new"], rel)
    assert first["reasons"] == [f"memory_write (integration): datastore decision {rel}"]
    assert first["staging"] == [f"{SESSION}-0-4-0123456789"]  # the other session's item is not its origin

    traced, absent = story["sources"]
    assert (traced["source"], traced["found"], traced["agent"]) == (f"{SESSION}:0-2", True, "memcli-jsonl")
    assert traced["roles"] == ["user", "agent", "tool"]
    assert "Which datastore" in traced["excerpt"] and SECRET not in traced["excerpt"]
    assert (absent["found"], absent["note"]) == (False, "transcript not on this machine")
    assert story["usage"]["invokes"] >= 1 and story["usage"]["sessions"] == [SESSION]

    code, text, _ = run(capsys, "why", "memory/decisions/use-sqlite.md", "-w", str(ws))
    assert code == 0
    assert "consolidate run run-1" in text and "(then named memory/decisions/sqlite.md)" in text
    assert "said by user, agent, tool" in text and "transcript not on this machine" in text


def test_replaced_by_both_ways_and_summary_sources(ws: Path, capsys) -> None:
    write(ws, "memory/decisions/old-db.md",
          decision("old-db", sources=src(SESSION, 0, 0), status="replaced", replaced_by="new-db"))
    write(ws, "memory/decisions/new-db.md", decision("new-db", sources=src(SESSION, 1, 1)))
    write(ws, "memory/summary.md", f"---\nupdated_at: {NOW}\nlast_rewritten_from_range:\n"
          f"  session_id: {SESSION}\n  range: [3, 3]\n---\n# Project\n")
    old = json.loads(run(capsys, "why", "old-db", "-w", str(ws), "--json")[1])
    new = json.loads(run(capsys, "why", "new-db", "-w", str(ws), "--json")[1])
    assert (old["status"], old["replaced_by"], old["replaces"]) == ("replaced", "new-db", [])
    assert new["replaces"] == ["memory/decisions/old-db.md"]
    assert "no commit yet" in " ".join(new["notes"]) and new["history"] == []
    assert new["usage"] is None  # metrics never ran: said, not shown as zero
    summary = json.loads(run(capsys, "why", "summary", "-w", str(ws), "--json")[1])
    (only,) = summary["sources"]
    assert (only["field"], only["roles"]) == ("last_rewritten_from_range", ["user"])


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("use-sqlte", "did you mean 'use-sqlite'"),
        ("../outside.md", "not inside the workspace"),
        ("memory/notes/x.md", "not a record"),
        ("memory/decisions/nope.md", "no such record"),
        ("twin", "names 2 records"),
        (" ", "name a record"),
    ],
)
def test_bad_targets_are_one_line_usage_errors(ws: Path, capsys, target: str, message: str) -> None:
    write(ws, "memory/decisions/use-sqlite.md", decision("use-sqlite", sources=src(SESSION, 0, 0)))
    write(ws, "memory/decisions/twin.md", decision("twin", sources=src(SESSION, 0, 0)))
    write(ws, "knowledge/twin.md", f"---\ncreated_at: {NOW}\nupdated_at: {NOW}\nkind: fact\n"
          "description: d\nmodel_invocation: false\nuser_invocable: true\nlast_sources: []\n---\nx\n")
    code, out, err = run(capsys, "why", target, "-w", str(ws))
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_out_of_range_and_broken_sources_are_said_not_fatal(ws: Path, capsys) -> None:
    write(ws, "memory/decisions/x.md", "---\ncreated_at: 2026-05-20T10:00:00+00:00\nupdated_at: "
          f"{NOW}\nstatus: resolved\nsources:\n{src(SESSION, 40, 50)}  - session_id: ''\n    range: [1]\n"
          "---\nBody.\n")
    story = json.loads(run(capsys, "why", "x", "-w", str(ws), "--json")[1])
    far, broken = story["sources"]
    assert not far["found"] and "out of range" in far["note"]
    assert not broken["found"] and "not a valid Source" in broken["note"]
