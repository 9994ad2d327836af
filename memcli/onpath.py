"""Is `memcli` on PATH? The agents' hooks and MCP server entries and git's merge driver run it by
its bare name (a path would differ on each teammate's machine), so each command that writes one says
so when that name does not resolve here."""

from __future__ import annotations

import shutil


def on_path() -> str | None:
    """Where `memcli` resolves on PATH, or None."""
    return shutil.which("memcli")


def warning(who: str) -> str | None:
    """One line when `memcli` is not on PATH: `who` (the agents, git) runs it by name."""
    if on_path() is not None:
        return None
    return (f"warning: no `memcli` on PATH: {who} run it by that name, so it fails until memcli is "
            "installed where every shell finds it (pipx install memcli)")
