"""memcli's own headless agent runs: every run of a coding agent that memcli starts as its model
(memcli.llm.agentmodel) has MEMCLI_AGENT_RUN set, and memcli's hooks, at any scope, do nothing in
it, so memcli never captures, nor adds its context to, its own runs. Light: the hooks' start-up
paths read it. Each run works in a new folder of its own, named FOLDER_PREFIX + random letters, in
the temporary folder, removed after the run."""

from __future__ import annotations

import os

ENV = "MEMCLI_AGENT_RUN"
FOLDER_PREFIX = "memcli-agent-"


def own_run() -> bool:
    """Is this process inside an agent run memcli started as its model?"""
    return bool(os.environ.get(ENV))
