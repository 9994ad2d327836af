"""What `memcli hooks install` writes for each agent, and where (checked against each agent's own
docs and source; see docs/agents.md for the versions).

- Claude Code: hooks in `.claude/settings.json` (user: `~/.claude/settings.json`), MCP server in
  `.mcp.json` (user: `~/.claude.json`). SessionStart stdout is added to the context as is.
- Codex CLI: hooks, `[mcp_servers.memcli]` and the wait for MCP servers at start
  (`mcp_optional_startup_grace_ms`) in `.codex/config.toml` (user: `~/.codex/config.toml`).
  Codex has no session-end hook: capture runs on `Stop` (end of each turn) and `PreCompact`, and
  waits for the idle window, so a session still going on is extracted once it has gone quiet.
- Gemini CLI: hooks and `mcpServers` in `.gemini/settings.json` (user: `~/.gemini/settings.json`).
  Its hooks must print JSON only (plain text becomes a message to the user, not context).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

AGENTS = ("claude-code", "codex", "gemini")
SCOPES = ("project", "user")
SERVER_NAME = "memcli"
MCP_SERVER = {"command": "memcli", "args": ["mcp"]}
CAPTURE = "memcli extract --hook"


def session_start_command(agent: str) -> str:
    return f"memcli hooks session-start --agent {agent}"


@dataclass(frozen=True)
class Entry:
    """One thing memcli adds to one config file: member `key` of the object at `path`, or (key
    None) one element appended to the array at `path`."""

    label: str
    path: tuple[str, ...]
    key: str | None
    value: Any
    marker: str  # a hook handler whose command starts with this is memcli's

    def is_ours(self, found: Any) -> bool:
        if self.key is not None:
            return True  # the member named `memcli` in mcpServers / mcp_servers
        return isinstance(found, dict) and bool(self.handlers_ours(found))

    def handlers_ours(self, group: Any) -> list[int]:
        """Indices of memcli's handlers inside a hook group."""
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            return []
        return [i for i, h in enumerate(handlers)
                if isinstance(h, dict) and str(h.get("command", "")).startswith(self.marker)]


@dataclass(frozen=True)
class ConfigFile:
    agent: str
    path: Path
    fmt: str  # json | toml
    entries: tuple[Entry, ...]


def _hook(event: str, command: str, marker: str, timeout: int, *, matcher: str | None = None,
          name: str | None = None) -> Entry:
    handler: dict[str, Any] = {"type": "command", "command": command}
    if name:
        handler["name"] = name
    handler["timeout"] = timeout
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [handler]
    return Entry(f"{event} hook", ("hooks", event), None, group, marker)


def _mcp(table: str) -> Entry:
    return Entry("MCP server", (table,), SERVER_NAME, dict(MCP_SERVER), "")


def _home(env: str, default: str) -> Path:
    value = os.environ.get(env)
    return Path(value).expanduser() if value else Path.home() / default


def config_files(agent: str, scope: str, root: Path | None) -> list[ConfigFile]:
    """The files memcli edits for `agent` at `scope` (`root`: the workspace, for project scope)."""
    start = session_start_command(agent)
    marker = "memcli hooks session-start"
    if agent == "claude-code":
        # Claude Code's timeouts are seconds; SessionStart also fires after /clear and compaction.
        hooks = (_hook("SessionStart", start, marker, 30, matcher="startup|resume|clear|compact"),
                 _hook("SessionEnd", CAPTURE, CAPTURE, 10), _hook("PreCompact", CAPTURE, CAPTURE, 10))
        if scope == "project":
            assert root is not None
            return [ConfigFile(agent, root / ".claude" / "settings.json", "json", hooks),
                    ConfigFile(agent, root / ".mcp.json", "json", (_mcp("mcpServers"),))]
        home = _home("CLAUDE_CONFIG_DIR", ".claude")
        state = home / ".claude.json" if os.environ.get("CLAUDE_CONFIG_DIR") else Path.home() / ".claude.json"
        return [ConfigFile(agent, home / "settings.json", "json", hooks),
                ConfigFile(agent, state, "json", (_mcp("mcpServers"),))]
    if agent == "gemini":
        # Gemini CLI's timeouts are milliseconds.
        entries = (_hook("SessionStart", start, marker, 30_000, name="memcli-context"),
                   _hook("SessionEnd", CAPTURE, CAPTURE, 10_000, name="memcli-capture"),
                   _hook("PreCompress", CAPTURE, CAPTURE, 10_000, name="memcli-capture"),
                   _mcp("mcpServers"))
        gemini_home = os.environ.get("GEMINI_CLI_HOME")
        base = root if scope == "project" else (Path(gemini_home) if gemini_home else Path.home())
        assert base is not None
        return [ConfigFile(agent, base / ".gemini" / "settings.json", "json", entries)]
    if agent == "codex":
        # Codex 0.171 leaves an optional MCP server's tools out of a session's first request when the
        # server is not up within `mcp_optional_startup_grace_ms` (default 1000 ms); `required = true`
        # would instead refuse to start any session where `memcli` is missing (docs/agents.md).
        entries = (Entry("MCP start-up wait", (), "mcp_optional_startup_grace_ms", 10_000, ""),
                   _hook("SessionStart", start, marker, 30), _hook("Stop", CAPTURE, CAPTURE, 10),
                   _hook("PreCompact", CAPTURE, CAPTURE, 10), _mcp("mcp_servers"))
        folder = root / ".codex" if scope == "project" and root is not None else _home("CODEX_HOME", ".codex")
        return [ConfigFile(agent, folder / "config.toml", "toml", entries)]
    raise ValueError(agent)


def agent_module(agent: str) -> ModuleType:
    """The module with what is particular to `agent` beyond its entries (memcli/agents/codex.py ...)."""
    return importlib.import_module(f"memcli.agents.{agent.replace('-', '_')}")


def install_notes(agent: str, scope: str, root: Path | None) -> list[str]:
    """One-line notes `hooks install` prints for `agent`: steps only the user may take."""
    hook = getattr(agent_module(agent), "install_notes", None)
    return list(hook(scope, root)) if hook else []


def agent_states(agent: str, scope: str, root: Path | None) -> list[str]:
    """One-line states `hooks status` shows for `agent` (its trust / approval of memcli's entries)."""
    hook = getattr(agent_module(agent), "states", None)
    return list(hook(scope, root)) if hook else []
