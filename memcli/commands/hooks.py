"""`memcli hooks install|uninstall|status|session-start|capture`: wire memcli into coding agents
(memcli.hooks over the agents' declarations in memcli.agents): context at session start, the MCP
server, capture at session end."""

from __future__ import annotations

import sys
from pathlib import Path

from memcli.commands import open_workspace
from memcli.hooks.start import session_start as start
from memcli.roots import find_root


def _root(scope: str, workspace: Path | None) -> Path | None:
    return open_workspace(workspace).root if scope == "project" else None


def _chosen(agent: list[str] | None) -> str:
    """The agents `--agent` names (repeated, or comma-separated), as install.py's selection."""
    return ",".join(agent) if agent else "all"


def install(*, agent: list[str] | None = None, scope: str = "project", dry_run: bool = False,
            workspace: Path | None = None) -> int:
    from memcli.hooks.install import run_change  # here: the session-start hook loads this module too

    return run_change("install", _chosen(agent), scope, _root(scope, workspace), dry_run=dry_run)


def uninstall(*, agent: list[str] | None = None, scope: str = "project", dry_run: bool = False,
              workspace: Path | None = None) -> int:
    from memcli.hooks.install import run_change  # here: the session-start hook loads this module too

    return run_change("uninstall", _chosen(agent), scope, _root(scope, workspace), dry_run=dry_run)


def status(*, agent: list[str] | None = None, scope: str | None = None, as_json: bool = False,
           workspace: Path | None = None) -> int:
    from memcli.hooks.install import run_status  # here: the session-start hook loads this module too

    root = open_workspace(workspace).root if workspace or scope == "project" else find_root(Path.cwd())
    return run_status(_chosen(agent), root, scope=scope, as_json=as_json)


def session_start(*, agent: str | None = None, workspace: Path | None = None) -> int:
    """(Run by the agents' SessionStart hook.) The resident context in the form `agent` reads
    (None: memcli.agents.registry.SESSION_START_DEFAULT's)."""
    return start(agent, getattr(sys.stdin, "buffer", None), workspace)


def capture(*, session: str | None = None, transcript: str | None = None, cwd: str | None = None,
            event: str | None = None, workspace: Path | None = None) -> int:
    """(Started by `extract --hook`.) Extract the session once it has ended or gone idle."""
    from memcli.hooks.capture import run_capture  # here: the session-start hook loads this module too

    return run_capture(cwd, workspace, session, transcript, event)
