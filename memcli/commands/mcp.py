"""`memcli mcp`: serve the workspace's memory to agents as MCP tools over stdio (memcli.mcpserver).

Agents give the server about a second to answer its handshake: the lean route (memcli.lean) comes
here without Typer, and nothing is imported before the SDK but the workspace."""

from __future__ import annotations

from pathlib import Path

from memcli.commands import open_workspace
from memcli.mcpserver.server import serve


def run(*, workspace: Path | None = None) -> int:
    return serve(open_workspace(workspace))
