"""Real processes: SIGKILL during the conversation and during apply, and two runs at once."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from consolidate.helpers import git, head, snapshot
from consolidate.test_run import NEW, OLD, done, replace_old, settle, write_new_decision
from support.fake_llm import Reply

from memcli.consolidate import journal, lock
from memcli.consolidate.run import Options, run
from memcli.workspace import Workspace

_STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _reap():
    """A failed assertion must not leave a memcli process running into the next test."""
    yield
    while _STARTED:
        proc = _STARTED.pop()
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _memcli(ws, *args: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "memcli", *args, "-w", str(ws)], start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _STARTED.append(proc)
    return proc


def _wait(cond, what: str, timeout: float = 180.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _kill_group(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def _files(root):
    return {k: v for k, v in snapshot(root).items() if not k.endswith(lock.LOCK_NAME)}


def _status(ws) -> tuple[int, str]:
    proc = _memcli(ws, "status")
    out, err = proc.communicate(timeout=180)
    return proc.returncode, out + err


def test_sigkill_during_conversation_loses_nothing_and_next_run_reclaims(repo_ws, fake_llm, capsys):
    before, before_head = _files(repo_ws), head(repo_ws)
    fake_llm.push(write_new_decision(), Reply(content="thinking", delay=120))
    proc = _memcli(repo_ws, "consolidate")
    _wait(lambda: fake_llm.calls >= 2, "the second model call")
    _kill_group(proc)
    assert _files(repo_ws) == before and head(repo_ws) == before_head
    assert lock.read_lock(Workspace.open(repo_ws)).pid == proc.pid  # left behind by the dead run
    code, out = _status(repo_ws)
    assert code == 1 and "interrupted" in out and "stale" in out
    fake_llm.push(write_new_decision(), settle(), done())
    assert run(Workspace.open(repo_ws), Options()) == 0  # the dead owner's lock is reclaimed
    assert (repo_ws / NEW).is_file() and head(repo_ws) != before_head


def test_sigkill_during_apply_is_rolled_back_by_next_command(repo_ws, fake_llm, tmp_path):
    marker = tmp_path / "in-hook"
    hook = repo_ws / ".git/hooks/pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\nsleep 120\n")
    hook.chmod(0o755)
    before, before_head = _files(repo_ws), head(repo_ws)
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    proc = _memcli(repo_ws, "consolidate")
    _wait(marker.exists, "the commit step")
    _kill_group(proc)  # memcli, git and the hook: as if the machine went down mid-apply
    ws = Workspace.open(repo_ws)
    assert journal.journal_path(ws).exists() and (repo_ws / NEW).is_file()  # really killed mid-apply
    hook.unlink()
    (repo_ws / ".git/index.lock").unlink(missing_ok=True)  # git was killed too
    code, out = _status(repo_ws)
    assert "rolled back the interrupted apply step" in out, out
    assert _files(repo_ws) == before and head(repo_ws) == before_head
    assert git(repo_ws, "status", "--porcelain").strip() == ""


def test_kill_after_git_committed_is_completed_by_next_command(repo_ws, fake_llm):
    hook = repo_ws / ".git/hooks/pre-commit"
    # kill memcli (git's parent) and let git finish the commit: the journal still says "applying"
    hook.write_text("#!/bin/sh\nkill -9 $(awk '{print $4}' /proc/$PPID/stat)\nexit 0\n")
    hook.chmod(0o755)
    before_head = head(repo_ws)
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    proc = _memcli(repo_ws, "consolidate")
    proc.wait(timeout=180)
    assert proc.returncode == -signal.SIGKILL
    _wait(lambda: head(repo_ws) != before_head and not (repo_ws / ".git/index.lock").exists(), "git's commit")
    ws = Workspace.open(repo_ws)
    assert journal.journal_path(ws).exists() and (repo_ws / "memory/_staging/s1.json").exists()
    hook.unlink()
    code, out = _status(repo_ws)
    assert "completed the apply step" in out, out
    assert not journal.journal_path(ws).exists() and not (repo_ws / "memory/_staging/s1.json").exists()
    assert "status: replaced" in (repo_ws / OLD).read_text() and (repo_ws / NEW).is_file()
    assert git(repo_ws, "status", "--porcelain").strip() == ""


def test_two_runs_at_once(repo_ws, fake_llm):
    before, before_head = _files(repo_ws), head(repo_ws)
    fake_llm.push(Reply(content="slow", delay=120))
    first = _memcli(repo_ws, "consolidate")
    _wait(lambda: fake_llm.calls >= 1, "the first run's model call")
    status = _memcli(repo_ws, "status", "--json")
    data = json.loads(status.communicate(timeout=180)[0])
    assert data["lock"]["pid"] == first.pid and data["lock"]["alive"] is True
    assert data["lock"]["consumed"] == ["s1"]
    second = _memcli(repo_ws, "consolidate")
    out, err = second.communicate(timeout=180)
    assert second.returncode == lock.EXIT_LOCKED
    assert f"another consolidation is running (pid {first.pid}" in err
    assert fake_llm.calls == 1  # the second run never reached the model
    _kill_group(first)
    assert _files(repo_ws) == before and head(repo_ws) == before_head
