"""Claude Code's part of `memcli hooks install / status`: the allow rules and `alwaysLoad` it
writes, and the trust and approval it reads from Claude Code's own files (the places and shapes
Claude Code 2.1.332 uses; tests/e2e/test_claude_code.py checks them against the real binary)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import exit_code

from memcli.agents.claude_code import wiring as claude_code
from memcli.agents.jsonedit import blank_comments

RULES = [f"mcp__memcli__{tool}" for tool in
         ("memcli_search", "memcli_read", "memcli_context", "memcli_source", "memcli_remember")]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / ".git").mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return root


def _json(path: Path) -> dict:
    return json.loads(blank_comments(path.read_text(encoding="utf-8")))


def _put(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _trust(folder: Path, **more: object) -> None:
    _put(Path.home() / ".claude.json",
         {"projects": {str(folder.resolve()): {"hasTrustDialogAccepted": True, **more}}})


def _status(ws: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert exit_code("hooks", "status", "--agent", "claude-code", "-w", str(ws)) == 0
    rows = [line.removeprefix("claude-code  project  ") for line in capsys.readouterr().out.splitlines()
            if line.startswith("claude-code  project  ")]
    return [row for row in rows if row.split()[0] not in ("installed", "missing", "modified", "outdated")]


def test_install_allows_memcli_tools_next_to_the_users_rules_and_uninstall_takes_only_those(
        ws: Path) -> None:
    settings = ws / ".claude" / "settings.json"
    _put(settings, {"permissions": {"allow": ["Bash(npm test)", RULES[0]], "deny": ["Read(./.env)"]}})
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    # a rule the user already had is not added twice
    assert _json(settings)["permissions"] == {"allow": ["Bash(npm test)", *RULES], "deny": ["Read(./.env)"]}
    server = _json(ws / ".mcp.json")["mcpServers"]["memcli"]
    assert server == {"command": "memcli", "args": ["mcp"], "alwaysLoad": True}
    assert exit_code("hooks", "uninstall", "--agent", "claude-code", "-w", str(ws)) == 0
    assert _json(settings)["permissions"]["allow"] == ["Bash(npm test)", RULES[0]]  # as the user had it
    # edited since the install: uninstall takes memcli's rules out of the user's list
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    edited = _json(settings)
    edited["permissions"]["allow"].insert(1, "Bash(make)")
    _put(settings, edited)
    assert exit_code("hooks", "uninstall", "--agent", "claude-code", "-w", str(ws)) == 0
    assert _json(settings)["permissions"] == {"allow": ["Bash(npm test)", "Bash(make)"],
                                              "deny": ["Read(./.env)"]}


def test_a_server_entry_from_an_earlier_memcli_is_brought_up_to_date(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before alwaysLoad, memcli wrote the bare server: `status` says outdated and `install`
    replaces it, keeping the user's other servers; an entry the user edited stays theirs."""
    mcp = ws / ".mcp.json"
    _put(mcp, {"mcpServers": {"memcli": {"command": "memcli", "args": ["mcp"]},
                              "github": {"type": "http", "url": "https://example.invalid/mcp"}}})
    assert exit_code("hooks", "status", "--agent", "claude-code", "-w", str(ws)) == 0
    assert "outdated   MCP server" in capsys.readouterr().out
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    servers = _json(mcp)["mcpServers"]
    assert servers["memcli"]["alwaysLoad"] is True and servers["github"]["type"] == "http"
    _put(mcp, {"mcpServers": {"memcli": {"command": "/opt/memcli", "args": ["mcp"]}}})
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    assert _json(mcp)["mcpServers"]["memcli"] == {"command": "/opt/memcli", "args": ["mcp"]}


def test_install_names_the_steps_left_to_the_user_and_status_follows_them(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("claude-code: ")
             and "backup:" not in line]
    assert len(notes) == 2
    assert "accept its trust dialog" in notes[0] and 'answer "Use this MCP server"' in notes[1]
    assert _status(ws, capsys) == [
        "workspace not trusted yet: Claude Code ignores the allow rules for memcli's tools until you "
        "accept its trust dialog here once (run `claude`)",
        'MCP server memcli not approved yet: `claude` asks once ("Use this MCP server"); `claude -p` uses '
        "it without asking"]
    _trust(ws)
    _put(ws / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["memcli"]})
    assert _status(ws, capsys) == ["workspace trusted: the allow rules for memcli's tools apply",
                                   "MCP server memcli approved (.mcp.json)"]
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    assert "claude-code: " not in capsys.readouterr().out.replace("claude-code: nothing to install", "")


@pytest.mark.parametrize(("trusted", "files", "expected"), [
    # what Claude Code 2.1.332 itself reports (`claude mcp get memcli`) for each of these
    (False, {"local": {"enabledMcpjsonServers": ["memcli"]}}, "pending"),
    (True, {"local": {"enabledMcpjsonServers": ["memcli"]}}, "approved"),
    (False, {"local": {"disabledMcpjsonServers": ["memcli"]}}, "rejected"),
    (True, {"local": {"disabledMcpjsonServers": ["memcli"]}}, "rejected"),
    (False, {"user": {"enabledMcpjsonServers": ["memcli"]}}, "approved"),
    (False, {"project": {"enableAllProjectMcpServers": True}}, "pending"),
    (True, {"project": {"enableAllProjectMcpServers": True}}, "approved"),
    (True, {"legacy": {"enabledMcpjsonServers": ["memcli"]}}, "approved"),
    (False, {"legacy": {"enabledMcpjsonServers": ["memcli"]}}, "pending"),
    (False, {"legacy": {"disabledMcpjsonServers": ["memcli"]}}, "rejected"),
    (True, {"local": {"enabledMcpjsonServers": ["other"]}}, "pending"),
])
def test_approval_is_read_where_claude_code_records_it(
        ws: Path, trusted: bool, files: dict[str, dict], expected: str) -> None:
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    project = {"hasTrustDialogAccepted": trusted, **files.get("legacy", {})}
    _put(Path.home() / ".claude.json", {"projects": {str(ws.resolve()): project}})
    if "local" in files:
        _put(ws / ".claude" / "settings.local.json", files["local"])
    if "user" in files:
        _put(Path.home() / ".claude" / "settings.json", files["user"])
    if "project" in files:
        settings = ws / ".claude" / "settings.json"
        _put(settings, {**_json(settings), **files["project"]})
    assert claude_code.approval(ws) == expected


def test_trust_of_a_folder_above_counts_inside_its_git_repository(ws: Path, tmp_path: Path) -> None:
    inner = ws / "services" / "api"
    inner.mkdir(parents=True)
    _trust(ws)
    assert claude_code.trusted(inner) and claude_code.trusted(ws)
    _trust(tmp_path)  # above the repository: does not count for a folder inside it
    assert not claude_code.trusted(ws)


def test_user_scope_needs_no_step_and_broken_files_do_not_break_status(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "claude-code", "--scope", "user", "-w", str(ws)) == 0
    assert claude_code.install_notes("user", None) == [] and claude_code.states("user", None) == []
    assert "claude-code: " not in "".join(line for line in capsys.readouterr().out.splitlines()
                                          if "backup:" not in line)
    assert claude_code.states("project", ws) == []  # nothing of memcli's at project scope
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    (Path.home() / ".claude.json").write_text("{not json", encoding="utf-8")
    assert claude_code.states("project", ws)[0].startswith("workspace not trusted yet")
