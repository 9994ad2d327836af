"""Which agents get skills, and in which of their folders each record goes.

The agents are those memcli's hooks are wired into (either scope), or those named with `--agent`;
each declares the project folders it reads (memcli/agents/<agent>/__init__.py: SKILLS). One folder
serves as many of them as read it: Codex, Gemini CLI, Pi and OpenCode all read `.agents/skills/`, so
with them wired every skill is written there once. A record only some readers of a folder can express
(explicit use only: Gemini CLI and OpenCode cannot) goes to a folder of its own reader's instead (Codex's
`.codex/skills/`), or is not written for the agent that cannot express it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents import registry
from memcli.errors import UsageError
from memcli.values import frozen

if TYPE_CHECKING:
    from memcli.agents.parts import SkillDialect
    from memcli.skills.sources import Source


@frozen
class Target:
    """An agent skills are written for."""

    option: str  # its `--agent`
    title: str
    folders: tuple[str, ...]
    dialect: SkillDialect


def known() -> list[Target]:
    out = []
    for agent, skills in registry.skilled():
        dialect = agent.load().skills
        if dialect is not None:
            out.append(Target(registry.skill_option(agent), agent.TITLE, skills.folders, dialect))
    return out


def options() -> tuple[str, ...]:
    return tuple(t.option for t in known())


def chosen(names: list[str]) -> list[Target]:
    """The targets `--agent` names (`all`: every agent that loads skills), in registry order."""
    targets = known()
    by_name = {t.option: t for t in targets} | {a.NAME: t for a, _ in registry.skilled()
                                                 for t in targets if t.option == registry.skill_option(a)}
    if "all" in names:
        return targets
    unknown = [n for n in names if n not in by_name]
    if unknown:
        choices = ", ".join(t.option for t in targets)
        raise UsageError(f"--agent {unknown[0]!r}: choose one of {choices} or all")
    picked = {by_name[n].option for n in names}
    return [t for t in targets if t.option in picked]


def wired(root: Path) -> list[Target]:
    """The targets whose agent has memcli's hooks in its project or user config files."""
    from memcli.agents import edit  # here: tomlkit (~13 ms) only to read the wiring, not to lint

    out = []
    for target in known():
        found = registry.by_option(target.option)
        wiring = found[0].load().wiring if found is not None else None
        if wiring is None:
            continue
        files = wiring.config_files("project", root) + wiring.config_files("user", None)
        for cf in files:
            try:
                states = edit.status(cf, cf.path.read_text(encoding="utf-8")) if cf.path.is_file() else []
            except (OSError, UnicodeDecodeError, edit.UnreadableConfig):
                continue  # `memcli hooks status` reports the file
            # Pi's hooks are memcli's extension (as `hooks install` counts them); an MCP server alone is not
            if any(state != "missing" and entry.label.endswith((" hook", " extension"))
                   for entry, state in states):
                out.append(target)
                break
    return out


def skill_folders() -> list[str]:
    """Every project folder an agent memcli knows loads skills from."""
    return sorted({f for _agent, skills in registry.skilled() for f in skills.folders})


def is_skill_file(rel: str) -> bool:
    """Whether a workspace-relative path is a `<skill folder>/<name>/SKILL.md`."""
    folder, _, rest = rel.rpartition("/")
    return rest == "SKILL.md" and folder.rpartition("/")[0] in skill_folders()


def home_folders(targets: list[Target]) -> dict[str, str]:
    """Target option → the folder its skills go to by default: greedily, the folder read by the
    most targets still without one (ties: the agent's own order)."""
    left = list(targets)
    out: dict[str, str] = {}
    while left:
        candidates = [f for t in left for f in t.folders]
        best = max(candidates, key=lambda f: (sum(f in t.folders for t in left), -candidates.index(f)))
        for t in [t for t in left if best in t.folders]:
            out[t.option] = best
            left.remove(t)
    return out


def readers(folder: str, targets: list[Target]) -> list[Target]:
    return [t for t in targets if folder in t.folders]


def placements(source: Source, targets: list[Target],
               homes: dict[str, str]) -> tuple[dict[str, list[Target]], list[Target]]:
    """(folder → the targets reading it there, the targets it cannot be written for)."""
    able = [t for t in targets if t.dialect.fields(source.model, source.user) is not None]
    out: dict[str, list[Target]] = {}
    for target in able:
        if any(target in got for got in out.values()):
            continue
        for folder in (homes[target.option], *target.folders):
            reading = readers(folder, targets)
            if all(r in able for r in reading):
                out[folder] = reading
                break
    missed = [t for t in targets if not any(t in got for got in out.values())]
    return out, missed
