"""`memcli mcp` keeps one search index for its life: spoken to in raw JSON-RPC over the server's
stdio (as an agent does), so the test can look at the server process itself (/proc) and send
calls that overlap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memcli.mcpserver import tools
from memcli.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]
NEW_RECORD = """---
description: Rotate the deploy keys every quarter.
kind: rule
---
Rotate the zephyrine deploy keys every quarter; the old key is revoked the same day.
"""


class Server:
    """`memcli mcp` started in `root`, its handshake done; `call()` sends tools/call requests."""

    def __init__(self, root: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen([sys.executable, "-m", "memcli", "mcp"], cwd=root, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.next_id = 1
        self._send(HANDSHAKE)
        assert self._read(1)[0]["result"]["serverInfo"]["name"] == "memcli"

    def _send(self, messages: list[dict[str, Any]]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        self.proc.stdin.flush()

    def _read(self, n: int) -> list[dict[str, Any]]:
        assert self.proc.stdout is not None
        return [json.loads(self.proc.stdout.readline()) for _ in range(n)]

    def search(self, *queries: str) -> list[dict[str, Any]]:
        """The structured results of memcli_search for `queries`, sent at once (so the server may
        run them side by side), in the order asked."""
        ids = list(range(self.next_id, self.next_id + len(queries)))
        self.next_id += len(queries)
        self._send([{"jsonrpc": "2.0", "id": i, "method": "tools/call",
                     "params": {"name": "memcli_search", "arguments": {"query": q, "limit": 5}}}
                    for i, q in zip(ids, queries, strict=True)])
        by_id = {m["id"]: m for m in self._read(len(queries))}
        results = [by_id[i]["result"] for i in ids]
        assert not any(r.get("isError") for r in results), results
        return [r["structuredContent"] for r in results]

    def fds(self) -> list[str]:
        """What the server's open file descriptors point to."""
        folder = Path(f"/proc/{self.proc.pid}/fd")
        out = []
        for fd in folder.iterdir():
            try:
                out.append(os.readlink(fd))
            except OSError:
                continue  # closed meanwhile
        return out

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0


@pytest.fixture
def server(ws: Path):  # -> Server
    running = Server(ws)
    yield running
    running.close()


def fresh(root: Path, query: str) -> dict[str, Any]:
    """What a search in an index opened for it alone answers (what every call did before)."""
    return tools.search(Workspace.open(root), query, limit=5).data


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the server's fds in /proc")
def test_the_server_keeps_one_index_open_and_watches_the_record_folders(ws: Path, server: Server) -> None:
    assert server.search("sqlite backup", "wal")[0]["hits"]
    opened = server.fds()
    # the index stays open between calls, and from the second refresh on it watches the folders
    assert sum(Path(fd).name.startswith("index-") and fd.endswith(".sqlite") for fd in opened) == 1, opened
    assert any("inotify" in fd for fd in opened), opened
    server.search("test commands")
    assert server.fds().count(next(fd for fd in opened if "inotify" in fd)) == 1  # not one more per call


def test_a_record_written_while_the_server_runs_is_found_by_the_next_search(ws: Path, server: Server) -> None:
    query = "zephyrine"
    assert server.search(query, query, query)[0]["hits"] == []  # the watch is set up by now
    (ws / "knowledge" / "rotate-keys.md").write_text(NEW_RECORD, encoding="utf-8")
    (found,) = server.search(query)
    assert [h["path"] for h in found["hits"]][:1] == ["knowledge/rotate-keys.md"]
    assert found == fresh(ws, query)
    edited = NEW_RECORD.replace("zephyrine", "plain")
    (ws / "knowledge" / "rotate-keys.md").write_text(edited, encoding="utf-8")
    (ws / "knowledge" / "wal-mode.md").unlink()
    after = server.search(query, "wal mode")
    assert "knowledge/rotate-keys.md" not in [h["path"] for h in after[0]["hits"]]
    assert "knowledge/wal-mode.md" not in [h["path"] for h in after[1]["hits"]]
    assert after == [fresh(ws, query), fresh(ws, "wal mode")]


def test_overlapping_calls_answer_as_fresh_indexes_do(ws: Path, server: Server) -> None:
    queries = ["sqlite backup", "wal", "test commands", "デプロイ", "backup schedule", "journal mode",
               "sqlite", "pytest", "daily", "decision"] * 3
    answers = server.search(*queries)  # sent at once: the SDK runs them on its worker threads
    assert answers == [fresh(ws, q) for q in queries]
    assert any(a["hits"] for a in answers)
