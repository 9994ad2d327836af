"""Gemini CLI (pinned in tests/e2e/package.json: 0.61.0) end to end, against the scripted Gemini API in
tests/support/gemini_server.py (`GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`), headless (`gemini -p`).

In a fresh repository after `memcli init && memcli hooks install --agent gemini`, plus the one step
Gemini CLI asks of its user (trusting the folder, `trust_folder`), and the user's own Gemini setup
(`user_settings`: API-key sign-in, no usage statistics), one session shows from the request log and
the repository that the memory context and memcli's tools are in the first model request, that a
`memcli_search` call returns the record, that a `memcli_remember` call becomes a staging item once the
session ends, that `memcli sessions` / `memcli source` read the JSONL session Gemini wrote, and that
`memcli status` reports no failure. Every other request of Gemini's would go through the proxy set
to the scripted server and be logged there: the test asserts there is none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2e.conftest import agent_binary, run, stop_capture_workers, wait_for_staging
from support.agent_server import Request, Turn
from support.gemini_server import GeminiServer

PROMPT = "How do we back up the database? And from now on we lint with ruff, please keep that."
SEARCH = Turn(text="Let me look that up.", tool="mcp_memcli_memcli_search", args={"query": "sqlite backup"})
RULE = "Lint Python with ruff, not flake8."
REMEMBER = Turn(tool="mcp_memcli_memcli_remember", args={"kind": "rule", "text": RULE})
ANSWER = Turn(text="Nightly `sqlite3 .backup` to the NAS; ruff noted.")
MEMCLI_TOOLS = {f"mcp_memcli_memcli_{t}" for t in ("search", "read", "context", "source", "remember")}


def trust_folder(home: Path, folder: Path) -> None:
    """The one-time step Gemini CLI asks of its user (folder trust is on by default in 0.61): "Trust
    folder" in its trust dialog, which Gemini records in ~/.gemini/trustedFolders.json."""
    path = home / ".gemini" / "trustedFolders.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({str(folder): "TRUST_FOLDER"}, indent=2), encoding="utf-8")


def user_settings(home: Path) -> None:
    """The user's own Gemini CLI settings, nothing of memcli's: signed in with an API key, and no
    usage statistics (Gemini sends them to play.googleapis.com by default), telemetry or updates."""
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
                "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}}
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")


def gemini_env(agent_env: dict[str, str], server: GeminiServer) -> dict[str, str]:
    # capture extracts with no model here (Gemini CLI as the model: tests/e2e/test_agent_model.py)
    return dict(agent_env, GEMINI_API_KEY="e2e-test-key", GOOGLE_GEMINI_BASE_URL=server.url,
                HTTPS_PROXY=server.url, HTTP_PROXY=server.url,  # anything past the base URL is logged
                MEMCLI_EXTRACT_MODEL="none")


def texts(request: Request) -> str:
    return "\n".join(p.get("text", "") for c in request.body.get("contents", []) for p in c.get("parts", []))


def tool_names(request: Request) -> set[str]:
    return {f["name"] for t in request.body.get("tools", []) for f in t.get("functionDeclarations", [])}


def responses(request: Request, name: str) -> list[dict[str, Any]]:
    return [p["functionResponse"]["response"] for c in request.body.get("contents", [])
            for p in c.get("parts", []) if p.get("functionResponse", {}).get("name") == name]



def test_gemini_cli_session_with_memcli(project: Path, agent_env: dict[str, str]) -> None:
    gemini = str(agent_binary("gemini"))
    home = Path(agent_env["HOME"])
    user_settings(home)
    installed = run(["memcli", "hooks", "install", "--agent", "gemini"], project, agent_env)
    assert installed.returncode == 0, installed.stderr
    settings = json.loads((project / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert settings["mcpServers"]["memcli"]["trust"] is True  # Gemini's allow rule for memcli's tools
    assert f"gemini: trust {project} in Gemini CLI" in installed.stdout  # the step memcli leaves to the user
    status = run(["memcli", "hooks", "status", "--agent", "gemini"], project, agent_env)
    assert f"{project} not trusted yet" in status.stdout

    server = GeminiServer()
    with server:
        refused = run([gemini, "-p", PROMPT], project, gemini_env(agent_env, server), timeout=60)
        assert refused.returncode != 0 and "not running in a trusted directory" in refused.stderr
        assert server.model_requests() == []

        trust_folder(home, project)
        status = run(["memcli", "hooks", "status", "--agent", "gemini"], project, agent_env)
        assert f"{project} trusted (TRUST_FOLDER in " in status.stdout
        server.script(SEARCH, REMEMBER, ANSWER)
        try:
            env = gemini_env(agent_env, server)
            done = run([gemini, "-p", PROMPT, "-o", "json"], project, env, timeout=90)
            assert done.returncode == 0, done.stderr[-3000:]
            staged = wait_for_staging(project)
        finally:
            stop_capture_workers()
    requests = server.model_requests()
    assert len(requests) == 3, [r.path for r in server.requests]
    assert server.outside_requests() == []

    # 1. the resident context, exactly as `memcli context --agent gemini` renders it (the knowledge
    # record is a skill now: tests/e2e/test_skills.py), is in the first request, the skill in its
    # system instruction
    context = run(["memcli", "context", "--agent", "gemini"], project, agent_env).stdout
    assert "# Project memory" in context and "are your skills, not repeated here" in context
    escaped = context.replace("<", "&lt;").replace(">", "&gt;")  # what Gemini does to hook context
    assert f"<hook_context>{escaped}</hook_context>" in texts(requests[0])
    instruction = requests[0].body.get("systemInstruction") or {}
    system = "\n".join(p.get("text", "") for p in instruction.get("parts", []))
    assert "<description>How to restore the nightly SQLite backup (pelican-restore" in system
    # 2. memcli's tools are in the first request (Gemini waits for its MCP servers in headless mode)
    assert MEMCLI_TOOLS <= tool_names(requests[0])
    # 3. the search result Gemini sends back holds the record, as text (no error)
    (found,) = responses(requests[1], "mcp_memcli_memcli_search")
    assert "error" not in found and "use-sqlite-wal" in found["output"], found
    # 4. the remember call became a staging item once the session ended
    assert [(i["title"], i["request"]) for s in staged for i in s["items"]["requests"]] == [
        (f"Rule: {RULE}", RULE)], staged
    assert staged[0]["source"]["session_id"] == json.loads(done.stdout)["session_id"]

    # 5. memcli reads the session Gemini wrote (0.61: JSONL under tmp/<project name>/)
    session_id = json.loads(done.stdout)["session_id"]
    (transcript,) = (home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")
    listed = json.loads(run(["memcli", "sessions", "--json"], project, agent_env).stdout)
    (mine,) = [s for s in listed if s["session_id"] == session_id]
    assert (mine["agent"], mine["path"], mine["skipped"]) == ("gemini-cli", str(transcript), 0)
    source = run(["memcli", "source", session_id], project, agent_env)
    assert source.returncode == 0 and PROMPT in source.stdout and "memcli_remember" in source.stdout
    assert "<hook_context>" not in source.stdout  # memcli's own context is not the user's words

    # 6. no failure in memcli's status
    state = run(["memcli", "status"], project, agent_env)
    assert state.returncode == 0, state.stdout + state.stderr
