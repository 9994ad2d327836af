"""Pi (npm `@mariozechner/pi-coding-agent`, pinned in tests/e2e/package.json: 0.73.1) end to end,
against the scripted Anthropic Messages server (tests/support/anthropic_server.py), headless
(`pi --mode json`), in a fresh repository after `memcli init && memcli hooks install --agent pi`.

Pi asks nothing of its user before it loads a project's `.pi/extensions/` (no trust step in 0.73.1):
the test's own setup is only the user's Pi setup (`user_setup`): a local model provider in
`~/.pi/agent/models.json` (an `anthropic-messages` provider whose `baseUrl` is the scripted server,
the way Pi's docs add Ollama, vLLM or a proxy), and nothing sent anywhere else (`PI_OFFLINE=1`: no
version check, no tool downloads, no install report; every proxy points at the scripted server,
which refuses and logs any attempt to go elsewhere, and Pi routes its requests through the proxy
variables).

`test_pi_session_with_memcli` asserts the six points every agent's test does; `test_every_line_pi_
writes_is_read` drives Pi's RPC mode through each kind of session line it writes and checks that
memcli reads them all (the source of tests/fixtures/transcripts/pi/memcli-e2e/). `test_a_teammate_without_
memcli_runs_pi_as_before`: the committed extension where `memcli` is not installed.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from e2e.conftest import STAGING_WAIT_S, agent_binary, run, stop_capture_workers, wait_for_staging
from support.agent_server import Request, Turn
from support.anthropic_server import AnthropicServer

PROMPT = "How do we back up the database? And from now on we lint with ruff, please keep that."
RULE = "Lint Python with ruff, not flake8."
SEARCH = Turn(text="Let me look that up.", tool="memcli_search", args={"query": "sqlite backup"})
REMEMBER = Turn(tool="memcli_remember", args={"kind": "rule", "text": RULE})
ANSWER = Turn(text="Nightly `sqlite3 .backup` to the NAS; ruff noted.")
MEMCLI_TOOLS = {"memcli_search", "memcli_read", "memcli_context", "memcli_source", "memcli_remember"}
MODEL = "local/scripted"


def user_setup(home: Path, server: AnthropicServer) -> None:
    """The user's own Pi setup, nothing of memcli's: a model provider of their own in models.json."""
    provider = {"baseUrl": server.url, "api": "anthropic-messages", "apiKey": "e2e-not-a-key",
                "models": [{"id": "scripted"}, {"id": "scripted-2", "reasoning": True}]}
    path = home / ".pi" / "agent" / "models.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"providers": {"local": provider}}, indent=2), encoding="utf-8")


def pi_env(agent_env: dict[str, str], server: AnthropicServer) -> dict[str, str]:
    # capture extracts with no model here (Pi as the model: tests/e2e/test_agent_model.py)
    return {**agent_env, "PI_OFFLINE": "1", "PI_TELEMETRY": "0", "HTTPS_PROXY": server.url,
            "HTTP_PROXY": server.url, "https_proxy": server.url, "http_proxy": server.url,
            "MEMCLI_EXTRACT_MODEL": "none"}


def system_text(request: Request) -> str:
    return "\n".join(block.get("text", "") for block in request.body.get("system", []))


def tool_names(request: Request) -> set[str]:
    return {tool["name"] for tool in request.body.get("tools", [])}


def tool_results(request: Request) -> list[dict[str, Any]]:
    return [block for message in request.body["messages"] if isinstance(message["content"], list)
            for block in message["content"] if block.get("type") == "tool_result"]



def test_pi_session_with_memcli(project: Path, agent_env: dict[str, str]) -> None:
    pi = str(agent_binary("pi"))
    home = Path(agent_env["HOME"])
    installed = run(["memcli", "hooks", "install", "--agent", "pi"], project, agent_env)
    assert installed.returncode == 0, installed.stderr
    assert (project / ".pi" / "extensions" / "memcli.ts").is_file()
    assert f"pi: start pi in {project}" in installed.stdout  # where Pi looks for a project's extensions
    status = run(["memcli", "hooks", "status", "--agent", "pi"], project, agent_env)
    assert "installed  memcli extension" in status.stdout and "memcli's extension on in pi" in status.stdout

    server = AnthropicServer()
    server.script(SEARCH, REMEMBER, ANSWER)
    with server:
        user_setup(home, server)
        try:
            done = run([pi, "--model", MODEL, "--mode", "json", PROMPT], project, pi_env(agent_env, server),
                       timeout=90)
            assert done.returncode == 0, done.stderr[-3000:]
            staged = wait_for_staging(project)
        finally:
            stop_capture_workers()
    requests = server.model_requests()
    assert len(requests) == 3, [r.path for r in server.requests]
    assert server.outside_requests() == []
    session_id = json.loads(done.stdout.splitlines()[0])["id"]  # `--mode json` starts with the header

    # 1. the resident context, exactly as `memcli context --agent pi` renders it (the knowledge record
    # is a skill now, tests/e2e/test_skills.py), is in the first request, and the skill in its listing
    context = run(["memcli", "context", "--agent", "pi"], project, agent_env).stdout
    assert "# Project memory" in context and "are your skills, not repeated here" in context
    assert context.strip() in system_text(requests[0])
    assert "<description>How to restore the nightly SQLite backup" in system_text(requests[0])
    # 2. memcli's tools are in the first request (the first prompt waits for `memcli mcp`)
    assert MEMCLI_TOOLS <= tool_names(requests[0])
    # 3. the search result Pi sends back holds the record, as text (no error)
    (found,) = tool_results(requests[1])
    assert not found["is_error"] and "use-sqlite-wal" in json.dumps(found["content"]), found
    # 4. the remember call became a staging item once the session ended
    assert [(i["title"], i["request"]) for s in staged for i in s["items"]["requests"]] == [
        (f"Rule: {RULE}", RULE)], staged
    assert staged[0]["source"]["session_id"] == session_id

    # 5. memcli reads the session Pi wrote (under ~/.pi/agent/sessions/--<encoded cwd>--/)
    (transcript,) = (home / ".pi" / "agent" / "sessions").glob("*/*.jsonl")
    listed = json.loads(run(["memcli", "sessions", "--json"], project, agent_env).stdout)
    (mine,) = [s for s in listed if s["session_id"] == session_id]
    assert (mine["agent"], mine["path"], mine["skipped"]) == ("pi", str(transcript), 0)
    source = run(["memcli", "source", session_id], project, agent_env)
    assert source.returncode == 0 and PROMPT in source.stdout and "memcli_remember" in source.stdout

    # 6. no failure in memcli's status
    state = run(["memcli", "status"], project, agent_env)
    assert state.returncode == 0, state.stdout + state.stderr


def test_a_teammate_without_memcli_runs_pi_as_before(project: Path, agent_env: dict[str, str]) -> None:
    """The project's `.pi/extensions/memcli.ts` is committed to share; where `memcli` is not on PATH,
    Pi answers and exits as it would without it: no tools, no context, no error. The installed copy's
    timeouts are raised to ten minutes, so a timer the extension left running would hold Pi past the
    run's limit instead of passing unseen."""
    pi = str(agent_binary("pi"))
    assert run(["memcli", "hooks", "install", "--agent", "pi"], project, agent_env).returncode == 0
    extension = project / ".pi" / "extensions" / "memcli.ts"
    text = extension.read_text(encoding="utf-8")
    slow = text.replace("START_TIMEOUT_MS = 30_000", "START_TIMEOUT_MS = 600_000").replace(
        "CAPTURE_TIMEOUT_MS = 10_000", "CAPTURE_TIMEOUT_MS = 600_000")
    assert slow.count("_TIMEOUT_MS = 600_000") == 2
    extension.write_text(slow, encoding="utf-8")
    path = [d for d in agent_env["PATH"].split(os.pathsep) if d and not (Path(d) / "memcli").exists()]
    server = AnthropicServer()
    server.script(ANSWER)
    with server:
        user_setup(Path(agent_env["HOME"]), server)
        env = {**pi_env(agent_env, server), "PATH": os.pathsep.join(path)}
        done = run([pi, "--model", MODEL, "--mode", "json", PROMPT], project, env, timeout=90)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "memcli" not in done.stderr, done.stderr[-3000:]
    (request,) = server.model_requests()
    assert not MEMCLI_TOOLS & tool_names(request)
    assert "# Project memory" not in system_text(request)
    # the committed skills are Pi's own: the teammate's Pi lists the knowledge without memcli
    assert "<description>How to restore the nightly SQLite backup" in system_text(request)


# ---- every kind of line Pi writes ---------------------------------------------------------------

TOUR_EXTENSION = """\
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
// What a user's own extensions do: a message in the context, state of their own, a label, /tree.
export default function (pi: ExtensionAPI) {
  const first = (ctx: any) => ctx.sessionManager.getEntries().find(
    (e: any) => e.type === "message" && e.message.role === "user");
  pi.registerCommand("tour-mark", {
    description: "a custom message, a custom entry, a label",
    handler: async (_args, ctx) => {
      pi.appendEntry("tour-state", { step: 1 });
      pi.setLabel(first(ctx).id, "start");
      const note = "A note an extension adds to the context.";
      pi.sendMessage({ customType: "tour", content: note, display: true }, { deliverAs: "nextTurn" });
    },
  });
  pi.registerCommand("tour-branch", {
    description: "back to the first prompt in /tree, summarizing the branch left",
    handler: async (_args, ctx) => {
      await ctx.waitForIdle();
      await ctx.navigateTree(first(ctx).id, { summarize: true });
    },
  });
}
"""
KINDS = {"session", "message", "model_change", "thinking_level_change", "session_info", "custom", "label",
         "custom_message", "branch_summary", "compaction"}
ROLES = {"user", "assistant", "toolResult", "bashExecution"}


class Rpc:
    """`pi --mode rpc`: one JSON command a line on stdin, responses and events on stdout."""

    def __init__(self, cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.events: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with contextlib.suppress(ValueError):
                self.events.append(json.loads(line))

    def send(self, command: dict[str, Any], *, until: str = "response",
             timeout: float = 30) -> dict[str, Any]:
        """The response to `command`, once `until` (an event type, or "response") has come."""
        seen = len(self.events)
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            new = self.events[seen:]
            answer = [e for e in new if e.get("type") == "response" and e.get("command") == command["type"]]
            if answer and any(e.get("type") == until for e in new):
                assert answer[0]["success"], answer[0]
                return answer[0]
            time.sleep(0.05)
        raise AssertionError(f"no {until} for {command} within {timeout}s")

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()  # Pi shuts down at the end of its input
        self.proc.wait(timeout=60)
        return self.proc.stderr.read()


def wait_for_runs(session_ids: set[str]) -> dict[str, str]:
    """The result of each capture run recorded for these sessions, once all are there."""
    runs = Path(os.environ["MEMCLI_STATE_DIR"]) / "runs.json"
    deadline = time.monotonic() + STAGING_WAIT_S
    while True:
        with contextlib.suppress(OSError, ValueError):
            found = {r.get("session"): r.get("result") for r in json.loads(runs.read_text())["extract"]}
            if session_ids <= set(found) or time.monotonic() > deadline:
                return found
        time.sleep(0.3)


def test_every_line_pi_writes_is_read(project: Path, agent_env: dict[str, str], tmp_path: Path) -> None:
    """Each kind of line Pi 0.73.1 writes (drawn out through its RPC mode and an extension of the
    user's own), read by memcli with nothing skipped; and memcli's extension, beside it, captures a
    session when /fork ends it and when Pi quits."""
    pi = str(agent_binary("pi"))
    home = Path(agent_env["HOME"])
    assert run(["memcli", "hooks", "install", "--agent", "pi"], project, agent_env).returncode == 0
    tour = tmp_path / "tour.ts"
    tour.write_text(TOUR_EXTENSION, encoding="utf-8")
    server = AnthropicServer()
    write = {"command": "echo 'keep notes in notes.txt' > notes.txt"}
    server.script(Turn(text="I'll write it.", tool="bash", args=write), Turn(text="Written notes.txt."),
                  Turn(text="Noted."), Turn(text="Second attempt done."),
                  Turn(text="After compaction: fine."), Turn(text="Forked."))
    with server:
        user_setup(home, server)
        rpc = Rpc([pi, "--mode", "rpc", "--model", MODEL, "-e", str(tour)], project,
                  pi_env(agent_env, server))
        try:
            rpc.send({"type": "prompt", "message": "Write our convention into notes.txt"}, until="agent_end")
            rpc.send({"type": "bash", "command": "cat notes.txt"})  # `!cat notes.txt`
            rpc.send({"type": "set_session_name", "name": "tour of entry kinds"})  # /name
            rpc.send({"type": "prompt", "message": "/tour-mark"})
            rpc.send({"type": "set_model", "provider": "local", "modelId": "scripted-2"})
            rpc.send({"type": "set_thinking_level", "level": "high"})
            rpc.send({"type": "prompt", "message": "Anything else to note?"}, until="agent_end")
            rpc.send({"type": "prompt", "message": "/tour-branch"})
            rpc.send({"type": "prompt", "message": "Second attempt: keep notes in NOTES.md instead"},
                     until="agent_end")
            rpc.send({"type": "compact"})  # /compact
            rpc.send({"type": "prompt", "message": "After compaction, anything left?"}, until="agent_end")
            state = rpc.send({"type": "get_state"})["data"]
            forked = rpc.send({"type": "get_fork_messages"})["data"]["messages"][-1]
            rpc.send({"type": "fork", "entryId": forked["entryId"]})  # /fork: a new session from that prompt
            rpc.send({"type": "prompt", "message": "And in the fork?"}, until="agent_end")
        finally:
            stderr = rpc.close()  # the two capture workers finish below (wait_for_runs)
    assert rpc.proc.returncode == 0, stderr[-3000:]
    assert server.outside_requests() == []
    sessions = home / ".pi" / "agent" / "sessions"
    by_id = {json.loads(p.read_text().splitlines()[0])["id"]: p for p in sessions.glob("*/*.jsonl")}
    first, fork = state["sessionId"], next(i for i in by_id if i != state["sessionId"])
    lines = [json.loads(line) for line in by_id[first].read_text(encoding="utf-8").splitlines()]
    assert {line["type"] for line in lines} == KINDS  # a kind Pi adds shows here first
    assert {line["message"]["role"] for line in lines if line["type"] == "message"} == ROLES

    done = run(["memcli", "sessions", "--json"], project, agent_env)
    listed = {s["session_id"]: s for s in json.loads(done.stdout)}
    assert (listed[first]["agent"], listed[first]["skipped"], listed[first]["entries"]) == ("pi", 0, 14)
    assert listed[first]["extra"]["title"] == "tour of entry kinds"
    assert listed[fork]["extra"]["forked_from"] == str(by_id[first]) and listed[fork]["skipped"] == 0
    assert listed[fork]["entries"] == 2  # its own turn: what /fork copied is read in the first session
    # /fork ended the first session and quitting the second: both were captured (no model here: waiting)
    assert wait_for_runs({first, fork}) == {first: "waiting", fork: "waiting"}
