"""Both `memcli mcp` servers on the same messages: the SDK server (memcli.mcpserver.server, where the
tools are declared) and the lean stdio front the command runs (memcli.mcpserver.stdio).

`python tests/support/mcp_declared.py` writes memcli/mcpserver/declared.json from the SDK server's
answers, after a change to a tool's declaration (tests/mcp/test_lean_front.py says when).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SDK = "from pathlib import Path; from memcli.mcpserver.server import build_server; " \
      "from memcli.workspace import Workspace; build_server(Workspace.open(Path.cwd())).run('stdio')"
HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
]


def answers(root: Path, messages: list[dict[str, Any]], *, sdk: bool,
            env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The responses of one server run in `root` to `messages`, in the order they came, as parsed
    JSON, each with its raw line under "_raw"."""
    command = ["-c", SDK] if sdk else ["-m", "memcli", "mcp"]
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    server = subprocess.Popen([sys.executable, *command], cwd=root, env=full, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    server.stdin.flush()
    out = []
    for _ in range(sum(1 for m in messages if "id" in m)):
        line = server.stdout.readline()
        out.append({**json.loads(line), "_raw": line})
    server.stdin.close()
    assert server.wait(timeout=120) == 0
    return out


def declared_by_sdk(root: Path) -> dict[str, Any]:
    init, listed = answers(root, HANDSHAKE, sdk=True)
    return {"capabilities": init["result"]["capabilities"], "tools": listed["result"]["tools"]}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "memory").mkdir()  # a workspace with the default configuration
        data = declared_by_sdk(Path(tmp))
    target = REPO / "memcli" / "mcpserver" / "declared.json"
    target.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
