"""`hooks install` for GitHub Copilot CLI (memcli/agents/copilot_cli/wiring.py): its own hooks file
(with the approval of memcli's tools), the project's MCP file shared with the user's servers, every
byte given back at uninstall, nothing written in the home folder at project scope; and folder trust
as memcli reads it from Copilot's config.json (memcli never writes it)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.cli import exit_code

from memcli.agents.copilot_cli import wiring as copilot
from memcli.agents.jsonedit import blank_comments

MCP = """{
  "mcpServers": {
    "playwright": {
      "type": "local",
      "command": "npx",
      "args": ["@playwright/mcp@latest"],
      "tools": ["*"]
    }
  }
}
"""

# As Copilot 1.0.102 writes it after "approve for this location": the user's own approvals, here and
# for another project
PERMISSIONS = """{
  "locations": {
    "/home/me/src/other": {
      "tool_approvals": [
        {
          "kind": "commands",
          "commandIdentifiers": ["git status"]
        }
      ]
    },
    "{ws}": {
      "tool_approvals": [
        {
          "kind": "write"
        }
      ]
    }
  }
}
"""

# ~/.copilot/config.json as the folder-trust dialog leaves it
CONFIG = """// User settings belong in settings.json.
// This file is managed automatically.
{
  "firstLaunchAt": "2026-12-01T18:51:36.884Z",
  "trustedFolders": [
    "{folder}"
  ]
}
"""


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "projects" / "ws"
    (root / "memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    return root


def _json(path: Path) -> dict:
    return json.loads(blank_comments(path.read_text(encoding="utf-8")))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


APPROVE = {"type": "command", "bash": copilot.APPROVE, "powershell": copilot.APPROVE, "timeoutSec": 5,
           "matcher": "memcli-memcli_search|memcli-memcli_read|memcli-memcli_context|memcli-memcli_source"
                      "|memcli-memcli_remember"}


def _files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_project_install_writes_inside_the_project_only_and_uninstall_gives_every_byte_back(
        ws: Path) -> None:
    mcp = _write(ws / ".github" / "mcp.json", MCP)
    permissions = _write(Path.home() / ".copilot" / "permissions-config.json",
                         PERMISSIONS.replace("{ws}", str(ws)))
    home_before = _files_under(Path.home())
    assert exit_code("hooks", "install", "--agent", "copilot", "-w", str(ws)) == 0
    hooks = _json(ws / ".github" / "hooks" / "memcli.json")
    assert hooks == {"version": 1, "hooks": {
        "SessionStart": [{"type": "command", "bash": "memcli hooks session-start --agent copilot",
                          "powershell": "memcli hooks session-start --agent copilot", "timeoutSec": 30}],
        "SessionEnd": [{"type": "command", "bash": "memcli extract --hook",
                        "powershell": "memcli extract --hook", "timeoutSec": 10}],
        "PreToolUse": [APPROVE]}}
    servers = _json(mcp)["mcpServers"]
    assert servers["memcli"] == {"command": "memcli", "args": ["mcp"], "type": "stdio", "tools": ["*"]}
    assert "playwright" in servers
    assert _files_under(Path.home()) == home_before  # the user's approvals untouched, nothing added
    assert exit_code("hooks", "install", "--agent", "copilot", "-w", str(ws)) == 0  # nothing more
    assert _json(ws / ".github" / "hooks" / "memcli.json") == hooks
    assert exit_code("hooks", "uninstall", "--agent", "copilot", "-w", str(ws)) == 0
    assert mcp.read_text(encoding="utf-8") == MCP
    assert permissions.read_text(encoding="utf-8") == PERMISSIONS.replace("{ws}", str(ws))
    assert not (ws / ".github" / "hooks").exists()


@pytest.mark.parametrize("tool, approved", [
    ("memcli-memcli_remember", True), ("memcli-memcli_search", True), ("other-memcli_remember", False),
    ("memcli-memcli_remember2", False), ("shell", False), ("xmemcli-memcli_read", False)])
def test_the_approval_matches_memclis_tools_alone(tool: str, approved: bool) -> None:
    """Copilot matches a handler's matcher against the whole tool name (its changelog: "hooks with
    matcher run only for tool names that fully match the regex")."""
    import re

    assert bool(re.fullmatch(copilot.APPROVED_TOOLS, tool)) is approved
    assert json.loads(copilot.APPROVE.split(" ", 1)[1].strip("'")) == {
        "permissionDecision": "allow", "permissionDecisionReason": "memcli"}


def test_without_backups_uninstall_still_gives_the_bytes_back(ws: Path) -> None:
    """The surgical path (backups deleted): memcli's server member comes out as exactly the text it
    went in as, and memcli's own hooks file goes."""
    from memcli.hooks import install as inst

    mcp = _write(ws / ".github" / "mcp.json", MCP)
    assert exit_code("hooks", "install", "--agent", "copilot", "-w", str(ws)) == 0
    backups = {p.name.split("-install-", 1)[1]: p for p in inst.backup_dir().iterdir()}
    assert sorted(backups) == ["mcp.json", "memcli.json.absent"]  # the hooks file did not exist
    assert backups["mcp.json"].read_text(encoding="utf-8") == MCP
    for backup in backups.values():
        backup.unlink()
    (ws / ".github" / "hooks" / "mine.json").write_text('{"version": 1, "hooks": {}}', encoding="utf-8")
    assert exit_code("hooks", "uninstall", "--agent", "copilot", "-w", str(ws)) == 0
    assert mcp.read_text(encoding="utf-8") == MCP
    assert sorted(p.name for p in (ws / ".github" / "hooks").iterdir()) == ["mine.json"]


def test_user_scope_needs_no_trust_and_approves_nothing(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "copilot", "--scope", "user", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    home = Path.home() / ".copilot"
    assert _json(home / "hooks" / "memcli.json")["hooks"]["SessionEnd"][0]["bash"] == "memcli extract --hook"
    assert _json(home / "mcp-config.json")["mcpServers"]["memcli"]["command"] == "memcli"
    assert not (home / "permissions-config.json").exists()  # Copilot keeps approvals per project
    assert "copilot: memcli_remember asks for your approval in each project" in out
    assert "folder-trust" not in out


@pytest.mark.parametrize("folder, trusted", [
    ("{ws}", True), ("{projects}", True),  # a folder above counts
    ("{ws}-other", False), ("{ws}/sub", False)])
def test_folder_trust_as_copilot_records_it(ws: Path, folder: str, trusted: bool) -> None:
    _write(Path.home() / ".copilot" / "config.json",
           CONFIG.replace("{folder}", folder.format(ws=ws, projects=ws.parent)))
    assert copilot.trusted(ws) is trusted


def test_install_names_the_trust_step_and_status_shows_it(ws: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "copilot", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    assert f"copilot: run `copilot` in {ws} once and answer its folder-trust question" in out
    assert exit_code("hooks", "status", "--agent", "copilot", "-w", str(ws)) == 0
    assert f"{ws} not trusted yet: Copilot CLI ignores memcli's hooks" in capsys.readouterr().out
    _write(Path.home() / ".copilot" / "config.json", CONFIG.replace("{folder}", str(ws)))
    assert exit_code("hooks", "status", "--agent", "copilot", "-w", str(ws)) == 0
    assert f"{ws} trusted (~/.copilot/config.json)" in capsys.readouterr().out
    assert exit_code("hooks", "install", "--agent", "copilot", "-w", str(ws)) == 0
    assert "folder-trust" not in capsys.readouterr().out  # nothing left to do
    assert exit_code("hooks", "uninstall", "--agent", "copilot", "-w", str(ws)) == 0
    capsys.readouterr()
    assert exit_code("hooks", "status", "--agent", "copilot", "-w", str(ws)) == 0
    assert f"{ws} trusted" not in capsys.readouterr().out  # nothing of memcli's left for trust to matter


def test_copilot_home_moves_its_files(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "moved"))
    assert exit_code("hooks", "install", "--agent", "copilot", "--scope", "user", "-w", str(ws)) == 0
    assert (tmp_path / "moved" / "hooks" / "memcli.json").exists()
    _write(tmp_path / "moved" / "config.json", CONFIG.replace("{folder}", str(ws)))
    assert copilot.trusted(ws)
