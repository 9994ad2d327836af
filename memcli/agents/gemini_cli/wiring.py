"""Gemini CLI's wiring: what `memcli hooks install` writes for it, and folder trust, the one step
memcli must leave to the user, read from Gemini's own files (checked against Gemini CLI 0.61.0).

What is written: hooks (SessionStart, SessionEnd; timeouts in milliseconds) and `mcpServers` in
`.gemini/settings.json` (user: `~/.gemini/settings.json`). The server entry has `"trust": true`,
Gemini's own allow rule for one server's tools: without it a headless run (`gemini -p`) leaves
memcli's tools out of the request (its policy denies what it cannot ask about), and an interactive
one asks before each call (memcli_remember writes nothing: what it keeps is reviewed at
consolidation). No PreCompress capture: 0.61 fires PreCompress before every model request (its
compression check runs the hook before the threshold test), which would start a capture worker per
request and delay each one, and its JSONL transcript loses nothing when it compresses; SessionEnd
is the capture. Earlier memcli versions wrote one: install removes it.

With folder trust on (the default from 0.61: `security.folderTrust.enabled`), Gemini CLI ignores a
folder's `.gemini/settings.json`, runs no hooks at all (the user's own included) and starts no stdio
MCP server until the user trusts the folder; `gemini -p` in an untrusted folder exits with an error.
The user trusts a folder in Gemini's dialog ("Trust folder" / "Trust parent folder") or with
`/permissions trust`, which records `{"<folder>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`
in `~/.gemini/trustedFolders.json` (GEMINI_CLI_TRUSTED_FOLDERS_PATH moves it); the longest rule
that contains the folder decides, a TRUST_PARENT rule covering its parent folder's tree.

- `install_notes(scope, root)`: the trust step, when Gemini's files say it is still to be taken.
- `states(scope, root)`: the workspace's trust as Gemini will see it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memcli.agents.jsonedit import blank_comments
from memcli.agents.parts import Wiring
from memcli.agents.targets import CAPTURE, SESSION_START, ConfigFile, hook, mcp_server, session_start_command

OPTION = "gemini"  # its `--agent` (the declaration in __init__ says the same; tests hold them equal)
TRUST_FILE = "trustedFolders.json"
LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")


def home_folder() -> Path:
    home = os.environ.get("GEMINI_CLI_HOME")  # Gemini CLI's stand-in for the home folder
    return Path(home) if home else Path.home()


def gemini_dir() -> Path:
    return home_folder() / ".gemini"


def config_files(scope: str, root: Path | None) -> list[ConfigFile]:
    start = session_start_command(OPTION)
    entries = (hook("SessionStart", start, SESSION_START, 30_000, name="memcli-context"),
               hook("SessionEnd", CAPTURE, CAPTURE, 10_000, name="memcli-capture"),
               mcp_server("mcpServers", trust=True))
    retired = (hook("PreCompress", CAPTURE, CAPTURE, 10_000, name="memcli-capture"),)
    base = root if scope == "project" else home_folder()
    assert base is not None
    return [ConfigFile(OPTION, base / ".gemini" / "settings.json", "json", entries, retired)]


def trust_file() -> Path:
    moved = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(moved) if moved else gemini_dir() / TRUST_FILE


def _json(path: Path) -> Any:
    try:
        return json.loads(blank_comments(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError):
        return None


def folder_trust_enabled() -> bool:
    """`security.folderTrust.enabled` of the system settings, else the user's, else on."""
    system = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json"
    for path in (Path(system), gemini_dir() / "settings.json"):
        settings = _json(path)
        trust = settings.get("security", {}).get("folderTrust") if isinstance(settings, dict) else None
        enabled = trust.get("enabled") if isinstance(trust, dict) else None
        if isinstance(enabled, bool):
            return enabled
    return True


def _real(path: str | Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(path)


def folder_trust(folder: Path) -> str | None:
    """The level of the rule that decides for `folder` (None: no rule, Gemini will ask)."""
    rules = _json(trust_file())
    if not isinstance(rules, dict):
        return None
    where = _real(folder)
    best: tuple[int, str] | None = None
    for rule, level in rules.items():
        if level not in LEVELS:
            continue
        scope = _real(Path(rule).parent if level == "TRUST_PARENT" else rule)
        if (where == scope or scope in where.parents) and (best is None or len(rule) > best[0]):
            best = (len(rule), level)
    return best[1] if best else None


def install_notes(scope: str, root: Path | None) -> list[str]:
    if not folder_trust_enabled():
        return []
    if scope == "user":
        return ["Gemini CLI runs hooks and MCP servers only in folders you trust: trust each project "
                "when Gemini asks (memcli does not do it for you)"]
    assert root is not None
    if folder_trust(root) in ("TRUST_FOLDER", "TRUST_PARENT"):
        return []
    return [f"trust {root} in Gemini CLI when it asks (or /permissions trust): until then it ignores "
            ".gemini/settings.json, memcli's hooks and server included (memcli does not do it for you)"]


def _wired(settings: Path) -> bool:
    try:
        return "memcli" in settings.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def states(scope: str, root: Path | None) -> list[str]:
    """The workspace's trust, once: under the project scope when memcli is wired there, else under
    the user scope when it is wired there (Gemini applies folder trust to both)."""
    if root is None:
        return []
    project = _wired(root / ".gemini" / "settings.json")
    if not (project if scope == "project" else not project and _wired(gemini_dir() / "settings.json")):
        return []
    if not folder_trust_enabled():
        return ["folder trust is off: Gemini CLI uses memcli's hooks and server in every folder"]
    level = folder_trust(root)
    where = str(trust_file()).replace(str(Path.home()), "~", 1)
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return [f"{root} trusted ({level} in {where}): Gemini CLI uses memcli's hooks and server"]
    if level == "DO_NOT_TRUST":
        return [f"{root} marked untrusted in {where}: Gemini CLI ignores memcli's hooks and server "
                "there; trust it with /permissions trust"]
    return [f"{root} not trusted yet: Gemini CLI ignores memcli's hooks and server there until you "
            "trust the folder when it asks"]


WIRING = Wiring(config_files, install_notes, states)
