"""Codex CLI as memcli's model (`agent/codex`), checked against 0.171.0 (`codex exec --help`,
`codex features list` and runs against a scripted Responses API).

Both shapes run `codex exec --json -` (the prompt on stdin, JSONL events out: the final
`agent_message`, `turn.completed` usage, `turn.failed` errors) in an empty folder of their own,
with `--ephemeral` (no rollout file: never one of the workspace's sessions, nothing left in
`$CODEX_HOME/sessions`), the read-only sandbox, memcli's system prompt in place of Codex's
instructions (`model_instructions_file`), and everything that would add tools or instructions off:
its shell, sub-agents, goals, images, apps, plugins, browser and computer use, web search, the
bundled skills, hooks. The user's own MCP servers (`$CODEX_HOME/config.toml`) are switched off by
name: none for a question, memcli's run-scoped server alone for a working run. The user's
provider, model and login are Codex's own.

Its schema option (`--output-schema`) sends the schema as OpenAI strict structured output, which
takes every property as required and no `default` or length keywords: the schema is sent in that
form (`strict`), and memcli still validates the answer with the real one.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from memcli.agents.codex.discovery import home
from memcli.agents.parts import HeadlessDialect, McpTools, Reply, Run

SYSTEM_FILE = "system.md"
SCHEMA_FILE = "schema.json"
OFF = ("hooks", "shell_tool", "multi_agent", "goals", "image_generation", "apps", "plugins", "browser_use",
       "computer_use", "sleep_tool", "tool_suggest", "skill_search")
_UNSUPPORTED = ("default", "minLength", "maxLength", "minItems", "maxItems", "title")


def _toml(value: Any) -> str:
    """A TOML value for `-c key=value` (JSON strings and arrays are TOML's too)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _common(folder: Path, model: str | None, servers: dict[str, Any]) -> list[str]:
    argv = ["codex", "exec", "--json", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only",
            "--color", "never", "-c", f"model_instructions_file={_toml(str(folder / SYSTEM_FILE))}",
            "-c", 'web_search="disabled"', "-c", "skills.bundled.enabled=false"]
    # `-c mcp_servers={...}` is merged into the user's servers, not put in their place: each of
    # theirs is switched off by name, memcli's set whole
    for name in user_servers():
        if name not in servers:
            argv += ["-c", f"mcp_servers.{_key(name)}.enabled=false"]
    for name, server in servers.items():
        argv += ["-c", f"mcp_servers.{_key(name)}={_toml(server)}"]
    for feature in OFF:
        argv += ["--disable", feature]
    return argv + (["--model", model] if model else [])


def user_servers() -> list[str]:
    """The MCP servers in the user's `$CODEX_HOME/config.toml` (a project's own config is read by
    Codex only in a trusted folder, and a run's folder is a new, empty one)."""
    try:
        data = tomllib.loads((home() / "config.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # Codex itself reports a config it cannot read
    servers = data.get("mcp_servers")
    return [str(name) for name in servers] if isinstance(servers, dict) else []


def _key(name: str) -> str:
    """A TOML key: bare when it can be, else quoted."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as OpenAI's strict mode takes it: every object closed with all its properties
    required, without the keywords strict mode refuses (memcli validates with the original)."""
    out = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in _UNSUPPORTED:
                if key in node and not isinstance(node[key], dict):
                    node.pop(key)
            if node.get("type") == "object" and isinstance(node.get("properties"), dict):
                node["required"] = list(node["properties"])
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out


def ask(system: str, prompt: str, schema: dict[str, Any] | None, model: str | None, folder: Path) -> Run:
    argv = _common(folder, model, {})
    files = {SYSTEM_FILE: system}
    if schema is not None:
        argv += ["--output-schema", str(folder / SCHEMA_FILE)]
        files[SCHEMA_FILE] = json.dumps(strict(schema), ensure_ascii=False)
    return Run([*argv, "-"], prompt, files=files)


def work(system: str, prompt: str, mcp: McpTools, model: str | None, folder: Path) -> Run:
    server = {mcp.server: {"command": mcp.command, "args": mcp.args, "env": mcp.env,
                           "enabled_tools": mcp.tools, "default_tools_approval_mode": "approve",
                           "startup_timeout_sec": 60, "required": True}}
    return Run([*_common(folder, model, server), "-"], prompt, files={SYSTEM_FILE: system})


def read(stdout: str, stderr: str) -> Reply:
    text, error, prompt_tokens, completion_tokens, turns = "", None, 0, 0, 0
    seen, denied = False, []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        seen = True
        kind = event.get("type")
        item = got if isinstance(got := event.get("item"), dict) else {}
        if kind == "item.completed" and item.get("type") == "agent_message":
            text = str(item.get("text") or "")
        elif kind == "item.completed" and item.get("type") == "mcp_tool_call" and (
                item.get("status") == "failed"):
            failure = got if isinstance(got := item.get("error"), dict) else {}
            if "approval" in str(failure.get("message", "")):  # its policy refused it: not memcli
                denied.append(str(item.get("tool", "?")))
        elif kind == "turn.completed":
            usage = got if isinstance(got := event.get("usage"), dict) else {}
            prompt_tokens += _int(usage.get("input_tokens"))
            completion_tokens += _int(usage.get("output_tokens"))
            turns += 1
        elif kind == "turn.failed":
            failure = got if isinstance(got := event.get("error"), dict) else {}
            error = str(failure.get("message") or "the turn failed")
        elif kind == "error" and error is None:
            error = str(event.get("message") or "error")
    if not seen:
        lines = [x.strip() for x in stderr.strip().splitlines() if x.strip()]
        error = lines[-1] if lines else "no events in its output"
    return Reply(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, turns=turns,
                 error=error, denied=tuple(dict.fromkeys(denied)))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


DIALECT = HeadlessDialect(ask, read, work, login="run `codex login`, or set OPENAI_API_KEY",
                          schema_option=True)
