"""Gemini CLI as memcli's model (`agent/gemini`, `agent/gemini/<model>`), checked against 0.61.0:
`gemini --help`, its bundle (the settings schema and their merge, the policy engine's rules from
`tools.core`, the tool registry, the system prompt's assembly, the chat recording, the project
registry) and runs against a scripted Gemini API.

Both shapes run `gemini -p "" -o json` (the prompt on stdin; one JSON object out: the answer, every
model's token counts, the tools' decisions; an `error` with the API's code on stderr) in an empty
folder of their own, memcli's system prompt in place of Gemini's (`GEMINI_SYSTEM_MD`), no extension
(`-e none`), and the folder's own `.gemini/settings.json`, which Gemini reads as the workspace's
(the folder is trusted for the run, GEMINI_CLI_TRUST_WORKSPACE, as `--skip-trust` would, but
before the settings are read): `tools.core` (the only tools registered and allowed, by the policy
rules it makes: none for a question, memcli's for a working run), hooks off (`hooksConfig`),
skills off, no directory listing in the first message. `--allowed-mcp-server-names` leaves only
memcli's run-scoped server (a question: none) of the user's, the extensions' and the folder's.

- ask: no tool at all; Gemini CLI has no schema option: the prompt asks for the JSON;
- work: memcli's server as `mcpServers.memcli`, `trust`ed (its tools run without asking, which a
  headless Gemini would otherwise refuse) and its tools alone in `tools.core`. Gemini drops a
  PYTHONPATH from a server's `env` (a "dangerous" variable) but starts it in its own environment,
  which has it.

What Gemini still adds, by design and without a switch: the user's global `~/.gemini/GEMINI.md`
(appended to the system prompt as context), and a chat file it always records under
`~/.gemini/tmp/<the folder's name>/chats/` (with `.project_root` markers and an entry in
`projects.json`): `forget` removes those after each run, so the run is in no history. Its error
reports (`gemini-client-error-*.json`, with the request) go to TMPDIR: the run's own folder.

With its model on `auto` (the default), Gemini first sends the prompt to a small model that picks
the model (its router); the tokens of both are counted. Gemini retries a 429 itself: up to
`general.maxAttempts` (10) times with backoff, its router's calls 10 times whatever that says.

Verified by runs: the system instruction, the tools offered (none; memcli's only), a shell or
write_file call answered "not found", memcli's calls reaching the relay, the user's hook and MCP
server not started, the JSON output and the 401/429 errors as read here, the retries, the files a
run leaves. By reading its code: the settings' merge and precedence, GEMINI.md's loading.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from memcli.agents.gemini_cli.discovery import home
from memcli.agents.parts import HeadlessDialect, McpTools, Reply, Run
from memcli.ownrun import FOLDER_PREFIX

SYSTEM_FILE = "system.md"
SETTINGS = ".gemini/settings.json"
NO_SERVER = "memcli-none"  # `--allowed-mcp-server-names` of a question: a name no server has
PREFIX = "mcp_{server}_"  # how Gemini names an MCP server's tool (0.61)
_LOCK_STALE_S = 10.0  # proper-lockfile's default, which Gemini keeps


def _settings(core: list[str], servers: dict[str, Any]) -> str:
    settings: dict[str, Any] = {
        "tools": {"core": core}, "hooksConfig": {"enabled": False}, "skills": {"enabled": False},
        "context": {"includeDirectoryTree": False}, "experimental": {"autoMemory": False}}
    if servers:
        settings["mcpServers"] = servers
    return json.dumps(settings, ensure_ascii=False)


def _run(folder: Path, model: str | None, system: str, prompt: str, allowed: str, settings: str) -> Run:
    argv = ["gemini", "-p", "", "--output-format", "json", "--extensions", "none",
            "--allowed-mcp-server-names", allowed]
    env = {"GEMINI_SYSTEM_MD": str(folder / SYSTEM_FILE), "GEMINI_CLI_TRUST_WORKSPACE": "true",
           "TMPDIR": str(folder)}
    return Run(argv + (["--model", model] if model else []), prompt, env=env,
               files={SYSTEM_FILE: system, SETTINGS: settings})


def ask(system: str, prompt: str, schema: dict[str, Any] | None, model: str | None, folder: Path) -> Run:
    return _run(folder, model, system, prompt, NO_SERVER, _settings([], {}))


def work(system: str, prompt: str, mcp: McpTools, model: str | None, folder: Path) -> Run:
    server = {"command": mcp.command, "args": mcp.args, "env": mcp.env, "trust": True,
              "includeTools": mcp.tools, "timeout": 600_000}
    names = [PREFIX.format(server=mcp.server) + tool for tool in mcp.tools]
    return _run(folder, model, system, prompt, mcp.server, _settings(names, {mcp.server: server}))


def read(stdout: str, stderr: str) -> Reply:
    """The JSON object `-o json` prints: on stdout, or (a failed run) last on stderr."""
    result = _last_object(stdout) or _last_object(stderr)
    if result is None:
        lines = [x.strip() for x in stderr.strip().splitlines() if x.strip()]
        return Reply(error=lines[-1] if lines else "no result in its output")
    stats = got if isinstance(got := result.get("stats"), dict) else {}
    models = got if isinstance(got := stats.get("models"), dict) else {}
    prompt_tokens = completion_tokens = turns = 0
    for entry in models.values():
        if not isinstance(entry, dict):
            continue
        tokens = got if isinstance(got := entry.get("tokens"), dict) else {}
        api = got if isinstance(got := entry.get("api"), dict) else {}
        prompt_tokens += _int(tokens.get("prompt"))
        completion_tokens += _int(tokens.get("candidates")) + _int(tokens.get("thoughts"))
        turns += _int(api.get("totalRequests"))
    tools = got if isinstance(got := stats.get("tools"), dict) else {}
    by_name = got if isinstance(got := tools.get("byName"), dict) else {}
    denied = tuple(name for name, entry in by_name.items() if isinstance(entry, dict)
                   and _int((entry.get("decisions") or {}).get("reject")) > 0)
    failure = got if isinstance(got := result.get("error"), dict) else None
    code = failure.get("code") if failure else None
    return Reply(text=str(result.get("response") or ""), prompt_tokens=prompt_tokens,
                 completion_tokens=completion_tokens, turns=turns,
                 error=_message(failure) if failure else None,
                 status=code if isinstance(code, int) and not isinstance(code, bool) else None,
                 denied=denied)


def _message(failure: dict[str, Any]) -> str:
    """Gemini's error message, which is often the API's error body as JSON: its own message."""
    message = str(failure.get("message") or failure.get("type") or "error")
    try:
        body = json.loads(message)
    except ValueError:
        return message
    inner = body.get("error") if isinstance(body, dict) else None
    return str(inner.get("message") or message) if isinstance(inner, dict) else message


def _last_object(text: str) -> dict[str, Any] | None:
    """The last JSON object that starts a line (Gemini prints it pretty, after any log lines)."""
    decoder = json.JSONDecoder()
    for start in reversed([m.start() for m in re.finditer(r"(?m)^\{", text)]):
        try:
            found, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(found, dict):
            return found
    return None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def forget(folder: Path) -> None:
    """Remove Gemini's record of the run: its chat and marker folders, and the folder's entry in
    `projects.json` (under the lock Gemini takes, proper-lockfile's `<file>.lock` folder). What an
    earlier run left (a run killed before this step, a lock held too long) goes too: the markers and
    entries of memcli run folders that no longer exist."""
    gemini = home()
    ours = {str(folder), os.path.realpath(folder)}

    def gone(owner: str) -> bool:  # a run of memcli's, over: its folder was removed after it
        return owner in ours or (Path(owner).name.startswith(FOLDER_PREFIX) and not os.path.lexists(owner))

    for base in (gemini / "tmp", gemini / "history"):
        with contextlib.suppress(OSError):
            for marker in base.glob(f"{FOLDER_PREFIX}*/.project_root"):
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    if gone(marker.read_text(encoding="utf-8").strip()):
                        shutil.rmtree(marker.parent, ignore_errors=True)
    registry = gemini / "projects.json"
    if not registry.is_file() or not _locked(lock := registry.with_name(registry.name + ".lock")):
        return
    try:
        data = json.loads(registry.read_text(encoding="utf-8"))
        projects = data.get("projects") if isinstance(data, dict) else None
        if isinstance(projects, dict) and (stale := [p for p in projects if gone(p)]):
            for p in stale:
                del projects[p]
            temporary = registry.with_name(f"{registry.name}.memcli-{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data, indent=2), encoding="utf-8")
            os.replace(temporary, registry)
    except (OSError, ValueError):
        pass
    finally:
        with contextlib.suppress(OSError):
            lock.rmdir()


def _locked(lock: Path) -> bool:
    """Take proper-lockfile's lock folder as Gemini does: wait while another holds it, and take over
    one not refreshed for its `stale` time (a holder refreshes it twice in that time). The wait
    outlasts that time: the Gemini just run sometimes exits before its last release of the lock, and
    such a lock goes stale within it and is taken over, where a shorter wait left the run's entry
    for a later run to remove; only a holder refreshing it all that time keeps it."""
    deadline = time.monotonic() + _LOCK_STALE_S + 1.0
    while True:
        try:
            lock.mkdir()
            return True
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - lock.stat().st_mtime > _LOCK_STALE_S:
                    lock.rmdir()  # its holder is gone
                    continue
            if time.monotonic() > deadline:
                return False  # Gemini is writing it: the next run's sweep removes the entry
            time.sleep(0.05)
        except OSError:
            return False


DIALECT = HeadlessDialect(ask, read, work, login="run `gemini` once and sign in, or set GEMINI_API_KEY",
                          forget=forget)
