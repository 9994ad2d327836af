"""Which of Copilot CLI's sessions (one folder for every project) are the workspace's: those whose
`session.start` names the workspace, or a folder inside it, as where they started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memcli.sessions import discover


def _session(home: Path, session_id: str, cwd: Path | str, *, legacy: bool = False) -> Path:
    start = {"type": "session.start", "id": "e1", "timestamp": "2026-12-01T10:00:00.000Z", "parentId": None,
             "data": {"sessionId": session_id, "version": 1, "producer": "copilot-agent",
                      "copilotVersion": "1.0.102", "startTime": "2026-12-01T10:00:00.000Z",
                      "context": {"cwd": str(cwd), "gitRoot": str(cwd)}}}
    said = {"type": "user.message", "id": "e2", "timestamp": "2026-12-01T10:00:01.000Z", "parentId": "e1",
            "data": {"content": f"hello from {session_id}"}}
    state = home / "session-state"
    path = state / f"{session_id}.jsonl" if legacy else state / session_id / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(start) + "\n" + json.dumps(said) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    return root


def test_the_workspaces_sessions_and_no_others(ws: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "copilot-home"
    monkeypatch.setenv("COPILOT_HOME", str(home))
    mine = _session(home, "s-root", ws)
    inside = _session(home, "s-sub", ws / "src")
    legacy = _session(home, "s-old", ws, legacy=True)  # 0.0.3xx: session-state/<id>.jsonl
    _session(home, "s-other", tmp_path / "other")
    _session(home, "s-prefix", tmp_path / "ws-2")  # a name that only starts like the workspace's
    (home / "session-state" / "s-broken").mkdir()
    (home / "session-state" / "s-broken" / "events.jsonl").write_text("{not json\n", encoding="utf-8")
    found = {i.session_id: i for i in discover(ws)}
    assert set(found) == {"s-root", "s-sub", "s-old"}
    assert [found[s].path for s in ("s-root", "s-sub", "s-old")] == [mine, inside, legacy]
    assert {i.agent for i in found.values()} == {"copilot-cli"} and found["s-sub"].entries == 1


def test_sessions_config_moves_the_home(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "nowhere"))
    _session(ws / "copilot-state", "s-moved", ws)
    (ws / "memcli.toml").write_text('[sessions]\ncopilot_home = "copilot-state"\n', encoding="utf-8")
    assert [i.session_id for i in discover(ws)] == ["s-moved"]  # relative to the workspace


def test_the_default_home(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    _session(Path.home() / ".copilot", "s-home", ws)
    assert [i.session_id for i in discover(ws)] == ["s-home"]
