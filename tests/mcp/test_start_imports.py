"""`memcli mcp` answers the agent's handshake before it loads anything its tools need: agents give a
server about a second (docs/mcp.md), and importing the MCP SDK alone takes about that: the stdio
front answers without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.mcp_declared import HANDSHAKE

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace"
# What the CLI, the tools and the model path load; none of it is needed to say which tools exist.
HEAVY = ("mcp", "mcp_types", "typer", "memcli.cli", "memcli.search", "memcli.context", "memcli.sessions",
         "memcli.lint",
         "memcli.extract", "memcli.anchors", "memcli.tokens", "memcli.records", "litellm", "git", "yaml",
         "rapidfuzz", "snowballstemmer")


def test_the_handshake_loads_none_of_the_tools_modules(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "MEMCLI_STATE_DIR": str(tmp_path / "state")}
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as err:
        server = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "memcli", "mcp"],
                                  cwd=EXAMPLE, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=err, text=True)
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("".join(json.dumps(m) + "\n" for m in HANDSHAKE))
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(2)]  # stdin stays open meanwhile
        server.stdin.close()
        assert server.wait(timeout=120) == 0
    assert [a["id"] for a in answers] == [1, 2] and len(answers[1]["result"]["tools"]) == 5
    imported = {line.split("|")[-1].strip() for line in errors.read_text().splitlines()
                if line.startswith("import time:")}
    assert "memcli.mcpserver.stdio" in imported  # the probe sees imports at all
    loaded = sorted(m for m in imported if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert loaded == []
