"""Claude Code (the version pinned in tests/e2e/package.json) against the scripted Anthropic server,
in a fresh repository after `memcli init && memcli hooks install` and the one step Claude Code asks of
its user before it applies a project's allow rules: accepting its workspace trust dialog, recorded
here the way the dialog records it (`accept_trust_dialog`). Nothing else is configured by hand:
`claude -p` uses the project's `.mcp.json` server without asking, `alwaysLoad` (written by `hooks
install`) makes it wait for memcli's tools before the first request, and the allow rules (written by
`hooks install`) let the scripted calls run.

Claude Code's side traffic stays off the network: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (telemetry,
error reports, update checks) and DISABLE_AUTOUPDATER, and every proxy points at the scripted server,
which refuses and logs any attempt to go elsewhere (`outside_requests`).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import agent_binary, run
from support.agent_server import Turn
from support.anthropic_server import AnthropicServer

TOOLS = {f"mcp__memcli__{name}" for name in
         ("memcli_search", "memcli_read", "memcli_context", "memcli_source", "memcli_remember")}
REMEMBERED = "Restore drills run on the first Monday of each month"


def accept_trust_dialog(home: Path, folder: Path) -> None:
    """What Claude Code 2.1.332 writes to ~/.claude.json when the user answers "Yes, I trust this
    folder" (seen by driving the dialog in a terminal): the project's entry, with its defaults."""
    state = home / ".claude.json"
    data = json.loads(state.read_text(encoding="utf-8")) if state.exists() else {}
    data.setdefault("projects", {})[str(folder.resolve())] = {
        "allowedTools": [], "mcpContextUris": [], "mcpServers": {}, "enabledMcpjsonServers": [],
        "disabledMcpjsonServers": [], "hasTrustDialogAccepted": True,
        "hasClaudeMdExternalIncludesApproved": False, "hasClaudeMdExternalIncludesWarningShown": False}
    state.write_text(json.dumps(data, indent=2), encoding="utf-8")


def claude_env(agent_env: dict[str, str], server: AnthropicServer) -> dict[str, str]:
    return {**agent_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-e2e-not-a-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "HTTPS_PROXY": server.url, "HTTP_PROXY": server.url, "https_proxy": server.url,
            "http_proxy": server.url}


def texts(body: dict[str, Any]) -> str:
    """Every text a Messages request carries (system prompt, messages, tool results), joined."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                found.append(node["text"])
            for key in ("content", "system"):
                walk(node.get(key))
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, str):
            found.append(node)

    walk(body.get("system"))
    walk(body.get("messages"))
    return "\n".join(found)


def tool_result(body: dict[str, Any], call_id: str) -> dict[str, Any]:
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and block.get("tool_use_id") == call_id:
                return block
    raise AssertionError(f"no tool_result for {call_id} in the request")


def tool_call_ids(server: AnthropicServer) -> list[str]:
    """The ids of the scripted tool calls, in order, from the assistant turns Claude Code sent back."""
    last = server.model_requests()[-1].body
    return [b["id"] for m in last["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_use"]


def wait_for(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (found := check()):
            return found
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


@pytest.fixture
def no_leftovers(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Capture workers the agent's hooks started for this test's project must be gone at the end;
    any still there fail the test (and are stopped, so nothing outlives it)."""
    yield
    mine = [pid for pid in _pids() if str(tmp_path) in _cmdline(pid)]
    for pid in mine:
        os.kill(pid, signal.SIGTERM)
    assert not mine, "processes left running: " + "; ".join(_cmdline(pid) for pid in mine)


def _pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and int(p.name) != os.getpid()]


def _cmdline(pid: int) -> str:
    try:
        raw = (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace")


def test_memory_reaches_claude_code_and_its_session_is_captured(
        project: Path, agent_env: dict[str, str], no_leftovers: None) -> None:
    claude = agent_binary("claude")
    home = Path(agent_env["HOME"])
    installed = run(["memcli", "hooks", "install", "--agent", "claude-code"], project, agent_env)
    assert installed.returncode == 0, installed.stderr
    assert "accept its trust dialog" in installed.stdout  # the one step memcli leaves to the user, named
    accept_trust_dialog(home, project)
    # what its session-start hook gives it: the knowledge record is a skill now (hooks install
    # synced it), so the index does not repeat it (tests/e2e/test_skills.py)
    context = run(["memcli", "context", "--agent", "claude-code"], project, agent_env).stdout.strip()
    assert "# Project memory" in context and "are your skills, not repeated here" in context

    server = AnthropicServer()
    server.script(Turn(tool="mcp__memcli__memcli_search", args={"query": "restore the nightly backup"}),
                  Turn(tool="mcp__memcli__memcli_remember", args={"kind": "decision", "text": REMEMBERED}),
                  Turn(text="Restore from the NAS; I noted the drill schedule."))
    with server:
        done = run([str(claude), "-p", "How do I restore last night's backup?"], project,
                   claude_env(agent_env, server), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Restore from the NAS" in done.stdout
    assert "not been trusted" not in done.stderr
    assert server.outside_requests() == []

    turns = server.model_requests()
    assert len(turns) == 3, [r.path for r in server.requests]
    first = turns[0].body
    # 1. the resident context, as `memcli context` prints it, is in the first request, and the
    # knowledge as a skill in its listing
    assert context in texts(first)
    assert "- restore-nightly-backup: How to restore the nightly SQLite backup (pelican" in texts(first)
    # 2. memcli's tools, with their schemas, are in the first request
    offered = {tool["name"]: tool for tool in first["tools"]}
    assert TOOLS <= set(offered)
    assert offered["mcp__memcli__memcli_search"]["input_schema"]["required"] == ["query"]
    # 3. the scripted search ran, and its result, sent back with the next request, holds the record
    search_id, remember_id = tool_call_ids(server)
    result = tool_result(turns[1].body, search_id)
    assert not result.get("is_error"), result
    assert "restore-nightly-backup" in json.dumps(result["content"])
    assert not tool_result(turns[2].body, remember_id).get("is_error")

    # 4. once the session has ended, the remembered decision is a staging item
    staging = project / "memory" / "_staging"

    def staged() -> list[Path]:
        return [p for p in staging.glob("*.json") if REMEMBERED in p.read_text(encoding="utf-8")]

    wait_for(staged, 60, "the memcli_remember call to be staged")

    # 5. memcli reads the session Claude Code wrote: every line of a known kind, the calls in it
    session_id = turns[0].headers["x-claude-code-session-id"]
    listed = run(["memcli", "sessions", "--json"], project, agent_env)
    assert listed.returncode == 0, listed.stderr
    session = next(s for s in json.loads(listed.stdout) if s["session_id"] == session_id)
    assert session["agent"] == "claude-code" and session["skipped"] == 0, session
    shown = run(["memcli", "source", session_id], project, agent_env)
    assert shown.returncode == 0, shown.stderr
    assert "How do I restore last night's backup?" in shown.stdout
    assert "mcp__memcli__memcli_search" in shown.stdout and "restore-nightly-backup" in shown.stdout
    assert REMEMBERED in shown.stdout

    # 6. and nothing failed on the way
    wait_for(lambda: not _workers(project), 30, "the capture worker to finish")
    status = run(["memcli", "status"], project, agent_env)
    assert status.returncode == 0, status.stdout + status.stderr


def _workers(project: Path) -> list[int]:
    return [pid for pid in _pids() if "hooks capture" in _cmdline(pid) and str(project) in _cmdline(pid)]


def test_trust_and_approval_as_memcli_and_claude_code_see_them(
        project: Path, agent_env: dict[str, str], no_leftovers: None) -> None:
    """`hooks status` reads the two one-time steps from Claude Code's own files, and says what
    Claude Code itself says: `claude -p` about the trust, `claude mcp get` about the approval."""
    claude = agent_binary("claude")
    home = Path(agent_env["HOME"])
    assert run(["memcli", "hooks", "install", "--agent", "claude-code"], project, agent_env).returncode == 0

    def memcli_says() -> str:
        return run(["memcli", "hooks", "status", "--agent", "claude-code"], project, agent_env).stdout

    def claude_says() -> str:
        return run([str(claude), "mcp", "get", "memcli"], project, agent_env, timeout=60).stdout

    server = AnthropicServer()
    server.script(Turn(text="ok"), Turn(text="ok"))
    with server:
        env = claude_env(agent_env, server)
        assert "workspace not trusted yet" in memcli_says()
        untrusted = run([str(claude), "-p", "hi"], project, env, timeout=120)
        assert "has not been trusted" in untrusted.stderr  # "Ignoring 5 permissions.allow entries ..."
        accept_trust_dialog(home, project)
        assert "workspace trusted" in memcli_says()
        trusted = run([str(claude), "-p", "hi"], project, env, timeout=120)
        assert trusted.returncode == 0 and "not been trusted" not in trusted.stderr

    assert "not approved yet" in memcli_says() and "Pending approval" in claude_says()
    # what Claude Code's "New MCP server found" dialog writes for "Use this MCP server" ...
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"enabledMcpjsonServers": ["memcli"]}), encoding="utf-8")
    assert "MCP server memcli approved" in memcli_says() and "Pending approval" not in claude_says()
    # ... and for "Continue without using this MCP server"
    local.write_text(json.dumps({"disabledMcpjsonServers": ["memcli"]}), encoding="utf-8")
    assert "MCP server memcli rejected" in memcli_says() and "Rejected" in claude_says()

    # `claude mcp get` fires SessionEnd with a transcript it never writes: not a failed capture
    wait_for(lambda: not _workers(project), 30, "the capture workers to finish")
    status = run(["memcli", "status"], project, agent_env)
    assert status.returncode == 0, status.stdout + status.stderr


def test_a_fork_is_read_without_the_history_it_copied(project: Path, agent_env: dict[str, str]) -> None:
    """`--resume <id> --fork-session` starts a new file that begins with the parent's conversation
    copied line for line; `--resume` and `--continue` append to the session's own file. memcli
    reads each turn once: the copies in the parent's file, the fork's own turns in the fork's."""
    claude = str(agent_binary("claude"))
    accept_trust_dialog(Path(agent_env["HOME"]), project)
    server = AnthropicServer()
    server.script(*(Turn(text=f"Answer {n}.") for n in ("one", "two", "three", "four")))
    with server:
        env = claude_env(agent_env, server)
        assert run([claude, "-p", "first question"], project, env).returncode == 0
        parent = server.model_requests()[0].headers["x-claude-code-session-id"]
        steps = (["--resume", parent, "--fork-session", "second question"], ["--continue", "third question"],
                 ["--resume", parent, "fourth question"])
        for args in steps:
            done = run([claude, "-p", *args], project, env)
            assert done.returncode == 0, done.stderr
        fork = server.model_requests()[1].headers["x-claude-code-session-id"]
    assert fork != parent and [r.headers["x-claude-code-session-id"] for r in server.model_requests()] == [
        parent, fork, fork, parent]  # --continue went on in the fork, the latest; --resume in the parent
    folder = next((Path(agent_env["HOME"]) / ".claude" / "projects").iterdir())
    assert sorted(p.stem for p in folder.glob("*.jsonl")) == sorted([parent, fork])  # no file per resume
    lines = {sid: [json.loads(line) for line in (folder / f"{sid}.jsonl").read_text().splitlines()]
             for sid in (parent, fork)}
    copied = {o.get("uuid") for o in lines[fork]} & {o["uuid"] for o in lines[parent] if "uuid" in o}
    assert any("first question" in json.dumps(o) for o in lines[fork] if o.get("uuid") in copied)

    def said(session: str) -> list[str]:
        shown = run(["memcli", "source", session], project, agent_env)
        assert shown.returncode == 0, shown.stderr
        return [line for line in shown.stdout.splitlines() if "question" in line or "Answer" in line]

    assert [s.strip() for s in said(parent)] == ["first question", "Answer one.", "fourth question",
                                                "Answer four."]
    assert [s.strip() for s in said(fork)] == ["second question", "Answer two.", "third question",
                                              "Answer three."]
