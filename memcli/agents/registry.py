"""Every agent memcli knows, listed once (as pre-commit's languages/all.py): discovery, reading,
`memcli sessions`, `memcli hooks` and the hooks themselves go through this list, so adding an agent
is one package under memcli/agents/ (the interface: base.py) and one line here.

The order is the order a file is offered to the readers (memcli/sessions/reader.py) and the order
`hooks install --agent all` goes through; memcli JSONL, the least particular format, comes last.
Importing this module imports the agents' declarations only (base.py says why).

DOCUMENTS reads the files `memcli import` imports (memcli/agents/documents/) behind the same
interface, but is no agent of AGENTS: documents are never a workspace's sessions. `get` resolves
its kinds (a document's SessionInfo.agent), so whatever reads a session by its agent reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memcli.agents import (
    aider,
    claude_code,
    codex,
    copilot_cli,
    documents,
    gemini_cli,
    memcli_jsonl,
    opencode,
    pi,
)

if TYPE_CHECKING:
    from memcli.agents.base import Agent, Headless, Hooks, Skills

AGENTS: tuple[Agent, ...] = (claude_code, codex, gemini_cli, copilot_cli, pi, opencode, aider, memcli_jsonl)
DOCUMENTS: Agent = documents
FALLBACK = "memcli-jsonl"  # reads a file no agent claims, counting the lines it cannot read as skipped
SESSION_START_DEFAULT = "claude-code"  # `hooks session-start` without --agent (the first agent wired)


def get(name: str) -> Agent | None:
    """The agent whose sessions carry this name (SessionInfo.agent): an agent, or a document kind."""
    return next((a for a in AGENTS if a.NAME == name), DOCUMENTS if name in documents.KINDS else None)


def hooked() -> list[tuple[Agent, Hooks]]:
    """The agents memcli wires hooks into, with their hooks, in order."""
    return [(a, a.HOOKS) for a in AGENTS if a.HOOKS is not None]


def options() -> tuple[str, ...]:
    """The values of `memcli hooks --agent` (besides `all`)."""
    return tuple(h.option for _a, h in hooked())


def by_option(option: str) -> tuple[Agent, Hooks] | None:
    """The agent `memcli hooks --agent <option>` names, with its hooks."""
    return next(((a, h) for a, h in hooked() if h.option == option), None)


def end_events() -> frozenset[str]:
    """The hook events that end a session, in any agent (the payload does not say which agent sent it)."""
    return frozenset().union(*(h.end_events for _a, h in hooked()))


def skills_of(agent: Agent) -> Skills | None:
    """Where an agent loads Agent Skills from; None for one that declares no SKILLS (optional)."""
    return getattr(agent, "SKILLS", None)


def skilled() -> list[tuple[Agent, Skills]]:
    """The agents that load Agent Skills, with their folders, in order."""
    return [(a, s) for a in AGENTS if (s := skills_of(a)) is not None]


AGENT_MODEL = "agent/"  # a model string `agent/<option>[/<its model>]` runs that agent (docs/models.md)


def headless_of(agent: Agent) -> Headless | None:
    """How memcli runs an agent as its model; None for one that declares no HEADLESS (optional)."""
    return getattr(agent, "HEADLESS", None)


def headless() -> list[tuple[Agent, Headless]]:
    """The agents memcli can run as its model, in order."""
    return [(a, h) for a in AGENTS if (h := headless_of(a)) is not None]


def model_name(agent: Agent) -> str:
    """The model string that runs this agent: `agent/` and its `--agent` name."""
    return AGENT_MODEL + skill_option(agent)


def by_model(model: str) -> tuple[Agent, Headless, str | None] | None:
    """The agent `agent/<option>[/<model>]` names, with its HEADLESS and the model to ask it for
    (None: its own default); None when the string names no agent memcli can run."""
    if not model.startswith(AGENT_MODEL):
        return None
    option, _, inner = model[len(AGENT_MODEL):].partition("/")
    found = next(((a, h) for a, h in headless() if skill_option(a) == option), None)
    return None if found is None else (*found, inner or None)


def skill_option(agent: Agent) -> str:
    """How `memcli skills --agent` names an agent: as `memcli hooks` does, else by its NAME."""
    return agent.HOOKS.option if agent.HOOKS is not None else agent.NAME
