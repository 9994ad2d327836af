"""`memcli hooks install / uninstall / status` against realistic existing config files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support.cli import exit_code

from memcli.agents import registry
from memcli.agents.jsonedit import blank_comments
from memcli.hooks import install as inst

CLAUDE_SETTINGS = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "~/.claude/hooks/check-bash.sh" }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [{ "type": "command", "command": "git status --short" }]
      }
    ]
  },
  "env": { "DISABLE_TELEMETRY": "1" }
}
"""

CLAUDE_MCP = """{
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/"
    }
  }
}
"""

# Gemini CLI reads settings through strip-json-comments: comments are legal there.
GEMINI_SETTINGS = """// Gemini CLI settings for this project
{
  "general": { "preferredEditor": "vim" },
  /* hooks the team shares */
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "run_shell_command",
        "hooks": [
          { "name": "audit", "type": "command", "command": "./scripts/audit.sh", "timeout": 5000 }
        ]
      }
    ]
  },
  "mcpServers": {
    "playwright": { "command": "npx", "args": ["@playwright/mcp@latest"] } // browser
  }
}
"""

CODEX_CONFIG = """# Codex configuration
model = "gpt-5-codex"
approval_policy = "on-request"  # ask before running commands

[features]
hooks = true

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

# my own hook
[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "notify-send codex done"

[projects."/home/me/src/app"]
trust_level = "trusted"
"""


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(var, raising=False)
    return root


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def _load(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(blank_comments(text))


def _commands(groups: list[dict]) -> list[str]:
    return [h["command"] for g in groups for h in g["hooks"]]


AGENT_FILES = {
    "claude-code": {".claude/settings.json": CLAUDE_SETTINGS, ".mcp.json": CLAUDE_MCP},
    "gemini": {".gemini/settings.json": GEMINI_SETTINGS},
    "codex": {".codex/config.toml": CODEX_CONFIG},
}


@pytest.mark.parametrize("agent", sorted(AGENT_FILES))
def test_install_merges_is_idempotent_and_uninstall_restores_every_byte(
        agent: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {rel: _write(ws / rel, text) for rel, text in AGENT_FILES[agent].items()}
    before = {rel: _load(p) for rel, p in files.items()}
    assert exit_code("hooks", "install", "--agent", agent, "-w", str(ws)) == 0
    installed = {rel: p.read_bytes() for rel, p in files.items()}
    for rel, path in files.items():
        after = _load(path)  # still valid for the agent's own parser
        for key, value in before[rel].items():  # every key of the user's stays
            if key not in ("hooks", "mcpServers", "mcp_servers", "permissions"):
                assert after[key] == value
        for key, value in before[rel].get("permissions", {}).items():  # the user's rules first, untouched
            assert after["permissions"][key][:len(value)] == value
        for event, groups in before[rel].get("hooks", {}).items():
            assert after["hooks"][event][:len(groups)] == groups  # the user's hooks first, untouched
        servers = before[rel].get("mcpServers") or before[rel].get("mcp_servers") or {}
        for name, server in servers.items():
            assert (after.get("mcpServers") or after.get("mcp_servers"))[name] == server
    text = "".join(p.read_text(encoding="utf-8") for p in files.values())
    assert "memcli extract --hook" in text and f"session-start --agent {agent}" in text
    assert '"mcp"' in text
    if agent == "gemini":
        assert "// Gemini CLI settings for this project" in text and "// browser" in text
    if agent == "codex":
        assert "# ask before running commands" in text and "# my own hook" in text
    # a second install changes nothing
    assert exit_code("hooks", "install", "--agent", agent, "-w", str(ws)) == 0
    assert {rel: p.read_bytes() for rel, p in files.items()} == installed
    assert "nothing to install" in capsys.readouterr().out
    # uninstall: byte for byte what the user had
    assert exit_code("hooks", "uninstall", "--agent", agent, "-w", str(ws)) == 0
    for rel, path in files.items():
        assert path.read_bytes() == AGENT_FILES[agent][rel].encode("utf-8")
    assert exit_code("hooks", "uninstall", "--agent", agent, "-w", str(ws)) == 0  # nothing left: no change


@pytest.mark.parametrize("agent", sorted(AGENT_FILES))
def test_uninstall_without_backups_removes_only_memcli_entries(agent: str, ws: Path, tmp_path: Path) -> None:
    """The surgical path (backups deleted, or the file edited since install)."""
    files = {rel: _write(ws / rel, text) for rel, text in AGENT_FILES[agent].items()}
    assert exit_code("hooks", "install", "--agent", agent, "-w", str(ws)) == 0
    for backup in inst.backup_dir().iterdir():
        backup.unlink()
    assert exit_code("hooks", "uninstall", "--agent", agent, "-w", str(ws)) == 0
    for rel, path in files.items():
        text = path.read_text(encoding="utf-8")
        assert "memcli" not in text
        assert _load(path) == _load(_write(tmp_path / "orig" / rel, AGENT_FILES[agent][rel]))
        if agent != "codex":  # JSON: the exact inverse of the insertion
            assert text == AGENT_FILES[agent][rel]


def test_uninstall_keeps_what_the_user_added_after_install(ws: Path) -> None:
    settings = _write(ws / ".gemini" / "settings.json", GEMINI_SETTINGS)
    assert exit_code("hooks", "install", "--agent", "gemini", "-w", str(ws)) == 0
    data = _load(settings)
    data["hooks"]["SessionEnd"][0]["hooks"].append({"type": "command", "command": "./bye.sh"})
    data["theme"] = "GitHub"
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert exit_code("hooks", "uninstall", "--agent", "gemini", "-w", str(ws)) == 0
    after = _load(settings)
    assert after["theme"] == "GitHub"
    assert _commands(after["hooks"]["SessionEnd"]) == ["./bye.sh"]  # the shared group keeps the user's
    assert "SessionStart" not in after["hooks"] and "memcli" not in after["mcpServers"]
    assert after["mcpServers"]["playwright"]["command"] == "npx"


def test_new_files_are_created_and_removed_again(ws: Path) -> None:
    assert exit_code("hooks", "install", "--agent", "all", "-w", str(ws)) == 0
    mcp = _load(ws / ".mcp.json")
    # alwaysLoad: Claude Code waits for the server and sends its tools with the first request
    assert mcp == {"mcpServers": {"memcli": {"command": "memcli", "args": ["mcp"], "alwaysLoad": True}}}
    codex = _load(ws / ".codex" / "config.toml")
    assert _commands(codex["hooks"]["SessionStart"]) == ["memcli hooks session-start --agent codex"]
    assert _commands(codex["hooks"]["Stop"]) == ["memcli extract --hook"]
    assert codex["mcp_servers"]["memcli"] == {"command": "memcli", "args": ["mcp"]}
    gemini = _load(ws / ".gemini" / "settings.json")
    assert set(gemini["hooks"]) == {"SessionStart", "SessionEnd"}  # PreCompress fires every request (0.61)
    assert gemini["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] == 10_000  # Gemini: milliseconds
    claude = _load(ws / ".claude" / "settings.json")
    assert set(claude["hooks"]) == {"SessionStart", "SessionEnd", "PreCompact"}
    assert claude["permissions"] == {"allow": [f"mcp__memcli__{tool}" for tool in (
        "memcli_search", "memcli_read", "memcli_context", "memcli_source", "memcli_remember")]}
    assert exit_code("hooks", "uninstall", "--agent", "all", "-w", str(ws)) == 0
    assert sorted(p.name for p in ws.iterdir()) == ["memory"]


def test_dry_run_prints_the_diff_and_writes_nothing(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = _write(ws / ".claude" / "settings.json", CLAUDE_SETTINGS)
    assert exit_code("hooks", "install", "--agent", "claude-code", "--dry-run", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    assert f"--- {settings}" in out and "+++ " in out
    assert '+            "command": "memcli extract --hook",' in out
    assert "--- /dev/null" in out  # .mcp.json would be created
    assert settings.read_text(encoding="utf-8") == CLAUDE_SETTINGS
    assert not (ws / ".mcp.json").exists() and not inst.backup_dir().exists()


def test_the_temp_file_of_a_killed_config_write_is_removed(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # what a write of memcli's killed before its rename leaves (atomicio: tests/test_atomicio.py)
    settings = _write(ws / ".claude" / "settings.json", CLAUDE_SETTINGS)
    left = _write(ws / ".claude" / ".settings.json.k3x9_q2m.tmp", '{\n  "$schema": ')
    theirs = [_write(ws / ".claude" / name, "x") for name in (".settings.json.swp", ".settings.json.tmp")]
    assert exit_code("hooks", "install", "--agent", "claude-code", "--dry-run", "-w", str(ws)) == 0
    assert f"would remove {left}, left by an interrupted write of settings.json" in capsys.readouterr().out
    assert left.exists() and settings.read_text(encoding="utf-8") == CLAUDE_SETTINGS

    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    assert f"removed {left}, left by an interrupted write of settings.json" in capsys.readouterr().out
    assert not left.exists() and all(path.exists() for path in theirs)
    assert "SessionStart" in _load(settings)["hooks"]


def test_uninstall_removes_a_killed_write_s_temp_file_and_the_folder_install_made(ws: Path) -> None:
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    _write(ws / ".codex" / ".config.toml.abcdefgh.tmp", "model =")
    assert exit_code("hooks", "uninstall", "--agent", "codex", "-w", str(ws)) == 0
    assert sorted(p.name for p in ws.iterdir()) == ["memory"]


@pytest.mark.parametrize(("rel", "text"), [
    (".claude/settings.json", '{\n  "hooks": {,\n}\n'),
    (".gemini/settings.json", '{"a": 1,}'),
    (".codex/config.toml", 'model = "x"\nmodel = "y"\n'),
    (".claude/settings.json", '{"hooks": []}'),
])
def test_unparseable_config_is_reported_and_nothing_is_written(
        rel: str, text: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = _write(ws / rel, text)
    assert exit_code("hooks", "install", "--agent", "all", "-w", str(ws)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("Error: ") and str(broken) in err
    assert broken.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in ws.iterdir()) == sorted(["memory", rel.split("/")[0]])  # no other file


def test_backups_hold_the_previous_bytes(ws: Path) -> None:
    _write(ws / ".codex" / "config.toml", CODEX_CONFIG)
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    (backup,) = [p for p in inst.backup_dir().iterdir() if "-install-config.toml" in p.name]
    assert backup.read_text(encoding="utf-8") == CODEX_CONFIG


def test_user_scope_uses_the_agents_homes(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    home = Path.home()
    claude_json = _write(home / ".claude.json", '{"numStartups": 3, "projects": {}}\n')
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert exit_code("hooks", "install", "--agent", "all", "--scope", "user") == 0
    assert _load(home / ".claude" / "settings.json")["hooks"]["SessionEnd"]
    assert _load(claude_json)["mcpServers"]["memcli"]["args"] == ["mcp"]
    assert _load(claude_json)["numStartups"] == 3
    assert _load(home / ".gemini" / "settings.json")["mcpServers"]["memcli"]
    assert _load(tmp_path / "codex-home" / "config.toml")["mcp_servers"]["memcli"]
    assert (home / ".pi" / "agent" / "extensions" / "memcli.ts").is_file()
    assert _load(home / ".config" / "opencode" / "opencode.json")["mcp"]["memcli"]["type"] == "local"
    assert (home / ".config" / "opencode" / "plugins" / "memcli.js").is_file()
    assert not (ws / ".claude").exists()
    capsys.readouterr()
    assert exit_code("hooks", "status", "--json", "-w", str(ws)) == 0
    rows = json.loads(capsys.readouterr().out)["entries"]
    user = {(r["agent"], r["entry"]): r["state"] for r in rows if r["scope"] == "user"}
    project = {r["state"] for r in rows if r["scope"] == "project"}
    declared = [e for cf in inst._files("all", "user", None) for e in cf.entries]
    assert set(user.values()) == {"installed"} and len(user) == len(declared) and project == {"missing"}
    assert exit_code("hooks", "uninstall", "--agent", "all", "--scope", "user") == 0
    assert claude_json.read_text(encoding="utf-8") == '{"numStartups": 3, "projects": {}}\n'
    assert not (home / ".claude" / "settings.json").exists()
    assert not (home / ".pi" / "agent" / "extensions").exists()
    assert not (home / ".config").exists()  # the folders install made for OpenCode's files go too


def test_status_reports_a_hook_the_user_edited(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    settings = ws / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('"timeout": 10', '"timeout": 99'), encoding="utf-8")
    capsys.readouterr()
    assert exit_code("hooks", "status", "--agent", "claude-code", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    assert "modified   SessionEnd hook" in out and "installed  SessionStart hook" in out
    # install leaves an edited entry alone instead of adding a second one
    assert exit_code("hooks", "install", "--agent", "claude-code", "-w", str(ws)) == 0
    assert settings.read_text().count("memcli extract --hook") == 2  # SessionEnd + PreCompact


def test_several_agents_are_wired_at_once(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--agent` repeated (or a comma list) wires each agent named, not only the last."""
    assert exit_code("hooks", "install", "--agent", "claude-code", "--agent", "codex", "-w", str(ws)) == 0
    assert (ws / ".mcp.json").is_file() and (ws / ".codex" / "config.toml").is_file()
    assert not (ws / ".gemini").exists()
    assert exit_code("hooks", "install", "-a", "gemini,codex", "-w", str(ws)) == 0
    assert (ws / ".gemini" / "settings.json").is_file()
    capsys.readouterr()
    assert exit_code("hooks", "status", "--agent", "codex", "--agent", "gemini", "--scope", "project",
                     "-w", str(ws)) == 0
    out = capsys.readouterr().out.splitlines()
    assert sorted(line.split()[0] for line in out if " installed " in line) == ["codex", "gemini"]
    assert not [line for line in out if line.startswith("claude-code")]
    assert exit_code("hooks", "uninstall", "--agent", "codex", "--agent", "cursor", "-w", str(ws)) == 2
    assert "'cursor'" in capsys.readouterr().err
    assert (ws / ".codex" / "config.toml").is_file()  # a bad name: nothing removed
    assert exit_code("hooks", "uninstall", "-a", "claude-code", "-a", "codex", "-a", "gemini",
                     "-w", str(ws)) == 0
    assert sorted(p.name for p in ws.iterdir()) == ["memory"]


def test_bad_agent_or_scope_is_a_usage_error(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "cursor", "-w", str(ws)) == 2
    assert exit_code("hooks", "install", "--scope", "global", "-w", str(ws)) == 2
    err = capsys.readouterr().err
    assert f"{', '.join(registry.options())} or all" in err and "choose project or user" in err


def test_codex_blocks_go_at_the_end_and_leave_the_users_tables_in_place(ws: Path) -> None:
    config = _write(ws / ".codex" / "config.toml", CODEX_CONFIG)
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    text = config.read_text(encoding="utf-8")
    grace = "mcp_optional_startup_grace_ms = 10000\n"  # a top-level key: before the first [table]
    head, tables = CODEX_CONFIG.split("\n\n", 1)
    assert text.startswith(f"{head}\n{grace}\n{tables}\n[[hooks.SessionStart]]\n")
    assert text.endswith('[mcp_servers.memcli]\ncommand = "memcli"\nargs = ["mcp"]\n')
    assert tomllib.loads(text)["mcp_optional_startup_grace_ms"] == 10_000
    assert exit_code("hooks", "uninstall", "--agent", "codex", "-w", str(ws)) == 0
    assert config.read_text(encoding="utf-8") == CODEX_CONFIG


def test_codex_keeps_the_users_own_mcp_wait(ws: Path) -> None:
    """A wait the user chose is theirs: install leaves it, and uninstall (the file edited since,
    so no backup restores it) does not take it away."""
    own = "mcp_optional_startup_grace_ms = 0  # wait for each server's startup_timeout_sec\n"
    config = _write(ws / ".codex" / "config.toml", own)
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    assert config.read_text(encoding="utf-8").startswith(own + "\n[[hooks.SessionStart]]")
    config.write_text("# edited\n" + config.read_text(encoding="utf-8"), encoding="utf-8")
    assert exit_code("hooks", "uninstall", "--agent", "codex", "-w", str(ws)) == 0
    assert config.read_text(encoding="utf-8") == "# edited\n" + own


def test_codex_inline_table_is_reported_not_rewritten(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = 'mcp_servers = { context7 = { command = "npx" } }\n'
    config = _write(ws / ".codex" / "config.toml", text)
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 2
    assert "mcp_servers is written inline" in capsys.readouterr().err
    assert config.read_text(encoding="utf-8") == text


def test_each_agents_module_adds_its_notes_and_states(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The extension point: install and status print what memcli/agents/<agent>/wiring.py says for
    the scope asked, prefixed by the agent, and nothing for an agent that has nothing to say."""
    from memcli.agents.codex import wiring as codex

    monkeypatch.setattr(codex, "WIRING", codex.WIRING._replace(
        install_notes=lambda scope, root: [f"trust me at {scope} ({root.name})"],
        states=lambda scope, root: [f"{scope} hooks not trusted yet"]))
    assert exit_code("hooks", "install", "--agent", "all", "-w", str(ws)) == 0
    out = capsys.readouterr().out
    assert "codex: trust me at project (ws)" in out.splitlines()
    assert "claude-code: trust" not in out
    assert exit_code("hooks", "status", "--agent", "codex", "-w", str(ws)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "codex        project  project hooks not trusted yet" in lines
    assert "codex        user     user hooks not trusted yet" in lines
    assert exit_code("hooks", "status", "--agent", "codex", "--json", "-w", str(ws)) == 0
    states = json.loads(capsys.readouterr().out)["agent_states"]
    assert {"agent": "codex", "scope": "project", "state": "project hooks not trusted yet"} in states


SET = "set memory.extract_model (or install and wire a coding agent memcli can run)"
STAGED = " (memcli_remember calls are staged meanwhile)"


@pytest.mark.parametrize(("model", "litellm", "agent", "says"), [
    (None, True, False, f"waiting for a model: {SET}{STAGED}"),
    (None, False, False, f'waiting for a model: {SET} and pip install "memcli[llm]"{STAGED}'),
    ("openai/gpt-4o-mini", False, False, f'waiting for a model: pip install "memcli[llm]"{STAGED}'),
    ("openai/gpt-4o-mini", True, False, "extracting with openai/gpt-4o-mini"),
    # Claude Code wired by this install and `claude` on PATH: it is the model, litellm or not
    (None, False, True, "extracting with agent/claude-code (no memory.extract_model set)"),
    ("agent/codex", False, False, "extracting with agent/codex"),
    ("none", True, True, f'extraction off (memory.extract_model = "none"){STAGED}'),
])
def test_install_says_how_capture_extracts(ws: Path, tmp_path: Path, model: str | None, litellm: bool,
                                           agent: bool, says: str) -> None:
    """In a process where litellm cannot be found (the light install), as tests/test_llm_extra.py
    hides it; the model from memcli.toml; `agent`: an executable named `claude` on PATH (never run
    here: finding it is what the default asks)."""
    if model:
        (ws / "memcli.toml").write_text(f'[memory]\nextract_model = "{model}"\n', encoding="utf-8")
    probe = ("import sys\n" + ("" if litellm else "sys.modules['litellm'] = None\n")
             + "from memcli.cli import main\nmain(sys.argv[1:])\n")
    env = {k: v for k, v in os.environ.items() if k != "MEMCLI_EXTRACT_MODEL"}
    if agent:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "claude").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
        (bin_dir / "claude").chmod(0o755)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    done = subprocess.run([sys.executable, "-c", probe, "hooks", "install", "-w", str(ws)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    capture = [line for line in done.stdout.splitlines() if line.startswith("capture:")]
    assert capture == [f"capture: {says}"]


def test_both_scopes_wired_is_warned_at_install_and_in_status(
        ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    monkeypatch.chdir(ws)
    assert exit_code("hooks", "install", "--agent", "codex", "--scope", "user") == 0
    assert "warning" not in capsys.readouterr().out
    assert exit_code("hooks", "install", "--agent", "all", "-w", str(ws)) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning")]
    assert warnings == ["warning: codex has memcli's hooks at both project and user scope, so each can run "
                        "twice; keep one (memcli hooks uninstall --agent codex --scope user)"]
    assert exit_code("hooks", "status", "-w", str(ws)) == 0
    assert warnings[0] in capsys.readouterr().out.splitlines()
    assert exit_code("hooks", "uninstall", "--agent", "codex", "--scope", "user") == 0
    capsys.readouterr()
    assert exit_code("hooks", "status", "--json", "-w", str(ws)) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []


def test_status_of_one_scope(ws: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "gemini", "-w", str(ws)) == 0
    for scope, state in (("project", "installed"), ("user", "missing")):
        capsys.readouterr()
        argv = ["hooks", "status", "--agent", "gemini", "--scope", scope, "--json", "-w", str(ws)]
        assert exit_code(*argv) == 0
        rows = json.loads(capsys.readouterr().out)["entries"]
        assert {r["scope"] for r in rows} == {scope} and {r["state"] for r in rows} == {state}
    monkeypatch.chdir(ws.parent)  # no workspace here or above
    assert exit_code("hooks", "status", "--scope", "project") == 2
    assert "no memcli workspace" in capsys.readouterr().err
    assert exit_code("hooks", "status", "--scope", "global", "-w", str(ws)) == 2


def test_status_is_one_line_per_agent_and_scope_where_its_entries_agree(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code("hooks", "install", "--agent", "all", "-w", str(ws)) == 0
    capsys.readouterr()
    assert exit_code("hooks", "status", "-w", str(ws)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert exit_code("hooks", "status", "--json", "-w", str(ws)) == 0
    entries = json.loads(capsys.readouterr().out)["entries"]
    project = [e for e in entries if e["scope"] == "project"]
    for agent in dict.fromkeys(e["agent"] for e in project):
        mine = [e for e in project if e["agent"] == agent]
        rows = [line for line in lines if line.startswith(f"{agent:<12} project  installed  ")]
        assert len(rows) == 1, agent
        if len(mine) > 1:
            assert f"{len(mine)} entries" in rows[0]
        assert all(e["file"] in rows[0] for e in mine)
    user_missing = [line for line in lines if line.split()[1:3] == ["user", "missing"]]
    assert len(user_missing) == 1 and user_missing[0].startswith("(all)")
    assert "(all)        user     missing    nothing of memcli's at user scope (memcli hooks install " \
           "--scope user wires it)" in lines


def test_status_lists_each_entry_of_an_agent_whose_entries_differ(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for agent in ("codex", "gemini"):
        assert exit_code("hooks", "install", "--agent", agent, "--scope", "user") == 0
    settings = Path.home() / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    data["mcpServers"].pop("memcli")
    settings.write_text(json.dumps(data))
    capsys.readouterr()
    assert exit_code("hooks", "status", "--scope", "user", "-w", str(ws)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("codex        user     installed  5 entries ") for line in lines)
    assert any(line.startswith("gemini       user     missing    MCP server ") for line in lines)
    assert any(line.startswith("gemini       user     installed  SessionStart hook ") for line in lines)
    assert any(line.startswith("claude-code  user     missing    not installed ") for line in lines)


def test_install_says_when_the_agents_cannot_find_memcli(
        ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(ws / "no-bin"))
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    assert "warning: no `memcli` on PATH: the agents' hooks and MCP servers run it" in capsys.readouterr().out
    assert exit_code("hooks", "install", "--agent", "codex", "-w", str(ws)) == 0
    assert "no `memcli` on PATH" not in capsys.readouterr().out  # nothing written this time
