"""Staging refuses a weak model's junk (memcli.staging.sifted): items whose title or text holds no
word in any script (`][`) or only a name out of the schema (`DecisionItem`), through the real
request path (litellm over HTTP to the scripted server); extract says how many (the import:
tests/imports/test_junk.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extract.helpers import conversation, staged, write_jsonl
from support.fake_llm import FakeLLM, Reply

from memcli.extract.run import run
from memcli.staging import ExtractedItems, junk, schema_names
from memcli.workspace import Workspace

GOOD = {"decisions": [{"title": "Index in SQLite", "decision": "Keep the search index in SQLite"}],
        "requests": [{"title": "日本語で答える", "request": "回答は日本語で"}]}
JUNK = {"decisions": [{"title": "][", "decision": "Keep the index"},
                      {"title": "DecisionItem", "decision": "DecisionItem"},
                      {"title": "Use WAL", "decision": "..."}],
        "discussions": [{"title": "ExtractedItems", "summary": "{}"}],
        "attempts": [{"title": "title", "outcome": "string"}],
        "requests": []}


@pytest.mark.parametrize(("text", "refused"), [
    ("][", True), ("", True), ("  ", True), ("...", True), ("—", True), ("{}", True),
    ("DecisionItem", True), ("ExtractedItems", True), ("decision_item", True), ("<Request Item>", True),
    ("title:", True), ("Title", True), ("string", True), ("decisions", True),
    ("Index in SQLite", False), ("日本語で答える", False), ("決定", False), ("42", False), ("٣", False),
    ("Decision: use WAL", False), ("A DecisionItem is a model", False),
])
def test_what_says_nothing(text: str, refused: bool) -> None:
    assert junk(text) is refused


def test_the_schema_names_come_from_the_models() -> None:
    models = [ExtractedItems, *(f.annotation.__args__[0] for f in ExtractedItems.model_fields.values())]
    for model in models:
        assert model.__name__.casefold() in schema_names()
        for name in model.model_fields:
            assert name.replace("_", "") in schema_names()


def test_extract_stages_the_words_and_counts_the_junk(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                       capsys) -> None:
    answer = {k: GOOD.get(k, []) + JUNK.get(k, []) for k in ExtractedItems.model_fields}
    fake_llm.responder = lambda body: Reply(content=json.dumps(answer, ensure_ascii=False))
    write_jsonl(tmp_path / "s1.jsonl", conversation(6))
    capsys.readouterr()
    assert run(ws, paths=[tmp_path / "s1.jsonl"], as_json=True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["items_dropped"] == 5
    assert out["items"] == {"decisions": 1, "discussions": 0, "attempts": 0, "requests": 1}
    [file] = staged(ws)
    assert [d.title for d in file.items.decisions] == ["Index in SQLite"]
    assert [r.title for r in file.items.requests] == ["日本語で答える"]
    assert not file.items.discussions and not file.items.attempts

    write_jsonl(tmp_path / "s2.jsonl", conversation(6))
    assert run(ws, paths=[tmp_path / "s2.jsonl"]) == 0
    said = capsys.readouterr().out
    assert "items:    1 decision, 0 discussions, 0 attempts, 1 request; 5 dropped" in said


def test_an_answer_of_junk_alone_stages_nothing(fake_llm: FakeLLM, ws: Workspace, tmp_path: Path,
                                                capsys) -> None:
    fake_llm.responder = lambda body: Reply(content=json.dumps(JUNK))
    write_jsonl(tmp_path / "s1.jsonl", conversation(6))
    capsys.readouterr()
    assert run(ws, paths=[tmp_path / "s1.jsonl"], as_json=True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["items_dropped"] == 5 and out["chunks_done"] == 1
    assert staged(ws) == []
    assert run(ws, paths=[tmp_path / "s1.jsonl"]) == 0 and fake_llm.calls == 1  # the span is known

