"""Pi's Agent Skills dialect, checked against 0.73.1 (its npm package: dist/core/skills.js,
dist/core/package-manager.js, docs/skills.md; and runs against a scripted model:
tests/e2e/test_skills.py).

It reads `.pi/skills/<name>/SKILL.md` in the folder it starts in and `.agents/skills/` there and in
every folder above it up to the git root; at home `<agent dir>/skills/` (`~/.pi/agent`,
`PI_CODING_AGENT_DIR` moves it) and `~/.agents/skills/`. On a shared name the first found wins:
`.pi/skills`, then `.agents/skills` nearest first, then the home's. memcli writes `.agents/skills`,
which Pi finds from any folder of the project and Codex, Gemini CLI and OpenCode read too.

`disable-model-invocation: true` keeps a skill out of the system prompt (the user's
`/skill:<name>` still runs it); nothing hides one from the user. It warns about a name that breaks
the grammar or differs from its folder's and loads the skill anyway; one without a description it
skips.

Its system prompt (when its `read` tool is on, the default) lists every other skill in the order
found, each with its whole description and the SKILL.md's path: no cap. The model reads the file
with `read`. It skips what an ignore file in a skills folder (`.gitignore`, `.ignore`, `.fdignore`)
matches, so the `.gitignore` memcli puts in each skill folder when skills are not committed
(`[skills] commit = false`) hides that skill from Pi: it is reported as left out.
"""

from __future__ import annotations

from pathlib import Path

from memcli.agents.parts import Listed, Listing, SkillDialect

IGNORE_FILES = frozenset({".gitignore", ".ignore", ".fdignore"})
RULE = "none, but it does not load a skill its folder's .gitignore hides ([skills] commit = false)"


def fields(model: bool, user: bool) -> dict[str, object]:
    return {} if model else {"disable-model-invocation": True}  # user_invocable: no way to say it


def listing(skills: list[Listed], root: Path) -> Listing:
    hidden = tuple(s.name for s in skills if IGNORE_FILES & set(s.files))
    return Listing(omitted=hidden, rule=RULE)


DIALECT = SkillDialect(fields, listing=listing)
