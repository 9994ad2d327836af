"""Real processes: SIGKILL during the conversation and during apply, and two runs at once."""

from __future__ import annotations

import contextlib
import json
import os
import signal

from consolidate.helpers import (
    GatedHook,
    alive,
    git,
    head,
    kill_group,
    memcli,
    parent_of,
    snapshot,
    status_of,
    wait_for,
)
from consolidate.test_run import NEW, OLD, done, replace_old, settle, write_new_decision
from support.fake_llm import Reply

from memcli.consolidate import journal, lock
from memcli.consolidate.run import Options, run
from memcli.workspace import Workspace


def _files(root):
    return {k: v for k, v in snapshot(root).items() if not k.endswith(lock.LOCK_NAME)}


def test_sigkill_during_conversation_loses_nothing_and_next_run_reclaims(repo_ws, fake_llm, capsys):
    before, before_head = _files(repo_ws), head(repo_ws)
    fake_llm.push(write_new_decision(), Reply(content="thinking", delay=120))
    proc = memcli(repo_ws, "consolidate")
    wait_for(lambda: fake_llm.calls >= 2, "the second model call")
    kill_group(proc)
    assert _files(repo_ws) == before and head(repo_ws) == before_head
    assert lock.read_lock(Workspace.open(repo_ws)).pid == proc.pid  # left behind by the dead run
    code, out = status_of(repo_ws)
    assert code == 1 and "interrupted" in out and "stale" in out
    fake_llm.push(write_new_decision(), settle(), done())
    assert run(Workspace.open(repo_ws), Options()) == 0  # the dead owner's lock is reclaimed
    assert (repo_ws / NEW).is_file() and head(repo_ws) != before_head


def _index_untouched(root):
    """The real index holds no change of the run and no lock: only HEAD moving commits anything."""
    assert not (root / ".git/index.lock").exists()
    assert git(root, "diff", "--cached", "--name-only").strip() == ""


def _old_state(root, before, before_head):
    assert _files(root) == before and head(root) == before_head
    assert git(root, "status", "--porcelain").strip() == ""


def _in_hook(repo_ws, fake_llm, tmp_path, then="exit 0", name="pre-commit"):
    """Start `memcli consolidate` and return once it waits inside the hook `name`."""
    hook = GatedHook(repo_ws, tmp_path, then, name)
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    proc = memcli(repo_ws, "consolidate")
    hook_pid = hook.wait()
    return proc, hook, hook_pid, parent_of(hook_pid)


def _next_run_commits(repo_ws, fake_llm, before_head):
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    assert run(Workspace.open(repo_ws), Options()) == 0
    assert head(repo_ws) != before_head and (repo_ws / NEW).is_file()
    assert git(repo_ws, "status", "--porcelain").strip() == ""


def test_everything_killed_inside_pre_commit_hook_leaves_index_clean(repo_ws, fake_llm, tmp_path):
    """Issue 12 §1: memcli, git and the hook all SIGKILLed, as when the machine goes down."""
    before, before_head = _files(repo_ws), head(repo_ws)
    proc, hook, hook_pid, git_pid = _in_hook(repo_ws, fake_llm, tmp_path)
    os.killpg(os.getpgid(git_pid), signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        kill_group(proc)
    proc.wait(timeout=30)
    wait_for(lambda: not alive(hook_pid) and not alive(git_pid), "the hook and git to die")
    assert (repo_ws / NEW).is_file()  # really killed mid-apply
    _index_untouched(repo_ws)
    hook.path.unlink()
    code, out = status_of(repo_ws)
    assert "rolled back the interrupted apply step" in out and code == 1, out
    assert "killed while applying its result; rolled back" in out  # the last run, told truthfully
    _old_state(repo_ws, before, before_head)
    _next_run_commits(repo_ws, fake_llm, before_head)
    assert status_of(repo_ws)[0] == 0


def test_memcli_group_killed_while_git_waits_in_hook(repo_ws, fake_llm, tmp_path):
    """Issue 12 §1 + §2: the run's git outlives memcli's process group; recovery must end it
    before deciding, or it would commit after the old files were put back."""
    before, before_head = _files(repo_ws), head(repo_ws)
    proc, hook, hook_pid, git_pid = _in_hook(repo_ws, fake_llm, tmp_path)
    kill_group(proc)
    code, out = status_of(repo_ws)
    released = hook.release()  # if git still waited there, it would now go on and commit
    wait_for(lambda: not alive(hook_pid) and not alive(git_pid), "the run's git to end")
    assert not released
    assert "rolled back the interrupted apply step" in out and code == 1, out
    _old_state(repo_ws, before, before_head)
    hook.path.unlink()
    _next_run_commits(repo_ws, fake_llm, before_head)


def test_memcli_killed_while_its_git_child_runs(repo_ws, fake_llm, tmp_path):
    """Issue 12 §2: only memcli is killed; its git child waits in the hook meanwhile."""
    before, before_head = _files(repo_ws), head(repo_ws)
    proc, hook, hook_pid, git_pid = _in_hook(repo_ws, fake_llm, tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert alive(git_pid)
    code, out = status_of(repo_ws)
    released = hook.release()
    wait_for(lambda: not alive(hook_pid) and not alive(git_pid), "the run's git to end")
    assert not released and head(repo_ws) == before_head  # no commit landed after the rollback
    assert "rolled back the interrupted apply step" in out and code == 1, out
    _old_state(repo_ws, before, before_head)


def test_everything_killed_in_post_commit_hook_is_completed(repo_ws, fake_llm, tmp_path):
    """Past the point of no return (HEAD moved): the next command finishes the job, index included."""
    before_head = head(repo_ws)
    proc, hook, hook_pid, git_pid = _in_hook(repo_ws, fake_llm, tmp_path, name="post-commit")
    os.killpg(os.getpgid(git_pid), signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        kill_group(proc)
    proc.wait(timeout=30)
    wait_for(lambda: not alive(hook_pid) and not alive(git_pid), "the hook and git to die")
    assert head(repo_ws) != before_head and (repo_ws / "memory/_staging/s1.json").exists()
    assert not (repo_ws / ".git/index.lock").exists()  # HEAD moved; the real index is still the old one
    hook.path.unlink()
    code, out = status_of(repo_ws)
    assert "completed the apply step" in out and code == 0, out
    assert f"committed {head(repo_ws)[:10]}" in out
    assert git(repo_ws, "status", "--porcelain").strip() == ""  # index, files and HEAD agree
    assert not (repo_ws / "memory/_staging/s1.json").exists() and (repo_ws / NEW).is_file()
    assert "status: replaced" in (repo_ws / OLD).read_text()


def test_git_child_killed_inside_hook(repo_ws, fake_llm, tmp_path):
    """SIGKILL to git alone: memcli ends the orphaned hook, rolls back and says so."""
    before, before_head = _files(repo_ws), head(repo_ws)
    proc, hook, hook_pid, git_pid = _in_hook(repo_ws, fake_llm, tmp_path)
    os.kill(git_pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "git commit failed (git was killed by signal 9)" in err and "Nothing was changed" in err
    wait_for(lambda: not alive(hook_pid), "the orphaned hook to be ended", timeout=30)
    assert not hook.release()
    _old_state(repo_ws, before, before_head)
    hook.path.unlink()
    _next_run_commits(repo_ws, fake_llm, before_head)


def test_kill_after_git_committed_is_completed_by_next_command(repo_ws, fake_llm):
    hook = repo_ws / ".git/hooks/pre-commit"
    # kill memcli (git's parent) and let git finish the commit: the journal still says "applying"
    hook.write_text("#!/bin/sh\nkill -9 $(awk '{print $4}' /proc/$PPID/stat)\nexit 0\n")
    hook.chmod(0o755)
    before_head = head(repo_ws)
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    proc = memcli(repo_ws, "consolidate")
    proc.wait(timeout=180)
    assert proc.returncode == -signal.SIGKILL
    wait_for(lambda: head(repo_ws) != before_head and not (repo_ws / ".git/index.lock").exists(),
             "git's commit")
    ws = Workspace.open(repo_ws)
    assert journal.journal_path(ws).exists() and (repo_ws / "memory/_staging/s1.json").exists()
    hook.unlink()
    code, out = status_of(repo_ws)
    assert "completed the apply step" in out and code == 0, out
    assert f"committed {head(repo_ws)[:10]}" in out  # the last run, as recovery found it
    assert not journal.journal_path(ws).exists() and not (repo_ws / "memory/_staging/s1.json").exists()
    assert "status: replaced" in (repo_ws / OLD).read_text() and (repo_ws / NEW).is_file()
    assert git(repo_ws, "status", "--porcelain").strip() == ""


def test_two_runs_at_once(repo_ws, fake_llm):
    before, before_head = _files(repo_ws), head(repo_ws)
    fake_llm.push(Reply(content="slow", delay=120))
    first = memcli(repo_ws, "consolidate")
    wait_for(lambda: fake_llm.calls >= 1, "the first run's model call")
    status = memcli(repo_ws, "status", "--json")
    data = json.loads(status.communicate(timeout=180)[0])
    assert data["lock"]["pid"] == first.pid and data["lock"]["alive"] is True
    assert data["lock"]["consumed"] == ["s1"]
    second = memcli(repo_ws, "consolidate")
    out, err = second.communicate(timeout=180)
    assert second.returncode == lock.EXIT_LOCKED
    assert f"another consolidation is running (pid {first.pid}" in err
    assert fake_llm.calls == 1  # the second run never reached the model
    kill_group(first)
    assert _files(repo_ws) == before and head(repo_ws) == before_head
