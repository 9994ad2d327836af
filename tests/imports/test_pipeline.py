"""Imported items go the normal way: knowledge candidates, `memcli consolidate` (linted tools, trust
rules, one commit), then `memcli why` and `memcli source` trace a record back to the file's lines."""

from __future__ import annotations

import json
import re

from consolidate.helpers import dispose_call, finish_call, head, item_ids, sources_shown
from imports.helpers import World, echo_blocks, git, staged
from support.cli import run as cli
from support.fake_llm import FakeLLM, Reply, tool_call

from memcli.imports.run import run
from memcli.lint import lint
from memcli.metrics import candidate_report

RECORD = "knowledge/japanese-commit-messages.md"
COMMITS = ("agents-md/AGENTS.md", 15, 15)  # コミットメッセージは日本語で…


def test_imported_items_are_knowledge_candidates(world: World, fake_llm: FakeLLM) -> None:
    fake_llm.responder = echo_blocks
    assert run(world.ws, kind="agents-md") == 0
    report = candidate_report(world.ws)
    imported = [c for c in report.candidates if c.kind == "imported"]
    assert len(imported) == len(staged(world.root)) == 7  # one per staging file: one per block here
    assert report.allows(*COMMITS)
    assert not report.allows("agents-md/AGENTS.md", 14, 15)  # only the lines staged, not around them
    assert {s for c in imported for s, _a, _b in c.sources} == {"agents-md/AGENTS.md",
                                                                "agents-md/services/orders/AGENTS.md"}


class Consolidator:
    """Plays the consolidation model: makes one knowledge rule from the imported Source of the
    commit-message convention, says every other item is dropped, finishes both phases."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.integrated: str | None = None

    def __call__(self, body: dict) -> Reply:
        if "tools" not in body:
            return echo_blocks(body)
        last = body["messages"][-1]
        if last["role"] == "user" and "Phase 1 of 2: integration" in last["content"]:
            self.ids = item_ids(last["content"])
            assert COMMITS in sources_shown(last["content"])
            self.integrated = re.search(r'"id": "(i\d+)"[^}]*コミットメッセージ', last["content"]).group(1)
            content = ("---\ncreated_at: 2026-05-20T10:00:00+09:00\nupdated_at: 2026-05-20T10:00:00+09:00\n"
                       "kind: rule\ndescription: コミットメッセージの書き方; コミットするときに使う\n"
                       "model_invocation: false\nuser_invocable: true\nlast_sources:\n"
                       '  - session_id: "agents-md/AGENTS.md"\n    range: [15, 15]\n---\n'
                       "コミットメッセージは日本語で、Conventional Commits の形式にする"
                       "（例: `feat: カートに数量変更を追加`）。\n")
            return Reply(tool_calls=[tool_call("memory_write", {
                "path": RECORD, "mode": "create", "content": content,
                "reason": "the team's commit-message rule, imported from AGENTS.md"})])
        if self.ids:
            ids, self.ids = self.ids, []
            rest = [i for i in ids if i != self.integrated]
            return Reply(tool_calls=[dispose_call([self.integrated], "integrated", [RECORD], "the rule"),
                                     dispose_call(rest, "dropped", None, "restates the project's tooling"),
                                     finish_call()])
        return Reply(tool_calls=[finish_call()])


def test_import_then_consolidate_commits_a_record_that_traces_back_to_the_file(
        world: World, fake_llm: FakeLLM, capsys) -> None:
    fake_llm.responder = Consolidator()
    agents_md = (world.root / "AGENTS.md").read_bytes()
    start = head(world.root)
    assert run(world.ws, kind="agents-md") == 0
    code, _out, err = cli(capsys, "consolidate", "-w", str(world.root))
    assert code == 0, err
    assert git(world.root, "rev-list", "--count", f"{start}..HEAD").strip() == "1"
    assert f"added {RECORD}" in git(world.root, "log", "-1", "--format=%B")
    assert [f for f in lint(world.ws) if f.is_error] == []
    assert (world.root / "AGENTS.md").read_bytes() == agents_md  # the instruction file stays as it was
    assert not staged(world.root)

    code, out, _err = cli(capsys, "why", RECORD, "-w", str(world.root), "--json")
    story = json.loads(out)
    [source] = story["sources"]
    assert source["found"] and source["agent"] == "agents-md" and source["roles"] == ["user"]
    assert "コミットメッセージは日本語で" in source["excerpt"] and source["excerpt"].startswith("[15] user")
    [staging_item] = story["history"][0]["staging"]  # the staging file it came from, by its span
    assert staging_item.startswith("agents-md-AGENTS-md-15-15-")
    code, out, _err = cli(capsys, "source", "agents-md/AGENTS.md:15-15", "-w", str(world.root))
    assert code == 0 and "── agents-md/AGENTS.md:15-15 · agents-md ·" in out and "Conventional Commits" in out

    # the file is edited after the import: `why` says where the imported text went, or that it changed
    agents = world.root / "AGENTS.md"
    agents.write_text("<!-- 更新: 2026-06 -->\n\n" + agents_md.decode("utf-8"), encoding="utf-8")
    story = json.loads(cli(capsys, "why", RECORD, "-w", str(world.root), "--json")[1])
    assert story["sources"][0]["note"] == "the file changed since the import: that text is now at line(s) 17"
    agents.write_text(agents_md.decode("utf-8").replace("日本語で", "英語で"), encoding="utf-8")
    code, out, _err = cli(capsys, "why", RECORD, "-w", str(world.root))
    assert "note: the file changed since the import (20" in out and "no longer say what was imported" in out


def test_the_mcp_source_tool_shows_a_documents_lines(world: World, fake_llm: FakeLLM) -> None:
    """An agent checking a record's Source over MCP reads the file's block, as `memcli source` does
    (of a file `memcli import` read: tests/adversarial/test_secure_sources.py has the refusals)."""
    import os
    import sys

    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "memcli", "mcp"], cwd=str(world.root),
                                   env=dict(os.environ))

    async def call(arguments: dict) -> tuple[bool, str]:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    done = await client.call_tool("memcli_source", arguments)
                    return done.is_error, "\n".join(c.text for c in done.content if c.type == "text")

    fake_llm.responder = echo_blocks
    assert run(world.ws, kind="agents-md") == 0
    error, text = anyio.run(call, {"session": "agents-md/AGENTS.md", "start": 15, "end": 16})
    assert not error and "session agents-md/AGENTS.md (agents-md), entries 15-16:" in text
    assert "[15] user\n  - コミットメッセージは日本語で" in text and "[16] user\n  - 1 つの PR には" in text
    assert "開発環境" not in text and "Node.js 22" not in text  # only the lines asked for
    error, text = anyio.run(call, {"session": "agents-md/NOT-THERE.md", "start": 1, "end": 1})
    assert error and "no document 'agents-md/NOT-THERE.md' on this machine" in text
