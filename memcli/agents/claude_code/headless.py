"""Claude Code as memcli's model (`agent/claude-code`), checked against 2.1.332 (`claude --help` and
runs against a scripted Messages API).

Both shapes run `claude -p` in an empty folder of their own with memcli's system prompt in place of
Claude Code's (`--system-prompt-file`), JSON output (one `result` object: the answer, its usage and
cost, `is_error` with the API's status), and no session file (`--no-session-persistence`), so the
run is never one of the workspace's sessions and nothing of it is left in `~/.claude/projects`.

- ask: `--safe-mode` (no CLAUDE.md, skills, plugins, hooks or MCP servers: only the question),
  `--tools ""` (no tool at all) and the answer's schema through `--json-schema`, which Claude Code
  answers through its own StructuredOutput tool as `structured_output`;
- work: `--tools ""` (no Bash, Edit, Write, WebFetch ...), `--strict-mcp-config --mcp-config`
  (memcli's run-scoped server and no other), `--allowedTools` its tools and `--permission-mode
  dontAsk` (anything else is refused, never asked), the user's and plugins' hooks off
  (`disableAllHooks`), no slash commands or skills. `--safe-mode` would switch the MCP server off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memcli.agents.parts import HeadlessDialect, McpTools, Reply, Run

SYSTEM_FILE = "system.md"
MCP_FILE = "mcp.json"
_COMMON = ["claude", "-p", "--output-format", "json", "--no-session-persistence", "--tools", "",
           "--disable-slash-commands", "--permission-mode", "dontAsk"]


def _model(model: str | None) -> list[str]:
    return ["--model", model] if model else []


def ask(system: str, prompt: str, schema: dict[str, Any] | None, model: str | None, folder: Path) -> Run:
    argv = [*_COMMON, "--safe-mode", "--system-prompt-file", str(folder / SYSTEM_FILE), *_model(model)]
    if schema is not None:
        argv += ["--json-schema", json.dumps(schema, ensure_ascii=False)]
    return Run(argv, prompt, files={SYSTEM_FILE: system})


def work(system: str, prompt: str, mcp: McpTools, model: str | None, folder: Path) -> Run:
    config = {"mcpServers": {mcp.server: {"type": "stdio", "command": mcp.command, "args": mcp.args,
                                          "env": mcp.env}}}
    allowed = ",".join(f"mcp__{mcp.server}__{tool}" for tool in mcp.tools)
    argv = [*_COMMON, "--system-prompt-file", str(folder / SYSTEM_FILE), "--strict-mcp-config",
            "--mcp-config", str(folder / MCP_FILE), "--allowedTools", allowed,
            "--settings", json.dumps({"disableAllHooks": True}), *_model(model)]
    return Run(argv, prompt, files={SYSTEM_FILE: system, MCP_FILE: json.dumps(config)})


def read(stdout: str, stderr: str) -> Reply:
    """The `result` object `--output-format json` prints last."""
    result = None
    for line in reversed(stdout.strip().splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict) and found.get("type") == "result":
            result = found
            break
    if result is None:
        return Reply(error=_last_line(stderr) or "no result in its output")
    usage = got if isinstance(got := result.get("usage"), dict) else {}
    prompt_tokens = sum(_int(usage.get(k)) for k in
                        ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    cost = result.get("total_cost_usd")
    text = got if isinstance(got := result.get("result"), str) else ""
    failed = bool(result.get("is_error")) or str(result.get("subtype", "success")) != "success"
    denied = tuple(str(d.get("tool_name", "?")) for d in result.get("permission_denials") or []
                   if isinstance(d, dict))
    status = result.get("api_error_status")
    return Reply(text=text, structured=result.get("structured_output"),
                 prompt_tokens=prompt_tokens, completion_tokens=_int(usage.get("output_tokens")),
                 cost_usd=float(cost) if isinstance(cost, int | float) else None,
                 turns=_int(result.get("num_turns")),
                 error=(text or str(result.get("subtype"))) if failed else None,
                 status=status if isinstance(status, int) else None, denied=denied)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


DIALECT = HeadlessDialect(ask, read, work, login="run `claude` once and log in, or set ANTHROPIC_API_KEY",
                          schema_option=True)
