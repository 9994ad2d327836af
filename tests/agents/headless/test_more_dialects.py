"""The headless dialects of Gemini CLI, Copilot CLI, Pi and OpenCode: what their command lines switch
off, their output read back (events as the pinned versions printed them against the scripted
servers of tests/e2e, cut to the fields read), and what `forget` removes from the agent's home.
The runs themselves are tests/e2e/test_agent_model.py."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from memcli.agents import copilot_cli, gemini_cli, opencode, pi, registry
from memcli.agents.parts import McpTools

TOOLS = McpTools("memcli", "/usr/bin/python3", ["-m", "memcli", "mcp", "--relay", "/s"],
                 ["memory_read", "dispose"], {"PYTHONPATH": "/src"})


@pytest.fixture(autouse=True)
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each agent's home in the test's folder, with an MCP server of the user's where it has MCP."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("GEMINI_CLI_HOME", "COPILOT_HOME", "XDG_CONFIG_HOME", "OPENCODE_CONFIG",
                 "OPENCODE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    (home / ".copilot").mkdir(parents=True)
    servers = {"memcli": {"command": "memcli"}, "my db": {"command": "db"}}
    (home / ".copilot" / "mcp-config.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "opencode.jsonc").write_text(
        '{\n  // the user\'s\n  "mcp": {"memcli": {"type": "local", "command": ["memcli", "mcp"]},\n'
        '          "my db": {"type": "local", "command": ["db"]}}\n}\n', encoding="utf-8")
    return home


def test_the_four_are_models_by_their_hooks_option() -> None:
    for name, agent in (("gemini", gemini_cli), ("copilot", copilot_cli), ("pi", pi), ("opencode", opencode)):
        found = registry.by_model(f"agent/{name}/some/model")
        assert found is not None and found[0] is agent and found[2] == "some/model"
        assert registry.model_name(agent) == f"agent/{name}"
        assert agent.load().headless.work is not None


# -- Gemini CLI -------------------------------------------------------------------------------------

def test_gemini_question_registers_no_tool_and_loads_no_server_extension_or_hook(tmp_path: Path) -> None:
    run = gemini_cli.load().headless.ask("SYSTEM", "PROMPT", None, None, tmp_path)
    assert run.stdin == "PROMPT" and run.argv[:3] == ["gemini", "-p", ""]
    assert run.argv[run.argv.index("--extensions") + 1] == "none"
    assert run.argv[run.argv.index("--allowed-mcp-server-names") + 1] == "memcli-none"
    settings = json.loads(run.files[".gemini/settings.json"])
    assert settings["tools"]["core"] == [] and settings["hooksConfig"]["enabled"] is False
    assert "mcpServers" not in settings and settings["skills"]["enabled"] is False
    assert run.env["GEMINI_SYSTEM_MD"] == str(tmp_path / "system.md") and run.files["system.md"] == "SYSTEM"
    assert run.env["TMPDIR"] == str(tmp_path)  # its error reports, which hold the request


def test_gemini_working_run_has_memcli_s_tools_alone(tmp_path: Path) -> None:
    run = gemini_cli.load().headless.work("SYSTEM", "PROMPT", TOOLS, "gemini-2.5-pro", tmp_path)
    settings = json.loads(run.files[".gemini/settings.json"])
    assert settings["tools"]["core"] == ["mcp_memcli_memory_read", "mcp_memcli_dispose"]
    server = settings["mcpServers"]["memcli"]
    assert server["trust"] is True and server["includeTools"] == TOOLS.tools and server["env"] == TOOLS.env
    assert run.argv[run.argv.index("--allowed-mcp-server-names") + 1] == "memcli"
    assert run.argv[run.argv.index("--model") + 1] == "gemini-2.5-pro"


GEMINI_OK = {"session_id": "05e4", "response": '{"name": "x"}', "stats": {
    "models": {"gemini-3.5-flash-lite": {"api": {"totalRequests": 1},
                                         "tokens": {"prompt": 100, "candidates": 10, "thoughts": 0}},
               "gemini-3.8-flash": {"api": {"totalRequests": 2},
                                    "tokens": {"prompt": 300, "candidates": 20, "thoughts": 5}}},
    "tools": {"byName": {"mcp_memcli_dispose": {"decisions": {"accept": 0, "reject": 1}},
                         "mcp_memcli_memory_read": {"decisions": {"accept": 1, "reject": 0}}}}}}
_API_401 = json.dumps({"error": {"code": 401, "message": "API key not valid.", "status": "UNAUTHENTICATED"}})
GEMINI_401 = ("Ripgrep is not available. Falling back to GrepTool.\n"
              "Error when talking to Gemini API _ApiError: {...}\n    at throwErrorIfNotOK (chunk.js:1)\n{\n"
              "  status: 401\n}\n"
              + json.dumps({"session_id": "46b7",
                            "error": {"type": "Error", "message": _API_401, "code": 401}}, indent=2) + "\n")


def test_gemini_output_is_read_with_every_model_s_tokens_and_its_refusals() -> None:
    reply = gemini_cli.load().headless.read(json.dumps(GEMINI_OK, indent=2), "Warning: 256-color\n")
    assert (reply.text, reply.error, reply.cost_usd) == ('{"name": "x"}', None, None)
    assert (reply.prompt_tokens, reply.completion_tokens, reply.turns) == (400, 35, 3)
    assert reply.denied == ("mcp_memcli_dispose",)


def test_gemini_failure_on_stderr_carries_the_api_s_message_and_code() -> None:
    reply = gemini_cli.load().headless.read("", GEMINI_401)
    assert (reply.error, reply.status) == ("API key not valid.", 401)
    assert gemini_cli.load().headless.read("", "gemini: crashed\n").error == "gemini: crashed"


def test_gemini_forget_removes_the_run_s_chat_and_registry_entry_only(homes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "memcli-agent-abc"
    folder.mkdir()
    gemini = homes / ".gemini"
    for base, slug, owner in (("tmp", "memcli-agent-abc", folder), ("history", "memcli-agent-abc", folder),
                              ("tmp", "proj", tmp_path / "proj")):
        (gemini / base / slug / "chats").mkdir(parents=True)
        (gemini / base / slug / ".project_root").write_text(str(owner), encoding="utf-8")
    (gemini / "tmp" / "memcli-agent-abc" / "chats" / "session-x.jsonl").write_text("{}\n", encoding="utf-8")
    (gemini / "projects.json").write_text(json.dumps({"projects": {
        str(folder): "memcli-agent-abc", str(tmp_path / "proj"): "proj"}}), encoding="utf-8")
    gemini_cli.load().headless.forget(folder)
    assert sorted(p.name for p in (gemini / "tmp").iterdir()) == ["proj"]
    assert list((gemini / "history").iterdir()) == []
    registry_data = json.loads((gemini / "projects.json").read_text(encoding="utf-8"))
    assert registry_data == {"projects": {str(tmp_path / "proj"): "proj"}}
    assert not (gemini / "projects.json.lock").exists()


def _gemini_project(gemini: Path, slug: str, owner: Path) -> None:
    for base in ("tmp", "history"):
        (gemini / base / slug).mkdir(parents=True)
        (gemini / base / slug / ".project_root").write_text(str(owner), encoding="utf-8")


def test_gemini_forget_sweeps_what_earlier_runs_left_and_keeps_a_running_one(
        homes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed before its clean-up, or one that found the lock held, left its markers and its
    entry: the next run removes them. A run still going (its folder there) and a user's project
    keep theirs; a lock nobody refreshed for proper-lockfile's stale time does not stop it."""
    gemini = homes / ".gemini"
    now, earlier, running = (tmp_path / f"memcli-agent-{n}" for n in ("now", "old", "live"))
    running.mkdir()
    user = tmp_path / "memcli-agent-notes"  # a user's own folder that only looks like a run's
    user.mkdir()
    projects = {str(now): "memcli-agent-now", str(earlier): "memcli-agent-old",
                str(running): "memcli-agent-live", str(user): "memcli-agent-notes"}
    for owner, slug in projects.items():
        _gemini_project(gemini, slug, Path(owner))
    (gemini / "projects.json").write_text(json.dumps({"projects": projects}), encoding="utf-8")
    lock = gemini / "projects.json.lock"
    lock.mkdir()
    os.utime(lock, (time.time() - 60, time.time() - 60))  # its holder died a minute ago
    gemini_cli.load().headless.forget(now)
    kept = {str(running): "memcli-agent-live", str(user): "memcli-agent-notes"}
    assert json.loads((gemini / "projects.json").read_text(encoding="utf-8")) == {"projects": kept}
    for base in ("tmp", "history"):
        assert sorted(p.name for p in (gemini / base).iterdir()) == sorted(kept.values())
    assert not lock.exists()

    # a lock its holder keeps refreshing: the entry waits for a later run, and nothing is lost
    monkeypatch.setattr("memcli.agents.gemini_cli.headless._LOCK_STALE_S", 1.0)  # forget waits 2 s
    lock.mkdir()
    running.rmdir()
    held = threading.Event()

    def refresh() -> None:  # as proper-lockfile's holder does, more often than its stale time
        while not held.wait(0.05):
            with contextlib.suppress(FileNotFoundError):  # taken over: the assertion below says so
                os.utime(lock)

    holder = threading.Thread(target=refresh)
    holder.start()
    try:
        gemini_cli.load().headless.forget(now)
    finally:
        held.set()
        holder.join()
    assert json.loads((gemini / "projects.json").read_text(encoding="utf-8")) == {"projects": kept}
    assert lock.is_dir()  # still the holder's
    lock.rmdir()
    gemini_cli.load().headless.forget(now)
    assert json.loads((gemini / "projects.json").read_text(encoding="utf-8")) == {
        "projects": {str(user): "memcli-agent-notes"}}


def test_gemini_forget_takes_over_the_lock_the_gemini_it_ran_left_at_exit(
        homes: Path, tmp_path: Path) -> None:
    """Gemini sometimes exits before its last release of the registry's lock: nobody refreshes that
    lock, so it goes stale within proper-lockfile's time (10 s) and forget takes it over then,
    instead of leaving the run's entry in the user's registry (as a 5 s wait did, seen in an e2e run)."""
    gemini = homes / ".gemini"
    folder = tmp_path / "memcli-agent-now"
    folder.mkdir()
    _gemini_project(gemini, "memcli-agent-now", folder)
    (gemini / "projects.json").write_text(json.dumps({"projects": {str(folder): "memcli-agent-now"}}),
                                          encoding="utf-8")
    lock = gemini / "projects.json.lock"
    lock.mkdir()
    os.utime(lock, (time.time() - 4.5, time.time() - 4.5))  # left 4.5 s ago: stale in 5.5 s
    gemini_cli.load().headless.forget(folder)
    assert json.loads((gemini / "projects.json").read_text(encoding="utf-8")) == {"projects": {}}
    assert not lock.exists()


# -- Copilot CLI ------------------------------------------------------------------------------------

def test_copilot_question_is_a_custom_agent_with_no_tool_and_no_server_of_the_user_s(tmp_path: Path) -> None:
    run = copilot_cli.load().headless.ask("SYSTEM", "PROMPT", None, None, tmp_path)
    argv = run.argv
    assert run.stdin == "PROMPT" and "-p" not in argv  # the prompt on stdin: no argv length limit
    assert argv[argv.index("--agent") + 1] == "memcli" and "--trust-folder" in argv
    assert argv[argv.index("--available-tools") + 1] == "memcli-no-tools"
    assert {argv[i + 1] for i, a in enumerate(argv) if a == "--disable-mcp-server"} == {"memcli", "my db"}
    assert "--disable-builtin-mcps" in argv and "--no-custom-instructions" in argv
    assert run.files[".github/agents/memcli.agent.md"].endswith("---\nSYSTEM\n")
    assert json.loads(run.files[".github/copilot/settings.json"]) == {"disableAllHooks": True}


def test_copilot_working_run_has_memcli_s_tools_alone_allowed(tmp_path: Path) -> None:
    run = copilot_cli.load().headless.work("SYSTEM", "PROMPT", TOOLS, None, tmp_path)
    argv = run.argv
    at = argv.index("--available-tools") + 1
    assert argv[at:at + 2] == ["memcli-memory_read", "memcli-dispose"]
    assert {argv[i + 1] for i, a in enumerate(argv) if a == "--disable-mcp-server"} == {"my db"}
    assert argv[argv.index("--allow-tool") + 1] == "memcli"
    assert argv[argv.index("--additional-mcp-config") + 1] == f"@{tmp_path / 'mcp.json'}"
    server = json.loads(run.files["mcp.json"])["mcpServers"]["memcli"]
    assert (server["command"], server["tools"], server["env"]) == (TOOLS.command, TOOLS.tools, TOOLS.env)


def test_copilot_events_are_read_with_its_usage_records_and_refusals(homes: Path) -> None:
    state = homes / ".copilot" / "session-state" / "270c"
    state.mkdir(parents=True)
    usage = [{"type": "session.usage_record", "data": {"usage": {"inputTokens": n, "outputTokens": 10}}}
             for n in (100, 120)]
    (state / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in usage), encoding="utf-8")
    lines = [
        {"type": "assistant.turn_start", "data": {"turnId": "0"}},
        {"type": "tool.execution_start", "data": {"toolCallId": "c1", "toolName": "memcli-dispose"}},
        {"type": "tool.execution_complete", "data": {"toolCallId": "c1", "success": False, "error": {
            "message": "Permission denied because no interactive user response was available.",
            "code": "denied"}}},
        {"type": "assistant.turn_start", "data": {"turnId": "1"}},
        {"type": "assistant.message", "data": {"content": "DONE", "toolRequests": []}},
        {"type": "result", "sessionId": "270c", "exitCode": 0, "usage": {"premiumRequests": 0}},
    ]
    reply = copilot_cli.load().headless.read("".join(json.dumps(e) + "\n" for e in lines), "")
    assert (reply.text, reply.error, reply.turns, reply.denied) == ("DONE", None, 2, ("memcli-dispose",))
    assert (reply.prompt_tokens, reply.completion_tokens, reply.cost_usd) == (220, 20, None)
    said = "Authentication failed with provider (HTTP 401).\n  Check"
    failed = [{"type": "session.error", "data": {"errorType": "authentication", "statusCode": 401,
                                                 "message": said}},
              {"type": "result", "sessionId": "nope", "exitCode": 1}]
    reply = copilot_cli.load().headless.read("".join(json.dumps(e) + "\n" for e in failed), "")
    assert (reply.error, reply.status) == ("Authentication failed with provider (HTTP 401). Check", 401)


def test_copilot_forget_removes_the_run_s_session_folder_and_rows_only(homes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "memcli-agent-abc"
    folder.mkdir()
    (folder / "mcp.json").write_text("{}", encoding="utf-8")
    copilot = homes / ".copilot"
    for sid, cwd in (("run", folder), ("theirs", tmp_path / "proj")):
        (copilot / "session-state" / sid).mkdir(parents=True)
        start = {"type": "session.start", "data": {"context": {"cwd": str(cwd)}}}
        events = copilot / "session-state" / sid / "events.jsonl"
        events.write_text(json.dumps(start) + "\n", encoding="utf-8")
    db = sqlite3.connect(copilot / "session-store.db")
    db.executescript("CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT);"
                     "CREATE TABLE turns (id INTEGER PRIMARY KEY, session_id TEXT, user_message TEXT);"
                     "CREATE VIRTUAL TABLE search_index USING fts5(content, session_id UNINDEXED);")
    for sid, cwd in (("run", folder), ("theirs", tmp_path / "proj")):
        db.execute("INSERT INTO sessions VALUES (?, ?)", (sid, str(cwd)))
        db.execute("INSERT INTO turns (session_id, user_message) VALUES (?, 'the prompt')", (sid,))
        db.execute("INSERT INTO search_index VALUES ('the prompt', ?)", (sid,))
    db.commit()
    db.close()
    copilot_cli.load().headless.forget(folder)
    assert [p.name for p in (copilot / "session-state").iterdir()] == ["theirs"]
    db = sqlite3.connect(copilot / "session-store.db")
    for table in ("sessions", "turns", "search_index"):
        key = "id" if table == "sessions" else "session_id"
        assert db.execute(f"SELECT {key} FROM {table}").fetchall() == [("theirs",)], table
    db.close()


# -- Pi -------------------------------------------------------------------------------------------

def test_pi_question_has_no_tool_session_extension_or_context_file(tmp_path: Path) -> None:
    run = pi.load().headless.ask("SYSTEM", "PROMPT", None, "local/scripted", tmp_path)
    argv = run.argv
    assert {"-p", "--no-tools", "--no-session", "--no-extensions", "--no-skills", "--no-context-files",
            "--offline"} <= set(argv)
    assert argv[argv.index("--system-prompt") + 1] == str(tmp_path / "system.md")
    assert argv[argv.index("--append-system-prompt") + 1] == ""  # no APPEND_SYSTEM.md of the user's
    assert argv[argv.index("--model") + 1] == "local/scripted" and run.stdin == "PROMPT"


def test_pi_working_run_loads_the_relay_alone_and_allows_its_tools_only(tmp_path: Path) -> None:
    run = pi.load().headless.work("SYSTEM", "PROMPT", TOOLS, None, tmp_path)
    argv = run.argv
    assert "--no-tools" not in argv and "--no-extensions" in argv
    assert argv[argv.index("--extension") + 1] == str(tmp_path / "relay.ts")
    assert argv[argv.index("--tools") + 1] == "memory_read,dispose"
    assert json.loads(run.env["MEMCLI_PI_RELAY"]) == {"command": TOOLS.command, "args": TOOLS.args,
                                                      "env": TOOLS.env}
    assert "MEMCLI_PI_RELAY" in run.files["relay.ts"] and "registerTool" in run.files["relay.ts"]


def _pi_message(stop: str, text: str = "", **more: object) -> dict[str, object]:
    usage = {"input": 10, "output": 5, "cacheRead": 2, "cacheWrite": 1, "cost": {"total": 0.0015}}
    return {"type": "message_end", "message": {"role": "assistant", "stopReason": stop, "usage": usage,
                                               "content": [{"type": "text", "text": text}] if text else [],
                                               **more}}


def test_pi_messages_are_read_with_their_usage_and_cost() -> None:
    lines = [{"type": "session", "id": "01a2"}, {"type": "message_end", "message": {"role": "user"}},
             _pi_message("toolUse"), _pi_message("stop", '{"name": "x"}'), {"type": "agent_end"}]
    reply = pi.load().headless.read("".join(json.dumps(e) + "\n" for e in lines), "")
    assert (reply.text, reply.error, reply.turns) == ('{"name": "x"}', None, 2)
    assert (reply.prompt_tokens, reply.completion_tokens) == (26, 10)
    assert reply.cost_usd == pytest.approx(0.003)


def test_pi_api_failure_is_its_status_and_the_api_s_message() -> None:
    body = json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "rate limited"}})
    lines = [_pi_message("error", errorMessage=f"429 {body}"),
             {"type": "auto_retry_end", "success": False, "attempt": 3, "finalError": f"429 {body}"}]
    reply = pi.load().headless.read("".join(json.dumps(e) + "\n" for e in lines), "")
    assert (reply.error, reply.status) == ("429 rate limited", 429)
    no_key = "No API key found for google."
    assert pi.load().headless.read("", no_key + "\n").error == no_key


# -- OpenCode -------------------------------------------------------------------------------------

def test_opencode_question_denies_every_tool_and_keeps_its_session_in_memory(tmp_path: Path) -> None:
    run = opencode.load().headless.ask("SYSTEM", "PROMPT", None, "openai/gpt-5", tmp_path)
    assert run.argv[:2] == ["opencode", "run"] and run.argv[run.argv.index("--agent") + 1] == "memcli"
    assert run.argv[run.argv.index("--model") + 1] == "openai/gpt-5" and run.stdin == "PROMPT"
    env = run.env
    assert (env["OPENCODE_DB"], env["OPENCODE_PURE"], env["PWD"]) == (":memory:", "1", str(tmp_path))
    config = json.loads(run.env["OPENCODE_CONFIG_CONTENT"])
    agent = config["agent"]["memcli"]
    assert agent["permission"] == {"*": "deny"} and agent["prompt"] == "{file:./system.md}"
    assert run.files["system.md"] == "SYSTEM" and config["agent"]["title"] == {"disable": True}
    assert config["mcp"] == {"memcli": {"enabled": False}, "my db": {"enabled": False}}  # the user's, off


def test_opencode_working_run_allows_memcli_s_server_alone(tmp_path: Path) -> None:
    run = opencode.load().headless.work("SYSTEM", "PROMPT", TOOLS, None, tmp_path)
    config = json.loads(run.env["OPENCODE_CONFIG_CONTENT"])
    assert config["agent"]["memcli"]["permission"] == {"*": "deny", "memcli_*": "allow"}
    assert config["mcp"]["my db"] == {"enabled": False}
    server = config["mcp"]["memcli"]
    assert server["command"] == [TOOLS.command, *TOOLS.args] and server["environment"] == TOOLS.env


def test_opencode_events_are_read_with_every_step_s_tokens_and_cost() -> None:
    step = {"type": "step-finish", "tokens": {"input": 100, "output": 10, "reasoning": 2,
                                              "cache": {"read": 5, "write": 0}}, "cost": 0.25}
    used = {"tool": "memcli_dispose", "state": {"status": "completed"}}
    lines = [{"type": "step_start", "part": {}}, {"type": "tool_use", "part": used},
             {"type": "step_finish", "part": step}, {"type": "text", "part": {"text": "DONE"}},
             {"type": "step_finish", "part": step}]
    reply = opencode.load().headless.read("".join(json.dumps(e) + "\n" for e in lines), "")
    assert (reply.text, reply.error, reply.turns, reply.cost_usd) == ("DONE", None, 2, 0.5)
    assert (reply.prompt_tokens, reply.completion_tokens) == (210, 24)
    data = {"message": "Incorrect API key provided", "statusCode": 401, "isRetryable": False}
    failed = {"type": "error", "error": {"name": "APIError", "data": data}}
    reply = opencode.load().headless.read(json.dumps(failed) + "\n", "")
    assert (reply.error, reply.status) == ("Incorrect API key provided", 401)
