"""1,000 rapid `memcli_remember` calls (issue #37, item 6): through four `memcli mcp` servers at once,
then through `memcli extract` (three processes at once on the same workspace). Nothing is lost —
every call is answered, and every accepted one is staged exactly once or the run says it is
waiting —, no staging file is corrupt JSON, and staging holds at most `extract.max_staging` files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from extract.helpers import make_ws
from support.claude_transcript import tool_result, tool_use, write_session

from memcli.extract.run import run as extract
from memcli.mcpserver import tools
from memcli.staging import StagingFile, staging_files
from memcli.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
CALLS, SERVERS = 1_000, 4
KINDS = ("decision", "request", "rule")


def text_of(n: int) -> str:
    """A distinct remembered text; every third is Japanese, so CJK goes the whole way too."""
    if n % 3 == 0:
        return f"記録 {n}: 検索インデックスは SQLite に置く。"
    return f"Keep note {n}: the index stays in SQLite."


def args_of(n: int) -> dict[str, str]:
    return {"kind": KINDS[n % 3], "text": text_of(n), "why": f"reason {n}"}


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _serve(root: Path, numbers: range, env: dict[str, str]) -> list[dict[str, Any]]:
    """One `memcli mcp` process sent the handshake and one `memcli_remember` call per number, all
    at once (an agent does not wait to send its next call); its answers, by request id."""
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": "init", "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    messages += [{"jsonrpc": "2.0", "id": n, "method": "tools/call",
                  "params": {"name": "memcli_remember", "arguments": args_of(n)}} for n in numbers]
    messages += [{"jsonrpc": "2.0", "id": f"bad-{i}", "method": "tools/call",
                  "params": {"name": "memcli_remember", "arguments": bad}}
                 for i, bad in enumerate([{"kind": "decision", "text": "   "}, {"kind": "wish", "text": "x"},
                                          {"kind": "rule"}])]
    sent = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n" for m in messages)
    server = subprocess.run([sys.executable, "-m", "memcli", "mcp"], cwd=root, env=env, timeout=240,
                            input=sent, capture_output=True)
    assert server.returncode == 0, server.stderr.decode()[-2000:]
    return [json.loads(line) for line in server.stdout.splitlines()]


def test_1000_calls_to_four_servers_at_once_are_each_answered_and_write_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_ws(root)
    before = snapshot(root)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    per = CALLS // SERVERS
    with ThreadPoolExecutor(SERVERS) as pool:
        answered = list(pool.map(lambda s: _serve(root, range(s * per, (s + 1) * per), env), range(SERVERS)))
    noted: dict[int, dict[str, Any]] = {}
    for answers in answered:
        by_id = {a["id"]: a for a in answers}
        assert len(by_id) == len(answers) == per + 4  # each request answered once, nothing else
        for i in range(3):  # refused calls are said to be refused, as tool errors
            assert by_id[f"bad-{i}"]["result"]["isError"] is True
        for key, answer in by_id.items():
            if isinstance(key, int):
                assert answer["result"]["isError"] is False, answer
                noted[key] = answer["result"]["structuredContent"]
    assert sorted(noted) == list(range(CALLS))
    assert all(noted[n]["text"] == text_of(n) and noted[n]["noted"] == KINDS[n % 3] for n in noted)
    assert snapshot(root) == before  # the server writes nothing: the transcript keeps the call


def _sessions(ws: Workspace, home: Path, count: int, sessions: int) -> None:
    """`sessions` agents' transcripts holding `count` remember calls in all, each answered as the
    server answers it."""
    for s in range(sessions):
        rows: list[tuple[str, dict[str, Any]]] = []
        for n in range(s, count, sessions):
            call = f"toolu_{n:05d}"
            rows.append(("assistant", tool_use("mcp__memcli__memcli_remember", args_of(n), call, f"msg_{n}")))
            rows.append(("user", tool_result(call, tools.remember(**args_of(n)).text)))
        write_session(home, ws.root, rows, session=f"0000000{s}-7d1b-4c3e-9a26-0b8f1e4d2c71")


def staged_texts(ws: Workspace) -> list[str]:
    """Every staged item's text, from files that must each parse as a staging file."""
    out = []
    for path in staging_files(ws):
        staging = StagingFile.model_validate_json(path.read_bytes())
        for item in [*staging.items.decisions, *staging.items.requests]:
            text = getattr(item, "decision", None) or item.request
            out.append(text.split("\n\nWhy: ")[0])
    return out


@pytest.fixture
def flooded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """A workspace with no model (a light install: the calls need none) and 1,000 calls waiting."""
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "ws" / "memcli.toml").write_text("[extract]\nidle_minutes = 0\n", encoding="utf-8")
    ws = Workspace.open(tmp_path / "ws")
    home = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    _sessions(ws, home, CALLS, sessions=4)
    return ws


def test_1000_calls_staged_by_three_extracts_at_once_are_all_there_once(flooded: Workspace) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [subprocess.Popen([sys.executable, "-m", "memcli", "extract", "-w", str(flooded.root)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    for proc in runs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()[-2000:]
    texts = staged_texts(flooded)
    assert sorted(texts) == sorted(text_of(n) for n in range(CALLS))  # each once: none lost, none twice
    assert extract(flooded) == 0 and sorted(staged_texts(flooded)) == sorted(texts)  # nothing staged again


def test_staging_is_bounded_and_what_waits_is_staged_after_consolidation(
        flooded: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    bound = 300
    config = flooded.root / "memcli.toml"
    config.write_text(config.read_text(encoding="utf-8") + f"max_staging = {bound}\n", encoding="utf-8")
    ws = Workspace.open(flooded.root)
    seen: list[str] = []
    for _ in range(CALLS // bound + 1):
        assert extract(ws) == 0
        err = capsys.readouterr().err
        files = staging_files(ws)
        assert len(files) <= bound
        texts = staged_texts(ws)
        if len(seen) + len(texts) < CALLS:
            assert f"memory/_staging holds {bound} files (extract.max_staging)" in err, err
            assert "memcli consolidate" in err
        seen += texts
        for path in files:  # what a consolidation does with the files it folded
            path.unlink()
    assert sorted(seen) == sorted(text_of(n) for n in range(CALLS))
    assert extract(ws) == 0 and staging_files(ws) == []
