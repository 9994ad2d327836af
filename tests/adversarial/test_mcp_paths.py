"""MCP path tricks (#37 item 6): every tool argument that names a record, a session or a document —
`..`, absolute paths, URL-encoded and double-encoded dots and slashes, backslashes, NUL bytes,
look-alike dots, links inside the workspace that lead out of it (to a file, a folder, `/`, the
workspace's own config or staging) — is a one-line tool error or reads the workspace's own record,
through the stdio server's dispatch and through a real `memcli mcp` process. Nothing outside the
workspace is read or written, and the workspace is left as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from adversarial.kit import mcp_call, mcp_front, workspace_files

SECRET = "OUTSIDE-SECRET-d41e"

TRICKS = [
    "../../outside/leak.md",
    "knowledge/../../outside/leak.md",
    "memory/decisions/../../../outside/leak.md",
    "{outside}/leak.md",  # absolute
    "file://{outside}/leak.md",
    "~/leak.md",
    "%2e%2e%2f%2e%2e%2foutside%2fleak.md",
    "knowledge/%2e%2e%2f%2e%2e%2foutside%2fleak.md",
    "knowledge/..%2f..%2foutside%2fleak.md",
    "knowledge/%252e%252e%252f%252e%252e%252foutside%252fleak.md",  # double-encoded
    "..%5c..%5coutside%5cleak.md",
    "knowledge\\..\\..\\outside\\leak.md",
    "knowledge/\u2025/\u2025/outside/leak.md",  # two-dot leaders
    "knowledge/\uff0e\uff0e/\uff0e\uff0e/outside/leak.md",  # fullwidth dots
    "knowledge/leak.md\x00.md",
    "knowledge/link-out.md",  # a link to the outside file
    "knowledge/folder-out/leak.md",  # through a linked folder
    "knowledge/root/etc/passwd",  # a link to /
    "knowledge/config.md",  # a link to the workspace's memcli.toml
    "knowledge/staged.md",  # a link into memory/_staging
    "memory/_staging/item.json",
    "memcli.toml",
    "knowledge/" + "a/" * 300 + "x.md",
]


@pytest.fixture
def world(example_ws: Path, tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    record = (example_ws / "knowledge/wal-mode.md").read_text(encoding="utf-8")
    (outside / "leak.md").write_text(record + f"\n{SECRET}\n", encoding="utf-8")
    k = example_ws / "knowledge"
    os.symlink(outside / "leak.md", k / "link-out.md")
    os.symlink(outside, k / "folder-out")
    os.symlink("/", k / "root")
    (example_ws / "memcli.toml").write_text((example_ws / "memcli.toml").read_text() + f"# {SECRET}\n")
    os.symlink(example_ws / "memcli.toml", k / "config.md")
    staging = example_ws / "memory/_staging"
    staging.mkdir()
    (staging / "item.json").write_text(json.dumps({"text": SECRET}), encoding="utf-8")
    os.symlink(staging / "item.json", k / "staged.md")
    return example_ws, outside


def _tricks(outside: Path) -> list[str]:
    return [t.replace("{outside}", str(outside)) for t in TRICKS]


def _one_line_refusal(is_error: bool, text: str) -> None:
    assert is_error, text
    assert "\n" not in text and SECRET not in text and "Traceback" not in text, text


def test_every_record_trick_is_a_one_line_error(world: tuple[Path, Path]) -> None:
    root, outside = world
    before, outside_before = workspace_files(root), workspace_files(outside)
    front = mcp_front(root)
    for trick in _tricks(outside):
        _one_line_refusal(*mcp_call(front, "memcli_read", record=trick)[:2])
        _one_line_refusal(*mcp_call(front, "memcli_read", record=trick, why=True)[:2])
    front.searcher.close()
    assert workspace_files(root) == before and workspace_files(outside) == outside_before


def test_a_link_inside_the_record_folders_reads_the_real_record(world: tuple[Path, Path]) -> None:
    root, _ = world
    os.symlink("sqlite-backup.md", root / "knowledge/alias.md")
    front = mcp_front(root)
    is_error, text, data = mcp_call(front, "memcli_read", record="knowledge/alias.md")
    assert not is_error and data["path"] == "knowledge/sqlite-backup.md" and "backup API" in text


@pytest.mark.parametrize("kind", ["", "markdown/", "agents-md/", "claude-md/"])
def test_every_session_and_document_trick_is_a_one_line_error(kind: str, world: tuple[Path, Path]) -> None:
    root, outside = world
    front = mcp_front(root)
    for trick in _tricks(outside):
        _one_line_refusal(*mcp_call(front, "memcli_source", session=kind + trick, start=0, end=5)[:2])
    front.searcher.close()


def test_tricks_in_the_other_tools_arguments_read_and_write_nothing(world: tuple[Path, Path]) -> None:
    root, outside = world
    before, outside_before = workspace_files(root), workspace_files(outside)
    front = mcp_front(root)
    for trick in _tricks(outside):
        is_error, text, _ = mcp_call(front, "memcli_search", query=trick)
        assert SECRET not in text and "\n" not in text or not is_error, text
        _one_line_refusal(*mcp_call(front, "memcli_search", query="wal", types=[trick])[:2])
        _one_line_refusal(*mcp_call(front, "memcli_remember", kind=trick, text="keep this")[:2])
        is_error, text, data = mcp_call(front, "memcli_remember", kind="decision", text=f"see {trick}"[:1000],
                                        why=trick[:1000])
        assert not is_error and data["noted"] == "decision"  # acknowledged only: nothing is written
    front.searcher.close()
    assert workspace_files(root) == before and workspace_files(outside) == outside_before


def test_a_real_mcp_process_refuses_every_trick_on_one_line(world: tuple[Path, Path]) -> None:
    root, outside = world
    before = workspace_files(root)
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}]
    calls = [("memcli_read", {"record": t}) for t in _tricks(outside)]
    calls += [("memcli_source", {"session": "markdown/" + t, "start": 0, "end": 1}) for t in _tricks(outside)]
    lines += [{"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": args}}
              for n, (name, args) in enumerate(calls, 1)]
    proc = subprocess.run([sys.executable, "-m", "memcli", "mcp", "-w", str(root)],
                          input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True,
                          text=True, timeout=300, env=dict(os.environ))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    answers = {m["id"]: m for m in map(json.loads, proc.stdout.splitlines())}
    assert len(answers) == len(lines)
    for n in range(1, len(lines)):
        result = answers[n]["result"]
        _one_line_refusal(result["isError"], result["content"][0]["text"])
    assert SECRET not in proc.stdout
    assert workspace_files(root) == before
