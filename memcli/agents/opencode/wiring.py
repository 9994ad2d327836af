"""OpenCode's wiring: what `memcli hooks install` writes for it (checked against OpenCode 1.18.33, its
bundled "customize opencode" guide and the code that loads configs and plugins).

- `opencode.json` (user: `~/.config/opencode/opencode.json`, XDG_CONFIG_HOME moves it; an existing
  `opencode.jsonc` is edited instead): memcli's MCP server under `mcp` (`"type": "local"`, the
  command as an array), and an `allow` rule for each of its tools under `permission`, keyed as
  OpenCode names an MCP server's tool (`memcli_memcli_search`). OpenCode 1.18 allows tools it has
  no rule for, but a user's `"*": "ask"` would stop each call; OpenCode applies the last rule that
  matches, and memcli's come after the user's. It waits for its MCP servers (30 s each) before the
  first request: nothing to set for that. (It connects them when first asked: `opencode run` at the
  first prompt's turn, unless memcli's plugin has asked at load, as it does.)
- `.opencode/plugins/memcli.js` (user: `~/.config/opencode/plugins/memcli.js`): OpenCode has no
  hook commands; its hooks are plugins, JavaScript modules it loads from those folders at start.
  memcli's (plugin.js) starts `memcli hooks session-start` when it loads and puts what it printed
  before a session's first prompt, and `memcli extract --hook` when a session goes idle (`session.idle`,
  after each prompt) and when OpenCode closes (the plugin's `dispose`, which ends the session).

OpenCode writes `"$schema"` into every config file it loads that lacks it, right after the opening
brace (`loaded`): uninstall knows install's text with that line in it, and restores the backup.

OpenCode asks its user to trust nothing: no folder trust, no approval of a project's MCP servers or
plugins (it loads them at start; it installs `@opencode-ai/plugin` into `.opencode/` on its own,
which memcli's plugin does not use). So no step is left to the user, and OpenCode's files have no
state for `hooks status` to show.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path

from memcli.agents import jsonedit
from memcli.agents.parts import Wiring
from memcli.agents.targets import (
    CAPTURE,
    MCP_TOOLS,
    SERVER_NAME,
    ConfigFile,
    Entry,
    generated,
    session_start_command,
)

SCHEMA = "https://opencode.ai/config.json"
OPTION = "opencode"  # its `--agent` (the declaration in __init__ says the same; tests hold them equal)
TOOL_NAME = "{server}_{tool}"
MARKER = "// memcli for OpenCode:"  # the first line of memcli's plugin


def config_home() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".config") / "opencode"


def plugin_text() -> str:
    template = resources.files("memcli.agents.opencode").joinpath("plugin.js").read_text(encoding="utf-8")
    return (template.replace("__MEMCLI_SESSION_START__", session_start_command(OPTION))
            .replace("__MEMCLI_CAPTURE__", CAPTURE))


def loaded(text: str) -> str:
    """The file as OpenCode 1.18.33 writes it back when it loads it: a file without `$schema` gets
    that line after its opening brace, the rest of its text as it was."""
    try:
        data = jsonedit.Document.parse(text).data
    except jsonedit.JsonSyntaxError:
        return text  # OpenCode stops at it; it writes nothing
    if not isinstance(data, dict) or data.get("$schema"):
        return text
    return re.sub(r"^[\s\ufeff]*\{", lambda _: '{\n  "$schema": ' + json.dumps(SCHEMA) + ",", text, count=1)


def config_file(folder: Path) -> Path:
    """`opencode.json`, unless the folder has an `opencode.jsonc` and no `opencode.json`."""
    plain, commented = folder / "opencode.json", folder / "opencode.jsonc"
    return commented if commented.is_file() and not plain.is_file() else plain


def config_files(scope: str, root: Path | None) -> list[ConfigFile]:
    server = {"type": "local", "command": ["memcli", "mcp"], "enabled": True}
    entries = (Entry("MCP server", ("mcp",), SERVER_NAME, server, ""),
               *(Entry(f"allow {tool}", ("permission",), TOOL_NAME.format(server=SERVER_NAME, tool=tool),
                       "allow", "") for tool in MCP_TOOLS))
    if scope == "project":
        assert root is not None
        settings, plugins = config_file(root), root / ".opencode" / "plugins"
    else:
        settings, plugins = config_file(config_home()), config_home() / "plugins"
    plugin = generated("plugin hook", plugin_text(), MARKER)
    return [ConfigFile(OPTION, settings, "json", entries, loaded=loaded),
            ConfigFile(OPTION, plugins / "memcli.js", "file", (plugin,))]


WIRING = Wiring(config_files)
