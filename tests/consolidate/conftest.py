from __future__ import annotations

import pytest
from consolidate.helpers import configure, init_repo, write_staging

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
