"""Which blocks of a file each kind imports, in what scope, and what it says it left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from memcli.agents import documents, registry
from memcli.agents.documents.kinds import KINDS, Where, select
from memcli.agents.documents.markdown import parse


def _select(kind: str, rel: str, text: str, root: Path = Path("/ws")):
    doc = parse(text)
    chosen = select(kind, doc, Where(rel, root / rel, root))
    return chosen.scope, [b.start for b in chosen.blocks], list(chosen.left_out)


SCOPES = [
    ("cursor-rules", ".cursor/rules/a.mdc", "---\nalwaysApply: true\n---\n- x\n", "always applied"),
    ("cursor-rules", ".cursor/rules/a.mdc",
     "---\nglobs: src/**/*.ts, src/**/*.tsx\nalwaysApply: false\n---\n- x\n",
     "applies to files matching src/**/*.ts, src/**/*.tsx"),
    ("cursor-rules", ".cursor/rules/a.mdc", "---\ndescription: DB migrations\n---\n- x\n",
     "applied when the agent finds it relevant: DB migrations"),
    ("cursor-rules", ".cursor/rules/a.mdc", "---\ndescription:\nglobs:\nalwaysApply: false\n---\n- x\n",
     "applied only when mentioned by name"),
    ("cursor-rules", "web/.cursor/rules/a.mdc", "---\nalwaysApply: true\n---\n- x\n",
     "always applied; under web/"),
    ("cursor-rules", ".cursorrules", "- x\n", "always applied (legacy .cursorrules)"),
    ("windsurf-rules", ".windsurf/rules/a.md", "---\ntrigger: glob\nglobs: \"**/*.css\"\n---\n- x\n",
     "applies to files matching **/*.css"),
    ("windsurf-rules", ".windsurf/rules/a.md", "---\ntrigger: manual\n---\n- x\n",
     "applied only when mentioned by name"),
    ("windsurf-rules", ".windsurf/rules/a.md", "---\ntrigger: model_decision\ndescription: perf\n---\n- x\n",
     "applied when the agent finds it relevant: perf"),
    ("windsurf-rules", ".windsurfrules", "- x\n", "always applied"),
    ("copilot-instructions", ".github/instructions/t.instructions.md",
     "---\napplyTo: \"**/*.ts,**/*.tsx\"\n---\n- x\n", "applies to files matching **/*.ts, **/*.tsx"),
    ("copilot-instructions", ".github/copilot-instructions.md", "- x\n", "repository-wide"),
    ("claude-md", ".claude/rules/api.md", "---\npaths:\n  - \"api/**/*.ts\"\n---\n- x\n",
     "applies when working on files matching api/**/*.ts"),
    ("claude-md", "CLAUDE.md", "- x\n", ""),
    ("claude-md", ".claude/CLAUDE.md", "- x\n", ""),
    ("claude-md", "CLAUDE.local.md", "- x\n",
     "one developer's own notes for this project (CLAUDE.local.md is not shared)"),
    ("agents-md", "packages/api/AGENTS.md", "- x\n", "applies to work under packages/api/"),
    ("agents-md", "AGENTS.override.md", "- x\n", "overrides AGENTS.md for Codex"),
    ("cline-memory-bank", "memory-bank/techContext.md", "- x\n",
     "techContext.md: technologies, setup, constraints, dependencies"),
]


@pytest.mark.parametrize("kind, rel, text, scope", SCOPES, ids=[f"{k}:{r}:{i}" for i, (k, r, *_x) in
                                                                   enumerate(SCOPES)])
def test_scope_from_the_files_own_fields(kind: str, rel: str, text: str, scope: str) -> None:
    assert _select(kind, rel, text)[0] == scope


def test_headings_rules_and_comments_are_context_not_statements() -> None:
    text = "# Title\n\n<!-- generated -->\n\n- rule\n\n---\n\n```sh\nmake\n```\n"
    assert _select("agents-md", "AGENTS.md", text)[1] == [5, 9]


def test_claude_memory_skips_user_memories_and_index_pointers(tmp_path: Path) -> None:
    (tmp_path / "debugging.md").write_text("x", encoding="utf-8")
    index = "- [Debugging](debugging.md) — how to debug\n- [Gone](missing.md) — deleted file\n- Use pnpm.\n"
    scope, kept, left = _select("claude-memory", "MEMORY.md", index, tmp_path)
    assert kept == [2, 3]  # a pointer to a file that is not there is the only copy: kept
    assert left == ["line 1 points to debugging.md, imported on its own"]
    user = "---\nname: role\ndescription: who\nmetadata:\n  type: user\n---\nThe user is a data scientist.\n"
    assert _select("claude-memory", "role.md", user) == ("", [], [
        "a `type: user` memory (about the person, private): not imported"])
    older = "---\nname: tests\ndescription: real db\ntype: feedback\n---\nUse a real database.\n"
    assert _select("claude-memory", "tests.md", older)[:2] == ("memory 'tests'; type feedback; real db", [6])


def test_codex_keeps_this_projects_task_groups_without_their_routing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    text = (f"# Task Group: ours\nscope: x\napplies_to: cwd={root}/services; reuse_rule=ok\n\n"
            "## Task 1: t\n### rollout_summary_files\n- rollout_summaries/a.md (cwd=...)\n"
            "### keywords\n- a, b\n\n"
            "## Reusable knowledge\n- keep me\n\n"
            "# Task Group: theirs\nscope: y\napplies_to: cwd=/elsewhere; reuse_rule=no\n\n- not me\n")
    scope, kept, left = _select("codex-memory", "MEMORY.md", text, root)
    assert kept == [12] and left == ["1 task group(s) of other folders"]


def test_imports_are_named_not_followed(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "git.md").write_text("x", encoding="utf-8")
    text = ("- git workflow @docs/git.md\n- mail me at a@example.com\n- `@docs/git.md` in code\n\n"
            "```\n@docs/git.md\n```\n")
    assert _select("claude-md", "CLAUDE.md", text, tmp_path)[2] == [
        "line 1 imports @docs/git.md: not followed (pass it as a PATH to import it)"]


def test_the_declaration_names_exactly_the_kinds() -> None:
    assert documents.KINDS == tuple(KINDS)
    assert all(registry.get(k) is registry.DOCUMENTS for k in KINDS)
    assert documents.is_document_id("claude-md/CLAUDE.md") and not documents.is_document_id("5c0375b4-57a5")
    assert not documents.is_document_id("vscode/settings.md") and not documents.is_document_id("claude-md/")
