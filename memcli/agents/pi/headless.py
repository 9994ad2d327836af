"""Pi as memcli's model (`agent/pi`, `agent/pi/<provider>/<model>`), checked against 0.73.1: `pi
--help`, its dist/ (main.js, core/sdk.js, core/agent-session.js, core/resource-loader.js,
core/system-prompt.js, core/extensions/loader.js) and runs against a scripted Messages API.

Both shapes run `pi -p --mode json` (the prompt on stdin; JSON lines out: each message with its
usage and cost, `stopReason: "error"` with the API's status and body) in an empty folder of their
own with `--no-session` (nothing under `~/.pi/agent/sessions`), memcli's system prompt in place of
Pi's (`--system-prompt FILE`; Pi adds the date and the folder; `--append-system-prompt ""` keeps
an APPEND_SYSTEM.md out), and nothing of the user's: no extensions (memcli's own included), skills,
prompt templates, themes or AGENTS.md/CLAUDE.md (`-ne -ns -np --no-themes -nc`), no start-up
network (`--offline`). The user's provider, model and login are Pi's own.

- ask: `--no-tools`: no tool at all (Pi has no schema option: the prompt asks for the JSON);
- work: Pi has no MCP, so relay.ts (beside this module), loaded with `-e`, starts memcli's server
  (`memcli mcp --relay`, from MEMCLI_PI_RELAY) and registers its tools before the session starts;
  `--tools` allows exactly those names, so Pi's read, bash, edit and write are not even offered.
  Pi asks no permission for a tool it offers.

Verified by runs: the system prompt and the tools each request offers (none; memcli's only), a
bash/write call answered "Tool bash not found", memcli's tool calls reaching the relay, no session
file, the usage and the 401/429 errors as read here (Pi exits 0 after an API error; it retries a
429 three times itself). By reading its code: APPEND_SYSTEM.md, extension discovery, `--tools`.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

from memcli.agents.parts import HeadlessDialect, McpTools, Reply, Run

SYSTEM_FILE = "system.md"
RELAY_FILE = "relay.ts"
RELAY_ENV = "MEMCLI_PI_RELAY"  # what relay.ts starts: {command, args, env}
_QUIET = ["--no-session", "--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes",
          "--no-context-files", "--offline", "--append-system-prompt", ""]
_STATUS = re.compile(r"^(\d{3})\b")


def _common(folder: Path, model: str | None) -> list[str]:
    argv = ["pi", "-p", "--mode", "json", *_QUIET, "--system-prompt", str(folder / SYSTEM_FILE)]
    return argv + (["--model", model] if model else [])


def ask(system: str, prompt: str, schema: dict[str, Any] | None, model: str | None, folder: Path) -> Run:
    return Run([*_common(folder, model), "--no-tools"], prompt, files={SYSTEM_FILE: system})


def work(system: str, prompt: str, mcp: McpTools, model: str | None, folder: Path) -> Run:
    relay = files(__package__).joinpath(RELAY_FILE).read_text(encoding="utf-8")
    server = {"command": mcp.command, "args": mcp.args, "env": mcp.env}
    argv = [*_common(folder, model), "--extension", str(folder / RELAY_FILE), "--tools", ",".join(mcp.tools)]
    return Run(argv, prompt, env={RELAY_ENV: json.dumps(server)},
               files={SYSTEM_FILE: system, RELAY_FILE: relay})


def read(stdout: str, stderr: str) -> Reply:
    """The assistant messages of `--mode json` (`message_end`), the last one the answer."""
    last: dict[str, Any] | None = None
    prompt_tokens = completion_tokens = turns = 0
    cost = 0.0
    final_error = None
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        message = got if isinstance(got := event.get("message"), dict) else {}
        if event.get("type") == "message_end" and message.get("role") == "assistant":
            last = message
            usage = got if isinstance(got := message.get("usage"), dict) else {}
            prompt_tokens += sum(_int(usage.get(k)) for k in ("input", "cacheRead", "cacheWrite"))
            completion_tokens += _int(usage.get("output"))
            spent = got if isinstance(got := usage.get("cost"), dict) else {}
            cost += float(spent.get("total") or 0) if isinstance(spent.get("total"), int | float) else 0.0
            turns += 1
        elif event.get("type") == "auto_retry_end" and not event.get("success"):
            final_error = str(event.get("finalError") or "")
    if last is None:
        lines = [x.strip() for x in stderr.strip().splitlines() if x.strip()]
        return Reply(error=lines[-1] if lines else "no answer in its output")
    content = got if isinstance(got := last.get("content"), list) else []
    text = "".join(str(c.get("text") or "") for c in content
                   if isinstance(c, dict) and c.get("type") == "text")
    error = None
    if last.get("stopReason") in ("error", "aborted"):
        error = final_error or str(last.get("errorMessage") or last.get("stopReason"))
    found = _STATUS.match(error or "")
    return Reply(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                 cost_usd=cost, turns=turns, error=_said(error) if error else None,
                 status=int(found.group(1)) if found else None)


def _said(error: str) -> str:
    """Pi's `<status> <body>`: the status and the API's own message when the body is JSON."""
    status, _, body = error.partition(" ")
    try:
        data = json.loads(body)
    except ValueError:
        return error
    inner = data.get("error") if isinstance(data, dict) else None
    message = inner.get("message") if isinstance(inner, dict) else None
    return f"{status} {message}" if isinstance(message, str) and status.isdigit() else error


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


DIALECT = HeadlessDialect(ask, read, work, login="run `pi` once and `/login`, or set its provider's API key")
