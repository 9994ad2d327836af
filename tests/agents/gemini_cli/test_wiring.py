"""`hooks install` for Gemini CLI: its folder trust as memcli reads it from Gemini's files
(memcli/agents/gemini_cli/wiring.py), the note install prints and the state status shows (memcli never writes
trustedFolders.json); and the PreCompress hook an earlier memcli installed, removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import exit_code

from memcli.agents.gemini_cli import wiring as gemini
from memcli.agents.jsonedit import blank_comments


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "projects" / "ws"
    (root / "memory").mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    for var in ("GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(tmp_path / "no-system-settings.json"))
    return root


def rules(text: str | dict) -> Path:
    path = Path.home() / ".gemini" / "trustedFolders.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if isinstance(text, str) else json.dumps(text), encoding="utf-8")
    return path


@pytest.mark.parametrize("given, level", [
    ({}, None),
    ({"{ws}": "TRUST_FOLDER"}, "TRUST_FOLDER"),
    ({"{projects}/other": "TRUST_PARENT"}, "TRUST_PARENT"),  # trusts other's parent, so ws too
    ({"{projects}": "TRUST_FOLDER", "{ws}": "DO_NOT_TRUST"}, "DO_NOT_TRUST"),  # the longest rule decides
    ({"{projects}": "DO_NOT_TRUST", "{ws}": "TRUST_FOLDER"}, "TRUST_FOLDER"),
    ({"{ws}-other": "TRUST_FOLDER"}, None),  # a sibling whose name starts the same is another folder
    ({"{ws}": "MAYBE"}, None),  # not a level Gemini knows
])
def test_the_rule_that_decides_for_the_folder(ws: Path, given: dict[str, str], level: str | None) -> None:
    rules({k.format(ws=ws, projects=ws.parent): v for k, v in given.items()})
    assert gemini.folder_trust(ws) == level


def test_comments_and_a_moved_file(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moved = tmp_path / "trust.json"
    moved.write_text(f'// written by Gemini\n{{"{ws}": "TRUST_FOLDER" /* dialog */}}\n', encoding="utf-8")
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(moved))
    assert gemini.folder_trust(ws) == "TRUST_FOLDER"
    rules("{not json")
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    assert gemini.folder_trust(ws) is None  # unreadable: as if no rule, Gemini will ask


def test_install_names_the_trust_step_until_it_is_taken(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "gemini", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    assert f"gemini: trust {ws} in Gemini CLI when it asks" in out
    assert not (Path.home() / ".gemini" / "trustedFolders.json").exists()  # memcli does not trust for you
    settings = json.loads((ws / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    # the server's own allow rule: without it `gemini -p` leaves memcli's tools out of the request
    assert settings["mcpServers"]["memcli"] == {"command": "memcli", "args": ["mcp"], "trust": True}
    assert exit_code("hooks", "status", "--agent", "gemini", "-w", str(ws)) == 0
    assert f"gemini       project  {ws} not trusted yet" in capsys.readouterr().out

    rules({str(ws): "TRUST_FOLDER"})
    assert exit_code("hooks", "install", "--agent", "gemini", "-w", str(ws)) == 0
    assert "gemini: trust" not in capsys.readouterr().out
    assert exit_code("hooks", "status", "--agent", "gemini", "-w", str(ws)) == 0
    assert f"{ws} trusted (TRUST_FOLDER in ~/.gemini/trustedFolders.json)" in capsys.readouterr().out

    rules({str(ws): "DO_NOT_TRUST"})
    assert exit_code("hooks", "status", "--agent", "gemini", "-w", str(ws)) == 0
    assert f"{ws} marked untrusted" in capsys.readouterr().out


def test_folder_trust_turned_off_needs_no_step(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = Path.home() / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"security": {"folderTrust": {"enabled": false}}}', encoding="utf-8")
    assert exit_code("hooks", "install", "--agent", "gemini", "-w", str(ws)) == 0
    assert "gemini: trust" not in capsys.readouterr().out
    assert exit_code("hooks", "status", "--agent", "gemini", "-w", str(ws)) == 0
    assert "folder trust is off" in capsys.readouterr().out


def test_user_scope_install_names_the_step_and_status_shows_it_once(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "gemini", "--scope", "user", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    assert "gemini: Gemini CLI runs hooks and MCP servers only in folders you trust" in out
    assert exit_code("hooks", "status", "--agent", "gemini", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    assert out.count("not trusted yet") == 1 and f"gemini       user     {ws} not trusted yet" in out


OLD_INSTALL = """{
  // mine
  "theme": "dark",
  "hooks": {
    "PreCompress": [
      {"hooks": [{"type": "command", "command": "memcli extract --hook", "name": "memcli-capture",
                  "timeout": 10000}]},
      {"hooks": [{"type": "command", "command": "./my-own-hook.sh"}]}
    ]
  }
}
"""


def test_the_retired_precompress_hook_goes_and_the_users_stays(ws: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Gemini 0.61 fires PreCompress before every model request: an earlier memcli's capture hook
    there would start a worker per request. Install removes it; status shows it until then."""
    settings = ws / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(OLD_INSTALL, encoding="utf-8")
    assert exit_code("hooks", "status", "--agent", "gemini", "-w", str(ws)) == 0
    assert "retired    PreCompress hook" in capsys.readouterr().out
    assert exit_code("hooks", "install", "--agent", "gemini", "-w", str(ws)) == 0
    text = settings.read_text(encoding="utf-8")
    data = json.loads(blank_comments(text))
    assert data["hooks"]["PreCompress"] == [{"hooks": [{"type": "command", "command": "./my-own-hook.sh"}]}]
    assert set(data["hooks"]) == {"PreCompress", "SessionStart", "SessionEnd"} and "// mine" in text
    assert exit_code("hooks", "uninstall", "--agent", "gemini", "-w", str(ws)) == 0
    assert "memcli" not in settings.read_text(encoding="utf-8")
