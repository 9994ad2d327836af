"""What `memcli hooks install` writes into an agent's config files, as entries an agent's wiring
declares (memcli/agents/<agent>/wiring.py): hook handlers, the MCP server, allow rules, settings,
or a whole file of memcli's (an agent's extension module, where the agent is extended by code).
Each agent's wiring says which files at which scope; memcli/agents/edit.py adds and removes them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from memcli.values import frozen

SCOPES = ("project", "user")
SERVER_NAME = "memcli"
MCP_SERVER = {"command": "memcli", "args": ["mcp"]}
MCP_TOOLS = ("memcli_search", "memcli_read", "memcli_context", "memcli_source", "memcli_remember")
CAPTURE = "memcli extract --hook"
SESSION_START = "memcli hooks session-start"  # + --agent <option>; the marker of memcli's handler


def session_start_command(option: str) -> str:
    return f"{SESSION_START} --agent {option}"


@frozen
class Entry:
    """One thing memcli adds to one config file: member `key` of the object at `path`, or (key
    None) one element appended to the array at `path`: a hook group (`{"hooks": [handler]}`), a
    handler of its own (`element` names its command's member), a rule or a record."""

    label: str
    path: tuple[str, ...]
    key: str | None
    value: Any
    marker: str  # a hook handler whose command starts with this is memcli's
    older: tuple[Any, ...] = ()  # values earlier memcli versions wrote: `install` brings them up to date
    element: str | None = None  # the member holding the command of a handler that is an element itself

    @property
    def whole(self) -> bool:
        """Is an element memcli's as a whole (a rule, a record, a handler of its own), rather than a
        hook group whose other handlers may be the user's?"""
        return self.key is None and not (isinstance(self.value, dict) and "hooks" in self.value)

    def is_ours(self, found: Any) -> bool:
        if self.key is not None:
            return True  # the member named `memcli` in mcpServers / mcp_servers
        if isinstance(self.value, str):
            return found == self.value  # a rule in a list of strings (Claude Code's permissions.allow)
        if not isinstance(found, dict):
            return False
        if self.element is not None:  # a handler of its own (GitHub Copilot CLI's hooks)
            return str(found.get(self.element, "")).startswith(self.marker)
        if self.whole:
            return found == self.value  # a record (a tool approval): memcli's when it is the same
        return bool(self.handlers_ours(found))

    def commands(self) -> list[str]:
        """The commands a hook entry runs ([] for other entries)."""
        if self.element is not None:
            return [self.value[self.element]]
        if isinstance(self.value, dict) and isinstance(self.value.get("hooks"), list):
            return [h["command"] for h in self.value["hooks"]]
        return []

    def handlers_ours(self, group: Any) -> list[int]:
        """Indices of memcli's handlers inside a hook group."""
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            return []
        return [i for i, h in enumerate(handlers)
                if isinstance(h, dict) and str(h.get("command", "")).startswith(self.marker)]


@frozen
class ConfigFile:
    agent: str  # the agent's `--agent` option: how install and status name it
    path: Path
    fmt: str  # json | toml | file (a whole file memcli writes: one `generated` entry)
    entries: tuple[Entry, ...]
    retired: tuple[Entry, ...] = ()  # written by an earlier memcli, no longer: install removes them
    # what the agent makes of the file on its own when it loads it (OpenCode adds `"$schema"`), so
    # that uninstall still knows install's text in it and restores the backup; None: it leaves it be
    loaded: Callable[[str], str] | None = None
    # how many folders above the file an install may have made (uninstall removes them when empty);
    # None: every empty one up to the workspace (user scope: the home folder)
    folders: int | None = None


def hook(event: str, command: str, marker: str, timeout: int, *, matcher: str | None = None,
         name: str | None = None) -> Entry:
    """A hook group with one handler running `command`, appended to `hooks.<event>`."""
    handler: dict[str, Any] = {"type": "command", "command": command}
    if name:
        handler["name"] = name
    handler["timeout"] = timeout
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [handler]
    return Entry(f"{event} hook", ("hooks", event), None, group, marker)


def own_hook(event: str, handler: dict[str, Any], command_key: str, marker: str) -> Entry:
    """A handler appended to `hooks.<event>` as an element of its own, not inside a group (GitHub
    Copilot CLI: `{"type": "command", "bash": ...}`), its command in member `command_key`."""
    return Entry(f"{event} hook", ("hooks", event), None, handler, marker, element=command_key)


def mcp_server(table: str, **options: Any) -> Entry:
    """memcli's MCP server as member `memcli` of `table`; `options` are the agent's own keys."""
    older = (dict(MCP_SERVER),) if options else ()
    return Entry("MCP server", (table,), SERVER_NAME, dict(MCP_SERVER, **options), "", older)


def allow(rule: str, tool: str) -> Entry:
    """`rule` (the agent's name for memcli's `tool`) appended to `permissions.allow`."""
    return Entry(f"allow {tool}", ("permissions", "allow"), None, rule, rule)


def generated(label: str, text: str, marker: str, older: tuple[str, ...] = ()) -> Entry:
    """A whole file memcli writes and owns (an agent's plugin module, where the agent takes its hooks
    as code): `text` is its content, `marker` a line only memcli's version of it carries, `older`
    what earlier memcli versions wrote. Its ConfigFile's fmt is `file`."""
    return Entry(label, (), None, text, marker, older)
