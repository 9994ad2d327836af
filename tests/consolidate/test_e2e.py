"""Real transcript → `memcli extract` → `memcli consolidate` → one commit, twice; the second run
merges into the record the first one made (all model answers scripted over real HTTP)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from consolidate.helpers import dispose_call, finish_call, head, init_repo, item_ids, sources_shown
from support.cli import exit_code
from support.fake_llm import Reply, tool_call
from support.git import git
from support.pipeline import pipeline_config

from memcli.lint import lint
from memcli.staging import StagingFile
from memcli.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
FIRST = FIXTURES / "codemie-ai__codemie-code/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
SECOND = FIXTURES / "d-kimuson__claude-code-viewer/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
RECORD = "memory/decisions/review-agent-output-before-commit.md"
EXTRACTED = {
    "decisions": [{"title": "Review agent output",
                   "decision": "Review what the agent changed before committing",
                   "rationale": "agents sometimes touch unrelated files"}],
    "discussions": [], "attempts": [],
    "requests": [],
}

CONFIG = pipeline_config()


def _sources_yaml(sources: list[dict]) -> str:
    return "".join(f"  - session_id: {s['session_id']}\n    range: [{s['range'][0]}, {s['range'][1]}]\n"
                   for s in sources)


class ScriptedModel:
    """Answers extract calls with EXTRACTED, and plays a consolidation worker that copies the staging
    Sources it is shown: round 1 creates the decision, later rounds edit it (merge, not duplicate);
    then it disposes of every item as integrated into that record and finishes each phase."""

    def __init__(self) -> None:
        self.round = 0
        self.ids: list[str] = []

    def __call__(self, body: dict) -> Reply:
        if "tools" not in body:
            return Reply(content=json.dumps(EXTRACTED))
        messages = body["messages"]
        last = messages[-1]
        if last["role"] == "user" and "Phase 1 of 2: integration" in last["content"]:
            self.round += 1
            self.ids = item_ids(last["content"])
            sources = [{"session_id": s, "range": [a, b]} for s, a, b in sources_shown(last["content"])]
            if self.round == 1:
                content = ("---\ncreated_at: 2026-05-20T10:00:00+00:00\n"
                           "updated_at: 2026-05-20T10:00:00+00:00\n"
                           f"status: resolved\nsources:\n{_sources_yaml(sources)}---\n"
                           "Review what the agent changed before committing.\n\n"
                           "Why: agents sometimes touch unrelated files.\n")
                return Reply(tool_calls=[tool_call("memory_write", {
                    "path": RECORD, "mode": "create", "content": content,
                    "reason": "new decision from staging: review agent output before committing"})])
            return Reply(tool_calls=[tool_call("memory_edit", {
                "path": RECORD, "old_string": "sources:\n",
                "new_string": "sources:\n" + _sources_yaml(sources),
                "reason": "same decision seen again in a new session: add its source"})])
        if self.ids:
            ids, self.ids = self.ids, []
            return Reply(tool_calls=[dispose_call(ids, "integrated", [RECORD], "the decision"),
                                     finish_call()])
        return Reply(tool_calls=[finish_call()])


@pytest.fixture
def ws_root(example_ws):
    (example_ws / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    return init_repo(example_ws)


def _transcript(tmp_path: Path, src: Path) -> Path:
    dest = tmp_path / "sessions" / src.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dest)
    return dest


def _staged(root: Path) -> list[StagingFile]:
    return [StagingFile.model_validate_json(p.read_bytes())
            for p in sorted((root / "memory/_staging").glob("*.json"))]


def test_transcript_to_commit_then_merge(ws_root, fake_llm, tmp_path, capsys):
    fake_llm.responder = ScriptedModel()
    start = head(ws_root)

    assert exit_code("extract", str(_transcript(tmp_path, FIRST)), "-w", str(ws_root)) == 0
    first_sources = {(s.source.session_id, *s.source.range) for s in _staged(ws_root)}
    assert first_sources and all(sid == "4c2ddfdc-b619-4525-8d03-1950fb1b0257" for sid, _, _ in first_sources)

    assert exit_code("consolidate", "-w", str(ws_root)) == 0
    assert git(ws_root, "rev-list", "--count", f"{start}..HEAD").strip() == "1"
    log = git(ws_root, "log", "-1", "--format=%B")
    assert f"added {RECORD}" in log and "review agent output before committing" in log
    assert not _staged(ws_root)
    ws = Workspace.open(ws_root)
    assert [f for f in lint(ws) if f.is_error] == []
    text = (ws_root / RECORD).read_text()
    for sid, a, b in first_sources:
        assert f"session_id: {sid}\n    range: [{a}, {b}]" in text

    # a new session repeats the decision: the second run merges it into the same record
    assert exit_code("extract", str(_transcript(tmp_path, SECOND)), "-w", str(ws_root)) == 0
    second_sources = {(s.source.session_id, *s.source.range) for s in _staged(ws_root)}
    assert second_sources and not second_sources & first_sources
    assert exit_code("consolidate", "-w", str(ws_root)) == 0
    assert git(ws_root, "rev-list", "--count", f"{start}..HEAD").strip() == "2"
    log = git(ws_root, "log", "-1", "--format=%B")
    assert f"updated {RECORD}" in log and "add its source" in log
    decisions = sorted(p.name for p in (ws_root / "memory/decisions").glob("*.md"))
    assert decisions.count(Path(RECORD).name) == 1 and len(decisions) == 5  # 4 examples + 1, no duplicate
    text = (ws_root / RECORD).read_text()
    for sid, a, b in first_sources | second_sources:
        assert f"session_id: {sid}\n    range: [{a}, {b}]" in text
    assert [f for f in lint(Workspace.open(ws_root)) if f.is_error] == []
    assert git(ws_root, "status", "--porcelain").strip() == ""

    capsys.readouterr()
    assert exit_code("status", "-w", str(ws_root)) == 0
    out = capsys.readouterr().out
    assert "last consolidate:" in out and "committed" in out and "0 files" in out
