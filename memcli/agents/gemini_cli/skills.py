"""Gemini CLI's Agent Skills dialect, checked against 0.61.0 (its bundle's skillLoader, and runs
against a scripted model: tests/e2e/test_skills.py).

It reads `.gemini/skills/<name>/SKILL.md` and the `.agents/skills/` alias in the project (the alias
wins on a shared name), and `~/.gemini/skills/`, `~/.agents/skills/` at home; memcli writes the
alias, which Codex reads too. Only `name` and
`description` are read: it has no way to keep a skill to explicit use, so a record with
`model_invocation: false` is not written for it. Its system prompt lists every skill with its
whole description (no cap: 200 skills were all listed). The model activates one with
`activate_skill`, which asks the user first; a headless run (`gemini -p`) has no such tool and
reads the SKILL.md with `read_file`, which refuses a git-ignored file (docs/skills.md).
"""

from __future__ import annotations

from memcli.agents.parts import SkillDialect


def fields(model: bool, user: bool) -> dict[str, object] | None:
    return {} if model else None  # user_invocable: it has no menu to hide a skill from


DIALECT = SkillDialect(fields)
