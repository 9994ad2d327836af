"""`memcli mcp`: serve the workspace's memory to agents as MCP tools over stdio (memcli.mcpserver).

Agents wait for the server's handshake before their first model request: the lean route
(memcli.lean) comes here without Typer, and the stdio front answers it without the MCP SDK."""

from __future__ import annotations

from pathlib import Path

from memcli.commands import open_workspace
from memcli.mcpserver.stdio import serve
from memcli.roots import root_for


def run(*, workspace: Path | None = None, relay: str | None = None) -> int:
    if relay is not None:  # a consolidation run's tools, for the agent that is its model
        # here: only a consolidation through an agent serves its tools
        from memcli.mcpserver.relay import serve as serve_relay

        return serve_relay(relay)
    # the workspace's root alone: the front loads the config at the first tool call, not before the
    # handshake; no root: open_workspace raises the error every command gives
    root = root_for(workspace, Path.cwd())
    return serve(root if root is not None else open_workspace(workspace))
