"""OpenCode as memcli's model (`agent/opencode`, `agent/opencode/<provider>/<model>`), checked
against 1.18.33: `opencode run --help`, the flags and config loading in its binary's bundled source,
and runs against a scripted Responses API (its `openai` provider with a local base URL).

Both shapes run `opencode run --format json --agent memcli` (the prompt on stdin; JSON lines out:
each step's text, tool calls and `step_finish` tokens and cost; an `error` event with the API's
status) in an empty folder of their own (PWD set to it: OpenCode takes its folder from PWD), with a
session database in memory (`OPENCODE_DB=:memory:`: the run is in no session list, memcli's or
OpenCode's), and its config for the run in OPENCODE_CONFIG_CONTENT, which OpenCode merges over the
user's: an agent `memcli` whose prompt (memcli's system prompt, `{file:./system.md}`) replaces
OpenCode's own and whose `permission` denies every tool but the ones allowed, the title agent off
(it would send the prompt to the small model once more), no instructions files, no sharing,
snapshots or updates, and the user's own MCP servers (by their names in the global config files)
switched off. Off by environment: plugins (`OPENCODE_PURE`, memcli's own included), the project's
config and AGENTS.md (`OPENCODE_DISABLE_PROJECT_CONFIG`), Claude Code's CLAUDE.md and skills
(`OPENCODE_DISABLE_CLAUDE_CODE`). The user's provider, model and login are OpenCode's own.

- ask: `"*": "deny"`: no tool is offered at all; OpenCode has no schema option for `run`: the
  prompt asks for the JSON;
- work: memcli's server as a `local` MCP server (its `environment` passed), and
  `"memcli_*": "allow"` over the denial: memcli's tools are the only ones offered, none asks.

What OpenCode still adds, by design and without a switch: the user's global
`~/.config/opencode/AGENTS.md`, and a few lines in its own log file (`~/.local/share/opencode/log`,
no prompt text).

Verified by runs: the system prompt and the tools each request offers (none; memcli's only), a
bash/write call answered as an unavailable tool, memcli's calls reaching the relay, the user's
plugin and MCP server not started, nothing left in its data folder but the log, the 401/429 errors
(OpenCode retries a 429 itself, with backoff). By reading its code: the config merge order,
OPENCODE_DB and the instructions it loads.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memcli.agents import jsonedit
from memcli.agents.opencode.wiring import config_home
from memcli.agents.parts import HeadlessDialect, McpTools, Reply, Run

AGENT = "memcli"
SYSTEM_FILE = "system.md"
TOOL = "{server}_{tool}"  # how OpenCode names an MCP server's tool
ENV = {"OPENCODE_DB": ":memory:", "OPENCODE_PURE": "1", "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
       "OPENCODE_DISABLE_CLAUDE_CODE": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}


def _user_servers() -> list[str]:
    """The MCP servers of the user's global config files (and OPENCODE_CONFIG's), by name."""
    folders = [config_home()] + ([Path(os.environ["OPENCODE_CONFIG_DIR"])]
                                 if os.environ.get("OPENCODE_CONFIG_DIR") else [])
    paths = [f / n for f in folders for n in ("config.json", "opencode.json", "opencode.jsonc")]
    if os.environ.get("OPENCODE_CONFIG"):
        paths.append(Path(os.environ["OPENCODE_CONFIG"]))
    names: list[str] = []
    for path in paths:
        try:
            data = json.loads(jsonedit.blank_comments(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        servers = data.get("mcp") if isinstance(data, dict) else None
        if isinstance(servers, dict):
            names += [n for n in servers if isinstance(n, str) and n not in names]
    return names


def _run(system: str, prompt: str, folder: Path, model: str | None, permission: dict[str, str],
         servers: dict[str, Any]) -> Run:
    mcp: dict[str, Any] = {name: {"enabled": False} for name in _user_servers()}
    mcp.update(servers)
    config = {"agent": {AGENT: {"mode": "primary", "prompt": "{file:./" + SYSTEM_FILE + "}",
                                "permission": permission},
                        "title": {"disable": True}},
              "instructions": [], "share": "disabled", "autoupdate": False, "snapshot": False, "mcp": mcp}
    env = {**ENV, "PWD": str(folder), "OPENCODE_CONFIG_CONTENT": json.dumps(config, ensure_ascii=False)}
    argv = ["opencode", "run", "--format", "json", "--agent", AGENT]
    return Run(argv + (["--model", model] if model else []), prompt, env=env, files={SYSTEM_FILE: system})


def ask(system: str, prompt: str, schema: dict[str, Any] | None, model: str | None, folder: Path) -> Run:
    return _run(system, prompt, folder, model, {"*": "deny"}, {})


def work(system: str, prompt: str, mcp: McpTools, model: str | None, folder: Path) -> Run:
    server = {"type": "local", "command": [mcp.command, *mcp.args], "environment": mcp.env,
              "enabled": True, "timeout": 60_000}
    allowed = {"*": "deny", TOOL.format(server=mcp.server, tool="*"): "allow"}
    return _run(system, prompt, folder, model, allowed, {mcp.server: server})


def read(stdout: str, stderr: str) -> Reply:
    text, error, status = "", None, None
    prompt_tokens = completion_tokens = turns = 0
    cost = 0.0
    denied: list[str] = []
    seen = False
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        seen = True
        kind = event.get("type")
        part = got if isinstance(got := event.get("part"), dict) else {}
        if kind == "text" and isinstance(part.get("text"), str):
            text = part["text"]
        elif kind == "step_finish":
            tokens = got if isinstance(got := part.get("tokens"), dict) else {}
            cache = got if isinstance(got := tokens.get("cache"), dict) else {}
            prompt_tokens += _int(tokens.get("input")) + _int(cache.get("read")) + _int(cache.get("write"))
            completion_tokens += _int(tokens.get("output")) + _int(tokens.get("reasoning"))
            cost += float(part["cost"]) if isinstance(part.get("cost"), int | float) else 0.0
            turns += 1
        elif kind == "tool_use":
            state = got if isinstance(got := part.get("state"), dict) else {}
            if state.get("status") == "error" and "permission" in str(state.get("error", "")).lower():
                denied.append(str(part.get("tool") or "?"))
        elif kind == "error":
            failure = got if isinstance(got := event.get("error"), dict) else {}
            data = got if isinstance(got := failure.get("data"), dict) else {}
            error = " ".join(str(data.get("message") or failure.get("name") or "error").split())
            code = data.get("statusCode")
            status = code if isinstance(code, int) and not isinstance(code, bool) else None
    if not seen:
        lines = [x.strip() for x in stderr.strip().splitlines() if x.strip()]
        return Reply(error=lines[-1] if lines else "no events in its output")
    return Reply(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost_usd=cost,
                 turns=turns, error=error, status=status, denied=tuple(dict.fromkeys(denied)))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


DIALECT = HeadlessDialect(ask, read, work, login="run `opencode auth login`, or set its provider's API key")
