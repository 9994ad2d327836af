"""OpenCode (the version pinned in tests/e2e/package.json) against a scripted OpenAI Responses API, after
`memcli init && memcli hooks install --agent opencode`. OpenCode asks its user to trust nothing (no
folder trust, no approval of a project's MCP servers or plugins), so there is no step in between.

The model is OpenCode's own `openai` provider with its base URL moved to the scripted server, set in
the user's `~/.config/opencode/opencode.json` as a user sets a provider; the project's opencode.json
holds only what memcli wrote. Nothing leaves 127.0.0.1: the models.dev catalogue and the update check
are turned off (OPENCODE_DISABLE_MODELS_FETCH, OPENCODE_DISABLE_AUTOUPDATE), the proxy variables point
at the scripted server, and so does npm's registry, where OpenCode installs `@opencode-ai/plugin` into
each config folder it loads (it gets a 404 and goes on).

OpenCode takes its folder from PWD, as a shell sets it: each run sets PWD to the project.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from e2e.conftest import agent_binary, run
from support.agent_server import Request, Turn, send_sse
from support.responses_server import ResponsesServer

TOOLS = {f"memcli_{tool}" for tool in ("memcli_search", "memcli_read", "memcli_context", "memcli_source",
                                       "memcli_remember")}
REMEMBERED = "Keep thirty days of nightly SQLite backups on the NAS."
SIDE_ANSWER = "Scripted title"


def _turn(request: Request) -> bool:
    """A request for a turn of the conversation; OpenCode's title requests (small model) offer no tools."""
    body = request.body
    return (request.method == "POST" and request.path.split("?", 1)[0].rstrip("/").endswith("/responses")
            and isinstance(body, dict) and bool(body.get("tools")))


class OpenCodeServer(ResponsesServer):
    """The Responses API as OpenCode's `openai` provider speaks it; a session's title is asked for on the
    side (a request without tools) and answered without using the script."""

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "POST" and path.endswith("/responses") and not _turn(request):
            send_sse(handler, self.events(Turn(text=SIDE_ANSWER), request.body))
            return
        super().answer(handler, request)

    def model_requests(self) -> list[Request]:
        return [r for r in self.requests if _turn(r)]


def user_config(home: Path, server: OpenCodeServer) -> Path:
    """The user's global config: the scripted server as the `openai` provider's base URL, one model."""
    path = home / ".config" / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    config = {"$schema": "https://opencode.ai/config.json",
              "provider": {"openai": {"options": {"baseURL": f"{server.url}/v1", "apiKey": "sk-scripted"},
                                      "models": {"scripted": {"name": "Scripted"}}}},
              "model": "openai/scripted", "small_model": "openai/scripted",
              "autoupdate": False, "share": "disabled"}
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


def opencode_env(env: dict[str, str], root: Path, server: OpenCodeServer) -> dict[str, str]:
    proxy = {name: server.url for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")}
    # capture extracts with no model here (OpenCode as the model: tests/e2e/test_agent_model.py)
    return {**env, **proxy, "PWD": str(root), "npm_config_registry": f"{server.url}/npm/",
            "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "MEMCLI_EXTRACT_MODEL": "none"}


def opencode_run(opencode: Path, root: Path, env: dict[str, str], server: OpenCodeServer,
                 prompt: str) -> subprocess.CompletedProcess[str]:
    result = run([str(opencode), "run", prompt], root, opencode_env(env, root, server), timeout=180,
                 stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert server.outside_requests() == [], server.outside_requests()
    return result


def memcli(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run(["memcli", *args], root, env, timeout=60)


def texts(request: Request) -> list[str]:
    """The text of every input message of a Responses request."""
    out = []
    for item in request.body["input"]:
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [part.get("text", "") for part in content if isinstance(part, dict)]
    return out


def memcli_left(root: Path) -> list[str]:
    """memcli's processes still running in `root` (OpenCode's folder, where its plugin's commands and
    `memcli mcp` run) once OpenCode has exited, but capture's worker, which outlives the session by
    design. Linux only (/proc)."""
    left = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if cwd == str(root) and b"memcli" in cmdline and b"hooks capture" not in cmdline:
            left.append(cmdline.decode(errors="replace"))
    return left


def staged(root: Path, text: str, timeout: float) -> dict[str, Any] | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for path in sorted((root / "memory" / "_staging").glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if text in json.dumps(data, ensure_ascii=False):
                return data
        time.sleep(0.5)
    return None


def test_opencode_end_to_end(project: Path, agent_env: dict[str, str]) -> None:
    opencode = agent_binary("opencode")
    home = Path(agent_env["HOME"])
    installed = memcli(project, agent_env, "hooks", "install", "--agent", "opencode")
    assert installed.returncode == 0, installed.stderr
    assert "opencode: " not in installed.stdout.replace("opencode: created", "")  # no step left to the user
    plugin = project / ".opencode" / "plugins" / "memcli.js"
    assert plugin.is_file() and (project / "opencode.json").is_file()
    status = memcli(project, agent_env, "hooks", "status", "--agent", "opencode", "--scope", "project")
    assert status.returncode == 0 and "missing" not in status.stdout, status.stdout

    with OpenCodeServer() as server:
        user_config(home, server)
        server.script(Turn(tool="memcli_memcli_search", args={"query": "restore the nightly backup"}),
                      Turn(tool="memcli_memcli_remember",
                           args={"kind": "decision", "text": REMEMBERED, "why": "the NAS holds a month"}),
                      Turn(text="Done."))
        opencode_run(opencode, project, agent_env, server, "how do I restore last night's backup?")
        requests = server.model_requests()
    assert len(requests) == 3, [r.path for r in server.requests]
    # the plugin's session start (begun when OpenCode loaded it) and `memcli mcp` (which the plugin
    # has OpenCode connect then) ended with OpenCode
    if Path("/proc/self").is_dir():
        assert memcli_left(project) == []

    # 1. the resident context (what `memcli context --agent opencode` prints: the knowledge record is a
    # skill now, tests/e2e/test_skills.py) is in the first request, before the prompt; the skill is
    # in its system prompt
    context = memcli(project, agent_env, "context", "--agent", "opencode").stdout.strip()
    assert "# Project memory" in context and "are your skills, not repeated here" in context
    first = texts(requests[0])
    assert any("<description>How to restore the nightly SQLite backup" in text for text in first)
    assert any(context in text for text in first), "memcli context is not in OpenCode's first request"
    at = next(i for i, text in enumerate(first) if context in text)
    assert any("last night's backup" in text for text in first[at + 1:])
    # 2. memcli's tools are in the first request
    assert TOOLS <= {tool.get("name") for tool in requests[0].body["tools"]}
    # 3. the scripted memcli_search returned the knowledge record (in the tool result sent back), and
    #    both calls ran without a question (`opencode run` denies what would need one)
    outputs = [item["output"] for item in requests[2].body["input"]
               if item.get("type") == "function_call_output"]
    assert len(outputs) == 2 and "restore-nightly-backup" in outputs[0], outputs
    assert "noted" in outputs[1], outputs
    # 4. the scripted memcli_remember became a staging item once the session ended (OpenCode closed)
    item = staged(project, REMEMBERED, timeout=60)
    assert item is not None, "memcli_remember was not staged"
    assert item["agent"] == "opencode"
    # 5. memcli sessions and memcli source read the session OpenCode wrote (the staging item's Source)
    listed = json.loads(memcli(project, agent_env, "sessions", "--json").stdout)
    ours = [s for s in listed if s["agent"] == "opencode"]
    assert len(ours) == 1 and ours[0]["cwd"] == str(project) and ours[0]["skipped"] == 0, listed
    assert Path(ours[0]["path"]) == home / ".local" / "share" / "opencode" / "opencode.db"
    source = item["source"]
    assert source["session_id"] == ours[0]["session_id"]
    start, end = source["range"]
    shown = memcli(project, agent_env, "source", f"{source['session_id']}:{start}-{end}")
    assert shown.returncode == 0, shown.stderr
    assert "memcli_memcli_remember" in shown.stdout and REMEMBERED in shown.stdout
    whole = json.loads(memcli(project, agent_env, "source", source["session_id"], "--json").stdout)
    injected = [e for e in whole["entries"] if e["injected"] and context in e["text"]]
    assert len(injected) == 1 and whole["entries"][0] == injected[0]  # the context, before the prompt
    # 6. memcli status shows no failure
    status_run = memcli(project, agent_env, "status")
    assert status_run.returncode == 0, status_run.stdout + status_run.stderr

    # uninstall takes memcli's files back out, although OpenCode wrote "$schema" into opencode.json
    # when it loaded it (the file is what install made of no file: it goes); what OpenCode wrote
    # into .opencode/ stays
    assert '"$schema"' in (project / "opencode.json").read_text(encoding="utf-8")
    removed = memcli(project, agent_env, "hooks", "uninstall", "--agent", "opencode")
    assert removed.returncode == 0, removed.stderr
    assert not plugin.exists() and not plugin.parent.exists() and not (project / "opencode.json").exists()
