from __future__ import annotations

import contextlib
import os
import signal

import pytest
from consolidate.helpers import STARTED, configure, init_repo, write_staging

ITEMS = {
    "decisions": [{"title": "Job runner", "decision": "Move reminder jobs to a worker process",
                   "rationale": "jobs must survive restarts", "status": "resolved"}],
    "requests": [{"title": "Japanese", "request": "コミットメッセージは日本語で書いてよい"}],
}


@pytest.fixture
def repo_ws(example_ws):
    """The example workspace in a git repo, pointed at the fake model, with one staging file."""
    configure(example_ws)
    init_repo(example_ws)
    write_staging(example_ws, "s1", "sess-1", (4, 9), ITEMS)
    return example_ws


@pytest.fixture(autouse=True)
def _reap_memcli():
    """A failed assertion must not leave a memcli process running into the next test."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
