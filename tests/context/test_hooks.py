"""The shipped agent snippets really run `memcli context` and deliver its output."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memcli.fence import MEMORY_LABEL

FENCED = MEMORY_LABEL + "\n~~~~memory\n"  # memory as data (memcli.fence.memory_fence)

REPO = Path(__file__).resolve().parents[2]
needs_cli = pytest.mark.skipif(shutil.which("memcli") is None, reason="memcli is not on PATH")


def _env(tmp_path: Path) -> dict[str, str]:
    # the console script must be the same memcli as this checkout's (installed editable)
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


@needs_cli
def test_claude_code_sessionstart_hook_prints_the_context(example_ws: Path, tmp_path: Path) -> None:
    settings = json.loads((REPO / "hooks" / "claude-code-sessionstart.json").read_text())
    (entry,) = settings["hooks"]["SessionStart"]
    assert set(entry["matcher"].split("|")) == {"startup", "resume", "clear", "compact"}
    (hook,) = entry["hooks"]
    assert hook["type"] == "command"
    env = {**_env(tmp_path), "CLAUDE_PROJECT_DIR": str(example_ws)}
    done = subprocess.run(["sh", "-c", hook["command"]], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.startswith(FENCED + "# tasklist — project memory")
    assert "- test-commands — テストの実行方法" in done.stdout
    # outside a workspace it prints nothing and does not fail the session start
    env["CLAUDE_PROJECT_DIR"] = str(tmp_path / "missing")
    done = subprocess.run(["sh", "-c", hook["command"]], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == ""


@needs_cli
def test_agents_md_refresh_recipe_replaces_only_the_block(example_ws: Path, tmp_path: Path) -> None:
    recipe = (REPO / "hooks" / "agents-md-block.md").read_text(encoding="utf-8")
    (script,) = re.findall(r"```sh\n(.*?)```", recipe, flags=re.S)
    agents = example_ws / "AGENTS.md"
    agents.write_text("# Agents\n\nBefore.\n<!-- memcli:context:start -->\nold\n<!-- memcli:context:end -->\n"
                      "After.\n", encoding="utf-8")
    for _ in range(2):  # idempotent
        subprocess.run(["sh", "-c", script], cwd=example_ws, env=_env(tmp_path), check=True)
    text = agents.read_text(encoding="utf-8")
    assert text.startswith("# Agents\n\nBefore.\n<!-- memcli:context:start -->\n" + FENCED + "# tasklist")
    assert text.endswith("nothing cut.)_\n<!-- memcli:context:end -->\nAfter.\n")
    assert "old" not in text and text.count("memcli:context:start") == 1


ROUTES = {"lean": "from memcli.entry import main; main()",  # what the installed `memcli` runs
          "typer": "from memcli.cli import main; main()"}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "copilot"])
@pytest.mark.parametrize("how", ["payload", "option", "outside"])
def test_session_start_prints_the_same_bytes_without_typer(agent: str, how: str, example_ws: Path,
                                                           tmp_path: Path) -> None:
    """`memcli hooks session-start` skips the CLI (a lean route, memcli/lean.py); what the agent reads is the
    CLI's output, byte for byte."""
    cwd = tmp_path / "elsewhere" if how == "outside" else example_ws
    cwd.mkdir(exist_ok=True)
    args = ["hooks", "session-start", "--agent", agent] + (["-w", str(example_ws)] if how == "option" else [])
    stdin = json.dumps({"cwd": str(cwd), "hook_event_name": "SessionStart", "source": "startup"}).encode()
    out = {}
    for route, code in ROUTES.items():
        done = subprocess.run([sys.executable, "-c", code, *args], input=stdin, cwd=tmp_path,
                              capture_output=True, timeout=60)
        assert (done.returncode, done.stderr) == (0, b""), done.stderr
        out[route] = done.stdout
    assert out["lean"] == out["typer"]
    assert (out["lean"] == b"") is (how == "outside")


def test_session_start_loads_neither_the_cli_nor_the_rules(example_ws: Path) -> None:
    code = ("import atexit, sys\n"
            "heavy = ('typer', 'memcli.cli', 'memcli.lint.engine', 'memcli.lint.registry', 'litellm',"
            " 'git')\n"
            "atexit.register(lambda: print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr))\n"
            + ROUTES["lean"] + "\n")
    stdin = json.dumps({"cwd": str(example_ws)}).encode()
    done = subprocess.run([sys.executable, "-c", code, "hooks", "session-start", "--agent", "claude-code"],
                          input=stdin, capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith(FENCED.encode() + b"# tasklist")
    assert done.stderr == b"[]\n"
