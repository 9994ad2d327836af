"""GitHub Copilot CLI's wiring: what `memcli hooks install` writes for it, and folder trust, the one
step memcli leaves to the user, read from Copilot's own files (checked against 1.0.102: its docs,
its bundle and runs of it, docs/agents.md "GitHub Copilot CLI").

What is written:
- hooks in a file of memcli's own, `.github/hooks/memcli.json` (user: `~/.copilot/hooks/memcli.json`;
  Copilot loads every `*.json` there): SessionStart and SessionEnd handlers `{"type": "command",
  "bash": ..., "powershell": ..., "timeoutSec": ...}`. The PascalCase event names get the snake_case
  payload (`session_id`, `cwd`, `hook_event_name`) `memcli extract --hook` reads; a SessionStart
  handler's stdout reaches the model when it is `{"additionalContext": ...}`;
- the MCP server in `.github/mcp.json` (user: `~/.copilot/mcp-config.json`), a stdio server with
  all its tools. Copilot waits for it: its tools are in the first model request;
- at project scope, the approval of memcli's tools in that same hooks file: a PreToolUse handler whose
  matcher names memcli's tools alone and which answers `{"permissionDecision": "allow"}`. Copilot
  approves read-only MCP tools by itself, but asks before `memcli_remember` (which only stages what
  it is given, reviewed at consolidation) and refuses it under `-p`; the handler is how a project
  approves it without anything in the user's home (`~/.copilot/permissions-config.json`, where
  "approve for this location" goes, is the user's; an earlier memcli wrote there, this one does not).

Folder trust: Copilot ignores a project's `.github/hooks` and `.github/mcp.json` (and the
`.mcp.json` / `.claude/settings.json` hooks it also reads) until the user trusts the folder. Its
dialog's "Yes, and remember this folder for future sessions" records the folder in
`trustedFolders` of `~/.copilot/config.json` (a folder above counts too); `COPILOT_HOME` moves it.
User-scope hooks and servers need no trust.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memcli.agents.copilot_cli.discovery import home
from memcli.agents.jsonedit import blank_comments
from memcli.agents.parts import Wiring
from memcli.agents.targets import (
    CAPTURE,
    MCP_TOOLS,
    SERVER_NAME,
    SESSION_START,
    ConfigFile,
    Entry,
    mcp_server,
    own_hook,
    session_start_command,
)

# a PreToolUse handler's answer that runs the tool without asking (the same text in bash and
# PowerShell); its matcher is a regex Copilot matches whole against `<server>-<tool>`
APPROVE = "echo '{\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"memcli\"}'"
APPROVED_TOOLS = "|".join(f"{SERVER_NAME}-{tool}" for tool in MCP_TOOLS)
OPTION = "copilot"  # its `--agent` (the declaration in __init__ says the same; tests hold them equal)
TRUST_STEP = ('run `copilot` in {root} once and answer its folder-trust question with "Yes, and remember '
              'this folder for future sessions": until then Copilot CLI ignores .github/hooks and '
              ".github/mcp.json, memcli's hooks and server included (memcli does not do it for you)")


def _handler(command: str, timeout: int) -> dict[str, Any]:
    return {"type": "command", "bash": command, "powershell": command, "timeoutSec": timeout}


def config_files(scope: str, root: Path | None) -> list[ConfigFile]:
    hooks = (Entry("hooks file version", (), "version", 1, ""),
             own_hook("SessionStart", _handler(session_start_command(OPTION), 30), "bash", SESSION_START),
             own_hook("SessionEnd", _handler(CAPTURE, 10), "bash", CAPTURE))
    server = (mcp_server("mcpServers", type="stdio", tools=["*"]),)
    if scope != "project":
        return [ConfigFile(OPTION, home() / "hooks" / "memcli.json", "json", hooks),
                ConfigFile(OPTION, home() / "mcp-config.json", "json", server)]
    assert root is not None
    # the project approves memcli's tools itself, in its own hooks file: nothing in the home folder
    approve = own_hook("PreToolUse", dict(_handler(APPROVE, 5), matcher=APPROVED_TOOLS), "bash", APPROVE)
    return [ConfigFile(OPTION, root / ".github" / "hooks" / "memcli.json", "json", (*hooks, approve)),
            ConfigFile(OPTION, root / ".github" / "mcp.json", "json", server)]


def _read(path: Path) -> Any:
    try:
        return json.loads(blank_comments(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError):
        return None


def trust_file() -> Path:
    return home() / "config.json"


def trusted(root: Path) -> bool:
    """Is the folder, or one above it, in Copilot's `trustedFolders`?"""
    config = _read(trust_file())
    folders = config.get("trustedFolders") if isinstance(config, dict) else None
    if not isinstance(folders, list):
        return False
    here = Path(os.path.realpath(root))
    for folder in folders:
        if isinstance(folder, str) and folder:
            rule = Path(os.path.realpath(folder))
            if rule == here or rule in here.parents:
                return True
    return False


def _wired(root: Path) -> bool:
    """Are memcli's project hooks or server in place (what folder trust gates)?"""
    files = config_files("project", root)[:2]
    return any("memcli" in text for text in map(_text, (cf.path for cf in files)))


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def install_notes(scope: str, root: Path | None) -> list[str]:
    if scope != "project":
        return ["memcli_remember asks for your approval in each project (Copilot CLI keeps approvals per "
                "project; `memcli hooks install --agent copilot` in a project approves memcli's tools there)"]
    assert root is not None
    return [] if trusted(root) or not _wired(root) else [TRUST_STEP.format(root=root)]


def states(scope: str, root: Path | None) -> list[str]:
    if scope != "project" or root is None or not _wired(root):
        return []
    where = str(trust_file()).replace(str(Path.home()), "~", 1)
    if trusted(root):
        return [f"{root} trusted ({where}): Copilot CLI uses memcli's hooks and server"]
    return [f"{root} not trusted yet: Copilot CLI ignores memcli's hooks and server there until you "
            'trust the folder when it asks ("Yes, and remember this folder")']


WIRING = Wiring(config_files, install_notes, states)
