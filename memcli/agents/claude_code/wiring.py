"""Claude Code's wiring: what `memcli hooks install` writes for it, and the two one-time steps its
user takes in a project, which memcli reads but never takes for them.

What is written: hooks and allow rules for memcli's tools in `.claude/settings.json` (user:
`~/.claude/settings.json`), the MCP server in `.mcp.json` (user: `~/.claude.json`) with `alwaysLoad`,
so that its tools are in the first request. Timeouts are seconds; SessionStart also fires after
/clear and compaction; capture runs at SessionEnd and before a compaction (PreCompact).

Checked against Claude Code 2.1.332 (its binary, and its dialogs driven in a terminal):

- **Workspace trust.** Until the user accepts the trust dialog in a folder, Claude Code ignores the
  `permissions.allow` rules of the folder's `.claude/settings.json` (`claude -p` says so on stderr),
  so a call of memcli's tools is denied ("… you haven't granted it yet"). The dialog records
  `projects[<folder>].hasTrustDialogAccepted: true` in `~/.claude.json`; a trusted folder above,
  inside the same git repository, counts too.
- **Project MCP server approval.** An interactive session asks once about each `.mcp.json` server
  ("New MCP server found in this project"); "Use this MCP server" adds its name to
  `enabledMcpjsonServers` in `.claude/settings.local.json` (the legacy place: the project's entry in
  `~/.claude.json`), "Use this and all future…" sets `enableAllProjectMcpServers`, and refusing adds
  it to `disabledMcpjsonServers`. Those answers count once the folder is trusted (a refusal at
  once). `claude -p` uses a server nobody answered for without asking.

At user scope neither applies: user settings and user MCP servers need no trust or approval.
`install_notes` and `states` only read, and return [] when memcli's entries are not installed at
that scope.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memcli.agents.claude_code.discovery import home as claude_home
from memcli.agents.jsonedit import blank_comments
from memcli.agents.parts import Wiring
from memcli.agents.targets import (
    CAPTURE,
    MCP_TOOLS,
    SERVER_NAME,
    SESSION_START,
    ConfigFile,
    allow,
    hook,
    mcp_server,
    session_start_command,
)

OPTION = "claude-code"  # its `--agent` (the declaration in __init__ says the same; tests hold them equal)
TOOL_RULE = "mcp__{server}__{tool}"  # an allow rule names a tool as its transcripts do
PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"


def claude_state() -> Path:
    """Claude Code's own state file: user MCP servers, and per project its trust and approvals."""
    return (claude_home() if os.environ.get("CLAUDE_CONFIG_DIR") else Path.home()) / ".claude.json"


def config_files(scope: str, root: Path | None) -> list[ConfigFile]:
    settings = (hook("SessionStart", session_start_command(OPTION), SESSION_START, 30,
                     matcher="startup|resume|clear|compact"),
                hook("SessionEnd", CAPTURE, CAPTURE, 10), hook("PreCompact", CAPTURE, CAPTURE, 10),
                *(allow(TOOL_RULE.format(server=SERVER_NAME, tool=tool), tool) for tool in MCP_TOOLS))
    server = (mcp_server("mcpServers", alwaysLoad=True),)
    if scope == "project":
        assert root is not None
        return [ConfigFile(OPTION, root / ".claude" / "settings.json", "json", settings),
                ConfigFile(OPTION, root / ".mcp.json", "json", server)]
    return [ConfigFile(OPTION, claude_home() / "settings.json", "json", settings),
            ConfigFile(OPTION, claude_state(), "json", server)]


def install_notes(scope: str, root: Path | None) -> list[str]:
    if scope != "project" or root is None:
        return []
    notes = []
    if _allows_memcli(root) and not trusted(root):
        notes.append(f"run `claude` in {root} once and accept its trust dialog: until then Claude Code "
                     "ignores the allow rules for memcli's tools in .claude/settings.json")
    if _serves_memcli(root) and approval(root) == PENDING:
        notes.append('when Claude Code asks about the new MCP server "memcli", answer "Use this MCP '
                     'server" (`claude -p` uses it without asking)')
    return notes


def states(scope: str, root: Path | None) -> list[str]:
    if scope != "project" or root is None:
        return []
    lines = []
    if _allows_memcli(root):
        lines.append("workspace trusted: the allow rules for memcli's tools apply" if trusted(root) else
                     "workspace not trusted yet: Claude Code ignores the allow rules for memcli's tools "
                     "until you accept its trust dialog here once (run `claude`)")
    if _serves_memcli(root):
        lines.append({APPROVED: "MCP server memcli approved (.mcp.json)",
                      REJECTED: "MCP server memcli rejected: Claude Code does not start it; allow it again "
                                "with /mcp, or take memcli out of disabledMcpjsonServers in "
                                ".claude/settings.local.json",
                      PENDING: 'MCP server memcli not approved yet: `claude` asks once ("Use this MCP '
                               'server"); `claude -p` uses it without asking'}[approval(root)])
    return lines


def trusted(root: Path) -> bool:
    projects = _read(claude_state()).get("projects")
    if not isinstance(projects, dict):
        return False
    return any(isinstance(projects.get(key), dict) and projects[key].get("hasTrustDialogAccepted") is True
               for key in _trust_keys(root))


def approval(root: Path) -> str:
    """`approved`, `rejected` or `pending`, as Claude Code decides for the project's `memcli` server
    (`claude mcp get` agrees: tests/e2e/test_claude_code.py). A refusal counts wherever it is
    recorded; an approval recorded in the project's files counts only in a trusted folder."""
    project = _read(claude_state()).get("projects", {})
    legacy = project.get(str(root.resolve()), {}) if isinstance(project, dict) else {}
    mine = [_read(root / ".claude" / "settings.local.json"), legacy if isinstance(legacy, dict) else {}]
    user = _read(claude_home() / "settings.json")
    if any(SERVER_NAME in _names(s, "disabledMcpjsonServers") for s in [*mine, user]):
        return REJECTED
    sources = [user, *mine, _read(root / ".claude" / "settings.json")] if trusted(root) else [user]
    if any(SERVER_NAME in _names(s, "enabledMcpjsonServers") or s.get("enableAllProjectMcpServers") is True
           for s in sources):
        return APPROVED
    return PENDING


def _trust_keys(root: Path) -> list[str]:
    """The folders whose trust record counts for `root`: itself and those above it, up to the top
    of its git repository (to / outside one); never the home folder, whose trust is not recorded."""
    here = root.resolve()
    chain = [here, *here.parents]
    top = next((i for i, folder in enumerate(chain) if (folder / ".git").exists()), len(chain) - 1)
    home = Path.home().resolve()
    return [str(folder) for folder in chain[:top + 1] if folder != home]


def _names(settings: dict[str, Any], key: str) -> list[Any]:
    value = settings.get(key)
    return value if isinstance(value, list) else [value] if isinstance(value, str) else []


def _allows_memcli(root: Path) -> bool:
    permissions = _read(root / ".claude" / "settings.json").get("permissions", {})
    ours = TOOL_RULE.format(server=SERVER_NAME, tool="")
    return isinstance(permissions, dict) and any(isinstance(rule, str) and rule.startswith(ours)
                                                 for rule in permissions.get("allow") or [])


def _serves_memcli(root: Path) -> bool:
    servers = _read(root / ".mcp.json").get("mcpServers")
    return isinstance(servers, dict) and SERVER_NAME in servers


def _read(path: Path) -> dict[str, Any]:
    """A JSON object from one of Claude Code's files; {} when it is missing or unreadable (then
    Claude Code itself would not count what it says either)."""
    try:
        data = json.loads(blank_comments(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError):  # a 5 000-deep file reads as none
        return {}
    return data if isinstance(data, dict) else {}


WIRING = Wiring(config_files, install_notes, states)
