"""The context and search of a past moment, rebuilt on a scratch copy of the records."""

from __future__ import annotations

import pytest
from support.eval_workspace import knowledge, request, summary

from memcli.config import Config, ContextConfig
from memcli.eval.reach import Scratch, without_anchors
from memcli.records import parse_record
from memcli.workspace import Kind, Workspace

ANCHORED = ("---\ncreated_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\nsources:\n"
            "  - session_id: s1\n    range: [0, 0]\nanchors:\n  - src/app.py\n"
            "  - {path: src/db.py, symbol: run}\n"
            "---\nUse pnpm, not npm.\n")


@pytest.mark.parametrize(("data", "same"), [
    (ANCHORED, False),
    (request("No anchors here."), True),
    ("---\nanchors: [\n---\nbroken YAML\n", True),
    ("no frontmatter, anchors mentioned", True),
])
def test_anchors_are_dropped_from_the_scratch_copy(data: str, same: bool) -> None:
    out = without_anchors(data.encode())
    assert (out == data.encode()) is same
    if not same:
        rec = parse_record("memory/requests/x.md", out, Kind.REQUEST, "x")
        assert rec.ok and rec.model is not None and "anchors" not in rec.meta
        assert rec.body == "Use pnpm, not npm.\n"
        assert rec.meta["sources"] == [{"session_id": "s1", "range": [0, 0]}]


def test_one_commit_at_a_time(tmp_path) -> None:
    ws = Workspace(tmp_path, Config(context=ContextConfig(budget_tokens=200)))
    first = {"memory/summary.md": summary("Reply in Japanese.").encode(),
             "knowledge/pytest.md": knowledge("Tests are written with pytest", "Not unittest.").encode(),
             "memory/requests/deploys.md": request("Never deploy the billing service on Fridays.").encode()}
    with Scratch(ws) as scratch:
        scratch.show(first)
        context = scratch.context()
        assert "Reply in Japanese." in context.text and [e.slug for e in context.shown] == ["pytest"]
        assert [h.slug for h in scratch.search("billing service deploy")] == ["deploys"]
        scratch.show({"memory/requests/deploys.md": request("Deploy any day but Friday.").encode()})
        assert scratch.context().shown == () and "Reply in Japanese." not in scratch.context().text
        assert [h.path for h in scratch.search("friday")] == ["memory/requests/deploys.md"]
        assert not (scratch.root / "knowledge/pytest.md").exists()
        root = scratch.root
    assert not root.exists()


def test_the_workspace_budget_decides_what_was_resident(tmp_path) -> None:
    facts = "\n".join(f"- Fact number {i} about the project." for i in range(30))
    files = {"memory/summary.md": summary(facts),
             "knowledge/pytest.md": knowledge("Tests are written with pytest", "Not unittest.")}
    shown = {}
    for budget in (100, 5000):
        with Scratch(Workspace(tmp_path, Config(context=ContextConfig(budget_tokens=budget)))) as scratch:
            scratch.show({rel: text.encode() for rel, text in files.items()})
            shown[budget] = [e.slug for e in scratch.context().shown]
    assert shown == {100: [], 5000: ["pytest"]}
