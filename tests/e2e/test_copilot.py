"""GitHub Copilot CLI (pinned in tests/e2e/package.json: 1.0.102) end to end, against the scripted
OpenAI Chat Completions API in tests/support/chat_completions_server.py, headless (`copilot -p`).

Copilot talks to GitHub's Copilot API with a GitHub sign-in by default; its own "bring your own
key" provider settings point it at any OpenAI-compatible server instead (`COPILOT_PROVIDER_BASE_URL`
and `COPILOT_MODEL`; no sign-in needed), and `COPILOT_OFFLINE=true` turns off everything else it
would reach (GitHub sign-in, telemetry, its GitHub MCP server, updates). Every proxy variable points
at the scripted server too, which logs and refuses anything past the base URL (`outside_requests`).
These are the user's own Copilot setup (`copilot_env`), nothing of memcli's.

In a fresh repository after `memcli init && memcli hooks install --agent copilot`, plus the one step
Copilot asks of its user (trusting the folder, `trust_folder`), one session shows from the request
log and the repository that the memory context, the knowledge as a skill (memcli skills sync) and
memcli's tools are in the first model request,
that a `memcli_search` call returns the record, that a `memcli_remember` call (approved for the
project by `hooks install`, no `--allow-tool`) becomes a staging item once the session ends, that
`memcli sessions` / `memcli source` read the events.jsonl Copilot wrote, and that `memcli status`
reports no failure. A run before the folder is trusted shows what the trust step changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2e.conftest import HERE, agent_binary, run, stop_capture_workers, wait_for_staging
from support.agent_server import Request, ScriptedServer, Turn
from support.chat_completions_server import ChatCompletionsServer

PROMPT = "How do we back up the database? And from now on we lint with ruff, please keep that."
SEARCH = Turn(text="Let me look that up.", tool="memcli-memcli_search", args={"query": "sqlite backup"})
RULE = "Lint Python with ruff, not flake8."
REMEMBER = Turn(tool="memcli-memcli_remember", args={"kind": "rule", "text": RULE})
ANSWER = Turn(text="Nightly `sqlite3 .backup` to the NAS; ruff noted.")
MEMCLI_TOOLS = {f"memcli-memcli_{t}" for t in ("search", "read", "context", "source", "remember")}
# Copilot unpacks its 235 MB package into its cache folder on first start: one for the whole suite
CACHE = HERE / "node_modules" / ".cache" / "copilot"


def trust_folder(home: Path, folder: Path) -> None:
    """The one step Copilot CLI asks of its user before it reads a project's `.github/hooks` and
    `.github/mcp.json`: "Yes, and remember this folder for future sessions" in its folder-trust
    dialog, which 1.0.102 records in `trustedFolders` of ~/.copilot/config.json (seen by driving the
    dialog in a terminal)."""
    path = home / ".copilot" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"trustedFolders": [str(folder)]}, indent=2), encoding="utf-8")


def copilot_env(agent_env: dict[str, str], server: ScriptedServer) -> dict[str, str]:
    # capture extracts with no model here (Copilot CLI as the model: tests/e2e/test_agent_model.py)
    return {**agent_env, "COPILOT_PROVIDER_BASE_URL": server.url + "/v1", "COPILOT_MODEL": "gpt-4.1",
            "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false", "COPILOT_CACHE_HOME": str(CACHE),
            "HTTPS_PROXY": server.url, "HTTP_PROXY": server.url, "https_proxy": server.url,
            "http_proxy": server.url, "MEMCLI_EXTRACT_MODEL": "none"}


def texts(request: Request) -> list[str]:
    return [m["content"] for m in request.body["messages"] if isinstance(m.get("content"), str)]


def tool_names(request: Request) -> set[str]:
    return {t["function"]["name"] for t in request.body.get("tools", [])}


def tool_messages(request: Request) -> list[dict[str, Any]]:
    return [m for m in request.body["messages"] if m.get("role") == "tool"]


def session_of(stdout: str) -> str:
    """The session id in the `result` line `--output-format json` ends with."""
    (result,) = [obj for line in stdout.splitlines() if line.startswith("{")
                 if (obj := json.loads(line)).get("type") == "result"]
    return result["sessionId"]



def test_copilot_cli_session_with_memcli(project: Path, agent_env: dict[str, str]) -> None:
    copilot = str(agent_binary("copilot"))
    home = Path(agent_env["HOME"])
    installed = run(["memcli", "hooks", "install", "--agent", "copilot"], project, agent_env)
    assert installed.returncode == 0, installed.stderr
    hooks = json.loads((project / ".github" / "hooks" / "memcli.json").read_text(encoding="utf-8"))
    assert hooks["hooks"]["SessionStart"][0]["bash"] == "memcli hooks session-start --agent copilot"
    assert not (home / ".copilot").exists()  # a project install writes nothing in the home folder
    assert f"copilot: run `copilot` in {project} once" in installed.stdout  # the step left to the user
    status = run(["memcli", "hooks", "status", "--agent", "copilot"], project, agent_env)
    assert f"{project} not trusted yet" in status.stdout

    server = ChatCompletionsServer()
    with server:
        env = copilot_env(agent_env, server)
        server.script(Turn(text="Untrusted."))
        untrusted = run([copilot, "-p", PROMPT], project, env, timeout=90)
        assert untrusted.returncode == 0, untrusted.stderr[-3000:]
        (first,) = server.model_requests()
        assert not MEMCLI_TOOLS & tool_names(first)  # Copilot ignores .github/ in an untrusted folder
        assert not any("Project memory" in text for text in texts(first))

        trust_folder(home, project)
        status = run(["memcli", "hooks", "status", "--agent", "copilot"], project, agent_env)
        assert f"{project} trusted (" in status.stdout
        server.script(SEARCH, REMEMBER, ANSWER)
        try:
            done = run([copilot, "-p", PROMPT, "--output-format", "json"], project, env, timeout=90)
            assert done.returncode == 0, done.stderr[-3000:]
            staged = wait_for_staging(project)
        finally:
            stop_capture_workers()
    requests = server.model_requests()[1:]
    assert len(requests) == 3, [r.path for r in server.requests]
    assert server.outside_requests() == []
    session_id = session_of(done.stdout)

    # 1. the resident context, exactly as `memcli context` renders it, is in the first request, and
    # the knowledge as a skill in its listing (not repeated in the context)
    context = run(["memcli", "context", "--agent", "copilot"], project, agent_env).stdout
    assert "are your skills, not repeated here" in context
    assert context.strip() in [text.strip() for text in texts(requests[0])]
    assert "<description>How to restore the nightly SQLite backup (pelican-restore" in texts(requests[0])[0]
    # 2. memcli's tools are in the first request (Copilot waits for its MCP servers)
    assert MEMCLI_TOOLS <= tool_names(requests[0])
    # 3. the search result Copilot sends back holds the record
    (call,) = [c for m in requests[1].body["messages"] for c in m.get("tool_calls") or []]
    (found,) = [m for m in tool_messages(requests[1]) if m["tool_call_id"] == call["id"]]
    assert "use-sqlite-wal" in found["content"], found
    # 4. the remember call ran without asking (approved by `hooks install`) and became a staging item
    (remembered,) = [m for m in tool_messages(requests[2]) if "noted" in m["content"]]
    assert "Permission denied" not in remembered["content"]
    assert [(i["title"], i["request"]) for s in staged for i in s["items"]["requests"]] == [
        (f"Rule: {RULE}", RULE)], staged
    assert staged[0]["source"]["session_id"] == session_id

    # 5. memcli reads the session Copilot wrote
    transcript = home / ".copilot" / "session-state" / session_id / "events.jsonl"
    listed = json.loads(run(["memcli", "sessions", "--json"], project, agent_env).stdout)
    (mine,) = [s for s in listed if s["session_id"] == session_id]
    assert (mine["agent"], mine["path"], mine["skipped"]) == ("copilot-cli", str(transcript), 0)
    source = run(["memcli", "source", session_id], project, agent_env)
    assert source.returncode == 0 and PROMPT in source.stdout and "memcli_remember" in source.stdout
    assert "system (injected)" in source.stdout  # memcli's context, as Copilot recorded it
    # memcli_remember's answer once: Copilot wrote its text and, after it, its structuredContent
    events = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    (written,) = [e["data"]["result"] for e in events if e["type"] == "tool.execution_complete"
                  and "noted" in e["data"]["result"].get("structuredContent", {})]
    assert written["content"].count('"noted"') == 2 and source.stdout.count('"noted"') == 1

    # 6. no failure in memcli's status
    state = run(["memcli", "status"], project, agent_env)
    assert state.returncode == 0, state.stdout + state.stderr
