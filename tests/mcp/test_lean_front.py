"""The stdio front `memcli mcp` runs answers as the SDK server that declares the tools does: the same
messages to both, the same answers, field for field (tests/support/mcp_declared.py)."""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from support.mcp_declared import answers, declared_by_sdk

from memcli.mcpserver import catalog
from memcli.mcpserver.stdio import Front, run
from memcli.workspace import Workspace


def _init(version: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}


def _call(id_: int, name: str, arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


SAME = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"},
    {"jsonrpc": "2.0", "id": 5, "method": "resources/list"},
    {"jsonrpc": "2.0", "id": 6, "method": "resources/templates/list"},
    _call(7, "memcli_search", {"query": "sqlite backup", "limit": 3}),
    _call(8, "memcli_search", {"query": "sqlite", "types": ["decision"]}),
    _call(9, "memcli_search", {"query": "!!! ???"}),  # a memcli error: its own message
    _call(10, "memcli_read", {"record": "wal-mode"}),
    _call(11, "memcli_read", {"record": "sqlite-bakup"}),
    _call(12, "memcli_context", {}),
    _call(13, "memcli_context", {"budget": 200}),
    _call(14, "memcli_remember", {"kind": "rule", "text": "Run backups daily.", "why": "asked"}),
    _call(15, "memcli_search", {"query": "sqlite", "unknown": 1}),  # dropped, as the SDK drops it
    _call(16, "no_such_tool", {}),
    {"jsonrpc": "2.0", "id": 17, "method": "no/such/method"},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
    {"jsonrpc": "2.0", "id": 18, "method": "ping"},
]


def _by_id(found: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {a["id"]: {k: v for k, v in a.items() if k != "_raw"} for a in found}


def test_declared_json_is_what_the_sdk_server_declares(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    assert declared_by_sdk(tmp_path) == catalog.declared(), \
        "a tool's declaration changed: run `python tests/support/mcp_declared.py`"
    assert catalog.PROTOCOL_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, "2026-07-28", "1999-01-01", 7, None])
def test_both_servers_negotiate_alike(ws: Path, version: Any) -> None:
    lean, sdk = (answers(ws, [_init(version)], sdk=sdk)[0] for sdk in (False, True))
    assert _by_id([lean]) == _by_id([sdk]), (lean["_raw"], sdk["_raw"])
    assert lean["_raw"] == sdk["_raw"]  # byte for byte


def test_both_servers_answer_alike(ws: Path) -> None:
    (ws / "memcli.toml").write_text("[context]\nbudget_tokens = 1234\n", encoding="utf-8")
    messages = [_init("2025-06-18"), *SAME]
    lean, sdk = (_by_id(answers(ws, messages, sdk=sdk)) for sdk in (False, True))
    assert list(lean) == sorted(sdk)  # one answer per request; the lean front's in the order they came
    for key in sdk:
        assert lean[key] == sdk[key], key
    context = next(t for t in lean[3]["result"]["tools"] if t["name"] == "memcli_context")
    assert context["inputSchema"]["properties"]["budget"]["default"] == 1234  # the workspace's
    assert lean[9]["result"]["isError"] and "no letters or digits" in lean[9]["result"]["content"][0]["text"]


@pytest.mark.parametrize(("name", "arguments", "says"), [
    ("memcli_search", {"query": "x", "limit": 0}, "limit"),
    ("memcli_search", {"query": "x", "limit": 51}, "limit"),
    ("memcli_search", {"query": "sqlite", "types": ["bogus"]}, "types"),
    ("memcli_search", {"query": "sqlite", "types": "decision"}, "types"),
    ("memcli_search", {}, "query"),
    ("memcli_search", {"query": ""}, "query"),
    ("memcli_search", {"query": "x" * 501}, "query"),
    ("memcli_read", {"record": 5}, "record"),
    ("memcli_context", {"budget": 5}, "budget"),
    ("memcli_source", {"session": "abc", "start": -1, "end": 1}, "start"),
    ("memcli_remember", {"kind": "wish", "text": "x"}, "kind"),
    ("memcli_remember", {"kind": "rule", "text": "x", "why": "y" * 1001}, "why"),
])
def test_bad_arguments_are_tool_errors_naming_the_argument_in_both(
    ws: Path, name: str, arguments: Any, says: str
) -> None:
    for sdk in (False, True):
        found = _by_id(answers(ws, [_init("2025-06-18"), _call(2, name, arguments),
                                    _call(3, "memcli_read", {"record": "wal-mode"})], sdk=sdk))
        result, good = found[2]["result"], found[3]
        assert result["isError"] and "structuredContent" not in result, (sdk, result)
        assert says in result["content"][0]["text"] and name in result["content"][0]["text"], (sdk, result)
        assert not good["result"]["isError"]


def test_lines_that_are_not_json_rpc_get_errors_and_the_front_keeps_serving(ws: Path) -> None:
    out = BytesIO()
    stdin = BytesIO(b'{not json\n\n[1, 2]\n{"jsonrpc": "2.0", "id": 5, "method": "ping"}\n')
    run(Front(Workspace.open(ws)), stdin, out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line.get("error", {}).get("code") for line in lines] == [-32700, -32600, None]
    assert lines[2] == {"jsonrpc": "2.0", "id": 5, "result": {}}
