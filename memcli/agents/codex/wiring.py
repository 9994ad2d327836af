"""Codex CLI's wiring: what `memcli hooks install` writes for it, and Codex's own trust in it, read
from Codex's files, never changed (checked against Codex CLI 0.171.0, codex-rs config/hooks;
docs/agents.md "Codex CLI").

What is written, in `.codex/config.toml` (user: `$CODEX_HOME/config.toml`): the hooks (timeouts in
seconds), `[mcp_servers.memcli]`, and the wait for MCP servers at start: Codex 0.171 leaves an
optional MCP server's tools out of a session's first request when the server is not up within
`mcp_optional_startup_grace_ms` (default 1000 ms); `required = true` would instead refuse to start
any session where `memcli` is missing (docs/agents.md).

Two decisions are the user's, and Codex records both in `$CODEX_HOME/config.toml`:

- the folder: Codex reads a project's `.codex/config.toml` (memcli's hooks and MCP server) only once
  the user answered "Trust this folder?", recorded as `[projects."<path>"] trust_level = "trusted"`
  for the folder, its project root or its repository root;
- each hook: a hook that is not managed runs only once trusted in /hooks, recorded as
  `[hooks.state."<config path>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`, the hash of
  the hook's normalised definition (editing the hook revokes it; `enabled = false` turns it off).

Until then Codex skips the hooks without a word. `install_notes` names the step still to take;
`states` shows where things stand for `memcli hooks status`.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.agents.codex.discovery import home
from memcli.agents.parts import Wiring
from memcli.agents.targets import (
    CAPTURE,
    SESSION_START,
    ConfigFile,
    Entry,
    hook,
    mcp_server,
    session_start_command,
)

OPTION = "codex"  # its `--agent` (the declaration in __init__ says the same; tests hold them equal)

UNTRUSTED = "hooks installed, not trusted yet: review them with /hooks in Codex"
CHANGED = "hooks changed since you trusted them: review them again with /hooks in Codex"
DISABLED = "hooks turned off in Codex's /hooks: memcli's context and capture do not run"
TRUSTED = "hooks trusted in Codex"
_NO_MATCHER = {"stop", "user_prompt_submit"}  # events whose matcher Codex ignores (and does not hash)
_FOLDER = ("folder {} in Codex: it ignores .codex/config.toml (memcli's hooks and MCP server) "
           "until you trust it when Codex asks")


def config_files(scope: str, root: Path | None) -> list[ConfigFile]:
    entries = (Entry("MCP start-up wait", (), "mcp_optional_startup_grace_ms", 10_000, ""),
               hook("SessionStart", session_start_command(OPTION), SESSION_START, 30),
               hook("Stop", CAPTURE, CAPTURE, 10), hook("PreCompact", CAPTURE, CAPTURE, 10),
               mcp_server("mcp_servers"))
    folder = root / ".codex" if scope == "project" and root is not None else home()
    return [ConfigFile(OPTION, folder / "config.toml", "toml", entries)]


def install_notes(scope: str, root: Path | None) -> list[str]:
    lines = states(scope, root)
    if any(line.startswith("folder ") for line in lines):
        return ["trust this folder when Codex asks, then trust memcli's hooks with /hooks: until then "
                "Codex skips them without a word"]
    if UNTRUSTED in lines or CHANGED in lines:
        return ["trust memcli's hooks with /hooks in Codex: until then Codex skips them without a word"]
    return []


def states(scope: str, root: Path | None) -> list[str]:
    lines: list[str] = []
    user = _read(config_files("user", None)[0].path)  # $CODEX_HOME/config.toml
    for cf in config_files(scope, root):
        hooks = list(memcli_hooks(cf, _read(cf.path)))
        if not hooks:
            continue
        if scope == "project" and root is not None:
            level = folder_trust(root, user)
            if level != "trusted":
                lines.append(_FOLDER.format("marked untrusted" if level == "untrusted" else
                                            "not trusted yet"))
        recorded = user.get("hooks", {}).get("state", {}) if isinstance(user.get("hooks"), dict) else {}
        found = {_hook_state(recorded, keys, digest) for keys, digest in hooks}
        lines += [line for state, line in (("untrusted", UNTRUSTED), ("changed", CHANGED),
                                           ("disabled", DISABLED)) if state in found]
        if found == {"trusted"}:
            lines.append(TRUSTED)
    return lines


def folder_trust(root: Path, user: dict[str, Any]) -> str | None:
    """The trust level Codex applies to `root`: its own entry, else its repository root's."""
    projects = got if isinstance(got := user.get("projects"), dict) else {}
    top = next((p for p in (root, *root.parents) if (p / ".git").exists()), None)
    for folder in (root, top):
        for key in _spellings(folder):
            entry = projects.get(key)
            if isinstance(entry, dict) and isinstance(entry.get("trust_level"), str):
                return entry["trust_level"]
    return None


def memcli_hooks(cf: ConfigFile, data: dict[str, Any]) -> Iterator[tuple[list[str], str]]:
    """Each memcli hook handler in `cf` as (the keys Codex may file its state under, its hash)."""
    events = got if isinstance(got := data.get("hooks"), dict) else {}
    for entry in cf.entries:
        groups = events.get(entry.path[-1]) if entry.key is None else None
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            for h in entry.handlers_ours(group):
                event = _event_label(entry.path[-1])
                keys = [f"{path}:{event}:{g}:{h}" for path in _spellings(cf.path)]
                yield keys, hook_hash(event, group, group["hooks"][h])


def hook_hash(event: str, group: dict[str, Any], handler: dict[str, Any]) -> str:
    """Codex's `trusted_hash` of one handler: sha256 of the canonical JSON (keys sorted, compact)
    of its normalised definition, where unset fields are left out and the timeout defaults to 600."""
    timeout = handler.get("timeout")
    normal: dict[str, Any] = {"type": "command", "command": handler.get("command"),
                              "timeout": max(timeout if isinstance(timeout, int) else 600, 1),
                              "async": handler.get("async") is True}
    if isinstance(handler.get("statusMessage"), str):
        normal["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": event, "hooks": [normal]}
    if isinstance(group.get("matcher"), str) and event not in _NO_MATCHER:
        identity["matcher"] = group["matcher"]
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _hook_state(recorded: Any, keys: list[str], digest: str) -> str:
    found = recorded if isinstance(recorded, dict) else {}
    state: dict[str, Any] = next((found[k] for k in keys if isinstance(found.get(k), dict)), {})
    if state.get("enabled") is False:
        return "disabled"
    trusted = state.get("trusted_hash")
    return "untrusted" if not trusted else ("trusted" if trusted == digest else "changed")


def _event_label(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()  # SessionStart -> session_start


def _spellings(path: Path | None) -> list[str]:
    """The path as written and with its links resolved (Codex keys by the path it was given)."""
    if path is None:
        return []
    return list(dict.fromkeys([str(path.absolute()), str(path.resolve())]))


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # missing or unreadable: nothing recorded (hooks status says if memcli's is broken)


WIRING = Wiring(config_files, install_notes, states)
