"""memcli's OpenCode plugin (memcli/agents/opencode/plugin.js) run under Node as OpenCode runs it: the
module loaded, its factory called with what OpenCode passes (`directory`, `client`), its hooks called
in OpenCode's order. The commands it runs are scripts of this test's in place of memcli's, which log
what they were given; the real OpenCode runs the installed plugin in tests/e2e/test_opencode.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from importlib import resources
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node to run the plugin")

CONTEXT = "# Project memory\n\nUse SQLite in WAL mode.\n"

# drives the plugin: STEPS is a list of [hook, args]; prints what the hooks left in `output.parts`
HARNESS = """
import { appendFileSync } from "node:fs"
const [plugin, steps, log] = process.argv.slice(2)
const { MemcliPlugin } = await import(plugin)
const note = (what) => appendFileSync(log, JSON.stringify({ what, at: Date.now() }) + "\\n")
const client = { mcp: { status: () => { note("mcp.status"); return Promise.resolve({}) } } }
if (process.env.CLIENT === "throws") client.mcp.status = () => { throw new Error("no server") }
if (process.env.CLIENT === "none") delete client.mcp
note("load")
const hooks = await MemcliPlugin({ directory: process.env.DIRECTORY, client })
note("loaded")
const out = []
for (const [hook, arg] of JSON.parse(steps)) {
  if (hook === "sleep") { await new Promise((r) => setTimeout(r, arg)); continue }
  if (hook === "chat.message") {
    const output = { message: { id: "msg_23accea0d001VfOdGKCeJeTPzf" },
                     parts: [{ id: "prt_23accea0d002", type: "text", text: "hi" }] }
    note("chat.message " + arg)
    await hooks["chat.message"]({ sessionID: arg }, output)
    note("chat.message done " + arg)
    out.push(output.parts)
  }
  if (hook === "dispose") { note("dispose"); await hooks.dispose() }
}
console.log(JSON.stringify(out))
"""

START = """#!/bin/sh
# stands in for `memcli hooks session-start --agent opencode`: logs its start, pid and payload
echo "{{\\"what\\": \\"start $$\\", \\"payload\\": $(cat), \\"at\\": $(date +%s%3N)}}" >> {log}
sleep {delay}
cat {context}
echo "{{\\"what\\": \\"start done $$\\", \\"at\\": $(date +%s%3N)}}" >> {log}
"""

HANG = '#!/bin/sh\necho "{\\"what\\": \\"start $$\\", \\"at\\": 0}" >> LOG\nexec sleep 60\n'


def plugin(tmp_path: Path, start: str, capture: str = "true") -> Path:
    template = resources.files("memcli.agents.opencode").joinpath("plugin.js").read_text("utf-8")
    path = tmp_path / "memcli.mjs"
    code = template.replace("__MEMCLI_SESSION_START__", start).replace("__MEMCLI_CAPTURE__", capture)
    path.write_text(code, encoding="utf-8")
    return path


def fake_start(tmp_path: Path, delay: float = 0.3, context: str = CONTEXT) -> str:
    script, printed = tmp_path / "session-start", tmp_path / "context.md"
    printed.write_text(context, encoding="utf-8")
    script.write_text(START.format(log=tmp_path / "log", delay=delay, context=printed), encoding="utf-8")
    script.chmod(0o755)
    return str(script)


def drive(tmp_path: Path, code: Path, steps: list[list[object]], client: str = "ok"
          ) -> tuple[list[list[dict[str, object]]], list[dict[str, object]]]:
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS, encoding="utf-8")
    log = tmp_path / "log"
    env = {**os.environ, "DIRECTORY": str(tmp_path), "CLIENT": client}
    done = subprocess.run(["node", str(harness), str(code), json.dumps(steps), str(log)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    entries = [json.loads(line) for line in lines]
    return json.loads(done.stdout), entries


def at(entries: list[dict[str, object]], prefix: str) -> int:
    return next(int(str(e["at"])) for e in entries if str(e["what"]).startswith(prefix))


def test_the_context_is_started_at_load_and_the_first_prompt_awaits_it(tmp_path: Path) -> None:
    # the prompt comes 0.6 s after the load; the command takes 0.3 s: it is done before the prompt
    parts, log = drive(tmp_path, plugin(tmp_path, fake_start(tmp_path)),
                       [["sleep", 600], ["chat.message", "ses_a"], ["chat.message", "ses_a"]])
    starts = [e for e in log if str(e["what"]).startswith("start ") and "done" not in str(e["what"])]
    assert len(starts) == 1  # one run for the session's first prompt, none for the second
    assert starts[0]["payload"] == {"cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    assert at(log, "start done") < at(log, "chat.message ses_a")  # ran before the prompt came
    assert at(log, "chat.message done") - at(log, "chat.message ses_a") < 200  # found it done
    first, second = parts
    assert [p["text"] for p in first] == [CONTEXT, "hi"] and first[0]["synthetic"] is True
    assert str(first[0]["id"]) < "prt_23accea0d002"  # sorts before the prompt's own part
    assert [p["text"] for p in second] == ["hi"]


def test_a_prompt_before_the_early_run_is_done_waits_for_it(tmp_path: Path) -> None:
    parts, log = drive(tmp_path, plugin(tmp_path, fake_start(tmp_path, delay=0.8)),
                       [["chat.message", "ses_a"]])
    assert [p["text"] for p in parts[0]] == [CONTEXT, "hi"]
    assert at(log, "chat.message done") >= at(log, "start done")


def test_a_later_session_runs_the_command_again_with_its_id(tmp_path: Path) -> None:
    parts, log = drive(tmp_path, plugin(tmp_path, fake_start(tmp_path, delay=0)),
                       [["chat.message", "ses_a"], ["chat.message", "ses_b"]])
    payloads = [e["payload"] for e in log if "payload" in e]
    assert payloads == [{"cwd": str(tmp_path), "hook_event_name": "SessionStart"},
                        {"session_id": "ses_b", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}]
    assert [[p["text"] for p in message] for message in parts] == [[CONTEXT, "hi"], [CONTEXT, "hi"]]


def test_the_mcp_servers_are_asked_for_at_load_and_a_failing_client_breaks_nothing(tmp_path: Path) -> None:
    code = plugin(tmp_path, fake_start(tmp_path, delay=0))
    _, log = drive(tmp_path, code, [])
    assert [e["what"] for e in log if not str(e["what"]).startswith("start")] == ["load", "mcp.status",
                                                                                   "loaded"]
    for client in ("throws", "none"):
        (tmp_path / "log").unlink()
        parts, _ = drive(tmp_path, code, [["chat.message", "ses_a"]], client=client)
        assert [p["text"] for p in parts[0]] == [CONTEXT, "hi"]


@pytest.mark.parametrize("start", ["/nonexistent/memcli hooks session-start", "false", "empty"])
def test_a_missing_or_failing_command_means_no_context(tmp_path: Path, start: str) -> None:
    if start == "empty":
        start = fake_start(tmp_path, delay=0, context="  \n")
    parts, _ = drive(tmp_path, plugin(tmp_path, start), [["chat.message", "ses_a"]])
    assert [p["text"] for p in parts[0]] == ["hi"]


def test_closing_before_the_early_run_is_done_leaves_no_process(tmp_path: Path) -> None:
    script = tmp_path / "hangs"  # logs its pid, then is a process that would run for a minute
    script.write_text(HANG.replace("LOG", str(tmp_path / "log")), encoding="utf-8")
    script.chmod(0o755)
    began = time.monotonic()
    _, log = drive(tmp_path, plugin(tmp_path, str(script)), [["sleep", 300], ["dispose"]])
    assert time.monotonic() - began < 20  # OpenCode's close did not wait for it
    pid = int(str(next(e["what"] for e in log if str(e["what"]).startswith("start "))).split()[1])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
