"""OpenCode's Agent Skills dialect, checked against 1.18.33 (the JavaScript its binary embeds:
the skill discovery, the `skill` tool and the system prompt's skill section; and runs against a
scripted model: tests/e2e/test_skills.py).

It reads `.agents/skills/**/SKILL.md` and `.claude/skills/**/SKILL.md` in every folder from the one
it starts in up to the worktree's root, and `skills/` or `skill/` in each of its config folders
(`.opencode/`; `~/.config/opencode/`); at home `~/.agents/skills/` and `~/.claude/skills/`
(`OPENCODE_DISABLE_CLAUDE_CODE_SKILLS=1` turns the `.claude` ones off,
`OPENCODE_DISABLE_EXTERNAL_SKILLS=1` both). It reads them all at once and keeps, of a shared name,
whichever it finished reading last: no folder wins for sure. memcli writes `.agents/skills`, which
Codex, Gemini CLI and Pi read too.

It reads `name` (required) and `description` only: a skill cannot be kept to explicit use in its
SKILL.md (its `permission.skill` rules in opencode.json are the user's way), so a record with
`model_invocation: false` is not written for it; every skill is also the user's `/<name>` command.

Its system prompt lists every skill with a description, by name, whole, with the SKILL.md's path:
no cap (200 were all listed). The model activates one with its `skill` tool, which answers with the
body and a sample of the skill folder's files, listed with ripgrep (`rg` on PATH, else it downloads
it).
"""

from __future__ import annotations

from memcli.agents.parts import SkillDialect


def fields(model: bool, user: bool) -> dict[str, object] | None:
    return {} if model else None


DIALECT = SkillDialect(fields)
