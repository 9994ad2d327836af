"""Aider: sessions only (it runs no hooks, so memcli reads its history and wires nothing into it).

- transcript.py  `.aider.chat.history.md` split into its sessions and read into entries
- discovery.py   the history at the workspace's root
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.agents.parts import Parts

NAME = "aider"
TITLE = "Aider"
HOOKS = None  # it runs no hooks
TOOL_NAMES: tuple[str, ...] = ()


def load() -> Parts:
    # here: on use; the hooks' start-up paths read the facts above alone (base.py)
    from memcli.agents.aider import discovery, transcript
    from memcli.agents.parts import Parts

    return Parts(transcript.READER, discovery.DISCOVERY)
