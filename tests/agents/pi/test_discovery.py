"""Where memcli finds a workspace's Pi sessions (memcli/agents/pi/discovery.py): Pi's folder for the
workspace, the folders of sessions started inside it, and a session folder the user gave Pi."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.transcripts import FIX

from memcli.agents.pi.discovery import encoded
from memcli.sessions import discover

SESSION = FIX / "pi" / "memcli-e2e" / "2026-12-01T18-56-43-677Z_01a232f7-649c-7716-b38f-cfdd6431d886.jsonl"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "projects" / "ws"
    (root / "memory").mkdir(parents=True)
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.setenv(var, str(tmp_path / "no-home"))  # no other agent's sessions
    for var in ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"):
        monkeypatch.delenv(var, raising=False)
    return root


def session(folder: Path, cwd: Path | str, session_id: str) -> Path:
    """A copy of a real Pi session whose header says it ran in `cwd`."""
    lines = SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    header = dict(json.loads(lines[0]), id=session_id, cwd=str(cwd))
    path = folder / f"2026-12-01T18-56-43-677Z_{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return path


def found(ws: Path) -> dict[str, str]:
    return {i.session_id: i.agent for i in discover(ws, scan=False)}


def test_the_folder_pi_names_after_the_workspace_and_those_of_folders_inside_it(ws: Path) -> None:
    sessions = Path.home() / ".pi" / "agent" / "sessions"
    assert encoded(str(ws)) == "--" + str(ws).lstrip("/").replace("/", "-") + "--"
    session(sessions / encoded(str(ws)), ws, "s-root")
    session(sessions / encoded(str(ws / "src")), ws / "src", "s-inside")
    # `ws-other` encodes to a name that starts like a folder inside ws would: its cwd says otherwise
    session(sessions / encoded(f"{ws}-other"), f"{ws}-other", "s-sibling")
    session(sessions / encoded(str(ws.parent)), ws.parent, "s-parent")
    assert found(ws) == {"s-root": "pi", "s-inside": "pi"}


def test_pis_own_dir_and_memclis_setting_move_it(ws: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    moved = tmp_path / "pi-agent"
    session(moved / "sessions" / encoded(str(ws)), ws, "s-moved")
    session(Path.home() / ".pi" / "agent" / "sessions" / encoded(str(ws)), ws, "s-default")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(moved))
    assert found(ws) == {"s-moved": "pi"}
    (ws / "memcli.toml").write_text('[sessions]\npi_home = "../../elsewhere"\n', encoding="utf-8")
    session(tmp_path / "elsewhere" / "sessions" / encoded(str(ws)), ws, "s-configured")
    assert found(ws) == {"s-configured": "pi"}  # relative to the workspace


def test_a_session_folder_the_user_gave_pi_holds_every_project_side_by_side(
        ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (ws / ".pi").mkdir()
    (ws / ".pi" / "settings.json").write_text(json.dumps({"sessionDir": ".pi/sessions"}), encoding="utf-8")
    session(ws / ".pi" / "sessions", ws, "s-project-setting")
    session(ws / ".pi" / "sessions", tmp_path / "another-project", "s-not-ours")
    assert found(ws) == {"s-project-setting": "pi"}
    shared = tmp_path / "all-pi-sessions"
    session(shared, ws / "docs", "s-env")
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(shared))  # before any settings.json, as in Pi
    assert found(ws) == {"s-env": "pi"}
