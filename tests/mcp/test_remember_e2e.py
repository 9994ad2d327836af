"""End to end: an agent's `memcli_remember` call in its transcript → `memcli extract` (scripted model
for the rest of the session) → a staging item whose Source is exactly that entry → `memcli
consolidate` (scripted worker) → one commit with a decision record citing that entry."""

from __future__ import annotations

import json

from consolidate.helpers import dispose_call, finish_call, head, init_repo, item_ids, sources_shown
from support.claude_transcript import SESSION, assistant_text, tool_result, tool_use, user, write_session
from support.cli import exit_code
from support.fake_llm import Reply, tool_call
from support.git import git
from support.pipeline import pipeline_config

from memcli.extract.remember import MODEL
from memcli.lint import lint
from memcli.mcpserver import tools
from memcli.staging import StagingFile
from memcli.workspace import Workspace

RECORD = "memory/decisions/keep-search-index-in-sqlite.md"
REMEMBER = {"kind": "decision", "text": "Keep the search index in SQLite, next to the data.",
            "why": "one file to back up, no server"}
CONFIG = pipeline_config()


class Worker:
    """Extract calls find nothing else in the session; the consolidation worker files the staged
    decision once, citing the Source the integration message showed it, disposes of the item as
    integrated into that record and finishes each phase."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, int, int]] = []
        self.ids: list[str] = []
        self.extract_prompts: list[str] = []

    def __call__(self, body: dict) -> Reply:
        if "tools" not in body:
            self.extract_prompts.append(body["messages"][-1]["content"])
            return Reply(content=json.dumps({"decisions": [], "discussions": [], "attempts": [],
                                             "requests": []}))
        last = body["messages"][-1]
        if last["role"] == "user" and "Phase 1 of 2: integration" in last["content"]:
            self.shown, self.ids = sources_shown(last["content"]), item_ids(last["content"])
            # the remembered item's Source: the tools refuse any Source this run was not given
            session, a, b = next(s for s in self.shown if s == (SESSION, 1, 1))
            content = ("---\ncreated_at: 2026-05-20T10:00:00+00:00\nupdated_at: 2026-05-20T10:00:00+00:00\n"
                       f"status: resolved\nsources:\n  - session_id: {session}\n    range: [{a}, {b}]\n---\n"
                       f"{REMEMBER['text']}\n\nWhy: {REMEMBER['why']}.\n")
            return Reply(tool_calls=[tool_call("memory_write", {
                "path": RECORD, "mode": "create", "content": content,
                "reason": "new decision the agent asked to remember"})])
        if self.ids:
            ids, self.ids = self.ids, []
            return Reply(tool_calls=[dispose_call(ids, "integrated", [RECORD], "the remembered decision"),
                                     finish_call()])
        return Reply(tool_calls=[finish_call()])


def test_remember_call_to_a_committed_record(example_ws, fake_llm, tmp_path, monkeypatch, capsys):
    (example_ws / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    root = init_repo(example_ws)
    home = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    ack = tools.remember(**REMEMBER).text  # what `memcli mcp` answered the agent
    write_session(home, root, [
        ("user", user("Let's keep the search index in SQLite next to the data. Remember this.")),
        ("assistant", tool_use("mcp__memcli__memcli_remember", REMEMBER, "toolu_01", "msg_01")),
        ("user", tool_result("toolu_01", ack)),
        ("assistant", assistant_text("Noted; it goes through review before it becomes a record.", "msg_02")),
    ])
    worker = Worker()
    fake_llm.responder = worker
    start = head(root)

    assert exit_code("extract", "-w", str(root)) == 0  # discovers the session in CLAUDE_CONFIG_DIR
    files = (root / "memory/_staging").glob("*.json")
    staged = [StagingFile.model_validate_json(p.read_bytes()) for p in files]
    (mine,) = [s for s in staged if s.model == MODEL]
    assert mine.source.session_id == SESSION and mine.source.range == (1, 1)  # the call's own entry
    assert mine.items.decisions[0].decision == REMEMBER["text"]
    assert len(worker.extract_prompts) == 1 and "memcli_remember" not in worker.extract_prompts[0]

    capsys.readouterr()
    assert exit_code("source", f"{SESSION}:1-1", "-w", str(root)) == 0
    assert "mcp__memcli__memcli_remember" in capsys.readouterr().out  # the Source shows the call itself

    assert exit_code("consolidate", "-w", str(root)) == 0
    assert (SESSION, 1, 1) in worker.shown  # the integration input carried exactly that Source
    assert git(root, "rev-list", "--count", f"{start}..HEAD").strip() == "1"
    text = (root / RECORD).read_text(encoding="utf-8")
    assert f"session_id: {SESSION}\n    range: [1, 1]" in text and REMEMBER["text"] in text
    assert not list((root / "memory/_staging").glob("*.json"))  # consumed
    assert [f for f in lint(Workspace.open(root)) if f.is_error] == []

    assert exit_code("extract", "-w", str(root)) == 0  # nothing new: no second staging item, no model call
    assert not list((root / "memory/_staging").glob("*.json")) and len(worker.extract_prompts) == 1
