"""Codex CLI (the version pinned in tests/e2e/package.json) against a scripted OpenAI Responses API,
after `memcli init && memcli hooks install` and the two things Codex asks of its user once:

1. trust the folder ("Trust this folder?" when Codex first opens it): Codex reads a project's
   `.codex/config.toml`, memcli's hooks and MCP server included, only in a trusted folder;
2. trust the hooks (/hooks, "Trust all and continue"): Codex runs a hook only once trusted.

Both are recorded the way Codex's own UI records them: the TUI is a client of Codex's app server and
writes the user's answers through its `config/batchWrite` into `$CODEX_HOME/config.toml`, as this
test does, taking the hooks and their hashes from the app server's own `hooks/list`.

Codex has no session-end event: capture runs on `Stop` (after every turn) and waits until the
session has been quiet for `extract.idle_minutes`. The test sets that window to 3 seconds in the
workspace's memcli.toml, as a user who wants capture soon after a turn would, so the staging item
arrives within the test's time.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import agent_binary, run
from support.agent_server import Request, Turn
from support.responses_server import ResponsesServer

KEY_VAR = "MEMCLI_E2E_CODEX_KEY"
TOOLS = {"memcli_context", "memcli_search", "memcli_read", "memcli_remember"}
REMEMBERED = "Keep thirty days of nightly SQLite backups on the NAS."


def codex_config(url: str) -> str:
    """`$CODEX_HOME/config.toml`: the scripted server as the model provider, and nothing else reached:
    no update check at start, no analytics (ab.chatgpt.com), no plugin marketplace sync (github.com,
    api.github.com, chatgpt.com): what Codex 0.171 contacts otherwise, seen through the proxy log."""
    return f"""model = "scripted-model"
model_provider = "scripted"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false

[model_providers.scripted]
name = "scripted"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "{KEY_VAR}"
"""


class AppServer:
    """`codex app-server` over stdio (JSON lines): what Codex's TUI talks to."""

    def __init__(self, codex: Path, root: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([str(codex), "app-server"], cwd=root, env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.ids = iter(range(1, 1_000))
        self.call("initialize", {"clientInfo": {"name": "memcli-e2e", "version": "1"}})

    def call(self, method: str, params: dict[str, Any], timeout: float = 30) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        ident = next(self.ids)
        self.proc.stdin.write(json.dumps({"id": ident, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            line = self.proc.stdout.readline()
            assert line, f"codex app-server exited during {method}"
            message = json.loads(line)
            if message.get("id") == ident:
                assert "error" not in message, message
                return message["result"]
        raise AssertionError(f"codex app-server: no answer to {method}")

    def hooks(self, root: Path) -> list[dict[str, Any]]:
        listed = self.call("hooks/list", {"cwds": [str(root)]})["data"]
        return [h for entry in listed for h in entry["hooks"]]

    def write(self, edits: dict[str, Any]) -> None:
        changes = [{"keyPath": k, "value": v, "mergeStrategy": "upsert"} for k, v in edits.items()]
        self.call("config/batchWrite", {"edits": changes, "reloadUserConfig": True})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def trust(codex: Path, root: Path, env: dict[str, str], *, hooks: bool) -> list[dict[str, Any]]:
    """The user's answers, written as Codex writes them: the folder, then (`hooks`) every hook
    /hooks lists. Returns the hooks as Codex lists them afterwards."""
    app = AppServer(codex, root, env)
    try:
        app.write({f"projects.{json.dumps(str(root))}.trust_level": "trusted"})
        if hooks:
            app.write({f"hooks.state.{json.dumps(h['key'])}": {"trusted_hash": h["currentHash"]}
                       for h in app.hooks(root) if h["trustStatus"] != "trusted"})
        return app.hooks(root)
    finally:
        app.close()


def memcli(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run(["memcli", *args], root, env, timeout=60)


def proxied(env: dict[str, str], server: ResponsesServer) -> dict[str, str]:
    """Every proxy variable pointed at the scripted server, so anything Codex (or a hook or MCP server
    it starts) sends past 127.0.0.1 shows in its log (`outside_requests`)."""
    names = ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")
    return {**env, **{name: server.url for name in names}}


def codex_exec(codex: Path, root: Path, env: dict[str, str], server: ResponsesServer, prompt: str) -> None:
    result = run([str(codex), "exec", "--strict-config", prompt], root, proxied(env, server), timeout=120,
                 stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr[-3000:]
    assert server.outside_requests() == [], server.outside_requests()


def memcli_tools(request: Request) -> set[str]:
    """memcli's tools offered in a request (Codex offers an MCP server's tools as one namespace)."""
    spaces = [t for t in request.body["tools"] if t.get("type") == "namespace" and t["name"] == "mcp__memcli"]
    return {f["name"] for t in spaces for f in t.get("tools", [])}


def staged(root: Path, text: str, timeout: float) -> dict[str, Any] | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for path in sorted((root / "memory" / "_staging").glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if text in json.dumps(data, ensure_ascii=False):
                return data
        time.sleep(0.5)
    return None


@pytest.fixture
def codex_env(agent_env: dict[str, str]) -> dict[str, str]:
    env = dict(agent_env)
    env[KEY_VAR] = "sk-scripted"  # Codex sends it as the bearer token; the scripted server ignores it
    return env  # no CODEX_HOME: Codex's home is ~/.codex under the test's own HOME


def test_codex_end_to_end(project: Path, codex_env: dict[str, str]) -> None:
    codex = agent_binary("codex")
    home = Path(codex_env["HOME"]) / ".codex"
    config = project / "memcli.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("# idle_minutes = 30", "idle_minutes = 0.05"), encoding="utf-8")
    assert tomllib.loads(config.read_text(encoding="utf-8"))["extract"]["idle_minutes"] == 0.05

    installed = memcli(project, codex_env, "hooks", "install", "--agent", "codex")
    assert installed.returncode == 0, installed.stderr
    assert "codex: trust this folder when Codex asks, then trust memcli's hooks" in installed.stdout
    status = memcli(project, codex_env, "hooks", "status", "--agent", "codex").stdout
    assert "hooks installed, not trusted yet: review them with /hooks in Codex" in status
    assert "folder not trusted yet in Codex" in status

    with ResponsesServer() as server:
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(codex_config(server.url), encoding="utf-8")
        hooks = trust(codex, project, proxied(codex_env, server), hooks=True)
        assert sorted(h["eventName"] for h in hooks) == ["preCompact", "sessionStart", "stop"]
        assert {h["trustStatus"] for h in hooks} == {"trusted"}
        status = memcli(project, codex_env, "hooks", "status", "--agent", "codex").stdout
        assert "hooks trusted in Codex" in status and "not trusted" not in status

        server.script(Turn(tool="mcp__memcli__memcli_search", args={"query": "restore the nightly backup"}),
                      Turn(tool="mcp__memcli__memcli_remember",
                           args={"kind": "decision", "text": REMEMBERED, "why": "the NAS holds a month"}),
                      Turn(text="Done."))
        codex_exec(codex, project, codex_env, server, "how do I restore last night's backup?")
        requests = server.model_requests()
    assert len(requests) == 3, [r.path for r in server.requests]

    # 1. the resident context (what `memcli context --agent codex` prints: the knowledge record is a
    # skill now, tests/e2e/test_skills.py) is in the first request, and the skill in its listing
    context = memcli(project, codex_env, "context", "--agent", "codex").stdout.strip()
    assert "# Project memory" in context and "are your skills, not repeated here" in context
    texts = [part.get("text", "") for item in requests[0].body["input"] if item.get("type") == "message"
             for part in item.get("content", [])]
    assert any(context in text for text in texts), "memcli context is not in Codex's first request"
    assert any("- restore-nightly-backup: How to restore the nightly SQLite backup (pelican-restore" in text
               for text in texts)
    # 2. memcli's tools are in the first request
    assert TOOLS <= memcli_tools(requests[0])
    # 3. the scripted memcli_search returned the knowledge record (in the tool result sent back), and
    #    the calls ran without an approval (`codex exec` refuses any call that would need one)
    outputs = [json.dumps(item["output"], ensure_ascii=False) for item in requests[2].body["input"]
               if item.get("type") == "function_call_output"]
    assert len(outputs) == 2 and "restore-nightly-backup" in outputs[0], outputs
    assert not any("requires approval" in out for out in outputs), outputs
    # 4. the scripted memcli_remember became a staging item once the session went quiet
    item = staged(project, REMEMBERED, timeout=60)
    assert item is not None, "memcli_remember was not staged"
    # 5. memcli sessions and memcli source read the session Codex wrote (the staging item's Source)
    listed = json.loads(memcli(project, codex_env, "sessions", "--json").stdout)
    ours = [s for s in listed if s["agent"] == "codex" and s["cwd"] == str(project)]
    assert len(ours) == 1 and ours[0]["skipped"] == 0, listed
    assert Path(ours[0]["path"]).is_relative_to(home / "sessions")
    source = item["source"]
    assert source["session_id"] == ours[0]["session_id"]
    start, end = source["range"]
    shown = memcli(project, codex_env, "source", f"{source['session_id']}:{start}-{end}")
    assert shown.returncode == 0, shown.stderr
    assert "mcp__memcli__memcli_remember" in shown.stdout and REMEMBERED in shown.stdout
    # 6. memcli status shows no failure
    status_run = memcli(project, codex_env, "status")
    assert status_run.returncode == 0, status_run.stdout + status_run.stderr


def test_codex_waits_for_a_slow_memcli_mcp(project: Path, codex_env: dict[str, str],
                                           tmp_path: Path) -> None:
    """Why `hooks install` writes `mcp_optional_startup_grace_ms`: with Codex's default (1000 ms) a
    server not up within a second is left out of the first request; with memcli's setting Codex
    waits for it. `memcli mcp` is slowed to 3 s here (a cold start on a busy laptop)."""
    codex = agent_binary("codex")
    shim = tmp_path / "slow-bin" / "memcli"
    shim.parent.mkdir()
    real = shutil.which("memcli", path=codex_env["PATH"])
    shim.write_text(f'#!/bin/sh\n[ "$1" = mcp ] && sleep 3\nexec "{real}" "$@"\n', encoding="utf-8")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    env = {**codex_env, "PATH": os.pathsep.join([str(shim.parent), codex_env["PATH"]])}
    assert memcli(project, env, "hooks", "install", "--agent", "codex").returncode == 0
    config = project / ".codex" / "config.toml"
    home = Path(env["HOME"]) / ".codex"
    home.mkdir(parents=True)

    def first_request(prompt: str) -> Request:
        with ResponsesServer() as server:
            (home / "config.toml").write_text(codex_config(server.url), encoding="utf-8")
            trust(codex, project, proxied(env, server), hooks=False)  # the folder only: hooks delay a request
            codex_exec(codex, project, env, server, prompt)
            return server.model_requests()[0]

    assert TOOLS <= memcli_tools(first_request("with memcli's wait"))
    text = config.read_text(encoding="utf-8")
    assert text.startswith("mcp_optional_startup_grace_ms = 10000\n")
    config.write_text(text.replace("mcp_optional_startup_grace_ms = 10000\n", ""), encoding="utf-8")
    assert memcli_tools(first_request("with Codex's default wait")) == set()


def test_resume_and_fork_copy_no_history(project: Path, codex_env: dict[str, str]) -> None:
    """`codex exec resume <id>` appends to the session's rollout; `codex exec fork <id>` starts a new
    one that names its parent (`forked_from_id`) and holds only its own turns: Codex sends the
    parent's history to the model but does not copy it into the file (unlike Claude Code's
    `--fork-session` and Pi's `/fork`), so memcli reads every turn once without doing anything."""
    codex = agent_binary("codex")
    home = Path(codex_env["HOME"]) / ".codex"
    home.mkdir(parents=True)
    with ResponsesServer() as server:
        (home / "config.toml").write_text(codex_config(server.url), encoding="utf-8")
        trust(codex, project, proxied(codex_env, server), hooks=False)
        server.script(*(Turn(text=f"Answer {n}.") for n in ("one", "two", "three")))
        codex_exec(codex, project, codex_env, server, "first question")
        (first,) = (home / "sessions").rglob("rollout-*.jsonl")
        parent = json.loads(first.read_text(encoding="utf-8").splitlines()[0])["payload"]["id"]
        for step in (["resume", parent, "second question"], ["fork", parent, "third question"]):
            done = run([str(codex), "exec", *step], project, proxied(codex_env, server), timeout=120,
                       stdin=subprocess.DEVNULL)
            assert done.returncode == 0, done.stderr[-3000:]
        forked_request = json.dumps(server.model_requests()[-1].body)
    assert "first question" in forked_request and "second question" in forked_request  # history sent
    files = sorted((home / "sessions").rglob("rollout-*.jsonl"))
    assert len(files) == 2 and first in files  # the resume went on in the parent's file
    (fork_file,) = [f for f in files if f != first]
    meta = json.loads(fork_file.read_text(encoding="utf-8").splitlines()[0])["payload"]
    assert meta["forked_from_id"] == parent
    assert "first question" not in fork_file.read_text(encoding="utf-8")  # nothing copied

    def said(session: str) -> list[str]:
        shown = memcli(project, codex_env, "source", session)
        assert shown.returncode == 0, shown.stderr
        turns = {f"{n} question" for n in ("first", "second", "third")} | {
            f"Answer {n}." for n in ("one", "two", "three")}
        return [line.strip() for line in shown.stdout.splitlines() if line.strip() in turns]

    assert said(parent) == ["first question", "Answer one.", "second question", "Answer two."]
    assert said(meta["id"]) == ["third question", "Answer three."]
