"""Claude Code's Agent Skills dialect, checked against 2.1.332 (its bundle, and runs against a
scripted model: tests/e2e/test_skills.py).

It reads `.claude/skills/<name>/SKILL.md` in the project and `~/.claude/skills/` (a personal skill
of the same name wins). `disable-model-invocation: true` keeps a skill out of the model's listing
(only the user's `/name` runs it); `user-invocable: false` keeps it out of the `/` menu.

Its listing (a system reminder in the first request) names every skill; descriptions are kept
while the whole listing fits its budget, 1% of the model's context window at about 3-4 characters
per token (`SLASH_COMMAND_TOOL_CHAR_BUDGET` overrides it); past it, the skills it ranks lowest are
listed by name only. Its own skills take part of that budget and are always shown whole. With
2.1.332's default model the budget was 30 000 characters, about 5 850 of them its own: memcli's
estimate below. A description longer than 1 536 characters is cut in the listing.
"""

from __future__ import annotations

from pathlib import Path

from memcli.agents.parts import (
    Listed,
    Listing,
    SkillDialect,
    claude_fields,
    env_budget,
    folder_skills,
    skill_stamps,
)

BUDGET_CHARS = 30_000  # 2.1.332, its default model (measured; 1% of its window)
OWN_CHARS = 5_850  # of which its own skills' entries (measured on 2.1.332: 14 of them)
MAX_DESCRIPTION = 1_536  # `skillListingMaxDescChars`


def _budget() -> int:
    return env_budget("SLASH_COMMAND_TOOL_CHAR_BUDGET", BUDGET_CHARS)


def _folders(root: Path) -> tuple[Path, Path]:
    """The project's skills folder and the user's (whose skills it lists too)."""
    return root / ".claude" / "skills", Path.home() / ".claude" / "skills"


def inputs(root: Path) -> str:
    return f"{_budget()}\n{skill_stamps(_folders(root))}"


def listing(skills: list[Listed], root: Path) -> Listing:
    """Its priority mode, as if every skill ranked the same (its ranks come from the user's own
    use of them): all named, descriptions kept in name order while they fit. The other skills in
    its folders (a person's, the project's and the user's) share the budget."""
    budget = _budget()
    rule = f"descriptions within 1% of the model's context window (memcli assumes {budget:,} characters)"
    ours = {s.path for s in skills}
    names = {s.name for s in skills}
    project, user = _folders(root)
    others = [s for s in folder_skills(project, ours) + folder_skills(user)
              if s.name not in names and not s.no_model]  # one kept to explicit use is not listed
    ordered = sorted([*skills, *others], key=lambda s: s.name)
    full = [len(f"- {s.name}: {s.description[:MAX_DESCRIPTION]}") for s in ordered]
    bare = [len(f"- {s.name}") for s in ordered]
    if OWN_CHARS + sum(full) + len(full) <= budget:
        return Listing(rule=rule)
    room = budget - OWN_CHARS - sum(bare) - len(bare)
    named = []
    for skill, whole, short in zip(ordered, full, bare, strict=True):
        if whole - short <= room:
            room -= whole - short
        elif skill.name in names:
            named.append(skill.name)
    return Listing(bare=tuple(named), rule=rule)


DIALECT = SkillDialect(claude_fields, listing=listing, inputs=inputs)
