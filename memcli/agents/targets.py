"""What `memcli hooks install` writes for each agent, and where (checked against each agent's own
docs and source; see docs/agents.md for the versions).

- Claude Code: hooks and allow rules for memcli's tools in `.claude/settings.json` (user:
  `~/.claude/settings.json`), MCP server in `.mcp.json` (user: `~/.claude.json`) with `alwaysLoad`,
  so its tools are in the first request (memcli/agents/claude_code.py says why). SessionStart
  stdout is added to the context as is.
- Codex CLI: hooks, `[mcp_servers.memcli]` and the wait for MCP servers at start
  (`mcp_optional_startup_grace_ms`) in `.codex/config.toml` (user: `~/.codex/config.toml`).
  Codex has no session-end hook: capture runs on `Stop` (end of each turn) and `PreCompact`, and
  waits for the idle window, so a session still going on is extracted once it has gone quiet.
- Gemini CLI: hooks (SessionStart, SessionEnd) and `mcpServers` in `.gemini/settings.json` (user:
  `~/.gemini/settings.json`). Its hooks must print JSON only (plain text becomes a message to the
  user, not context). The server entry has `"trust": true`, Gemini's own allow rule for one
  server's tools: without it a headless run (`gemini -p`) leaves memcli's tools out of the request
  (its policy denies what it cannot ask about), and an interactive one asks before each call
  (memcli_remember writes nothing: what it keeps is reviewed at consolidation). See
  memcli/agents/gemini.py for folder trust.
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
MCP_TOOLS = ("memcli_search", "memcli_read", "memcli_context", "memcli_source", "memcli_remember")
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
    older: tuple[Any, ...] = ()  # values earlier memcli versions wrote: `install` brings them up to date

    def is_ours(self, found: Any) -> bool:
        if self.key is not None:
            return True  # the member named `memcli` in mcpServers / mcp_servers
        if isinstance(self.value, str):
            return found == self.value  # a rule in a list of strings (Claude Code's permissions.allow)
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
    retired: tuple[Entry, ...] = ()  # written by an earlier memcli, no longer: install removes them


def _hook(event: str, command: str, marker: str, timeout: int, *, matcher: str | None = None,
          name: str | None = None) -> Entry:
    handler: dict[str, Any] = {"type": "command", "command": command}
    if name:
        handler["name"] = name
    handler["timeout"] = timeout
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [handler]
    return Entry(f"{event} hook", ("hooks", event), None, group, marker)


def _mcp(table: str, **options: Any) -> Entry:
    older = (dict(MCP_SERVER),) if options else ()
    return Entry("MCP server", (table,), SERVER_NAME, dict(MCP_SERVER, **options), "", older)


def _allow(tool: str) -> Entry:
    rule = f"mcp__{SERVER_NAME}__{tool}"
    return Entry(f"allow {tool}", ("permissions", "allow"), None, rule, rule)


def _home(env: str, default: str) -> Path:
    value = os.environ.get(env)
    return Path(value).expanduser() if value else Path.home() / default


def claude_home() -> Path:
    return _home("CLAUDE_CONFIG_DIR", ".claude")


def claude_state() -> Path:
    """Claude Code's own state file: user MCP servers, and per project its trust and approvals."""
    return (claude_home() if os.environ.get("CLAUDE_CONFIG_DIR") else Path.home()) / ".claude.json"


def config_files(agent: str, scope: str, root: Path | None) -> list[ConfigFile]:
    """The files memcli edits for `agent` at `scope` (`root`: the workspace, for project scope)."""
    start = session_start_command(agent)
    marker = "memcli hooks session-start"
    if agent == "claude-code":
        # Claude Code's timeouts are seconds; SessionStart also fires after /clear and compaction.
        settings = (_hook("SessionStart", start, marker, 30, matcher="startup|resume|clear|compact"),
                    _hook("SessionEnd", CAPTURE, CAPTURE, 10), _hook("PreCompact", CAPTURE, CAPTURE, 10),
                    *(_allow(tool) for tool in MCP_TOOLS))
        server = (_mcp("mcpServers", alwaysLoad=True),)
        if scope == "project":
            assert root is not None
            return [ConfigFile(agent, root / ".claude" / "settings.json", "json", settings),
                    ConfigFile(agent, root / ".mcp.json", "json", server)]
        return [ConfigFile(agent, claude_home() / "settings.json", "json", settings),
                ConfigFile(agent, claude_state(), "json", server)]
    if agent == "gemini":
        # Gemini CLI's timeouts are milliseconds. No PreCompress capture: 0.61 fires PreCompress
        # before every model request (its compression check runs the hook before the threshold
        # test), which would start a capture worker per request and delay each one, and its JSONL
        # transcript loses nothing when it compresses; SessionEnd is the capture.
        entries = (_hook("SessionStart", start, marker, 30_000, name="memcli-context"),
                   _hook("SessionEnd", CAPTURE, CAPTURE, 10_000, name="memcli-capture"),
                   _mcp("mcpServers", trust=True))
        retired = (_hook("PreCompress", CAPTURE, CAPTURE, 10_000, name="memcli-capture"),)
        gemini_home = os.environ.get("GEMINI_CLI_HOME")
        base = root if scope == "project" else (Path(gemini_home) if gemini_home else Path.home())
        assert base is not None
        return [ConfigFile(agent, base / ".gemini" / "settings.json", "json", entries, retired)]
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
