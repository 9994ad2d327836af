"""The headless dialects of Claude Code and Codex: what their command lines switch off, and their
output read back (outputs as the pinned versions printed them against the scripted servers of
tests/e2e; the runs themselves are tests/e2e/test_agent_model.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memcli.agents import claude_code, codex, registry
from memcli.agents.codex.headless import strict
from memcli.agents.parts import McpTools
from memcli.staging import ExtractedItems

CLAUDE_OK = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 2,
             "result": '{"name":"x"}', "structured_output": {"name": "x"}, "total_cost_usd": 0.00014,
             "usage": {"input_tokens": 10, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 2,
                       "output_tokens": 5}, "permission_denials": [], "api_error_status": None}
CLAUDE_401 = {**CLAUDE_OK, "is_error": True, "result": "Invalid API key · Fix external API key",
              "structured_output": None, "api_error_status": 401, "total_cost_usd": 0,
              "usage": {"input_tokens": 0, "output_tokens": 0}}
CODEX_LINES = [
    {"type": "thread.started", "thread_id": "01a2350c"},
    {"type": "item.completed", "item": {"id": "item_0", "type": "error", "message": "Model metadata for "
                                        "`scripted-model` not found. Defaulting to fallback metadata"}},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "item_1", "type": "mcp_tool_call", "server": "memcli",
                                        "tool": "memory_write", "status": "failed",
                                        "error": {"message": "MCP tool call requires approval, but "
                                                  "approval policy is never"}}},
    {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": '{"name": "x"}'}},
    {"type": "turn.completed", "usage": {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 10}},
]


def test_claude_code_result_is_read_with_every_input_token_and_its_cost() -> None:
    reply = claude_code.load().headless.read(json.dumps(CLAUDE_OK) + "\n", "")
    assert (reply.structured, reply.prompt_tokens, reply.completion_tokens) == ({"name": "x"}, 15, 5)
    assert reply.cost_usd == pytest.approx(0.00014) and reply.error is None and reply.turns == 2


def test_claude_code_failure_carries_its_message_and_the_api_status() -> None:
    reply = claude_code.load().headless.read(json.dumps(CLAUDE_401), "")
    assert (reply.error, reply.status) == ("Invalid API key · Fix external API key", 401)
    assert claude_code.load().headless.read("not json\n", "claude: command crashed\n").error == \
        "claude: command crashed"


def test_codex_events_are_read_its_warnings_are_not_failures_and_refused_calls_are_named() -> None:
    reply = codex.load().headless.read("\n".join(json.dumps(e) for e in CODEX_LINES), "")
    assert reply.text == '{"name": "x"}' and reply.error is None
    assert (reply.prompt_tokens, reply.completion_tokens, reply.cost_usd) == (100, 10, None)
    assert reply.denied == ("memory_write",)
    failed = CODEX_LINES[:3] + [{"type": "turn.failed", "error": {"message": "unexpected status 401"}}]
    assert codex.load().headless.read("\n".join(json.dumps(e) for e in failed), "").error == \
        "unexpected status 401"


def test_codex_strict_schema_closes_every_object_and_the_answer_still_validates() -> None:
    schema = strict(ExtractedItems.model_json_schema())

    def objects(node):  # every object schema in it
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    found = list(objects(schema))
    assert len(found) >= 5  # the items and each kind of item
    for node in found:
        assert set(node["required"]) == set(node["properties"]) and node["additionalProperties"] is False
        for field in node["properties"].values():
            assert not {"default", "maxLength", "minLength"} & set(field)
            assert not isinstance(field.get("title"), str)
    # what a strict answer looks like (every field present) is what pydantic accepts
    answer = {"decisions": [{"title": "t", "decision": "d", "rationale": "", "status": "resolved"}],
              "discussions": [], "attempts": [], "requests": []}
    assert ExtractedItems.model_validate(answer).decisions[0].decision == "d"


@pytest.mark.parametrize("agent", [claude_code, codex])
def test_a_question_has_no_tools_and_a_working_run_only_memcli_s(agent, tmp_path: Path) -> None:
    dialect = agent.load().headless
    asked = dialect.ask("SYSTEM", "PROMPT", {"type": "object"}, None, tmp_path)
    assert asked.stdin == "PROMPT" and "SYSTEM" in asked.files.values()
    tools = McpTools("memcli", "/usr/bin/python3", ["-m", "memcli", "mcp", "--relay", "/s"], ["dispose"])
    worked = dialect.work("SYSTEM", "PROMPT", tools, "small-model", tmp_path)
    if agent is claude_code:
        assert asked.argv[asked.argv.index("--tools") + 1] == ""
        assert "--safe-mode" in asked.argv and "--no-session-persistence" in asked.argv
        assert worked.argv[worked.argv.index("--allowedTools") + 1] == "mcp__memcli__dispose"
        assert "--strict-mcp-config" in worked.argv and worked.argv[worked.argv.index("--model") + 1] == \
            "small-model"
    else:
        assert "--ephemeral" in asked.argv and "shell_tool" in asked.argv
        assert not any(a.startswith("mcp_servers") for a in asked.argv)  # the user has none here
        server = next(a for a in worked.argv if a.startswith("mcp_servers.memcli="))
        assert '"dispose"' in server and "approve" in server and "-m" in server


def test_model_strings_name_the_agent_and_its_own_model() -> None:
    assert registry.by_model("agent/claude-code/haiku")[0] is claude_code
    assert registry.by_model("agent/claude-code/haiku")[2] == "haiku"
    assert registry.by_model("agent/codex")[2] is None
    assert registry.by_model("agent/nobody") is None and registry.by_model("openai/gpt-4o") is None


def test_codex_runs_switch_the_users_own_mcp_servers_off(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (tmp_path / "codex").mkdir()
    (tmp_path / "codex" / "config.toml").write_text(
        '[mcp_servers.memcli]\ncommand = "memcli"\nargs = ["mcp"]\n\n[mcp_servers."my db"]\ncommand = "db"\n',
        encoding="utf-8")
    asked = codex.load().headless.ask("S", "P", None, None, tmp_path).argv
    assert "mcp_servers.memcli.enabled=false" in asked and 'mcp_servers."my db".enabled=false' in asked
    tools = McpTools("memcli", "/usr/bin/python3", ["-m", "memcli", "mcp", "--relay", "/s"], ["dispose"])
    worked = codex.load().headless.work("S", "P", tools, None, tmp_path).argv
    assert 'mcp_servers."my db".enabled=false' in worked
    assert "mcp_servers.memcli.enabled=false" not in worked  # memcli's own relay takes its place
    assert any(a.startswith("mcp_servers.memcli={command = ") for a in worked)
