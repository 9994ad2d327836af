"""`memcli mcp` through a real MCP client: the SDK's stdio client starts the server as an agent
would, lists the tools and calls each one, with good and bad arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from support.claude_transcript import (
    SESSION,
    assistant_text,
    tool_result,
    tool_use,
    user,
    write_session,
)

from memcli.agents.targets import MCP_TOOLS
from memcli.context import build_context
from memcli.fence import MEMORY_LABEL
from memcli.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"memcli_search", "memcli_read", "memcli_context", "memcli_source", "memcli_remember"}
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _env(claude_home: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if claude_home is not None:
        env["CLAUDE_CONFIG_DIR"] = str(claude_home)
    return env


def session_calls(root: Path, calls: list[tuple[str, dict[str, Any]]], claude_home: Path | None = None,
                  args: list[str] | None = None) -> tuple[Any, list[Any], list[Any]]:
    """Start `memcli mcp` in `root`, list its tools, make `calls` in order: (init, tools, results)."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "memcli", "mcp", *(args or [])],
                                   cwd=str(root), env=_env(claude_home))

    async def go() -> tuple[Any, list[Any], list[Any]]:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    init = await client.initialize()
                    listed = (await client.list_tools()).tools
                    results = [await client.call_tool(name, arguments) for name, arguments in calls]
                    return init, listed, results

    return anyio.run(go)


def text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def structured(result: Any, tool: Any) -> dict[str, Any]:
    """The result's structured content: an object, valid against the tool's outputSchema, beside a
    text rendering (clients differ in which one they give the model)."""
    assert not result.is_error and text(result).strip(), text(result)
    data = result.structured_content
    assert isinstance(data, dict), data
    jsonschema.validate(data, tool.output_schema)
    return data


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".memcli" not in p.parts}


@pytest.fixture
def claude_home(tmp_path: Path, ws: Path) -> Path:
    home = tmp_path / "claude"
    write_session(home, ws, [
        ("user", user(f"Deploy with token {SECRET} please, and keep backups daily.")),
        ("assistant", tool_use("Bash", {"command": "make deploy"}, "toolu_1", "msg_1")),
        ("user", tool_result("toolu_1", "deployed\n" + "log line\n" * 3000)),
        ("assistant", assistant_text("Deployed. Backups now run daily.", "msg_2")),
    ])
    return home


def test_lists_five_tools_with_schemas_and_annotations(ws: Path) -> None:
    init, listed, _ = session_calls(ws, [])
    assert init.server_info.name == "memcli"
    assert {t.name for t in listed} == TOOLS == set(MCP_TOOLS)  # the tools `hooks install` allows
    for tool in listed:
        assert tool.description and "\n" not in tool.description.strip()
        assert tool.input_schema["type"] == "object"
        assert "anyOf" not in json.dumps(tool.input_schema)  # some clients reject null unions
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (tool.name != "memcli_remember")
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    schemas = {t.name: t.input_schema for t in listed}
    assert schemas["memcli_search"]["required"] == ["query"]
    assert schemas["memcli_source"]["required"] == ["session", "start", "end"]
    assert schemas["memcli_remember"]["properties"]["kind"]["enum"] == ["decision", "request", "rule"]
    assert schemas["memcli_context"]["properties"]["budget"]["default"] == 5000  # the workspace's


def unfenced(shown: str) -> str:
    """The text inside memcli.fence.memory_fence: the label, then a fence only the end closes."""
    label, opening, rest = shown.split("\n", 2)
    assert label == MEMORY_LABEL and opening.endswith("memory"), shown[:200]
    mark = opening.removesuffix("memory")
    assert set(mark) == {"~"} and rest.endswith(f"{mark}\n"), rest[-80:]
    return rest[: -len(mark) - 1]


def test_each_tool_answers_like_the_cli(ws: Path, claude_home: Path) -> None:
    before = tree(ws)
    _, listed, results = session_calls(ws, [
        ("memcli_search", {"query": "sqlite backup", "limit": 3}),
        ("memcli_search", {"query": "sqlite", "types": ["decision"]}),
        ("memcli_read", {"record": "sqlite-backup"}),
        ("memcli_read", {"record": "memory/decisions/use-sqlite-wal.md"}),
        ("memcli_read", {"record": "summary"}),
        ("memcli_context", {}),
        ("memcli_context", {"budget": 200}),
        ("memcli_source", {"session": SESSION[:8], "start": 0, "end": 3}),
        ("memcli_remember", {"kind": "rule", "text": "Run backups daily.", "why": "the user asked"}),
    ], claude_home)
    assert not any(r.is_error for r in results), [text(r) for r in results if r.is_error]
    by_name = {t.name: t for t in listed}
    data = [structured(r, by_name[name]) for r, name in zip(results, [
        "memcli_search", "memcli_search", "memcli_read", "memcli_read", "memcli_read", "memcli_context",
        "memcli_context", "memcli_source", "memcli_remember"], strict=True)]
    search, decisions, by_slug, by_path, summary, context, small, source, remember = map(text, results)
    by_slug, by_path, summary = (unfenced(t) for t in (by_slug, by_path, summary))
    head, source = source.split("\n", 1)
    assert head.startswith("session ") and (source := unfenced(source))
    cli = subprocess.run([sys.executable, "-m", "memcli", "search", "sqlite backup", "-n", "3", "--json"],
                         cwd=ws, env=_env(), capture_output=True, text=True, check=True)
    # the same ranking and fields as `memcli search --json`, as an object, in both renderings
    assert data[0] == json.loads(search) == {"query": "sqlite backup", "hits": json.loads(cli.stdout)}
    assert data[2]["path"] == "knowledge/sqlite-backup.md" and data[2]["text"] == by_slug
    assert data[5]["text"] == context and data[6]["budget_tokens"] == 200
    assert [e["index"] for e in data[7]["entries"]] == [0, 1, 2, 3] and data[7]["session"] == SESSION
    assert data[8] == json.loads(remember)
    assert '"path": "memory/decisions/use-sqlite-wal.md"' in decisions and '"knowledge"' not in decisions
    assert by_slug == (ws / "knowledge" / "sqlite-backup.md").read_text(encoding="utf-8")
    assert by_path == (ws / "memory" / "decisions" / "use-sqlite-wal.md").read_text(encoding="utf-8")
    assert summary == (ws / "memory" / "summary.md").read_text(encoding="utf-8")
    workspace = Workspace.open(ws)
    assert context == build_context(workspace).text
    assert small == build_context(workspace, 200).text != context
    assert "[REDACTED:github-token]" in source and SECRET not in source
    assert "Deployed. Backups now run daily." in source and "not shown" in source  # tool output cut
    assert '"noted": "rule"' in remember and "Run backups daily." in remember
    assert tree(ws) == before  # no tool wrote anything to the workspace


@pytest.mark.parametrize(("name", "arguments", "says"), [
    ("memcli_search", {"query": "x", "limit": 0}, "limit"),
    ("memcli_search", {"query": "sqlite", "types": ["bogus"]}, "types"),
    ("memcli_search", {}, "query"),
    ("memcli_search", {"query": "!!! ???"}, "no letters or digits"),
    ("memcli_read", {"record": "../../etc/passwd"}, "'..'"),
    ("memcli_read", {"record": "/etc/passwd"}, "absolute"),
    ("memcli_read", {"record": "src/app.py"}, "outside memory/ and knowledge/"),
    ("memcli_read", {"record": "memory/_staging/x.json"}, "_staging"),
    ("memcli_read", {"record": "sqlite-bakup"}, "did you mean sqlite-backup"),
    ("memcli_read", {"record": "memory/decisions/nope.md"}, "does not exist"),
    ("memcli_context", {"budget": 5}, "budget"),
    ("memcli_source", {"session": "no-such-session", "start": 0, "end": 1}, "no session"),
    ("memcli_source", {"session": SESSION, "start": 2, "end": 999}, "out of range"),
    ("memcli_source", {"session": SESSION, "start": 3, "end": 1}, "start <= end"),
    ("memcli_remember", {"kind": "wish", "text": "x"}, "kind"),
    ("memcli_remember", {"kind": "decision", "text": "   "}, "empty"),
])
def test_bad_calls_are_tool_errors_and_the_server_keeps_serving(
    ws: Path, claude_home: Path, name: str, arguments: dict[str, Any], says: str
) -> None:
    _, _, (bad, good) = session_calls(ws, [(name, arguments), ("memcli_read", {"record": "wal-mode"})],
                                      claude_home)
    assert bad.is_error and says in text(bad), text(bad)
    assert bad.structured_content is None  # an error is text alone: no object to validate
    assert not good.is_error and "wal" in text(good).lower()


def test_symlink_out_of_the_workspace_is_refused(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("top secret", encoding="utf-8")
    (ws / "knowledge" / "leak.md").symlink_to(outside)
    _, _, (by_slug, by_path) = session_calls(ws, [("memcli_read", {"record": "leak"}),
                                                  ("memcli_read", {"record": "knowledge/leak.md"})])
    assert by_path.is_error and "symlink" in text(by_path) and "top secret" not in text(by_path)
    assert by_slug.is_error and "top secret" not in text(by_slug)


def test_empty_workspace(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    (root / "memory").mkdir(parents=True)
    _, listed, (search, context, read, source) = session_calls(root, [
        ("memcli_search", {"query": "anything"}),
        ("memcli_context", {}),
        ("memcli_read", {"record": "anything"}),
        ("memcli_source", {"session": "abc", "start": 0, "end": 0}),
    ], tmp_path / "no-claude")
    assert not search.is_error and "No record matches" in text(search)
    found = structured(search, next(t for t in listed if t.name == "memcli_search"))
    assert found["hits"] == [] and "No record matches" in found["message"]
    assert not context.is_error and "memcli context" in text(context)
    assert read.is_error and "no record with the slug 'anything'" in text(read)
    assert source.is_error and "no session" in text(source)


def test_workspace_option_serves_another_folder(ws: Path, tmp_path: Path) -> None:
    _, _, (hit,) = session_calls(tmp_path, [("memcli_read", {"record": "wal-mode"})], args=["-w", str(ws)])
    assert not hit.is_error and "WAL" in text(hit)


def test_no_workspace_is_a_one_line_error(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    done = subprocess.run([sys.executable, "-m", "memcli", "mcp"], cwd=lonely, env=_env(), input="",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("Error: no memcli workspace") and "Traceback" not in done.stderr


def test_the_server_never_imports_litellm(ws: Path, claude_home: Path) -> None:
    probe = f"""
import sys
from pathlib import Path
from memcli.mcpserver import tools
from memcli.mcpserver.server import build_server
from memcli.workspace import Workspace
ws = Workspace.open(Path({str(ws)!r}))
build_server(ws)
tools.search(ws, "sqlite backup"); tools.read(ws, "wal-mode"); tools.context(ws)
tools.source(ws, {SESSION!r}, 0, 3); tools.remember("decision", "x")
print("litellm" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", probe], env=_env(claude_home), capture_output=True,
                          text=True, check=True, timeout=120)
    assert done.stdout.strip() == "False"
