"""`memcli mcp` answers the handshake from the workspace's config file alone (catalog.budget_of) and
opens the workspace, config and all, at the first tool call: the budget `tools/list` shows is the one
the validated config gives, and a config that does not validate is said by each tool call, not by
a server that fails to start."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.mcp_declared import HANDSHAKE, answers

from memcli.errors import ConfigError
from memcli.mcpserver import catalog
from memcli.workspace import Workspace

CONFIGS = {
    "no config file": None,
    "an empty memcli.toml": ("memcli.toml", ""),
    "a budget": ("memcli.toml", "[context]\nbudget_tokens = 3200\n"),
    "the smallest budget": ("memcli.toml", "[context]\nbudget_tokens = 100\n"),
    "other sections only": ("memcli.toml", "[gc]\nstale_days = 30\n"),
    "pyproject's table": ("pyproject.toml",
                          "[project]\nname = 'x'\n[tool.memcli.context]\nbudget_tokens = 900\n"),
    "pyproject without a table": ("pyproject.toml", "[project]\nname = 'x'\n"),
}
# Values only the validated config can judge: budget_of leaves them to it
UNSURE = {
    "a budget too small": "[context]\nbudget_tokens = 50\n",
    "a float": "[context]\nbudget_tokens = 3000.0\n",
    "a string": "[context]\nbudget_tokens = '3000'\n",
    "a boolean": "[context]\nbudget_tokens = true\n",
    "context not a table": "context = 5\n",
    "not TOML": "[context\n",
}


def _workspace(tmp_path: Path, config: tuple[str, str] | None) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    if config is not None:
        (root / config[0]).write_text(config[1], encoding="utf-8")
    return root


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_budget_read_from_the_file_is_the_validated_configs(tmp_path: Path, name: str) -> None:
    root = _workspace(tmp_path, CONFIGS[name])
    assert catalog.budget_of(root) == Workspace.open(root).config.context.budget_tokens


@pytest.mark.parametrize("name", list(UNSURE))
def test_a_value_only_validation_can_judge_is_left_to_it(tmp_path: Path, name: str) -> None:
    root = _workspace(tmp_path, ("memcli.toml", UNSURE[name]))
    assert catalog.budget_of(root) is None


def test_the_server_lists_the_validated_budget_where_the_file_alone_cannot_say(tmp_path: Path) -> None:
    root = _workspace(tmp_path, ("memcli.toml", "[context]\nbudget_tokens = 512.0\n"))  # validated: 512
    listed = answers(root, HANDSHAKE, sdk=False)[1]["result"]["tools"]
    (context,) = [t for t in listed if t["name"] == "memcli_context"]
    assert context["inputSchema"]["properties"]["budget"]["default"] == 512


def test_a_config_that_does_not_validate_is_said_by_each_tool_call(tmp_path: Path) -> None:
    root = _workspace(tmp_path, ("memcli.toml", "[context]\nbudget_tokens = 50\n"))
    with pytest.raises(ConfigError):
        Workspace.open(root)
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "memcli_search", "arguments": {"query": "sqlite"}}}
    init, listed, called = answers(root, [*HANDSHAKE, call], sdk=False)
    assert init["result"]["serverInfo"]["name"] == catalog.SERVER_NAME
    (context,) = [t for t in listed["result"]["tools"] if t["name"] == "memcli_context"]
    assert context["inputSchema"]["properties"]["budget"]["default"] == catalog.BUDGET_DEFAULT
    result = called["result"]
    assert result["isError"] and "budget_tokens" in result["content"][0]["text"]
