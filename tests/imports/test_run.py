"""`memcli import` end to end: every kind of document, litellm over HTTP to the scripted model."""

from __future__ import annotations

import json
import re
from pathlib import Path

from imports.helpers import World, blocks_sent, echo_blocks, file_lines, plain, staged
from support.cli import run as cli
from support.fake_llm import FakeLLM, Reply

from memcli.agents.documents import KINDS
from memcli.agents.documents.discovery import resolve
from memcli.agents.documents.ledger import LEDGER, Ledger
from memcli.imports import prompt
from memcli.imports.run import run


def _folded(text: str) -> str:
    return " ".join(text.split())


def _sources(world: World) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for f in staged(world.root):
        out.setdefault(f.source.session_id, []).append(f.source.range)
    return {k: sorted(v) for k, v in out.items()}


def test_every_kind_is_staged_citing_exactly_the_lines_it_came_from(world: World, fake_llm: FakeLLM) -> None:
    fake_llm.responder = echo_blocks
    assert run(world.ws) == 0
    files = staged(world.root)
    assert {f.agent for f in files} == set(KINDS) - {"markdown"}
    config = world.ws.config.sessions
    ledger = Ledger.open(world.ws.state_dir)
    for f in files:  # each id names the file the import read again (its ledger), nothing else
        found = resolve(f.source.session_id, world.root, config, ledger.paths(f.source.session_id))
        assert found is not None and found.kind == f.agent
        a, b = f.source.range
        written = _folded(plain(file_lines(found.path, a, b)))
        assert f.items.requests and all(_folded(r.request) in written for r in f.items.requests), f.source
        assert f.prompt_version == prompt.version() and f.model.endswith("fake-model")
        author = "agent" if f.agent.endswith(("memory", "memory-bank")) else "user"
        assert [tuple(r) for r in f.provenance.roles] == [(a, b, author)]
    sources = _sources(world)
    # one block, one item, one staging file: Sources are the blocks' own lines (1-based, as an editor)
    assert sources["agents-md/AGENTS.md"] == [(5, 5), (6, 6), (10, 10), (11, 11), (15, 15), (16, 16)]
    assert sources["claude-md/CLAUDE.md"] == [(3, 3), (7, 7), (8, 8), (9, 9), (13, 15), (19, 19), (20, 20),
                                                (22, 22)]
    assert sources["claude-memory/feedback_testing.md"] == [(7, 7), (9, 9), (11, 11)]
    # what is deliberately not imported
    assert "claude-memory/user_role.md" not in sources  # `type: user`: about the person
    assert sources["claude-memory/MEMORY.md"] == [(4, 4)]  # its pointer lines are the topic files
    assert sources["gemini-memory/MEMORY.md"] == [(3, 3)]
    assert sources["codex-memory/MEMORY.md"] == [(12, 12), (15, 15)]  # this project's group, no routing
    sent = json.dumps(fake_llm.requests, ensure_ascii=False)
    assert "zfunc" not in sent and "rollout_summaries" not in sent  # another project's; Codex's routing
    assert "Tag and push." not in sent  # docs/release.md, named by CLAUDE.md's `@docs/release.md`
    # each request shows the file's scope inside the fenced data
    assert "--- scope: applies to files matching **/*.ts, **/*.tsx" in sent
    assert "--- scope: applies to work under services/orders/" in sent


def test_a_second_run_stages_nothing_and_calls_nothing(world: World, fake_llm: FakeLLM, capsys) -> None:
    fake_llm.responder = echo_blocks
    assert run(world.ws, as_json=True) == 0
    first = {d["source"]: len(d["new"]) for d in json.loads(capsys.readouterr().out)["documents"]}
    calls, before = fake_llm.calls, sorted(p.name for p in (world.root / "memory/_staging").iterdir())
    assert run(world.ws, as_json=True) == 0
    summary = json.loads(capsys.readouterr().out)
    assert fake_llm.calls == calls and summary["chunks"] == 0 and summary["staging_files"] == 0
    assert sorted(p.name for p in (world.root / "memory/_staging").iterdir()) == before
    # every block sent the first time is known as imported now, and none is new
    assert {d["source"]: d["imported"] for d in summary["documents"]} == first
    assert not any(d["new"] for d in summary["documents"]) and sum(first.values()) > 50


def test_a_changed_block_stages_only_itself(world: World, fake_llm: FakeLLM) -> None:
    fake_llm.responder = echo_blocks
    assert run(world.ws) == 0
    before = {f.id for f in staged(world.root)}
    calls = fake_llm.calls
    agents = world.root / "AGENTS.md"
    lines = agents.read_text(encoding="utf-8").splitlines()
    lines[10] = "- E2E テスト（Playwright）は `pnpm e2e` で実行する。CI では並列 8 で動く。"
    # and blocks that only move (a line added above them) are not sent again
    agents.write_text("\n".join(["<!-- team conventions -->", "", *lines]) + "\n", encoding="utf-8")
    assert run(world.ws) == 0
    assert fake_llm.calls == calls + 1
    assert blocks_sent(fake_llm.requests[-1]) == [(13, 13, lines[10])]
    new = [f for f in staged(world.root) if f.id not in before]
    assert [(f.source.session_id, f.source.range) for f in new] == [("agents-md/AGENTS.md", (13, 13))]
    assert "並列 8" in new[0].items.requests[0].request


def test_dry_run_lists_what_and_from_where_and_writes_nothing(world: World, fake_llm: FakeLLM,
                                                               capsys) -> None:
    assert run(world.ws, dry_run=True) == 0
    out = capsys.readouterr().out
    assert fake_llm.calls == 0
    assert not (world.root / "memory/_staging").exists() and not (world.ws.state_dir / LEDGER).exists()
    assert "claude-md/CLAUDE.md · claude-md ·" in out
    assert "  + line 19: - Use pnpm, never npm or yarn: the lockfile is `pnpm-lock.yaml`." in out
    assert "  + lines 13-15: The storefront is a Next.js app" in out
    assert "left out: line 22 imports @docs/release.md: not followed" in out
    assert "left out: a `type: user` memory (about the person, private): not imported" in out
    assert "left out: 1 task group(s) of other folders" in out
    assert run(world.ws, dry_run=True, as_json=True) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["prompt_version"] == prompt.version()
    doc = next(d for d in data["documents"] if d["source"] == "cursor-rules/.cursor/rules/typescript.mdc")
    assert doc["scope"] == "applies to files matching **/*.ts, **/*.tsx"
    assert doc["new"] == [
        {"lines": [8, 8], "text": "- Never use `any`; use `unknown` and narrow it."},
        {"lines": [9, 9], "text": "- Export types from the module that owns them; no barrel files."}]
    assert all(c["messages"][0]["content"] == prompt.load("system") for c in data["chunks"])
    assert f"\n{len(data['chunks'])} model call(s), ~" in out  # one per file here: all are small


def test_secrets_are_redacted_before_sending_and_in_what_is_staged(world: World, fake_llm: FakeLLM,
                                                                     capsys) -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8" * 3
    claude = world.root / "CLAUDE.md"
    claude.write_text(claude.read_text(encoding="utf-8") + f"\n- The staging OpenAI key is {key}\n",
                      encoding="utf-8")
    fake_llm.responder = echo_blocks
    assert run(world.ws, as_json=True) == 0
    assert json.loads(capsys.readouterr().out)["redactions"] == 1
    assert key not in json.dumps(fake_llm.requests)
    assert not any(key in p.read_text(encoding="utf-8") for p in (world.root / "memory/_staging").iterdir())
    code, out, _err = cli(capsys, "source", "claude-md/CLAUDE.md:24", "-w", str(world.root))
    assert code == 0 and "[REDACTED:" in out and key not in out


def test_the_files_themselves_are_never_written(world: World, fake_llm: FakeLLM) -> None:
    fake_llm.responder = echo_blocks
    roots = [world.root, world.claude_memory, world.codex_memories, world.gemini_memory]
    def snapshot() -> dict[Path, bytes]:
        return {p: p.read_bytes() for r in roots for p in sorted(r.rglob("*"))
                if p.is_file() and "memory/_staging" not in p.as_posix() and ".git/" not in p.as_posix()}
    before = snapshot()
    assert run(world.ws) == 0
    assert snapshot() == before


def test_from_limits_the_kinds_and_paths_name_files_and_folders(world: World, fake_llm: FakeLLM) -> None:
    fake_llm.responder = echo_blocks
    assert run(world.ws, kind="cursor-rules") == 0
    assert {f.agent for f in staged(world.root)} == {"cursor-rules"}
    notes = world.root / "docs" / "conventions.md"
    notes.write_text("# 規約\n\n- API のエラーは RFC 7807 で返す。\n", encoding="utf-8")
    assert run(world.ws, paths=[notes, world.root / "memory-bank"]) == 0
    sources = _sources(world)
    assert sources["markdown/docs/conventions.md"] == [(3, 3)]
    assert "cline-memory-bank/memory-bank/systemPatterns.md" in sources
    assert run(world.ws, paths=[notes], kind="agents-md") == 0  # read as another kind: another document
    assert _sources(world)["agents-md/docs/conventions.md"] == [(3, 3)]


def test_bad_input_is_a_one_line_error(world: World, capsys, fake_llm: FakeLLM) -> None:
    binary = world.root / "logo.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    cases = [(["import", str(binary)], "not a text file"),
             (["import", str(world.root / "missing.md")], "no such file or folder"),
             (["import", "--from", "vscode"], "unknown --from 'vscode'; use one of: claude-memory"),
             (["import", "--from", "markdown"], "give their PATHS")]
    for args, words in cases:
        code, out, err = cli(capsys, *args, "-w", str(world.root))
        assert code == 2 and out == "" and err.count("\n") == 1 and words in err, (args, err)
        assert err.startswith("Error: ") and "Traceback" not in err
    assert fake_llm.calls == 0 and not (world.root / "memory/_staging").exists()


def test_help_names_the_options(capsys) -> None:
    code, out, _err = cli(capsys, "import", "--help")
    assert code == 0
    out = re.sub(r"-\s+", "-", out)  # help text wraps after a hyphen
    for words in ("[PATHS]...", "--from KIND", "--dry-run", "--json", "claude-memory",
                  "copilot-instructions"):
        assert words in out, words


def test_a_failed_chunk_is_asked_again_next_time(world: World, fake_llm: FakeLLM) -> None:
    fake_llm.responder = lambda body: Reply(content='{"decisions": "not a list"}')
    assert run(world.ws, kind="windsurf-rules") == 1
    assert not (world.root / "memory/_staging").exists()
    calls = fake_llm.calls
    fake_llm.responder = echo_blocks
    assert run(world.ws, kind="windsurf-rules") == 0
    assert fake_llm.calls > calls and {f.agent for f in staged(world.root)} == {"windsurf-rules"}


def test_with_nothing_found_it_says_where_it_looked(tmp_path: Path, capsys) -> None:
    from memcli.workspace import Workspace

    root = tmp_path / "empty"
    (root / "memory").mkdir(parents=True)
    ws = Workspace.open(root)
    assert run(ws) == 0
    out = capsys.readouterr().out
    assert out.startswith("No memory or instruction files found for this workspace. Looked in:")
    assert f"{root} and its folders: CLAUDE.md" in out and ".github/instructions/" in out
    home = Path.home()
    claude = re.sub(r"[^A-Za-z0-9]", "-", str(root))
    assert f"~/.claude/projects/{claude}/memory/ (Claude Code auto memory)" in out
    assert "~/.codex/memories/ (Codex memories)" in out
    assert run(ws, as_json=True) == 0
    looked = json.loads(capsys.readouterr().out)["looked_in"]
    assert any(line.startswith(str(root)) for line in looked) and str(home) not in "".join(looked)
    assert run(ws, kind="codex-memory", dry_run=True) == 0
    assert capsys.readouterr().out.splitlines()[1:2] == ["  ~/.codex/memories/ (Codex memories)"]


def test_the_folders_it_says_it_looked_in_are_those_it_read(world: World, fake_llm: FakeLLM, capsys) -> None:
    from memcli.agents.documents.discovery import looked_in

    looked = "\n".join(looked_in(world.root, world.ws.config.sessions))
    home = Path.home()
    for folder in (world.claude_memory, world.codex_memories, world.gemini_memory):
        shown = f"~/{folder.relative_to(home).as_posix()}" if home in folder.parents else str(folder)
        assert f"{shown}/ (" in looked
