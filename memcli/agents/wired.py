"""Which agents memcli is wired into: the agents whose memcli hook (or extension) entries are in
their config files, read the way `memcli hooks status` reads them. The default model (an agent
the user already runs, memcli.llm.endpoint) and `hooks install`'s twice-wired warning ask this."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memcli.agents import edit, registry

if TYPE_CHECKING:
    from memcli.agents.base import Agent

_CAPTURING = (" hook", " extension")  # the entries that run memcli when a session starts or ends


def hooks_wired(agent: Agent, scope: str, root: Path | None) -> bool:
    """Are memcli's hooks (or its extension) in this agent's config files at `scope`?"""
    wiring = agent.load().wiring if agent.HOOKS is not None else None
    if wiring is None or (scope == "project" and root is None):
        return False
    for cf in wiring.config_files(scope, root):
        try:
            text = cf.path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            continue  # `memcli hooks status` reports an unreadable file; nothing is wired by it
        try:
            states = edit.status(cf, text)
        except edit.UnreadableConfig:
            continue
        if any(state != "missing" and entry.label.endswith(_CAPTURING) for entry, state in states):
            return True
    return False


def wired(root: Path | None) -> list[Agent]:
    """The agents wired at project scope (in `root`) or at user scope, in registry order."""
    return [agent for agent in registry.AGENTS
            if hooks_wired(agent, "project", root) or hooks_wired(agent, "user", None)]
