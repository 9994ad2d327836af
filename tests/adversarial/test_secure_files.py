"""What memcli leaves on disk is no more open than it should be, and hostile settings files are a
one-line error (issue #42, item 5): backups keep the settings file's mode and are pruned, the state
folder is 0700 and its files 0600, a 5 000-deep JSON file exits 2, and with a key given twice
memcli edits the one JSON readers use (the last)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from support.cli import exit_code
from support.cli import run as cli

from memcli.hooks import install as inst

SETTINGS = '{\n  "permissions": {"allow": ["Bash(npm test)"]},\n  "env": {"API_TOKEN": "t"}\n}\n'


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("MEMCLI_STATE_DIR", str(tmp_path / "state"))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(var, raising=False)
    return root


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _settings(ws: Path, text: str = SETTINGS, mode: int = 0o600) -> Path:
    path = ws / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_a_backup_keeps_the_settings_files_mode_in_a_private_folder(ws: Path, mode: int) -> None:
    settings = _settings(ws, mode=mode)
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    assert _mode(settings) == mode  # the rewritten file keeps its mode too
    (backup,) = [p for p in inst.backup_dir().iterdir() if p.name.endswith("-install-settings.json")]
    assert backup.read_text(encoding="utf-8") == SETTINGS and _mode(backup) == mode
    assert _mode(inst.backup_dir()) == 0o700


def test_old_backups_are_pruned_and_uninstall_still_restores(ws: Path) -> None:
    settings = _settings(ws)
    for _ in range(inst.KEEP_BACKUPS + 3):
        assert exit_code("hooks", "uninstall", "--agent", "claude-code", "-w", str(ws)) == 0
        assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    names = [p.name for p in inst.backup_dir().iterdir() if "settings.json" in p.name]
    assert len([n for n in names if "-install-" in n]) == inst.KEEP_BACKUPS
    assert len([n for n in names if "-uninstall-" in n]) == inst.KEEP_BACKUPS
    assert exit_code("hooks", "uninstall", "--agent", "claude-code", "-w", str(ws)) == 0
    assert settings.read_text(encoding="utf-8") == SETTINGS


def test_the_state_folder_and_what_is_in_it_are_private(
        ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (ws / "knowledge").mkdir()
    (ws / "knowledge" / "wal.md").write_text(
        "---\ncreated_at: 2026-06-01T10:00:00+09:00\nupdated_at: 2026-06-01T10:00:00+09:00\nkind: fact\n"
        "description: WAL mode\nmodel_invocation: true\nuser_invocable: true\nlast_sources:\n"
        "  - session_id: s1\n    range: [0, 1]\n---\nSQLite runs in WAL mode.\n", encoding="utf-8")
    old = os.umask(0o022)
    try:
        for args in (["lint"], ["search", "wal"], ["context"], ["status"]):
            assert cli(capsys, *args, "-w", str(ws))[0] in (0, 1), args
    finally:
        os.umask(old)
    state = tmp_path / "state"
    found = [state, *state.rglob("*")]
    assert len(found) > 2 and any(p.suffix == ".sqlite" for p in found), found
    for path in found:
        want = 0o700 if path.is_dir() else 0o600
        assert _mode(path) == want, (path, oct(_mode(path)))


def test_an_existing_open_state_folder_is_made_private(
        ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o755)
    os.chmod(state, 0o755)
    assert cli(capsys, "lint", "-w", str(ws))[0] == 0
    assert _mode(state) == 0o700


DEEP = '{"hooks": ' + "[" * 5000 + "]" * 5000 + "}"


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_5000_deep_settings_file_is_a_one_line_error(
        ws: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    settings = _settings(ws, DEEP)
    code = exit_code("hooks", command, "--agent", "claude-code", "-w", str(ws))
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert err.startswith("Error: ") and err.count("\n") == 1 and "too deeply" in err
    assert settings.read_text(encoding="utf-8") == DEEP


def test_status_says_a_5000_deep_settings_file_is_unreadable(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = _settings(ws, DEEP)
    code, out, err = cli(capsys, "hooks", "status", "--agent", "claude-code", "-w", str(ws))
    assert code == 0 and not err
    assert any("unreadable" in line and str(settings) in line for line in out.splitlines())


DUPLICATE = """{
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "old.sh"}]}]},
  "env": {"A": "1"},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}]}
}
"""


def test_with_hooks_given_twice_the_last_is_edited(ws: Path) -> None:
    settings = _settings(ws, DUPLICATE)
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    text = settings.read_text(encoding="utf-8")
    read = json.loads(text)  # what Claude Code reads: the last "hooks"
    assert "SessionStart" in read["hooks"]
    assert [h["command"] for g in read["hooks"]["PreToolUse"] for h in g["hooks"]] == ["lint.sh"]
    first = text[: text.index('"env"')]
    assert "old.sh" in first and "memcli" not in first  # the shadowed first one is left alone
    assert exit_code("hooks", "uninstall", "--agent", "claude-code", "-w", str(ws)) == 0
    assert settings.read_text(encoding="utf-8") == DUPLICATE
