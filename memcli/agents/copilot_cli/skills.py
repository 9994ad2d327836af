"""GitHub Copilot CLI's Agent Skills dialect, checked against 1.0.102 (`copilot skill list`, and runs
against a scripted model: tests/e2e/test_skills.py; its skills code is native, not in its bundle).

It reads `.github/skills/<name>/SKILL.md`, `.agents/skills/` and `.claude/skills/` in the project
(on a shared name that order wins, and the project's over the user's) and `~/.copilot/skills/`,
`~/.agents/skills/` at home. It reads Claude Code's fields: `disable-model-invocation: true` keeps a
skill out of the model's listing and its `skill` tool answers "not found" (the user's `/name` still
runs it); `user-invocable: false` takes `/name` away. It refuses a description over 1 024 characters
and a SKILL.md without frontmatter.

Its listing, in the system prompt, is `<available_skills>`: the project's skills in name order, then
the user's, then its own, each an XML entry with the whole description. Entries are added while
their characters fit a budget, `SKILL_CHAR_BUDGET` (15 000 by default); from the first that does
not, the rest are named in one line, "Additional skills available (invoke by name): …".
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from memcli.agents.parts import (
    Listed,
    Listing,
    SkillDialect,
    claude_fields,
    env_budget,
    folder_skills,
    skill_stamps,
)

BUDGET_CHARS = 15_000  # 1.0.102's default, measured: entries up to exactly this many characters
ENTITIES = {"'": "&apos;", '"': "&quot;"}  # besides &, < and >


def _budget() -> int:
    return env_budget("SKILL_CHAR_BUDGET", BUDGET_CHARS)


def _folders(root: Path) -> tuple[Path, Path, Path]:
    """The project's skill folders, the first winning a shared name (the user's come after them all)."""
    return root / ".github" / "skills", root / ".agents" / "skills", root / ".claude" / "skills"


def inputs(root: Path) -> str:
    return f"{_budget()}\n{skill_stamps(_folders(root))}"


def entry(skill: Listed) -> str:
    """A skill as its `<available_skills>` shows it."""
    return (f"<skill>\n  <name>{escape(skill.name, ENTITIES)}</name>\n"
            f"  <description>{escape(skill.description, ENTITIES)}</description>\n"
            "  <location>project</location>\n</skill>\n")


def listing(skills: list[Listed], root: Path) -> Listing:
    """The project's skills it shows the model, memcli's and a person's, one per name by folder
    order; whole while the entries fit the budget, by name from the first that does not. A name a
    person's skill takes in a folder it reads first is not memcli's skill: that one is not shown."""
    budget = _budget()
    rule = f"entries within {budget:,} characters (`SKILL_CHAR_BUDGET`)"
    shown: dict[str, tuple[Listed, bool]] = {}
    for folder in _folders(root):
        mine = [s for s in skills if s.path.parent.parent == folder]
        for skill, is_ours in [(s, True) for s in mine] + [
                (s, False) for s in folder_skills(folder, {s.path for s in mine})]:
            shown.setdefault(skill.name, (skill, is_ours))
    names = {s.name for s in skills}
    omitted = tuple(sorted(n for n in names if n in shown and not shown[n][1]))
    room, bare, whole = budget, [], True
    for name in sorted(shown):
        skill, is_ours = shown[name]
        if skill.no_model:
            continue
        whole = whole and len(entry(skill)) <= room
        room -= len(entry(skill)) if whole else 0
        if is_ours and not whole:
            bare.append(name)
    return Listing(bare=tuple(bare), omitted=omitted, rule=rule)


DIALECT = SkillDialect(claude_fields, listing=listing, inputs=inputs)
