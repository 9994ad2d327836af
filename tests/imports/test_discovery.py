"""Where each kind of document is found for a workspace, and the ids that name them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from imports.helpers import World, git

from memcli.agents.documents.discovery import DocumentRefused, classify, discover, kind_of, name, resolve
from memcli.config import SessionsConfig

CONFIG = SessionsConfig()


@pytest.mark.parametrize("rel, kind", [
    ("CLAUDE.md", "claude-md"), (".claude/CLAUDE.md", "claude-md"), ("CLAUDE.local.md", "claude-md"),
    (".claude/rules/frontend/react.md", "claude-md"), ("apps/web/CLAUDE.md", "claude-md"),
    ("AGENTS.md", "agents-md"), ("services/api/AGENTS.md", "agents-md"), ("AGENTS.override.md", "agents-md"),
    (".claude/AGENTS.md", "agents-md"), ("GEMINI.md", "gemini-md"), ("docs/GEMINI.md", "gemini-md"),
    ("memory-bank/progress.md", "cline-memory-bank"), (".cursor/rules/a.mdc", "cursor-rules"),
    (".cursor/rules/sub/b.md", "cursor-rules"), ("web/.cursor/rules/c.mdc", "cursor-rules"),
    (".cursorrules", "cursor-rules"), (".windsurf/rules/a.md", "windsurf-rules"),
    (".windsurfrules", "windsurf-rules"),
    (".github/copilot-instructions.md", "copilot-instructions"),
    (".github/instructions/api/x.instructions.md", "copilot-instructions"),
    ("README.md", None), ("docs/memory-bank/x.md", None), (".github/instructions/x.md", None),
    (".github/prompts/release.prompt.md", None), (".cursor/rules/notes.txt", None),
])
def test_classify(rel: str, kind: str | None) -> None:
    assert classify(rel) == kind


def test_discovery_finds_every_kind_in_its_place(world: World) -> None:
    found = {f.id: f for f in discover(world.root, CONFIG)}
    assert {f.kind for f in found.values()} == {
        "claude-md", "agents-md", "gemini-md", "claude-memory", "gemini-memory", "codex-memory",
        "cline-memory-bank", "cursor-rules", "windsurf-rules", "copilot-instructions"}
    assert "claude-md/CLAUDE.local.md" in found  # git-ignored on purpose, found all the same
    assert "agents-md/services/orders/AGENTS.md" in found and "claude-md/.claude/rules/api.md" in found
    assert found["claude-memory/team/ci.md"].path == world.claude_memory / "team" / "ci.md"
    assert found["gemini-memory/local-db.md"].path == world.gemini_memory / "local-db.md"
    assert [i for i in found if i.startswith("codex-memory/")] == ["codex-memory/MEMORY.md"]
    assert not any(i.startswith("markdown/") or "docs/release" in i for i in found)
    for doc in found.values():  # an id names its file again, on this machine or on a clone
        assert resolve(doc.id, world.root, CONFIG, {str(doc.path)}) == doc
    only = discover(world.root, CONFIG, ["windsurf-rules"])
    assert {f.id.removeprefix("windsurf-rules/") for f in only} == {
        ".windsurfrules", ".windsurf/rules/general.md", ".windsurf/rules/perf.md",
        ".windsurf/rules/styles.md"}


def test_ignored_and_dependency_folders_are_not_looked_in(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for rel in ("AGENTS.md", "node_modules/pkg/AGENTS.md", ".venv/lib/CLAUDE.md", "build/AGENTS.md",
                ".cursor/rules/a.mdc", "vendor/x/GEMINI.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("- x\n", encoding="utf-8")
    kinds = ["agents-md", "claude-md", "gemini-md", "cursor-rules"]
    walked = sorted(f.id for f in discover(root, CONFIG, kinds))
    assert walked == ["agents-md/AGENTS.md", "cursor-rules/.cursor/rules/a.mdc"]  # no git: a pruned walk
    git(root, "init", "-q")
    (root / ".gitignore").write_text("/.cursor/\n", encoding="utf-8")
    in_git = sorted(f.id for f in discover(root, CONFIG, kinds))
    assert "cursor-rules/.cursor/rules/a.mdc" not in in_git and "agents-md/AGENTS.md" in in_git  # git's view


def test_claude_memory_follows_the_git_root_and_the_users_setting(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    root = repo / "app"
    root.mkdir(parents=True)
    git(repo, "init", "-q")
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    keyed = claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo)) / "memory"  # worktrees share it
    keyed.mkdir(parents=True)
    (keyed / "MEMORY.md").write_text("- Use pnpm.\n", encoding="utf-8")
    assert [f.path for f in discover(root, CONFIG, ["claude-memory"])] == [keyed / "MEMORY.md"]
    custom = tmp_path / "my-memory"
    custom.mkdir()
    (custom / "MEMORY.md").write_text("- Use bun.\n", encoding="utf-8")
    (claude / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(custom)}), encoding="utf-8")
    assert [f.path for f in discover(root, CONFIG, ["claude-memory"])][0] == custom / "MEMORY.md"


def test_a_file_named_by_path_gets_its_kind_and_id(world: World, tmp_path: Path) -> None:
    notes = world.root / "docs" / "release.md"
    kind = kind_of(notes, world.root, CONFIG)
    assert name(kind, notes, world.root, CONFIG).id == "markdown/docs/release.md"
    topic = world.claude_memory / "feedback_testing.md"
    assert kind_of(topic, world.root, CONFIG) == "claude-memory"
    assert name("claude-memory", topic, world.root, CONFIG).id == "claude-memory/feedback_testing.md"
    home = Path.home() / "notes" / "team.md"
    home.parent.mkdir(parents=True)
    home.write_text("- x\n", encoding="utf-8")
    found = name("markdown", home, world.root, CONFIG)
    assert found.id == "markdown/~/notes/team.md"
    with pytest.raises(DocumentRefused, match="outside the workspace"):  # named, never shown again
        resolve(found.id, world.root, CONFIG, {str(home)})
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("- x\n", encoding="utf-8")
    found = name("markdown", elsewhere, world.root, CONFIG)
    assert found.id == f"markdown/{elsewhere}"
    with pytest.raises(DocumentRefused, match="outside the workspace"):
        resolve(found.id, world.root, CONFIG, {str(elsewhere)})
    assert resolve("markdown/no/such.md", world.root, CONFIG, set()) is None
    assert resolve("0b8f9fe4-0dd1-41e4-a2b5-a05a4579fd35", world.root, CONFIG, set()) is None
