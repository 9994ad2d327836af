"""Discovery: each agent's home layout, env and config overrides, --since, explicit paths, ids."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from memcli.errors import MemcliError, UsageError
from memcli.sessions import discover, find_session
from memcli.workspace import Workspace

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
PRIVATE = FIX / "claude-code" / "codemie-ai__codemie-code" / "-tmp-private"
TURN2 = FIX / "claude-code" / "codemie-ai__codemie-code" / "incremental-subagents"
CODEX = next((FIX / "codex").rglob("rollout-*.jsonl"))
GEMINI = next((FIX / "gemini-cli").rglob("session-*.json"))
AIDER = FIX / "aider" / "Aider-AI__aider" / "chat-history.md"


def _codex_copy(dest: Path, cwd: str, new_id: str | None = None) -> Path:
    lines = CODEX.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])
    meta["payload"]["cwd"] = cwd
    if new_id:
        meta["payload"]["id"] = new_id
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return dest


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Path]]:
    """A workspace with sessions of all four agents under fake agent homes (set by env vars)."""
    ws = tmp_path / "my_project.v2"
    (ws / "memory").mkdir(parents=True)
    root = str(ws.resolve())
    claude, codex, gemini_home = tmp_path / "claude", tmp_path / "codex", tmp_path / "ghome"
    project = claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", root)
    shutil.copytree(PRIVATE, project)
    shutil.copy(TURN2 / "turn-2.jsonl", project)
    shutil.copytree(TURN2 / "turn-2", project / "turn-2")
    (claude / "projects" / "-some-other-project").mkdir()
    shutil.copy(PRIVATE / "agent-50243ee8.jsonl", claude / "projects" / "-some-other-project" / "x.jsonl")
    day = codex / "sessions" / "2026" / "05"
    _codex_copy(day / "11" / CODEX.name, root)
    _codex_copy(day / "12" / "rollout-sub.jsonl", root + "/src", "in-subfolder")
    _codex_copy(day / "12" / "rollout-other.jsonl", "/elsewhere", "other-cwd")
    chats = gemini_home / ".gemini" / "tmp" / hashlib.sha256(root.encode()).hexdigest() / "chats"
    chats.mkdir(parents=True)
    shutil.copy(GEMINI, chats)
    shutil.copy(AIDER, ws / ".aider.chat.history.md")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini_home))
    return ws, {"claude": claude, "codex": codex, "gemini": gemini_home}


def test_discovers_every_agent_for_this_workspace_only(homes) -> None:
    ws, _ = homes
    infos = discover(Workspace.open(ws))
    by_agent: dict[str, set[str]] = {}
    for info in infos:
        by_agent.setdefault(info.agent, set()).add(info.session_id)
    assert by_agent["claude-code"] == {
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257", "4c2ddfdc-b619-4525-8d03-1950fb1b0257/agent-36541525",
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257/agent-50243ee8", "turn-2", "turn-2/agent-a485154"}
    assert by_agent["codex"] == {"019e1625-789d-76c0-80ab-3724b5ddb799", "in-subfolder"}  # not other-cwd
    assert by_agent["gemini-cli"] == {"37b7abef-713d-4522-85f0-8ff15a4e6d17"}
    assert len(by_agent["aider"]) == 38 and "aider.chat.history@93" in by_agent["aider"]
    turn2 = next(i for i in infos if i.session_id == "turn-2")
    assert turn2.entries == 26 and turn2.size == (TURN2 / "turn-2.jsonl").stat().st_size
    firsts = [i.first_time for i in infos if i.first_time]
    assert firsts == sorted(firsts)


def test_claude_sessions_started_in_a_subfolder(homes) -> None:
    ws, where = homes
    root = str(ws.resolve())
    text = (PRIVATE / "agent-50243ee8.jsonl").read_text(encoding="utf-8")
    for sub, name in (("/src/app", "in-sub.jsonl"), ("-other", "sibling.jsonl")):  # same encoded prefix
        folder = where["claude"] / "projects" / re.sub(r"[^A-Za-z0-9]", "-", root + sub)
        folder.mkdir()
        moved = text.replace('"cwd":"/tmp/private"', json.dumps({"cwd": root + sub})[1:-1])
        (folder / name).write_text(moved, encoding="utf-8")
    ids = {i.session_id for i in discover(Workspace.open(ws), scan=False) if i.agent == "claude-code"}
    assert "in-sub" in ids and "sibling" not in ids


GEMINI_JSONL = FIX / "gemini-cli" / "memcli-e2e" / "session-2026-12-01T16-19-3b726bda.jsonl"


def _gemini_session(gemini_home: Path, project: str, owner: str, session_id: str,
                    registry: bool = True) -> None:
    """A Gemini CLI 0.61 session: tmp/<project name>/chats/*.jsonl, the name in projects.json."""
    folder = gemini_home / ".gemini" / "tmp" / project
    (folder / "chats").mkdir(parents=True)
    (folder / ".project_root").write_text(owner, encoding="utf-8")
    lines = GEMINI_JSONL.read_text(encoding="utf-8").splitlines(keepends=True)
    header = dict(json.loads(lines[0]), sessionId=session_id)
    name = f"session-2026-12-01T16-19-{session_id[:8]}.jsonl"
    (folder / "chats" / name).write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    if registry:
        path = gemini_home / ".gemini" / "projects.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"projects": {}}
        data["projects"][owner] = project
        path.write_text(json.dumps(data), encoding="utf-8")


def test_gemini_061_sessions_by_project_name(homes) -> None:
    """0.61 names a project's folder after it (projects.json; `.project_root` inside names the owner),
    and moves the sha256 folders there, `.json` files and all: both layouts are read."""
    ws, where = homes
    root = str(ws.resolve())
    _gemini_session(where["gemini"], "my-project-v2", root, "aaaa0001-main")
    _gemini_session(where["gemini"], "my-project-v2-1", root + "/src", "aaaa0002-in-subfolder")
    _gemini_session(where["gemini"], "my-project-v2-2", root + "-other", "aaaa0003-sibling")
    _gemini_session(where["gemini"], "lost-registry", root, "aaaa0004-marker-only", registry=False)
    gemini = {i.session_id: i for i in discover(Workspace.open(ws)) if i.agent == "gemini-cli"}
    assert set(gemini) == {"37b7abef-713d-4522-85f0-8ff15a4e6d17", "aaaa0001-main", "aaaa0002-in-subfolder",
                           "aaaa0004-marker-only"}
    assert gemini["aaaa0001-main"].entries == 5 and gemini["aaaa0001-main"].skipped == 0


def test_gemini_projects_json_unreadable_is_not_an_error(homes) -> None:
    ws, where = homes
    _gemini_session(where["gemini"], "my-project-v2", str(ws.resolve()), "aaaa0001-main")
    (where["gemini"] / ".gemini" / "projects.json").write_text("{not json", encoding="utf-8")
    ids = {i.session_id for i in discover(Workspace.open(ws), scan=False) if i.agent == "gemini-cli"}
    assert "aaaa0001-main" in ids  # found through its folder's .project_root


def test_config_homes_override_env(homes, tmp_path: Path) -> None:
    ws, where = homes
    moved = tmp_path / "elsewhere-claude"
    shutil.move(where["claude"], moved)
    (ws / "memcli.toml").write_text(f'[sessions]\nclaude_home = "{moved}"\ncodex_home = "nothing-here"\n',
                                    encoding="utf-8")
    agents = {i.agent for i in discover(Workspace.open(ws), scan=False)}
    assert "claude-code" in agents and "codex" not in agents  # codex_home is relative to the workspace


def test_config_paths_add_files(homes, tmp_path: Path) -> None:
    ws, _ = homes
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "chat.jsonl").write_text('{"role": "user", "content": "hello"}\n', encoding="utf-8")
    (ws / "memcli.toml").write_text(f'[sessions]\npaths = ["{extra}"]\n', encoding="utf-8")
    infos = discover(Workspace.open(ws))
    plain = [i for i in infos if i.agent == "memcli-jsonl"]
    assert [(i.session_id, i.entries) for i in plain] == [("chat", 1)]
    assert any(i.agent == "codex" for i in infos)  # added to discovery, not replacing it


def test_explicit_paths_replace_discovery(homes) -> None:
    ws, _ = homes
    infos = discover(Workspace.open(ws), paths=[GEMINI])
    assert [i.session_id for i in infos] == ["37b7abef-713d-4522-85f0-8ff15a4e6d17"]
    folder = discover(Workspace.open(ws), paths=[FIX / "claude-code"])
    assert len(folder) == 9 and {i.agent for i in folder} == {"claude-code"}


def test_since_keeps_recent_sessions(homes) -> None:
    ws, where = homes
    old = dt.datetime(2020, 1, 1, tzinfo=dt.UTC).timestamp()
    for path in where["claude"].rglob("*.jsonl"):
        os.utime(path, (old, old))  # an untouched file cannot hold a recent entry
    since = dt.datetime(2026, 1, 15, tzinfo=dt.UTC)
    ids = {i.session_id for i in discover(Workspace.open(ws), since=since) if i.agent != "aider"}
    assert ids == {"019e1625-789d-76c0-80ab-3724b5ddb799", "in-subfolder",
                   "37b7abef-713d-4522-85f0-8ff15a4e6d17"}


def test_find_session_by_id_prefix_and_errors(homes) -> None:
    ws, _ = homes
    workspace = Workspace.open(ws)
    assert find_session(workspace, "turn-2").session_id == "turn-2"  # exact beats prefix of turn-2/agent-…
    found = find_session(workspace, "019e1625", scan=True)
    assert found.agent == "codex" and found.entries == 224
    assert find_session(workspace, "aider.chat.history@102").extra["start"] == 102
    with pytest.raises(UsageError, match="ambiguous"):
        find_session(workspace, "4c2ddfdc-b619-4525-8d03-1950fb1b0257/agent-")
    with pytest.raises(MemcliError, match="no session 'deadbeef'"):
        find_session(workspace, "deadbeef")


def test_no_agent_homes_means_no_sessions(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    assert discover(Workspace.open(ws)) == []


def test_scan_results_are_cached_until_the_file_changes(homes) -> None:
    ws, where = homes
    workspace = Workspace.open(ws)
    first = {i.session_id: i for i in discover(workspace)}
    cache_file = workspace.state_dir / "sessions-scan.json"
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    turn2 = next(k for k in data["files"] if k.endswith("turn-2.jsonl"))
    data["files"][turn2]["sessions"]["turn-2"]["entries"] = 999  # what a stale cache would say
    cache_file.write_text(json.dumps(data), encoding="utf-8")
    again = {i.session_id: i for i in discover(workspace)}
    assert again["turn-2"].entries == 999  # unchanged file: not read again
    assert again["turn-2"].last_time == first["turn-2"].last_time
    with Path(turn2).open("a", encoding="utf-8") as fh:  # the agent appends: size and mtime change
        fh.write(json.dumps({"type": "user", "uuid": "n", "sessionId": "turn-2",
                             "timestamp": "2026-02-01T00:00:00Z",
                             "message": {"role": "user", "content": "one more"}}) + "\n")
    fresh = {i.session_id: i for i in discover(workspace)}
    assert fresh["turn-2"].entries == 27
    assert fresh["turn-2"].last_time == dt.datetime(2026, 2, 1, tzinfo=dt.UTC)
    cache_file.write_text("{ not json", encoding="utf-8")
    assert {i.session_id: i.entries for i in discover(workspace)} == {k: v.entries for k, v in fresh.items()}
