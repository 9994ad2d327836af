"""A skill a person wrote is a project doc to consolidation; one memcli wrote is the memory itself."""

from __future__ import annotations

from pathlib import Path

from skills.kit import knowledge, run_sync

from memcli.tools.docs import project_docs


def test_a_persons_skill_is_listed_and_read_a_generated_one_is_neither(ws: Path) -> None:
    knowledge(ws, "from-memory", "A fact from memory.")
    run_sync(ws, "claude-code")
    mine = ws / ".claude/skills/review/SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: review\ndescription: Our review checklist.\n---\nCheck the tests.\n",
                    encoding="utf-8")
    listed = [f["path"] for f in project_docs(ws).data["files"]]
    assert listed == [".claude/skills/review/SKILL.md"]
    read = project_docs(ws, ".claude/skills/review/SKILL.md")
    assert read.ok and "Check the tests." in read.data["content"]
    refused = project_docs(ws, ".claude/skills/from-memory/SKILL.md")
    assert not refused.ok
    assert not project_docs(ws, ".claude/skills/review/other.md").ok  # only SKILL.md
