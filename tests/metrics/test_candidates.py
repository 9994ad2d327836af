"""The knowledge-candidate report: recurring topics across >= 3 sessions, heavily invoked decisions."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from memcli.metrics import candidate_report, refresh_metrics
from memcli.records.models import Source
from memcli.staging import DecisionItem, ExtractedItems, RequestItem, StagingFile
from memcli.workspace import Workspace

DAY = "2026-05-12T09:{:02d}:00.000Z"


def _stage(ws: Path, sid: str, start: int, *, decisions=(), requests=()) -> tuple[str, int, int]:
    staged = StagingFile(
        id=f"{sid}-{start}", agent="claude-code", source=Source(session_id=sid, range=(start, start + 9)),
        model="openai/gpt-4o-mini", prompt_version="p1", created_at=dt.datetime(2026, 5, 12, tzinfo=dt.UTC),
        items=ExtractedItems(
            decisions=[DecisionItem(title=t, decision=t + ".") for t in decisions],
            requests=[RequestItem(title=t, request=t + ".") for t in requests],
        ),
    )
    folder = ws / "memory" / "_staging"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{staged.id}.json").write_text(staged.model_dump_json(), encoding="utf-8")
    return (sid, start, start + 9)


def test_topic_in_three_sessions_is_a_candidate(example_ws: Path) -> None:
    a = _stage(example_ws, "s-one", 0, decisions=["Pin the Node version with an .nvmrc file"])
    b = _stage(example_ws, "s-two", 40, requests=["pin node version via nvmrc"])
    c = _stage(example_ws, "s-three", 7, decisions=["Node version pinned with .nvmrc"])
    _stage(example_ws, "s-four", 0, decisions=["Rename the tasks table to todo_items"])
    report = candidate_report(Workspace.open(example_ws))
    recurring = [c for c in report.candidates if c.kind == "recurring"]
    assert len(recurring) == 1
    found = recurring[0]
    assert found.sessions == 3
    assert set(found.sources) == {a, b, c}
    assert report.sources == frozenset({a, b, c})
    origins = {e["origin"] for e in found.evidence}
    assert origins == {"staging:s-one-0", "staging:s-two-40", "staging:s-three-7"}
    assert report.allows("s-two", 42, 45) and not report.allows("s-two", 30, 45)
    assert json.loads(json.dumps(report.to_json_dict()))["candidates"][0]["sessions"] == 3


def test_topic_in_two_sessions_is_not(example_ws: Path) -> None:
    _stage(example_ws, "s-one", 0, decisions=["Pin the Node version with an .nvmrc file"])
    _stage(example_ws, "s-one", 20, decisions=["Pin the node version in .nvmrc"])  # same session again
    _stage(example_ws, "s-two", 40, requests=["pin node version via nvmrc"])
    report = candidate_report(Workspace.open(example_ws))
    assert report.candidates == [] and report.sources == frozenset()
    assert report.staging_files == 3


def test_japanese_topic_recurs(example_ws: Path) -> None:
    for n, title in enumerate(["デプロイ前に必ずバックアップを取る", "デプロイ前のバックアップ取得",
                               "バックアップを取ってからデプロイする"]):
        _stage(example_ws, f"ja-{n}", 0, requests=[title])
    report = candidate_report(Workspace.open(example_ws))
    assert [c.sessions for c in report.candidates if c.kind == "recurring"] == [3]


def test_decision_sources_count_as_sessions_and_relate_the_record(example_ws: Path) -> None:
    # use-sqlite-wal already cites two sessions; one staging item on the same topic makes three.
    extra = _stage(example_ws, "s-new", 3, decisions=["Use SQLite WAL mode as the datastore"])
    report = candidate_report(Workspace.open(example_ws))
    (found,) = [c for c in report.candidates if c.kind == "recurring"]
    assert found.sessions == 3 and extra in found.sources
    assert "memory/decisions/use-sqlite-wal.md" in found.related


def test_unreadable_staging_is_skipped_and_counted(example_ws: Path) -> None:
    folder = example_ws / "memory" / "_staging"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "broken.json").write_text("{", encoding="utf-8")
    report = candidate_report(Workspace.open(example_ws))
    assert report.staging_skipped == 1 and report.candidates == []


def test_invoked_decision_is_a_candidate(agents, example_ws: Path) -> None:
    a = agents.claude()
    for minute in range(3):
        a.tool("Read", {"file_path": "memory/requests/keep-e2e-opt-in.md"}, DAY.format(minute))
    a.tool("Read", {"file_path": "knowledge/wal-mode.md"}, DAY.format(5))  # knowledge is already knowledge
    ws = Workspace.open(example_ws)
    metrics, _ = refresh_metrics(ws)
    report = candidate_report(ws, metrics)
    (found,) = report.candidates
    assert found.kind == "invoked" and found.related == ["memory/requests/keep-e2e-opt-in.md"]
    assert found.evidence[0]["invokes"] == 3
    assert found.sources == [("019e1625-789d-76c0-80ab-3724b5ddb799", 0, 6)]  # the request's own Sources
    assert report.sources == frozenset(found.sources)
    assert candidate_report(ws).to_json_dict() == report.to_json_dict()  # saved metrics give the same report


def test_one_shared_word_is_not_a_topic(example_ws: Path) -> None:
    _stage(example_ws, "s-one", 0, decisions=["Cache the API responses in Redis"])
    _stage(example_ws, "s-two", 0, decisions=["Rotate the API keys every month"])
    _stage(example_ws, "s-three", 0, requests=["Document the API deprecation policy"])
    assert candidate_report(Workspace.open(example_ws)).candidates == []
