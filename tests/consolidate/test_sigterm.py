"""SIGTERM (a `timeout` ending a cron consolidation, a CI runner cancelling it) stops a run the way
Ctrl-C does: the workspace stays as it was, the lock and the scratch folder are let go, the run is
recorded, and memcli exits 143 with one line, instead of vanishing mid-run."""

from __future__ import annotations

import signal

from consolidate.helpers import head, memcli, snapshot, wait_for
from consolidate.test_run import NEW, done, replace_old, settle, write_new_decision
from support.fake_llm import Reply

from memcli import history
from memcli.consolidate import lock, scratch
from memcli.consolidate.run import Options, run
from memcli.workspace import Workspace


def test_sigterm_during_the_conversation_stops_cleanly_and_the_next_run_needs_no_reclaim(
        repo_ws, fake_llm) -> None:
    before, before_head = snapshot(repo_ws), head(repo_ws)
    fake_llm.push(write_new_decision(), Reply(content="thinking", delay=120))
    proc = memcli(repo_ws, "consolidate")
    wait_for(lambda: fake_llm.calls >= 2, "the second model call")
    proc.send_signal(signal.SIGTERM)  # to memcli alone, as `timeout` sends it
    out, err = proc.communicate(timeout=60)  # the model call in flight would hold it for 120 s
    assert proc.returncode == 143, (out, err)
    assert err.strip().splitlines()[-1] == "Terminated." and "Traceback" not in err
    ws = Workspace.open(repo_ws)
    assert snapshot(repo_ws) == before and head(repo_ws) == before_head  # no lock file left either
    assert lock.read_lock(ws) is None
    assert not scratch.scratch_root(ws).exists() or not any(scratch.scratch_root(ws).iterdir())
    last = history.last(ws, "consolidate")
    assert last is not None and last["result"] == "failed" and "Terminated" in last["error"]
    fake_llm.push(write_new_decision(), settle(), replace_old(), done())
    assert run(ws, Options()) == 0 and (repo_ws / NEW).is_file()
