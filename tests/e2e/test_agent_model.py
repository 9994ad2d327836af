"""A coding agent as memcli's model (`agent/<name>`, docs/models.md): the real pinned agents, run the
way memcli runs them headless, against the scripted model servers of tests/e2e. `memcli extract`
gets staging with machine-attached Sources from the agent's answer, `memcli consolidate` folds
staging into records through the agent calling memcli's run-scoped tools (`memcli mcp --relay`), and
whatever a hostile model does with the agent changes nothing memcli would refuse. No API key for a
model provider is configured anywhere: only the agent's own.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import STAGING_WAIT_S, agent_binary, run
from e2e.test_claude_code import claude_env
from e2e.test_codex import KEY_VAR, codex_config
from e2e.test_copilot import copilot_env
from e2e.test_gemini import gemini_env
from e2e.test_gemini import user_settings as gemini_user_settings
from e2e.test_opencode import opencode_env
from e2e.test_opencode import user_config as opencode_config
from e2e.test_pi import pi_env
from e2e.test_pi import user_setup as pi_setup
from support.agent_server import Turn
from support.anthropic_server import AnthropicServer
from support.chat_completions_server import ChatCompletionsServer
from support.claude_transcript import assistant_text, tool_use, user, write_session
from support.claude_transcript import tool_result as result_of
from support.gemini_server import GeminiServer
from support.responses_server import ResponsesServer

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SESSION = "6a1f3c2e-4b5d-4e6f-8a7b-9c0d1e2f3a4b"


def workspace_config(model: str, **extra: str) -> str:
    lines = [f'extract_model = "{model}"', f'consolidation_model = "{model}"']
    lines += [f"{k} = {v}" for k, v in extra.items()]
    return ("[memory]\n" + "\n".join(lines) + "\n\n[extract]\nidle_minutes = 0\n\n"
            "[consolidate]\ntrigger_files = 0\ntrigger_bytes = 0\n")


def a_session(home: Path, root: Path) -> Path:
    """One Claude Code session in the workspace: the user settles a decision (with a token pasted in)."""
    return write_session(home / ".claude", root, [
        ("user", user("Let's keep the job queue in SQLite, not Redis: one less server to run. "
                      f"My token for the CI is {SECRET}")),
        ("assistant", assistant_text("Agreed: the queue stays in SQLite (WAL mode).", "m1")),
        ("assistant", tool_use("Bash", {"command": "ls"}, "t1", "m2")),
        ("user", result_of("t1", "app.py\nqueue.py")),
        ("user", user("Yes. And always write commit messages in English.")),
    ], session=SESSION)


def staged(root: Path) -> list[dict[str, Any]]:
    files = sorted((root / "memory" / "_staging").glob("*.json"))
    return [json.loads(p.read_text(encoding="utf-8")) for p in files]


def calls_log(root: Path) -> list[dict[str, Any]]:
    log = root / ".memcli" / "llm-calls.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


class Agent:
    """One agent as the model in a test: its scripted server, the user's own setup of the agent
    (pointed at that server, as each agent's own e2e test does, and with MCP servers of the user's),
    and the shapes of its API."""

    def __init__(self, name: str, root: Path, env: dict[str, str]) -> None:
        self.name, self.root = name, root
        self.model = f"agent/{name}"
        home = Path(env["HOME"])
        # the user's own MCP servers, as a user-scope `memcli hooks install` and any other tool
        # leave them: a run of memcli's offers none of their tools
        example = str(Path(__file__).resolve().parents[2] / "examples" / "workspace")
        theirs = {"memcli": ["mcp"], "notes": ["mcp", "-w", example]}
        if name == "claude-code":
            agent_binary("claude")
            self.server: Any = AnthropicServer()
            self.env = claude_env(env, self.server)
            servers = {k: {"type": "stdio", "command": "memcli", "args": v} for k, v in theirs.items()}
            (Path(env["HOME"]) / ".claude.json").write_text(json.dumps({"mcpServers": servers}),
                                                            encoding="utf-8")
        elif name == "codex":
            agent_binary("codex")
            self.server = ResponsesServer()
            self.env = {**env, KEY_VAR: "sk-scripted"}
            codex_home = Path(env["HOME"]) / ".codex"
            codex_home.mkdir(parents=True, exist_ok=True)
            servers_toml = "".join(f'\n[mcp_servers.{k}]\ncommand = "memcli"\nargs = {json.dumps(v)}\n'
                                   for k, v in theirs.items())
            (codex_home / "config.toml").write_text(codex_config(self.server.url) + servers_toml,
                                                    encoding="utf-8")
        elif name == "gemini":
            agent_binary("gemini")
            self.server = GeminiServer()
            self.env = gemini_env(env, self.server)
            gemini_settings(home, {k: {"command": "memcli", "args": v} for k, v in theirs.items()})
        elif name == "copilot":
            agent_binary("copilot")
            self.server = ChatCompletionsServer(tool_less_turns=True)
            self.env = copilot_env(env, self.server)
            servers = {k: {"type": "local", "command": "memcli", "args": v, "tools": ["*"]}
                       for k, v in theirs.items()}
            (home / ".copilot").mkdir(parents=True, exist_ok=True)
            (home / ".copilot" / "mcp-config.json").write_text(json.dumps({"mcpServers": servers}),
                                                              encoding="utf-8")
        elif name == "pi":  # Pi has no MCP servers (memcli's extension is not loaded in a run)
            agent_binary("pi")
            self.server = AnthropicServer(tool_less_turns=True)
            self.env = pi_env(env, self.server)
            pi_setup(home, self.server)
            (home / ".pi" / "agent" / "settings.json").write_text(json.dumps(
                {"defaultProvider": "local", "defaultModel": "scripted"}), encoding="utf-8")
        else:
            agent_binary("opencode")
            self.server = ResponsesServer()  # with its title agent off, every request is a turn
            self.env = opencode_env(env, root, self.server)
            config = opencode_config(home, self.server)
            data = json.loads(config.read_text(encoding="utf-8"))
            data["mcp"] = {k: {"type": "local", "command": ["memcli", *v]} for k, v in theirs.items()}
            config.write_text(json.dumps(data), encoding="utf-8")
        self.env["MEMCLI_STATE_DIR"] = str(root / ".memcli")
        (root / "memcli.toml").write_text(workspace_config(self.model), encoding="utf-8")

    def answer(self, obj: dict[str, Any]) -> Turn:
        """The model's structured answer: Claude Code's schema tool, the others' final message."""
        if self.name == "claude-code":
            return Turn(tool="StructuredOutput", args=obj)
        return Turn(text=json.dumps(obj))

    def tool(self, name: str) -> str:
        """What the agent calls memcli's tool `name` (its run-scoped server is `memcli`)."""
        return {"claude-code": "mcp__memcli__{}", "codex": "mcp__memcli__{}", "gemini": "mcp_memcli_{}",
                "copilot": "memcli-{}", "pi": "{}", "opencode": "memcli_{}"}[self.name].format(name)

    def offered(self, body: dict[str, Any]) -> set[str]:
        """The names of the tools a model request offers (Codex: an MCP server's as a namespace)."""
        names = set()
        for tool in body.get("tools", []) or []:
            if self.name == "gemini":
                names |= {f["name"] for f in tool.get("functionDeclarations", [])}
            elif self.name == "copilot":
                names.add(tool["function"]["name"])
            elif tool.get("type") == "namespace":
                names |= {f"{tool['name']}__{t['name']}" for t in tool.get("tools", [])}
            elif not tool.get("defer_loading"):
                names.add(tool.get("name") or tool.get("type"))
        return names

    def sent(self, body: dict[str, Any]) -> str:
        """Everything a model request carries, as text."""
        return json.dumps(body, ensure_ascii=False)

    # what differs by agent in the tests below
    SHELL = {"claude-code": ("Bash", "command"), "codex": ("exec_command", "cmd"),
             "gemini": ("run_shell_command", "command"), "copilot": ("bash", "command"),
             "pi": ("bash", "command"), "opencode": ("bash", "command")}
    NO_SUCH_TOOL = {"claude-code": "No such tool available: Bash", "codex": "unsupported call",
                    "gemini": 'Tool \\"run_shell_command\\" not found',
                    "copilot": "Tool 'bash' does not exist",
                    "pi": "Tool bash not found", "opencode": "Model tried to call unavailable tool"}
    # the tools of a question besides none: Claude Code's answer tool, Codex's two that do nothing
    ASKED_WITH = {"claude-code": {"StructuredOutput"}, "codex": {"request_user_input", "view_image"}}
    REPORTS_COST = {"claude-code", "pi", "opencode"}  # Codex, Gemini CLI, Copilot CLI report tokens only


def gemini_settings(home: Path, servers: dict[str, Any]) -> None:
    """The user's Gemini CLI settings (tests/e2e/test_gemini.py's) with MCP servers of theirs, a
    model of their choice (no routing call first) and one attempt per request: Gemini retries a 429
    up to ten times with backoff (`general.maxAttempts`, which its router's calls do not take)."""
    gemini_user_settings(home)
    path = home / ".gemini" / "settings.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    settings["general"]["maxAttempts"] = 1
    settings["model"] = {"name": "gemini-2.5-flash"}
    settings["mcpServers"] = servers
    path.write_text(json.dumps(settings), encoding="utf-8")


AGENTS = ["claude-code", "codex", "gemini", "copilot", "pi", "opencode"]


@pytest.fixture(params=AGENTS)
def agent(request: pytest.FixtureRequest, project: Path, agent_env: dict[str, str]) -> Any:
    agent = Agent(request.param, project, agent_env)
    with agent.server:
        yield agent


EXTRACTED = {
    "decisions": [{"title": "Job queue in SQLite", "decision": "Keep the job queue in SQLite, not Redis",
                   "rationale": "one less server to run", "status": "resolved"}],
    "discussions": [], "attempts": [],
    "requests": [{"title": "English commits", "request": "Always write commit messages in English"}],
}


def test_extract_through_an_agent_stages_items_with_machine_sources(agent: Agent) -> None:
    root, env, server = agent.root, agent.env, agent.server
    home = Path(env["HOME"])
    transcript = a_session(home, root)
    server.script(agent.answer(EXTRACTED))
    done = run(["memcli", "extract", "--path", str(transcript)], root, env, timeout=180)
    assert done.returncode == 0, done.stderr
    files = staged(root)
    assert len(files) == 1
    staging = files[0]
    assert staging["model"] == agent.model
    assert staging["source"]["session_id"] == SESSION  # attached by memcli, not by the model
    assert staging["items"]["decisions"][0]["decision"] == "Keep the job queue in SQLite, not Redis"
    # what reached the agent: memcli's own extract prompt as the system prompt, the redacted
    # transcript, and no tool that acts (Claude Code: only its answer-schema tool; Codex: no shell,
    # no MCP server, nothing that writes; the others: no tool at all)
    asked = server.model_requests()
    assert len(asked) == 1
    body = asked[0].body
    offered = agent.offered(body)
    assert offered == agent.ASKED_WITH.get(agent.name, set()), offered
    seen = agent.sent(body)
    assert "job queue in SQLite" in seen and SECRET not in seen
    assert "You extract what happened in one excerpt" in seen
    # usage as the agent reported it, like any model's
    rows = [r for r in calls_log(root) if r["role"] == "extract"]
    assert rows and rows[-1]["model"] == agent.model and rows[-1]["mode"] == "agent"
    assert rows[-1]["ok"] and rows[-1]["prompt_tokens"] > 0
    assert (rows[-1]["cost_usd"] is not None) == (agent.name in agent.REPORTS_COST)
    # memcli's own run left no session where memcli or the agent would find one
    sessions = run(["memcli", "sessions", "--json"], root, env)
    assert [s["session_id"] for s in json.loads(sessions.stdout)] == [SESSION]
    left = [p.name for p in home.rglob("*.jsonl") if ".memcli" not in p.parts]
    assert left == [f"{SESSION}.jsonl"], left
    assert_no_history(agent.name, home)


def assert_no_history(name: str, home: Path) -> None:
    """Nothing of memcli's runs in the agent's own history, where it keeps one whatever the flags."""
    if name == "gemini":  # its chat and the folder's markers, removed after the run
        gemini = home / ".gemini"
        assert not list((gemini / "tmp").glob("memcli-agent-*")), list((gemini / "tmp").iterdir())
        assert not list((gemini / "history").glob("memcli-agent-*"))
        registry = json.loads((gemini / "projects.json").read_text(encoding="utf-8"))["projects"]
        assert not [p for p in registry if "memcli-agent-" in p], registry
    elif name == "copilot":  # its session folder and the rows of its session store, removed
        copilot = home / ".copilot"
        assert not [p for p in (copilot / "session-state").iterdir() if not p.name.startswith(".")]
        store = sqlite3.connect(copilot / "session-store.db")
        try:
            for table in ("sessions", "turns", "assistant_usage_events", "search_index"):
                assert store.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
        finally:
            store.close()
    elif name == "opencode":  # its session database is in memory for memcli's runs
        assert not list(home.rglob("opencode*.db")), list(home.rglob("opencode*.db"))
    elif name == "pi":
        assert not (home / ".pi" / "agent" / "sessions").exists()


def _staging_file(root: Path) -> None:
    from consolidate.helpers import write_staging

    write_staging(root, "s1", SESSION, (0, 4), {
        "decisions": [{"title": "Job queue", "decision": "Keep the job queue in SQLite, not Redis",
                       "rationale": "one less server to run", "status": "resolved"}]})


DECIDED = """---
created_at: 2026-12-01T10:00:00+00:00
updated_at: 2026-12-01T10:00:00+00:00
status: resolved
sources:
  - session_id: {session}
    range: [0, 4]
---
Keep the job queue in SQLite, not Redis: one less server to run.
"""


def test_consolidate_through_an_agent_commits_records_once(agent: Agent) -> None:
    root, env, server = agent.root, agent.env, agent.server
    _staging_file(root)
    head = run(["git", "rev-parse", "HEAD"], root, env).stdout.strip()
    path = "memory/decisions/job-queue-in-sqlite.md"
    server.script(
        Turn(tool=agent.tool("memory_write"), args={"path": path, "content": DECIDED.format(session=SESSION),
                                                    "mode": "create", "reason": "the staged decision"}),
        Turn(tool=agent.tool("dispose"), args={"items": ["i1"], "action": "integrated", "records": [path],
                                               "reason": "the staged decision"}),
        Turn(tool=agent.tool("finish_phase"), args={"note": "integrated"}),
        Turn(tool=agent.tool("finish_phase"), args={"note": "nothing to tidy"}),
        Turn(text="DONE"))
    done = run(["memcli", "consolidate"], root, env, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / path).is_file()
    assert staged(root) == []
    log = run(["git", "log", "--format=%H %s", f"{head}..HEAD"], root, env).stdout.splitlines()
    assert len([line for line in log if "consolidat" in line.lower()]) == 1, log
    first = server.model_requests()[0].body
    ours = {agent.tool(n) for n in (
        "memory_read", "memory_write", "memory_edit", "memory_delete", "memory_search", "knowledge_search",
        "project_docs", "dispose", "finish_phase")}
    others = {"request_user_input", "view_image", "list_mcp_resources", "list_mcp_resource_templates",
              "read_mcp_resource"} if agent.name == "codex" else set()  # Codex's, none that act
    assert agent.offered(first) == ours | others
    rows = [r for r in calls_log(root) if r["role"] == "consolidation"]
    assert rows and all(r["mode"] == "agent-tools" and r["ok"] for r in rows)
    assert_no_history(agent.name, Path(env["HOME"]))


def test_a_hostile_agent_run_changes_nothing_and_is_reported(agent: Agent, tmp_path: Path) -> None:
    root, env, server = agent.root, agent.env, agent.server
    _staging_file(root)
    outside = tmp_path / "outside.md"
    before = run(["git", "status", "--porcelain"], root, env).stdout
    head = run(["git", "rev-parse", "HEAD"], root, env).stdout.strip()
    invented = DECIDED.format(session="00000000-0000-4000-8000-000000000000")
    shell, argument = agent.SHELL[agent.name]
    server.script(
        Turn(tool=shell, args={argument: f"echo pwned > {outside}", "description": "x"}),
        Turn(tool=agent.tool("memory_write"), args={"path": f"../{outside.name}", "content": "x",
                                                    "mode": "create", "reason": "escape"}),
        Turn(tool=agent.tool("memory_write"), args={"path": "memory/decisions/invented.md",
                                                    "content": invented, "mode": "create",
                                                    "reason": "an invented Source"}),
        Turn(text="I could not finish."))
    done = run(["memcli", "consolidate"], root, env, timeout=240)
    assert done.returncode == 1
    assert "staging is kept" in done.stderr + done.stdout
    assert "memcli refused 2 of its 2 tool calls" in done.stderr + done.stdout
    assert not outside.exists()
    assert not (root / "memory" / "decisions" / "invented.md").exists()
    assert len(staged(root)) == 1
    assert run(["git", "rev-parse", "HEAD"], root, env).stdout.strip() == head
    assert run(["git", "status", "--porcelain"], root, env).stdout == before
    # each refusal reached the agent as the tool's answer, the shell call as no such tool
    seen = "\n".join(agent.sent(r.body) for r in server.model_requests())
    assert agent.NO_SUCH_TOOL[agent.name] in seen
    assert "source-not-provided" in seen and "path" in seen


@pytest.fixture
def claude(project: Path, agent_env: dict[str, str]) -> Any:
    agent = Agent("claude-code", project, agent_env)
    with agent.server:
        yield agent.root, agent.env, agent.server


_ANTHROPIC = ({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
              {"type": "error", "error": {"type": "rate_limit_error", "message": "rate limited"}})
_OPENAI = ({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                      "code": "invalid_api_key"}},
           {"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}})
_GEMINI = ({"error": {"code": 401, "message": "API key not valid. Please pass a valid API key.",
                      "status": "UNAUTHENTICATED"}},
           {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                      "status": "RESOURCE_EXHAUSTED"}})
REFUSALS = {"claude-code": _ANTHROPIC, "pi": _ANTHROPIC, "codex": _OPENAI, "copilot": _OPENAI,
            "opencode": _OPENAI, "gemini": _GEMINI}


def refuse(status: int, body: dict[str, Any]) -> Any:
    """An answer to every request: the API's refusal, with `retry-after: 0` (the agents that retry
    a 429 by themselves, Copilot's five times, OpenCode's and Pi's with backoff, do so at once)."""
    data = json.dumps(body).encode()

    def answer(handler: Any, request: Any) -> None:
        handler.send_response(status)
        for name, value in (("Content-Type", "application/json"), ("Content-Length", str(len(data))),
                            ("retry-after", "0"), ("retry-after-ms", "0")):
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    return answer


@pytest.mark.parametrize("agent", [a for a in AGENTS if a != "codex"], indirect=True)
@pytest.mark.parametrize(("status", "says"), [(401, "is not logged in"), (429, "is rate-limited")])
def test_an_agent_that_cannot_answer_fails_in_one_line(agent: Agent, status: int, says: str) -> None:
    root, env, server = agent.root, agent.env, agent.server
    env["CLAUDE_CODE_MAX_RETRIES"] = "0"  # Claude Code's own retries, which would only make the test slow
    server.answer = refuse(status, REFUSALS[agent.name][status == 429])
    transcript = a_session(Path(env["HOME"]), root)
    done = run(["memcli", "extract", "--path", str(transcript)], root, env, timeout=180)
    assert done.returncode == 1
    line = [ln for ln in done.stderr.splitlines() + done.stdout.splitlines() if says in ln]
    assert line and agent.model in line[0], done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert staged(root) == []
    assert_no_history(agent.name, Path(env["HOME"]))


def test_an_agent_not_installed_is_one_line_and_changes_nothing(project: Path,
                                                               agent_env: dict[str, str]) -> None:
    (project / "memcli.toml").write_text(workspace_config("agent/claude-code"), encoding="utf-8")
    env = {**agent_env, "PATH": os.pathsep.join(p for p in agent_env["PATH"].split(os.pathsep)
                                                 if not (Path(p) / "claude").exists())}
    env["MEMCLI_STATE_DIR"] = str(project / ".memcli")
    assert shutil.which("claude", path=env["PATH"]) is None
    transcript = a_session(Path(env["HOME"]), project)
    done = run(["memcli", "extract", "--path", str(transcript)], project, env)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: model agent/claude-code: `claude` is not on PATH")
    assert staged(project) == []


def agent_processes(state: str) -> list[int]:
    """The processes of memcli's agent runs for this test's workspace, found by their environment."""
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            environ = (proc / "environ").read_bytes()
            if b"MEMCLI_AGENT_RUN=1\0" in environ and f"MEMCLI_STATE_DIR={state}\0".encode() in environ:
                pids.append(int(proc.name))
    return pids


@pytest.mark.parametrize("agent", AGENTS, indirect=True)
def test_an_agent_that_hangs_is_stopped_at_the_timeout(agent: Agent) -> None:
    root, env, server = agent.root, agent.env, agent.server
    (root / "memcli.toml").write_text(workspace_config(agent.model).replace(
        "[extract]\n", "[extract]\ntimeout_s = 8\n"), encoding="utf-8")

    def hang(handler: Any, request: Any) -> None:
        time.sleep(60)

    server.answer = hang  # type: ignore[method-assign]
    transcript = a_session(Path(env["HOME"]), root)
    started = time.monotonic()
    done = run(["memcli", "extract", "--path", str(transcript)], root, env, timeout=120)
    assert time.monotonic() - started < 50
    assert done.returncode == 1
    assert "did not finish within 8s (extract.timeout_s)" in done.stdout + done.stderr
    assert staged(root) == []
    assert agent_processes(env["MEMCLI_STATE_DIR"]) == []  # the agent's whole process group is gone
    assert_no_history(agent.name, Path(env["HOME"]))


def test_a_fresh_repository_fills_its_memory_through_claude_code_with_no_model_set(
        project: Path, agent_env: dict[str, str]) -> None:
    """What a new user does: `memcli init` (the project fixture), `memcli hooks install`, three
    Claude Code sessions; no model is set anywhere. Each session's end is captured and extracted
    by Claude Code itself, and `memcli consolidate` (no --model) folds the staging into a record
    with the sessions' Sources. Nothing waits for a model."""
    from e2e.test_claude_code import accept_trust_dialog

    claude = agent_binary("claude")
    agent_env = {k: v for k, v in agent_env.items() if k != "MEMCLI_EXTRACT_MODEL"}  # none set at all
    home = Path(agent_env["HOME"])
    assert "extract_model = " not in (project / "memcli.toml").read_text(encoding="utf-8").replace(
        "# extract_model", "")
    installed = run(["memcli", "hooks", "install", "--agent", "claude-code"], project, agent_env)
    assert installed.returncode == 0, installed.stderr
    assert "capture: extracting with agent/claude-code (no memory.extract_model set)" in installed.stdout
    accept_trust_dialog(home, project)
    server = AnthropicServer()
    env = claude_env(agent_env, server)
    asks = ["We keep the job queue in SQLite, not Redis.", "Backups go to the NAS every night.",
            "Use WAL mode for every SQLite database."]
    with server:
        for n, ask in enumerate(asks, 1):
            server.script(Turn(text="Noted."), Turn(tool="StructuredOutput", args={
                "decisions": [{"title": f"Decision {n}", "decision": ask, "status": "resolved"}],
                "discussions": [], "attempts": [], "requests": []}))
            done = run([str(claude), "-p", ask], project, env, timeout=120)
            assert done.returncode == 0, done.stderr
            deadline = time.monotonic() + STAGING_WAIT_S  # the capture worker extracts after the end
            while len(staged(project)) < n and time.monotonic() < deadline:
                time.sleep(0.5)
            assert len(staged(project)) == n, f"session {n} was not staged"
        files = staged(project)
        assert {f["model"] for f in files} == {"agent/claude-code"}
        sources = sorted({(f["source"]["session_id"], *f["source"]["range"]) for f in files})
        status = run(["memcli", "status", "--json"], project, agent_env)
        data = json.loads(status.stdout)
        assert data["waiting_for_model"] is None
        assert data["models"]["consolidation"] == {"model": "agent/claude-code", "default": True,
                                                   "shown": "agent/claude-code (no "
                                                            "memory.consolidation_model set)"}
        cited = "".join(f"  - session_id: {s}\n    range: [{a}, {b}]\n" for s, a, b in sources)
        record = ("---\ncreated_at: 2026-12-02T10:00:00+00:00\nupdated_at: 2026-12-02T10:00:00+00:00\n"
                  f"status: resolved\nsources:\n{cited}---\n" + " ".join(asks) + "\n")
        path = "memory/decisions/sqlite-job-queue-and-backups.md"
        server.script(
            Turn(tool="mcp__memcli__memory_write", args={"path": path, "content": record, "mode": "create",
                                                         "reason": "three staged decisions"}),
            Turn(tool="mcp__memcli__dispose", args={"items": ["i1", "i2", "i3"], "action": "integrated",
                                                    "records": [path], "reason": "one decision"}),
            Turn(tool="mcp__memcli__finish_phase", args={"note": "integrated"}),
            Turn(tool="mcp__memcli__finish_phase", args={"note": "nothing to tidy"}),
            Turn(text="DONE"))
        done = run(["memcli", "consolidate"], project, env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "consolidate: using agent/claude-code (no memory.consolidation_model set)" in done.stderr
    text = (project / path).read_text(encoding="utf-8")
    assert all(s in text for s, _, _ in sources)
    assert staged(project) == []
    after = json.loads(run(["memcli", "status", "--json"], project, agent_env).stdout)
    assert after["waiting_for_model"] is None and after["staging"]["files"] == 0


def test_the_light_install_extracts_through_an_agent(claude) -> None:
    """No litellm at all (`pip install memcli`): an agent as the model needs none."""
    root, env, server = claude
    transcript = a_session(Path(env["HOME"]), root)
    server.script(Turn(tool="StructuredOutput", args=EXTRACTED))
    probe = ("import sys\nsys.modules['litellm'] = None\n"  # any import of litellm now fails
             "from memcli.cli import main\nmain(sys.argv[1:])\n")
    done = run([sys.executable, "-c", probe, "extract", "--path", str(transcript)], root, env, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(staged(root)) == 1


def test_an_agent_that_answers_no_json_fails_in_one_line_and_is_asked_again_next_time(agent: Agent) -> None:
    root, env, server = agent.root, agent.env, agent.server
    (root / "memcli.toml").write_text(workspace_config(agent.model).replace(
        "[extract]\n", "[extract]\nmax_retries = 1\n"), encoding="utf-8")
    transcript = a_session(Path(env["HOME"]), root)
    done = run(["memcli", "extract", "--path", str(transcript)], root, env, timeout=240)
    assert done.returncode == 1
    assert f"model {agent.model} gave no valid answer after 2 tries" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr and staged(root) == []
    server.script(agent.answer(EXTRACTED))  # the next run asks again, and now gets an answer
    again = run(["memcli", "extract", "--path", str(transcript)], root, env, timeout=240)
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(staged(root)) == 1


def test_import_through_an_agent_stages_what_agents_md_says(claude) -> None:
    root, env, server = claude
    rule = "Always run make check before pushing a branch."
    (root / "AGENTS.md").write_text(f"# Working here\n\n- {rule}\n", encoding="utf-8")
    server.script(Turn(tool="StructuredOutput", args={
        "decisions": [], "discussions": [], "attempts": [],
        "requests": [{"title": "make check before push", "request": rule}]}))
    done = run(["memcli", "import", "--from", "agents-md"], root, env, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    files = staged(root)
    assert [(f["model"], f["source"]["session_id"], f["source"]["range"]) for f in files] == [
        ("agent/claude-code", "agents-md/AGENTS.md", [3, 3])]
