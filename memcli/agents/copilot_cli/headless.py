"""GitHub Copilot CLI as memcli's model (`agent/copilot`, `agent/copilot/<model>`), checked against
1.0.102: `copilot --help`, `copilot help config | environment`, its session store
and runs against a scripted Chat Completions API (its BYOK provider).

Both shapes run `copilot --output-format json` (the prompt on stdin: non-interactive; JSON lines
out: the messages, each tool call and its outcome, `session.error` with the API's status) in an
empty folder of their own, as a custom agent of that folder (`.github/agents/memcli.agent.md`,
`--agent memcli`, the folder trusted for this run only, `--trust-folder`) whose instructions are
memcli's system prompt: Copilot appends a selected agent's instructions to its own system prompt,
which no flag of 1.0.102 replaces. Every tool but the ones named is off (`--available-tools`), the
folder's settings switch every hook off (`disableAllHooks`: the user's too), and off are custom
instructions (AGENTS.md ...), the built-in GitHub MCP servers, the user's own MCP servers (by their
names in `~/.copilot/mcp-config.json`), `ask_user`, updates; its log goes to the run's folder. The
user's sign-in or BYOK provider and model are Copilot's own.

- ask: `--available-tools` names no tool: none at all (Copilot has no schema option: the prompt
  asks for the JSON);
- work: memcli's server from `--additional-mcp-config @mcp.json`, its tools the only available
  ones and allowed without asking (`--allow-tool memcli`); a tool Copilot refuses is in its output
  as `denied`.

Copilot keeps every session in its home whatever the flags (`session-state/<id>/` and rows of
`session-store.db`, which its `session_store_sql` tool and `--resume` read): `forget` finds the
run's by its folder and removes both after the run (`--session-id` cannot go with
`--trust-folder`). Its JSON output has no token counts: `read` takes them from that session's
`session.usage_record` events first.

Verified by runs: the system prompt and the tools each request offers (none; memcli's only), a
bash/create call answered "does not exist", an unapproved MCP call `denied`, memcli's calls
reaching the relay, the user's hook and MCP server not started, the 401/429 errors, what a run
leaves in `~/.copilot`. By reading: the session store's tables (schema version 8).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from memcli.agents.copilot_cli.discovery import EVENTS, home, session_files, start_event, started_in
from memcli.agents.parts import HeadlessDialect, McpTools, Reply, Run

AGENT = "memcli"
AGENT_FILE = f".github/agents/{AGENT}.agent.md"
SETTINGS = ".github/copilot/settings.json"
MCP_FILE = "mcp.json"
NO_TOOL = "memcli-no-tools"  # `--available-tools` of a question: a name no tool has
TOOL = "{server}-{tool}"  # how Copilot names an MCP server's tool
STORE = "session-store.db"


def _user_servers() -> list[str]:
    """The user's own MCP servers (`~/.copilot/mcp-config.json`), to switch off by name."""
    try:
        data = json.loads((home() / "mcp-config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return [name for name in servers if isinstance(name, str)] if isinstance(servers, dict) else []


def _run(system: str, prompt: str, folder: Path, model: str | None, tools: list[str],
         skip: str | None) -> Run:
    agent = f"---\nname: {AGENT}\ndescription: memcli's model run\n---\n{system}\n"
    argv = ["copilot", "--output-format", "json", "--agent", AGENT, "--trust-folder",
            "--no-custom-instructions", "--disable-builtin-mcps",
            "--no-ask-user", "--no-auto-update", "--no-color", "--log-dir", str(folder / "logs"),
            "--available-tools", *tools]
    for name in _user_servers():
        if name != skip:
            argv += ["--disable-mcp-server", name]
    files = {AGENT_FILE: agent, SETTINGS: json.dumps({"disableAllHooks": True})}
    return Run(argv + (["--model", model] if model else []), prompt, files=files)


def ask(system: str, prompt: str, schema: dict[str, Any] | None, model: str | None, folder: Path) -> Run:
    return _run(system, prompt, folder, model, [NO_TOOL], None)


def work(system: str, prompt: str, mcp: McpTools, model: str | None, folder: Path) -> Run:
    config = {"mcpServers": {mcp.server: {"type": "local", "command": mcp.command, "args": mcp.args,
                                          "env": mcp.env, "tools": mcp.tools}}}
    names = [TOOL.format(server=mcp.server, tool=tool) for tool in mcp.tools]
    run = _run(system, prompt, folder, model, names, mcp.server)
    argv = [*run.argv, "--additional-mcp-config", f"@{folder / MCP_FILE}", "--allow-tool", mcp.server]
    return run._replace(argv=argv, files={**run.files, MCP_FILE: json.dumps(config, ensure_ascii=False)})


def read(stdout: str, stderr: str) -> Reply:
    text, error, status, turns, session = "", None, None, 0, None
    names: dict[str, str] = {}
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
        data = got if isinstance(got := event.get("data"), dict) else {}
        if kind == "assistant.message" and isinstance(data.get("content"), str) and data["content"]:
            text = data["content"]
        elif kind == "assistant.turn_start":
            turns += 1
        elif kind == "tool.execution_start":
            names[str(data.get("toolCallId"))] = str(data.get("toolName") or "?")
        elif kind == "tool.execution_complete" and not data.get("success"):
            failure = got if isinstance(got := data.get("error"), dict) else {}
            if failure.get("code") == "denied":
                denied.append(names.get(str(data.get("toolCallId")), "?"))
        elif kind == "session.error":
            error = " ".join(str(data.get("message") or data.get("errorType") or "error").split())
            code = data.get("statusCode")
            status = code if isinstance(code, int) and not isinstance(code, bool) else None
        elif kind == "result":
            session = event.get("sessionId")
            if event.get("exitCode") not in (0, None) and error is None:
                error = f"exit code {event.get('exitCode')}"
    if not seen:
        lines = [x.strip() for x in stderr.strip().splitlines() if x.strip()]
        return Reply(error=lines[-1] if lines else "no events in its output")
    prompt_tokens, completion_tokens = _usage(session) if isinstance(session, str) else (0, 0)
    return Reply(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, turns=turns,
                 error=error, status=status, denied=tuple(dict.fromkeys(denied)))


def _usage(session: str) -> tuple[int, int]:
    """The tokens of the session's model calls, from its `session.usage_record` events."""
    if "/" in session or session in (".", ".."):
        return 0, 0
    prompt_tokens = completion_tokens = 0
    with contextlib.suppress(OSError):
        with (home() / "session-state" / session / EVENTS).open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if '"session.usage_record"' not in line:
                    continue
                with contextlib.suppress(ValueError, AttributeError):
                    usage = json.loads(line)["data"]["usage"]
                    prompt_tokens += _int(usage.get("inputTokens"))
                    completion_tokens += _int(usage.get("outputTokens"))
    return prompt_tokens, completion_tokens


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _sessions(copilot: Path, folder: Path, db: sqlite3.Connection | None) -> set[str]:
    """The sessions that ran in the run's folder: by the store's `cwd`, and by the `session.start`
    of the session folders written since the run began (a session the store does not list yet)."""
    paths = {str(folder), os.path.realpath(folder)}
    found: set[str] = set()
    if db is not None:
        with contextlib.suppress(sqlite3.Error):
            found |= {row[0] for row in db.execute(
                "SELECT id FROM sessions WHERE cwd IN (?, ?)", sorted(paths)) if isinstance(row[0], str)}
    try:
        began = min(p.stat().st_mtime for p in folder.iterdir()) - 1
    except (OSError, ValueError):
        began = 0.0
    for events in session_files(copilot):
        with contextlib.suppress(OSError):
            if events.name == EVENTS and events.stat().st_mtime >= began:
                data = start_event(events)
                if data is not None and started_in(data) in paths:
                    found.add(events.parent.name)
    return {sid for sid in found if sid and "/" not in sid and sid not in (".", "..")}


def forget(folder: Path) -> None:
    """Remove the run's session from Copilot's home: its folder, its lock, its rows in the store
    (1.0.102 cannot be told a session id for a run in a folder trusted for that run only)."""
    copilot = home()
    store = copilot / STORE
    db = None
    if store.is_file():
        with contextlib.suppress(sqlite3.Error):
            db = sqlite3.connect(store, timeout=5)
    try:
        for sid in _sessions(copilot, folder, db):
            shutil.rmtree(copilot / "session-state" / sid, ignore_errors=True)
            with contextlib.suppress(OSError):
                (copilot / "session-state" / ".session-operation-locks" / f"{sid}.lock").unlink()
            if db is not None:
                _forget_rows(db, sid)
    finally:
        if db is not None:
            db.close()


def _forget_rows(db: sqlite3.Connection, sid: str) -> None:
    """The session's rows in every table of the store that has a `session_id` (the search index,
    FTS5, too), then its own: each in a transaction of its own, as a newer store may differ."""
    with contextlib.suppress(sqlite3.Error):
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            with contextlib.suppress(sqlite3.Error), db:
                columns = {row[1] for row in db.execute(f'PRAGMA table_info("{table}")')}
                if "session_id" in columns:
                    db.execute(f'DELETE FROM "{table}" WHERE session_id = ?', (sid,))
        with contextlib.suppress(sqlite3.Error), db:
            db.execute("DELETE FROM sessions WHERE id = ?", (sid,))


DIALECT = HeadlessDialect(ask, read, work, login="run `copilot login`, or set COPILOT_GITHUB_TOKEN",
                          forget=forget)
