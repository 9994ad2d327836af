"""`hooks install | status | uninstall --agent opencode` (memcli/agents/opencode/wiring.py): the MCP server
and allow rules merged into `opencode.json`, memcli's plugin as a file of its own, and every byte given
back at uninstall, also after OpenCode has written `"$schema"` into the file when it loaded it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import exit_code

from memcli.agents.jsonedit import blank_comments
from memcli.agents.opencode import wiring
from memcli.agents.targets import MCP_TOOLS
from memcli.hooks import install as inst

# A team's project config as OpenCode's docs show them: comments, its own MCP server, a rule that asks
# before every tool (the last matching rule wins: memcli's allow rules must come after it).
TEAM = """{
  "$schema": "https://opencode.ai/config.json",
  // the team's model
  "model": "anthropic/claude-sonnet-4-5",
  "permission": {
    "*": "ask",
    "bash": { "git status": "allow" }
  },
  "mcp": {
    "context7": { "type": "remote", "url": "https://mcp.context7.com/mcp" } /* docs */
  }
}
"""

# What OpenCode 1.18.33 (`opencode debug config`, run in the folder) wrote back into a project's
# opencode.json it loaded, for each text it found there: `$schema` after the opening brace.
OPENCODE_WROTE = [
    ('  {\n  "theme": "tokyonight", // dark\n  "mcp": {}\n}\n',
     '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "tokyonight", // dark\n'
     '  "mcp": {}\n}\n'),
    ("{}", '{\n  "$schema": "https://opencode.ai/config.json",}'),
    ('// the team\'s settings\n  {\n  "theme": "tokyonight"\n}\n',
     '// the team\'s settings\n  {\n  "theme": "tokyonight"\n}\n'),  # a comment first: no match, no change
    (TEAM, TEAM),  # it has one
]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    return root


def load(path: Path) -> dict:
    return json.loads(blank_comments(path.read_text(encoding="utf-8")))


def files(ws: Path) -> tuple[Path, Path]:
    return ws / "opencode.json", ws / ".opencode" / "plugins" / "memcli.js"


@pytest.mark.parametrize(("found", "wrote"), OPENCODE_WROTE)
def test_loaded_is_what_opencode_writes_back(found: str, wrote: str) -> None:
    assert wiring.loaded(found) == wrote


def test_install_wires_the_server_the_allow_rules_and_the_plugin(ws: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    settings, plugin = files(ws)
    settings.write_text(TEAM, encoding="utf-8")
    assert exit_code("hooks", "install", "--agent", "opencode", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    notes = out.replace("opencode: updated", "").replace("opencode: created", "")
    assert "opencode: " not in notes  # no step left to the user
    data = load(settings)
    assert data["mcp"]["memcli"] == {"type": "local", "command": ["memcli", "mcp"], "enabled": True}
    assert data["mcp"]["context7"]["type"] == "remote" and data["model"] == "anthropic/claude-sonnet-4-5"
    rules = list(data["permission"].items())
    assert rules[:2] == [("*", "ask"), ("bash", {"git status": "allow"})]  # the team's, first
    assert rules[2:] == [(f"memcli_{tool}", "allow") for tool in MCP_TOOLS]  # then memcli's: they win
    text = settings.read_text(encoding="utf-8")
    assert "// the team's model" in text and "/* docs */" in text
    code = plugin.read_text(encoding="utf-8")
    assert code == wiring.plugin_text() and code.startswith(wiring.MARKER)
    assert '"memcli hooks session-start --agent opencode"' in code and '"memcli extract --hook"' in code
    assert exit_code("hooks", "status", "--agent", "opencode", "--json", "-w", str(ws)) == 0
    rows = json.loads(capsys.readouterr().out)["entries"]
    project = {r["entry"]: r["state"] for r in rows if r["scope"] == "project"}
    assert project == {"MCP server": "installed", "plugin hook": "installed",
                       **{f"allow {tool}": "installed" for tool in MCP_TOOLS}}
    assert exit_code("hooks", "install", "--agent", "opencode", "-w", str(ws)) == 0
    assert "nothing to install" in capsys.readouterr().out


@pytest.mark.parametrize("before", [None, TEAM, OPENCODE_WROTE[0][0]],
                         ids=["no-file", "with-schema", "without-schema"])
def test_uninstall_gives_back_every_byte_after_opencode_loaded_the_file(ws: Path, before: str | None) -> None:
    settings, plugin = files(ws)
    if before is not None:
        settings.write_text(before, encoding="utf-8")
    assert exit_code("hooks", "install", "--agent", "opencode", "-w", str(ws)) == 0
    settings.write_text(wiring.loaded(settings.read_text(encoding="utf-8")), encoding="utf-8")  # OpenCode ran
    assert '"$schema"' in settings.read_text(encoding="utf-8")
    assert exit_code("hooks", "uninstall", "--agent", "opencode", "-w", str(ws)) == 0
    if before is None:
        assert not settings.exists()
    else:
        assert settings.read_text(encoding="utf-8") == before
    assert not plugin.exists() and not (ws / ".opencode").exists()  # the folders install made go too


def test_without_backups_only_memclis_entries_go(ws: Path) -> None:
    settings, plugin = files(ws)
    settings.write_text(TEAM, encoding="utf-8")
    assert exit_code("hooks", "install", "--agent", "opencode", "-w", str(ws)) == 0
    for backup in inst.backup_dir().iterdir():
        backup.unlink()
    assert exit_code("hooks", "uninstall", "--agent", "opencode", "-w", str(ws)) == 0
    assert settings.read_text(encoding="utf-8") == TEAM and not plugin.exists()


def test_a_plugin_of_that_name_that_is_not_memclis_is_left_alone(ws: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    _, plugin = files(ws)
    plugin.parent.mkdir(parents=True)
    plugin.write_text("export const Mine = async () => ({})\n", encoding="utf-8")
    assert exit_code("hooks", "install", "--agent", "opencode", "-w", str(ws)) == 0
    assert plugin.read_text(encoding="utf-8") == "export const Mine = async () => ({})\n"
    capsys.readouterr()
    assert exit_code("hooks", "status", "--agent", "opencode", "--json", "-w", str(ws)) == 0
    rows = json.loads(capsys.readouterr().out)["entries"]
    assert {r["entry"]: r["state"] for r in rows if r["scope"] == "project"}["plugin hook"] == "modified"
    assert exit_code("hooks", "uninstall", "--agent", "opencode", "-w", str(ws)) == 0
    assert plugin.read_text(encoding="utf-8") == "export const Mine = async () => ({})\n"


def test_an_existing_jsonc_file_is_the_one_edited(ws: Path) -> None:
    commented = ws / "opencode.jsonc"
    commented.write_text('{\n  // mine\n  "model": "openai/gpt-5"\n}\n', encoding="utf-8")
    assert exit_code("hooks", "install", "--agent", "opencode", "-w", str(ws)) == 0
    assert not (ws / "opencode.json").exists() and "memcli" in load(commented)["mcp"]


def test_user_scope_follows_xdg_config_home(ws: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    # what OpenCode 1.18.33 writes when it starts with no global config
    made = tmp_path / "xdg" / "opencode" / "opencode.jsonc"
    made.parent.mkdir(parents=True)
    made.write_text('{\n  "$schema": "https://opencode.ai/config.json"\n}', encoding="utf-8")
    assert exit_code("hooks", "install", "--agent", "opencode", "--scope", "user", "-w", str(ws)) == 0
    assert load(made)["mcp"]["memcli"]["command"] == ["memcli", "mcp"]
    assert (made.parent / "plugins" / "memcli.js").read_text(encoding="utf-8") == wiring.plugin_text()
    assert not (ws / "opencode.json").exists()
    assert exit_code("hooks", "uninstall", "--agent", "opencode", "--scope", "user", "-w", str(ws)) == 0
    assert made.read_text(encoding="utf-8") == '{\n  "$schema": "https://opencode.ai/config.json"\n}'
    assert not (made.parent / "plugins").exists()
