from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from memcli.consolidate import lock
from memcli.workspace import Workspace


def _ws(tmp_path):
    (tmp_path / "memory" / "_staging").mkdir(parents=True)
    return Workspace(tmp_path)


def test_acquire_writes_owner_and_consumed_ids(tmp_path):
    ws = _ws(tmp_path)
    info = lock.acquire(ws, "run1", ["a", "b"])
    data = json.loads(lock.lock_path(ws).read_text())
    assert data["pid"] == os.getpid() and data["host"] == socket.gethostname()
    assert data["consumed"] == ["a", "b"] and data["run_id"] == "run1"
    assert lock.read_lock(ws) == info


def test_live_lock_refuses_second_run_with_exit_code_4(tmp_path):
    ws = _ws(tmp_path)
    lock.acquire(ws, "run1", [])
    with pytest.raises(lock.LockHeld) as err:
        lock.acquire(ws, "run2", [])
    assert err.value.exit_code == lock.EXIT_LOCKED == 4
    assert f"pid {os.getpid()}" in str(err.value)


def test_lock_of_dead_process_is_reclaimed(tmp_path):
    ws = _ws(tmp_path)
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: the pid no longer exists
    host = socket.gethostname()
    stale = {"pid": proc.pid, "host": host, "started_at": "x", "run_id": "old", "consumed": []}
    lock.lock_path(ws).write_text(json.dumps(stale))
    info = lock.acquire(ws, "new", ["c"])
    assert lock.read_lock(ws) == info and info.run_id == "new"


def test_lock_from_other_host_is_never_reclaimed(tmp_path):
    ws = _ws(tmp_path)
    other = {"pid": 1, "host": "elsewhere.invalid", "started_at": "x", "run_id": "old", "consumed": []}
    lock.lock_path(ws).write_text(json.dumps(other))
    with pytest.raises(lock.LockHeld, match="elsewhere.invalid"):
        lock.acquire(ws, "new", [])


def test_release_leaves_someone_elses_lock(tmp_path):
    ws = _ws(tmp_path)
    mine = lock.acquire(ws, "run1", [])
    lock.lock_path(ws).unlink()
    theirs = lock.acquire(ws, "run2", [])
    lock.release(ws, mine)
    assert lock.read_lock(ws) == theirs
    lock.release(ws, theirs)
    assert not lock.lock_path(ws).exists()


def test_update_records_new_consumed_set(tmp_path):
    ws = _ws(tmp_path)
    info = lock.update(ws, lock.acquire(ws, "r", ["a"]), ["b", "c"])
    assert lock.read_lock(ws).consumed == ("b", "c") == info.consumed


def test_lock_of_reused_pid_is_reclaimed(tmp_path):
    ws = _ws(tmp_path)
    mine = lock.process_tag(os.getpid())
    if mine is None:
        pytest.skip("no /proc here")
    host = socket.gethostname()
    # our own pid, but recorded for a process that started at another time: the owner is gone
    reused = {"pid": os.getpid(), "host": host, "started_at": "x", "run_id": "old", "consumed": [],
              "proc": mine + "0"}
    lock.lock_path(ws).write_text(json.dumps(reused))
    assert lock.holder_alive(lock.read_lock(ws)) is False
    assert lock.acquire(ws, "new", []).run_id == "new"
    assert lock.holder_alive(lock.read_lock(ws)) is True


def test_no_guard_file_stays_behind_and_racing_runs_still_exclude_each_other(tmp_path):
    """The guard serialising check-and-reclaim is removed after use (no 0-byte file left in staging);
    removing it must not let two processes racing for a stale lock both win."""
    ws = _ws(tmp_path)
    info = lock.acquire(ws, "run1", [])
    lock.release(ws, info)
    assert sorted(p.name for p in ws.staging_dir.iterdir()) == []
    host = socket.gethostname()
    script = (  # each holds on (stdin open) until all have answered: a winner that exited would be stale
        "import sys\nfrom pathlib import Path\nfrom memcli.consolidate import lock\n"
        "from memcli.workspace import Workspace\n"
        "try:\n    lock.acquire(Workspace(Path(sys.argv[1])), sys.argv[2], [])\n"
        "    print('won', flush=True)\n"
        "except lock.LockHeld:\n    print('lost', flush=True)\nsys.stdin.read()\n")
    for round_no in range(5):
        gone = subprocess.Popen([sys.executable, "-c", "pass"])
        gone.wait()
        lock.lock_path(ws).write_text(json.dumps(
            {"pid": gone.pid, "host": host, "started_at": "x", "run_id": "old", "consumed": []}))
        procs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path), f"r{round_no}-{i}"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for i in range(4)]
        outcomes = sorted(p.stdout.readline().strip() for p in procs)
        for p in procs:
            p.communicate("")
        assert outcomes == ["lost", "lost", "lost", "won"]
        assert not (ws.staging_dir / (lock.LOCK_NAME + ".guard")).exists()
        lock.lock_path(ws).unlink()


def test_held_lock_answers_4_before_the_dirty_check(repo_ws, fake_llm):
    """A second run while the first applies (its files written, not yet committed) must say "locked",
    never "uncommitted changes: commit or discard them", which would wreck the first run's commit."""
    from support.git import git

    from memcli.consolidate.run import Options, run

    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        ws = Workspace.open(repo_ws)
        holder = {"pid": owner.pid, "host": socket.gethostname(), "started_at": "x", "run_id": "first",
                  "consumed": ["s1"], "proc": lock.process_tag(owner.pid)}
        lock.lock_path(ws).write_text(json.dumps(holder))
        summary = repo_ws / "memory/summary.md"
        summary.write_text(summary.read_text() + "\n- written by the first run's apply\n")
        assert git(repo_ws, "status", "--porcelain").strip()  # dirty, as mid-apply
        with pytest.raises(lock.LockHeld, match=f"pid {owner.pid}"):
            run(ws, Options())
        with pytest.raises(lock.LockHeld):
            run(ws, Options(if_needed=True))
        assert fake_llm.calls == 0 and json.loads(lock.lock_path(ws).read_text()) == holder
    finally:
        owner.kill()
        owner.wait()
