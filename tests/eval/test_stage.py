"""`memcli eval --stage`: the uncovered repetitions as staging items consolidation accepts, once."""

from __future__ import annotations

import json

import pytest
from consolidate.helpers import dispose_call, finish_call, item_ids, sources_shown
from support.cli import exit_code, run
from support.eval_workspace import History, request
from support.fake_llm import Reply, tool_call
from support.pipeline import pipeline_config

from memcli.eval.stage import MODEL
from memcli.lint import lint
from memcli.staging import StagingFile
from memcli.workspace import Workspace

RECORD = "memory/requests/write-tests-with-pytest.md"


@pytest.fixture
def ws(history: History) -> History:
    (history.root / "memcli.toml").write_text(pipeline_config(), encoding="utf-8")
    history.commit("2026-01-01T00:00:00Z", {"memory/requests/use-pnpm.md": request("Use pnpm, not npm.")})
    history.session("a", "2026-01-02", ["Always write the tests with pytest.", "Use pnpm instead of npm."])
    history.session("b", "2026-01-04", ["Add a CSV export.", "テストは必ずpytestで書いて。"])
    history.session("c", "2026-01-06", ["Please write the tests with pytest.", "thanks",
                                        "Please write the tests with pytest."])
    history.session("d", "2026-01-07", ["Please install packages with pnpm, not npm."])
    return history


def _staged(ws: History) -> dict[str, StagingFile]:
    return {p.stem: StagingFile.model_validate_json(p.read_bytes())
            for p in sorted((ws.root / "memory/_staging").glob("*.json"))}


def _stage(ws: History, capsys) -> tuple[int, str]:
    code, out, err = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root), "--stage")
    assert err == ""
    return code, out


def test_one_item_per_place_the_user_said_it(ws: History, capsys) -> None:
    code, out = _stage(ws, capsys)
    assert code == 0 and "Staged 4 new item(s) in memory/_staging/." in out
    staged = _staged(ws)
    # the pnpm repetition is covered now: nothing of it is staged; "c" said it in two prompts
    assert sorted((s.source.session_id, s.source.range) for s in staged.values()) == [
        ("a", (0, 0)), ("b", (2, 2)), ("c", (0, 0)), ("c", (4, 4))]
    for file_id, s in staged.items():
        assert s.id == file_id and s.model == MODEL and s.agent == "memcli-jsonl"
        assert s.provenance.roles == [(s.source.range[0], s.source.range[1], "user")]
        (item,) = s.items.requests
        assert item.title.startswith("Rule: ") and "pytest" in item.title
        assert "in 3 sessions" in item.request
        assert all(f"{sid}:" in item.request for sid in ("a", "b", "c"))
    assert not list((ws.root / "memory/_staging").glob(".*"))  # no temp file left behind


def test_a_second_stage_stages_nothing_new(ws: History, capsys) -> None:
    _stage(ws, capsys)
    first = {p.name: p.read_bytes() for p in (ws.root / "memory/_staging").glob("*.json")}
    code, out = _stage(ws, capsys)
    assert code == 0 and "Staged 0 new item(s) in memory/_staging/; 4 staged before." in out
    assert {p.name: p.read_bytes() for p in (ws.root / "memory/_staging").glob("*.json")} == first
    for path in (ws.root / "memory/_staging").glob("*.json"):  # consumed, or dropped by a consolidation
        path.unlink()
    _, out = _stage(ws, capsys)
    assert "Staged 0 new item(s)" in out and not _staged(ws)
    # a new session where the user says it again is new evidence: that one is staged
    ws.session("e", "2026-01-09", ["Write all the tests with pytest."])
    _, out, _ = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root), "--stage", "--json")
    doc = json.loads(out)
    assert len(doc["staged"]["new"]) == 1 and doc["staged"]["already"] == 4
    assert [s.source.session_id for s in _staged(ws).values()] == ["e"]


def test_a_file_staged_before_an_interruption_is_not_staged_twice(ws: History, capsys, tmp_path) -> None:
    _stage(ws, capsys)
    ledger = Workspace.open(ws.root).state_dir / "eval" / "staged.json"
    ledger.unlink()  # as if the run stopped after the files, before the ledger
    _, out = _stage(ws, capsys)
    assert "Staged 0 new item(s) in memory/_staging/; 4 staged before." in out
    assert len(json.loads(ledger.read_text())["ids"]) == 4


def test_secrets_in_the_users_words_are_not_staged(ws: History, capsys) -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    ws.session("k1", "2026-01-10", [f"Always deploy with the key {key} on staging."])
    ws.session("k2", "2026-01-11", [f"Deploy with the key {key} on staging, always."])
    _stage(ws, capsys)
    texts = [p.read_text(encoding="utf-8") for p in (ws.root / "memory/_staging").glob("*.json")]
    assert any("REDACTED" in t for t in texts) and not any(key in t for t in texts)


class Worker:
    """The consolidation model: files the staged rule once as a request citing every Source the
    integration message showed, disposes of every item as integrated into it, finishes each phase."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, int, int]] = []
        self.ids: list[str] = []

    def __call__(self, body: dict) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user" and "Phase 1 of 2: integration" in last["content"]:
            # the staging Sources (not those of the records it is shown in full)
            self.shown = [s for s in sources_shown(last["content"]) if s[0] != "elsewhere"]
            self.ids = item_ids(last["content"])
            sources = "".join(f"  - session_id: {s}\n    range: [{a}, {b}]\n" for s, a, b in self.shown)
            content = ("---\ncreated_at: 2026-01-12T00:00:00Z\nupdated_at: 2026-01-12T00:00:00Z\n"
                       f"sources:\n{sources}---\nWrite the tests with pytest.\n")
            return Reply(tool_calls=[tool_call("memory_write", {
                "path": RECORD, "mode": "create", "content": content,
                "reason": "a rule the user gave in three sessions"})])
        if self.ids:
            ids, self.ids = self.ids, []
            return Reply(tool_calls=[dispose_call(ids, "integrated", [RECORD], "the pytest rule"),
                                     finish_call()])
        return Reply(tool_calls=[finish_call()])


def test_consolidation_files_the_staged_items(ws: History, capsys, fake_llm) -> None:
    _stage(ws, capsys)
    staged = _staged(ws)
    worker = Worker()
    fake_llm.responder = worker
    assert exit_code("consolidate", "-w", str(ws.root)) == 0
    assert sorted(worker.shown) == sorted((s.source.session_id, *s.source.range) for s in staged.values())
    assert not _staged(ws)  # consumed
    text = (ws.root / RECORD).read_text(encoding="utf-8")
    for s in staged.values():
        start, end = s.source.range
        assert f"session_id: {s.source.session_id}\n    range: [{start}, {end}]" in text
    assert [f for f in lint(Workspace.open(ws.root)) if f.is_error] == []
    assert "memory/requests/write-tests-with-pytest.md" in ws.git("log", "-1", "--name-only", "--format=")
    capsys.readouterr()
    _, out, _ = run(capsys, "eval", "--path", str(ws.folder), "-w", str(ws.root), "--stage", "--json")
    doc = json.loads(out)
    assert doc["summary"]["covered_now"] == doc["summary"]["repeated"] == 2
    assert doc["staged"] == {"new": [], "already": 0}
