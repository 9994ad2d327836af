"""Finding a workspace's OpenCode sessions in OpenCode's one database for every folder
(memcli/agents/opencode/discovery.py), keeping up with what its write-ahead log holds, and capturing
exactly the session a hook names."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from extract.helpers import make_ws, staged
from support.fake_llm import Reply
from support.hook_payloads import ITEMS
from support.opencode_db import MAIN, OTHER, SUBAGENT, add_part, copy_db

from memcli.hooks import capture
from memcli.sessions import discover
from memcli.sessions.query import parse_since
from memcli.workspace import Workspace


def data_home() -> Path:
    return Path.home() / ".local" / "share" / "opencode"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    """The workspace is `app/`, the folder the fixture's first two sessions ran in."""
    return make_ws(tmp_path / "app")


def ids(found: list) -> set[str]:
    return {info.session_id for info in found}


def test_only_the_workspaces_sessions_are_its(ws: Workspace, tmp_path: Path) -> None:
    copy_db(data_home() / "opencode.db", tmp_path)
    found = discover(ws)
    assert ids(found) == {MAIN, SUBAGENT}  # not the session that ran in other/
    assert {info.agent for info in found} == {"opencode"}
    explicit = discover(ws, paths=[data_home() / "opencode.db"])
    assert ids(explicit) == {MAIN, SUBAGENT, OTHER}  # a file given explicitly is read whole


def test_a_session_started_in_a_subfolder_is_the_workspaces(ws: Workspace, tmp_path: Path) -> None:
    db = copy_db(data_home() / "opencode.db", tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE session SET directory = ? WHERE id = ?", (str(ws.root / "src" / "api"), OTHER))
    conn.execute("UPDATE session SET directory = ? WHERE id = ?", (f"{ws.root}-old", SUBAGENT))
    conn.commit()
    conn.close()
    assert ids(discover(ws)) == {MAIN, OTHER}  # `app-old` is another folder


@pytest.mark.parametrize("where", ["xdg", "config", "opencode_db", "channel"])
def test_where_the_database_is(where: str, ws: Workspace, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    moved = tmp_path / "elsewhere"
    if where == "xdg":
        monkeypatch.setenv("XDG_DATA_HOME", str(moved))
        copy_db(moved / "opencode" / "opencode.db", tmp_path)
    elif where == "config":
        copy_db(moved / "opencode.db", tmp_path)
        (ws.root / "memcli.toml").write_text((ws.root / "memcli.toml").read_text(encoding="utf-8")
                                             + f'\n[sessions]\nopencode_home = "{moved}"\n', encoding="utf-8")
        ws = Workspace.open(ws.root)
    elif where == "opencode_db":
        monkeypatch.setenv("OPENCODE_DB", "mine/sessions.db")  # relative to the data folder
        copy_db(data_home() / "mine" / "sessions.db", tmp_path)
    else:
        copy_db(data_home() / "opencode-dev.db", tmp_path)  # a release channel of its own
    assert ids(discover(ws)) == {MAIN, SUBAGENT}


def test_what_sits_in_the_write_ahead_log_counts(ws: Workspace, tmp_path: Path) -> None:
    """OpenCode's changes stay in `opencode.db-wal` until a checkpoint: `--since` and the scan cache
    look at it too."""
    db = copy_db(data_home() / "opencode.db", tmp_path, wal=True)
    before = {info.session_id: info.entries for info in discover(ws)}
    long_ago = time.time() - 3 * 86400
    os.utime(db, (long_ago, long_ago))
    assert discover(ws, since=parse_since("1d")) == []  # the file has not changed since yesterday
    writer = add_part(db, MAIN, {"type": "text", "text": "and one more thing"}, at_ms=int(time.time() * 1000))
    try:
        os.utime(db, (long_ago, long_ago))  # the database file itself is untouched
        found = {info.session_id: info.entries for info in discover(ws, since=parse_since("1d"))}
        assert found[MAIN] == before[MAIN] + 1  # read again, not the cached count
    finally:
        writer.close()


def test_capture_extracts_the_hooks_session_alone(ws: Workspace, tmp_path: Path, fake_llm) -> None:
    """The database holds other sessions of the workspace: a session end extracts only its own."""
    fake_llm.responder = lambda body: Reply(content=ITEMS)
    db = copy_db(data_home() / "opencode.db", tmp_path)
    call = {"type": "tool", "tool": "memcli_memcli_remember", "callID": "call_sub",
            "state": {"status": "completed", "input": {"kind": "rule", "text": "Reply in Japanese."},
                      "output": "{}"}}
    add_part(db, SUBAGENT, call).close()
    assert capture.capture(ws, MAIN, None, event="dispose") == 0
    files = staged(ws)
    assert files and {f.source.session_id for f in files} == {MAIN}
    kept = json.dumps([f.model_dump(mode="json") for f in files], ensure_ascii=False)
    assert "バックアップは NAS に30日分保存する。" in kept and "Reply in Japanese." not in kept


def test_an_unchanged_database_is_not_read_again(ws: Workspace, tmp_path: Path) -> None:
    """Reading OpenCode's database (in WAL mode, as OpenCode keeps it) leaves an empty `-wal` file
    beside it: that is no change, and the scan cache still answers for it."""
    db = copy_db(data_home() / "opencode.db", tmp_path, wal=True)
    first = {info.session_id: info.entries for info in discover(ws)}
    assert Path(f"{db}-wal").stat().st_size == 0
    cache_file = ws.state_dir / "sessions-scan.json"
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    (cached,) = data["files"].values()
    cached["sessions"][MAIN]["entries"] = 999  # what only the cache says
    cache_file.write_text(json.dumps(data), encoding="utf-8")
    assert {info.session_id: info.entries for info in discover(ws)} == {**first, MAIN: 999}
    opencode = sqlite3.connect(db)  # OpenCode opening and closing it takes the empty `-wal` away
    opencode.execute("SELECT COUNT(*) FROM session").fetchone()
    opencode.close()
    assert not Path(f"{db}-wal").exists()
    assert {info.session_id: info.entries for info in discover(ws)} == {**first, MAIN: 999}
