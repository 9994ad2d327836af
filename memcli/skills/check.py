"""What the agents reject in a SKILL.md: the Agent Skills rules (agentskills.io) as Claude Code
2.1.332, Codex CLI 0.171.0, Gemini CLI 0.61.0 and GitHub Copilot CLI 1.0.102 apply them.

- frontmatter: a `---` block at the top holding a YAML mapping (Codex and Copilot refuse the
  skill otherwise; Gemini CLI skips it);
- `name`: 1-64 characters of a-z, 0-9 and '-', not starting or ending with '-', no '--', the
  same as its folder's name (Gemini CLI skips a skill without a name);
- `description`: a non-empty string of at most 1 024 characters (Codex and Copilot refuse a
  longer one; Gemini CLI skips one without);
- `compatibility`, when given: at most 500 characters.

Pi 0.73.1 and OpenCode 1.18.33 reject less: Pi only warns about a name and skips a skill without
a description; OpenCode skips one without a `name`, or whose `name` or `description` is not text.

`memcli skills sync` never writes a skill that breaks these; the lint rule `skill-invalid`
reports one in a project's skill folders, whoever wrote it.
"""

from __future__ import annotations

from typing import Any

from memcli import plainyaml
from memcli.recordtext import decode, split
from memcli.slug import slug_problem

MAX_DESCRIPTION = 1_024
MAX_COMPATIBILITY = 500


def description_problem(description: Any) -> str | None:
    """Why a description cannot be a skill's, in words that follow "its description"."""
    if not isinstance(description, str):
        return "is not text"
    if not description.strip():
        return "is empty"
    if len(description) > MAX_DESCRIPTION:
        return (f"has {len(description):,} characters; agents take at most {MAX_DESCRIPTION:,} "
                "(Codex refuses the skill)")
    return None


def skill_problems(data: bytes, folder_name: str) -> list[tuple[int | None, str]]:
    """(line, what to fix) for each thing the agents reject in this SKILL.md."""
    import yaml  # here: the Linter loads this module; PyYAML only when a SKILL.md is read

    text, error, line = decode(data)
    if text is None:
        return [(line, f"{error}")]
    parts = split(text)
    if isinstance(parts, str):
        return [(1, parts.replace("a record", "a SKILL.md"))]
    front = parts[0]
    try:
        meta = plainyaml.load(front)
    except plainyaml.Refused as exc:
        return [(exc.line + 1, str(exc))]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return [(mark.line + 2 if mark else 1, f"the frontmatter is not valid YAML: {exc}".split("\n")[0])]
    if not isinstance(meta, dict):
        return [(2, "the frontmatter must be a mapping of fields (name: ..., description: ...)")]
    lines = {str(k): n for n, row in enumerate(front.split("\n"), 2) for k in [row.split(":", 1)[0]]}
    out: list[tuple[int | None, str]] = []
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        out.append((2, "`name` is missing; write the skill's name, the same as its folder's"))
    else:
        problem = slug_problem(name)
        if problem:
            why = problem.replace("slug", "name")
            out.append((lines.get("name"), f"`name` {name!r} is not a skill name: {why}"))
        elif name != folder_name:
            out.append((lines.get("name"), f"`name` {name!r} differs from its folder's name {folder_name!r}"))
    if "description" not in meta:
        out.append((2, "`description` is missing; say what the skill does and when to use it"))
    else:
        problem = description_problem(meta["description"])
        if problem:
            out.append((lines.get("description"), f"`description` {problem}"))
    compatibility = meta.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY:
        out.append((lines.get("compatibility"),
                     f"`compatibility` has {len(compatibility)} characters; at most {MAX_COMPATIBILITY}"))
    return out
