"""Rules that keep both sides of `memcli skills sync` valid: the SKILL.md files in the project's
skill folders load in every agent, and every knowledge record and workflow can become a skill.

The skill folders are those the agents memcli knows read (memcli/agents/<agent>: SKILLS); what
an agent rejects is memcli/skills/check.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.lint.finding import Finding, Severity
from memcli.lint.rules.base import Context, Rule, Scope
from memcli.recordtext import one_line, read_file
from memcli.skills.place import is_skill_file, skill_folders
from memcli.workspace import Kind

if TYPE_CHECKING:
    from memcli.records.parse import ParsedRecord


def _skill_dirs(root: str, folder: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(os.path.join(root, folder)) if not n.startswith("."))
    except OSError:
        return []


class SkillInvalid(Rule):
    """A `SKILL.md` in a project skill folder (`.claude/skills/`, `.agents/skills/`,
    `.codex/skills/`, `.gemini/skills/`, `.github/skills/`, `.pi/skills/`, `.opencode/skills/`) is
    one the agents load: a frontmatter mapping whose `name` follows the slug grammar and equals its
    folder's name, and a non-empty `description` of at most 1 024 characters. Whoever wrote it,
    memcli or a person; only SKILL.md files linted by path on the commit path (the pre-commit hook
    passes them), all of them otherwise.

    Why: an agent skips or refuses a skill it cannot read (Codex refuses a description over 1 024
    characters, Gemini CLI skips a skill without a name), silently: the procedure is then never
    offered to the model.

    Passing: `.claude/skills/deploy/SKILL.md` with `name: deploy` and a one-line description.
    Failing: the same with `name: Deploy`, with `name: release`, without `description`, or with no
    frontmatter.
    """

    code, alias, severity, scope = "skill-invalid", "E19", Severity.ERROR, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        from memcli.skills.check import skill_problems  # here: only a workspace with skills loads the check

        root = str(ctx.snapshot.root)
        if ctx.targets is None:
            paths = [f"{folder}/{name}/SKILL.md" for folder in skill_folders()
                     for name in _skill_dirs(root, folder)]
        else:
            paths = sorted(p for p in ctx.targets if is_skill_file(p))
        for rel in paths:
            data, _ = read_file(Path(root, rel))  # bounded, and a FIFO is not waited on
            if data is None:
                continue  # a folder without SKILL.md is not a skill: agents skip it
            for line, message in skill_problems(data, rel.split("/")[-2]):
                yield self.finding(rel, line, f"agents do not load this skill: {message}")


class SkillUnfit(Rule):
    """Warning: a knowledge record or workflow can become a skill: its description, on one line,
    is not empty and has at most 1 024 characters (a longer one on a model-invoked knowledge
    record is already `description-too-long`).

    Why: `memcli skills sync` writes every knowledge record and workflow as a skill for the agents;
    agents take a description of at most 1 024 characters, so this record would be left out.

    Passing: a workflow with a one-line description.
    Failing: a knowledge record with `model_invocation: false` and a 1 500-character description.
    """

    code, alias, severity = "skill-unfit", "W08", Severity.WARNING

    def check_record(self, rec: ParsedRecord, ctx: Context) -> Iterator[Finding]:
        if rec.kind not in (Kind.KNOWLEDGE, Kind.WORKFLOW) or rec.meta is None:
            return
        description = rec.meta.get("description")
        if not isinstance(description, str):
            return  # missing-field / invalid-field say so
        from memcli.skills.check import description_problem  # here: as above, for a record that is checked

        invoked = rec.meta.get("model_invocation", rec.meta.get("model_invokation"))
        if invoked is True and len(description) > ctx.config.description_max_chars:
            return  # description-too-long
        problem = description_problem(one_line(description))
        if problem:
            yield self.finding(rec.path, rec.line_of("description"),
                               f"this record cannot become a skill: its description {problem}",
                               "description")


class SkillNameTaken(Rule):
    """Warning: a record's skill name is free: no skill memcli did not write (no `.memcli-skill`
    marker) has it in a project skill folder, and no knowledge record has a workflow's slug.

    Why: `memcli skills sync` never touches a skill a person wrote, and of a knowledge record and a
    workflow with one name it writes the workflow; the other record is then no agent's skill.

    Passing: `knowledge/deploy.md` and `.claude/skills/deploy/` written by memcli.
    Failing: `knowledge/deploy.md` and a hand-written `.claude/skills/deploy/SKILL.md`; or
    `knowledge/deploy.md` beside `memory/workflow/deploy.md`.
    """

    code, alias, severity, scope = "skill-name-taken", "W09", Severity.WARNING, Scope.WORKSPACE

    def check_workspace(self, ctx: Context) -> Iterator[Finding]:
        snap = ctx.snapshot
        knowledge, workflows = snap.slugs[Kind.KNOWLEDGE], snap.slugs[Kind.WORKFLOW]
        for slug in sorted(set(knowledge) & set(workflows)):
            if ctx.touches([knowledge[slug], workflows[slug]]):
                yield self.finding(knowledge[slug], None, f"{workflows[slug]} has the same name, and "
                                   "its skill wins: rename one of them to make both skills")
        from memcli.skills.render import MARKER  # here: as above

        root = str(snap.root)
        records = {**knowledge, **workflows}
        for folder in skill_folders():
            for name in _skill_dirs(root, folder):
                path = records.get(name)
                if path is None or not ctx.touches([path]):
                    continue
                if not os.path.exists(os.path.join(root, folder, name, MARKER)):
                    yield self.finding(path, None, f"{folder}/{name}/ is a skill memcli did not write, so "
                                       "this record is not written there: rename one of them")
