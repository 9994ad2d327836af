"""Codex's trust in memcli's entries, read from `$CODEX_HOME/config.toml` (memcli/agents/codex/wiring.py).

The hashes below are what Codex CLI 0.171.0 itself reported (`currentHash` from its app-server's
`hooks/list`) for these exact hooks; the records are written the way Codex writes them when the user
trusts the folder and the hooks (tests/e2e/test_codex.py has Codex write them for real)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import exit_code

from memcli.agents.codex import wiring as codex
from memcli.agents.codex.wiring import config_files

# (event label, group, handler) -> Codex 0.171.0's currentHash
CODEX_HASHES = [
    ("session_start", {}, {"type": "command", "command": "memcli hooks session-start --agent codex",
                           "timeout": 30},
     "sha256:e9e1fd8762fa3c70404f7bd8195137f0855df91b109d753d6d13f7ee91b4f996"),
    ("stop", {}, {"type": "command", "command": "memcli extract --hook", "timeout": 10},
     "sha256:81889005f9184667b1f2c29025ea8098dcc18fbfdb96b7fcbb94df5dd0acf94a"),
    ("stop", {"matcher": "whatever"}, {"type": "command", "command": "memcli extract --hook", "timeout": 10},
     "sha256:81889005f9184667b1f2c29025ea8098dcc18fbfdb96b7fcbb94df5dd0acf94a"),  # Stop has no matcher
    ("pre_compact", {}, {"type": "command", "command": "memcli extract --hook", "timeout": 10},
     "sha256:ea313e0b0a21c836f5213bbdb50253aa561a1e4b27e2d033bea07e1d2b9e6242"),
    ("pre_tool_use", {"matcher": "^Bash$"}, {"type": "command", "command": "echo 日本語",
                                             "statusMessage": "checking", "async": True},
     "sha256:0a7195019e36d0e2bbcd603f4dc4adc43b76c2bae55d97a96d0efb06b87b1b2b"),
    ("session_start", {"matcher": "startup|resume"},
     {"type": "command", "command": "memcli hooks session-start --agent codex"},  # timeout: 600
     "sha256:eb1f3d0e261087b8084b63dc9929f7657fb93f0aa1ef061761339a44dd50849b"),
]


@pytest.mark.parametrize(("event", "group", "handler", "expected"), CODEX_HASHES)
def test_hook_hash_is_codexs_own(event: str, group: dict, handler: dict, expected: str) -> None:
    assert codex.hook_hash(event, group, handler) == expected


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / ".git").mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    return root


def _codex_records(ws: Path, folder: str | None, hooks: dict[str, dict]) -> None:
    """$CODEX_HOME/config.toml as Codex leaves it after the user's choices."""
    lines = []
    if folder:
        lines += [f'[projects."{ws}"]', f'trust_level = "{folder}"', ""]
    for key, state in hooks.items():
        lines.append(f'[hooks.state."{key}"]')
        lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v)}" for k, v in state.items()]
    path = config_files("user", None)[0].path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _trusted(ws: Path) -> dict[str, dict]:
    config = ws / ".codex" / "config.toml"
    return {f"{config}:{event}:0:0": {"trusted_hash": digest}
            for event, group, _, digest in CODEX_HASHES if not group}


def _status(ws: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert exit_code("hooks", "status", "--agent", "codex", "-w", str(ws)) == 0
    rows = capsys.readouterr().out.splitlines()
    row = "codex        project  "
    return [line[len(row):] for line in rows if line.startswith(row) and "/.codex/" not in line]


def test_fresh_install_names_both_trust_steps(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    assert ("codex: trust this folder when Codex asks, then trust memcli's hooks with /hooks: until then "
            "Codex skips them without a word") in capsys.readouterr().out.splitlines()
    assert _status(ws, capsys) == [
        "folder not trusted yet in Codex: it ignores .codex/config.toml (memcli's hooks and MCP server) "
        "until you trust it when Codex asks",
        "hooks installed, not trusted yet: review them with /hooks in Codex"]


def test_trusted_folder_and_hooks(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    _codex_records(ws, "trusted", {})
    assert _status(ws, capsys) == ["hooks installed, not trusted yet: review them with /hooks in Codex"]
    assert codex.install_notes("project", ws) == [
        "trust memcli's hooks with /hooks in Codex: until then Codex skips them without a word"]
    _codex_records(ws, "trusted", _trusted(ws))
    assert _status(ws, capsys) == ["hooks trusted in Codex"]
    assert codex.install_notes("project", ws) == []


def test_an_edited_hook_loses_its_trust_and_a_turned_off_one_says_so(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    config = ws / ".codex" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("timeout = 30", "timeout = 45"),
                      encoding="utf-8")
    records = _trusted(ws)
    records[f"{config}:stop:0:0"]["enabled"] = False
    _codex_records(ws, "trusted", records)
    assert _status(ws, capsys) == [
        "hooks changed since you trusted them: review them again with /hooks in Codex",
        "hooks turned off in Codex's /hooks: memcli's context and capture do not run"]


def test_untrusted_folder_and_trust_given_to_the_repository_root(
        ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    _codex_records(ws, "untrusted", _trusted(ws))
    assert _status(ws, capsys)[0].startswith("folder marked untrusted in Codex: it ignores")
    sub = ws / "sub"  # a workspace below the repository root Codex was trusted for
    (sub / "memory").mkdir(parents=True)
    _codex_records(ws, "trusted", {})
    assert codex.folder_trust(sub, codex._read(config_files("user", None)[0].path)) == "trusted"


def test_user_scope_keys_name_the_user_config(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "codex", "--scope", "user", "-w", str(ws)) == 0
    user_config = config_files("user", None)[0].path
    assert codex.states("user", None) == [codex.UNTRUSTED]
    text = user_config.read_text(encoding="utf-8")
    for event, group, _, digest in CODEX_HASHES:
        if not group:
            text += f'\n[hooks.state."{user_config}:{event}:0:0"]\ntrusted_hash = "{digest}"\n'
    user_config.write_text(text, encoding="utf-8")
    assert codex.states("user", None) == ["hooks trusted in Codex"]
    assert codex.install_notes("user", None) == []


def test_nothing_said_where_memcli_is_not_installed(ws: Path) -> None:
    assert codex.states("project", ws) == [] and codex.install_notes("project", ws) == []
    (ws / ".codex").mkdir()
    (ws / ".codex" / "config.toml").write_text("not = [valid toml", encoding="utf-8")
    assert codex.states("project", ws) == []
