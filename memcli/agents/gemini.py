"""What is particular to Gemini CLI beyond the config entries in targets.py: the state of the agent's own
approval / trust that memcli must not change for the user, read from the agent's files.

Two optional hooks, looked up by `targets.agent_module`:

- `install_notes(scope, root) -> list[str]`: one-line notes printed by `memcli hooks install` after
  it wired this agent (a step only the user may take, such as approving or trusting something).
- `states(scope, root) -> list[str]`: one-line state lines shown by `memcli hooks status` where the
  agent's files reveal that state (`root`: the workspace for project scope, else None).

Both read only, never write, and return [] when they have nothing to say.
"""

from __future__ import annotations

from pathlib import Path


def install_notes(scope: str, root: Path | None) -> list[str]:
    return []


def states(scope: str, root: Path | None) -> list[str]:
    return []
